/* transfers.h: how fast this machine moves data between host and GPU (chapter 08), measured in
 * the same run as the pipelines they bound.
 *
 *   transfer_rates_measure   host-to-device and device-to-host, from pinned and from pageable
 *                            memory, pinned both ways at once, and what page-locking the
 *                            memory costs
 *   transfer_link            the pinned rates as the pipeline model takes them (timeline.h)
 *   link_probe_*             one pinned copy each way alone and one pair both ways at once,
 *                            timed: samples taken between the runs they bound, so the ideal
 *                            follows a link whose speed drifts
 */
#ifndef TRANSFERS_H
#define TRANSFERS_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

struct transfer_rates {
    size_t bytes;                         /* each copy's size */
    double pinned_h2d, pinned_d2h;        /* GB/s (1e9 bytes/s), medians */
    double pageable_h2d, pageable_d2h;
    double pinned_both;                   /* each way, while the other way copies too */
    double pin_ms;                        /* cudaHostAlloc + cudaFreeHost of `bytes`, median */
};

/* Copies of `bytes`, `reps` times each (after a warm-up), timed with events. */
void transfer_rates_measure(size_t bytes, int reps, struct transfer_rates *rates);
struct link_rates transfer_link(const struct transfer_rates *rates);

/* Borrowed buffers of `bytes` each (a pinned source and a GPU target for the upload, a GPU
 * source and a pinned target for the download: the caller's, which the probe overwrites), its own
 * streams and events; a sample waits for the GPU. */
struct link_probe {
    void *device_up, *device_down, *pinned_up, *pinned_down;
    size_t bytes;
    cudaStream_t up, down;
    cudaEvent_t start, stop, go, up_done, down_done;
};
struct link_sample {
    struct link_rates alone; /* each direction alone */
    double both;             /* each direction while the other copies too */
};
void link_probe_open(struct link_probe *probe, void *device_up, void *device_down,
                     void *pinned_up, void *pinned_down, size_t bytes);
struct link_sample link_probe_sample(struct link_probe *probe);
void link_probe_close(struct link_probe *probe);

#ifdef __cplusplus
}
#endif
#endif
