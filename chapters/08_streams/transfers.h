/* transfers.h: how fast this machine moves data between host and GPU (chapter 08), measured in
 * the same run as the pipelines they bound.
 *
 *   transfer_rates_measure   host-to-device and device-to-host, from pinned and from pageable
 *                            memory, pinned both ways at once, and what page-locking the
 *                            memory costs
 *   transfer_link            the pinned rates as the pipeline model takes them (timeline.h)
 */
#ifndef TRANSFERS_H
#define TRANSFERS_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif
#endif
