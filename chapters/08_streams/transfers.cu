/* transfers.cu: host-device copy rates, pinned and pageable (transfers.h).
 *
 * A pageable copy goes through a driver buffer that is page-locked: the CPU copies a chunk
 * there, the GPU's copy engine reads it, and so on, so the call returns only when it is done
 * and cannot overlap a kernel. A pinned copy is read or written by the copy engine directly.
 * Copies both ways at once use two copy engines, but share the link and the host's memory, so
 * each may go slower than alone: a pipeline's steady state runs at that rate, and the ideal
 * (timeline.h), which counts each direction at its rate alone, stays out of its reach.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "harness.h"
#include "timing.h"
#include "transfers.h"

struct copy {
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind kind;
};

static void enqueue(void *context) {
    struct copy *c = (struct copy *)context;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, c->kind, 0));
}

static double rate(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, int reps) {
    struct copy c = {dst, src, bytes, kind};
    struct timing t = gpu_time(enqueue, &c, 2, reps);
    return effective_gbps((double)bytes, t.median_ms);
}

/* One copy each way at once, on two streams that start together; the legacy stream (which the
 * timer's events are on) waits for both. */
struct both_ways {
    void *d_up, *d_down, *h_up, *h_down;
    size_t bytes;
    cudaStream_t up, down;
    cudaEvent_t start, up_done, down_done;
};

static void enqueue_both(void *context) {
    struct both_ways *b = (struct both_ways *)context;
    CUDA_CHECK(cudaEventRecord(b->start, cudaStreamLegacy));
    CUDA_CHECK(cudaStreamWaitEvent(b->up, b->start, 0));
    CUDA_CHECK(cudaStreamWaitEvent(b->down, b->start, 0));
    CUDA_CHECK(cudaMemcpyAsync(b->d_up, b->h_up, b->bytes, cudaMemcpyHostToDevice, b->up));
    CUDA_CHECK(cudaMemcpyAsync(b->h_down, b->d_down, b->bytes, cudaMemcpyDeviceToHost, b->down));
    CUDA_CHECK(cudaEventRecord(b->up_done, b->up));
    CUDA_CHECK(cudaEventRecord(b->down_done, b->down));
    CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, b->up_done, 0));
    CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, b->down_done, 0));
}

/* Each direction's rate while the other copies too: bytes over the time both take. */
static double both_ways_rate(void *device, void *pinned, size_t bytes, int reps) {
    struct both_ways b;
    memset(&b, 0, sizeof b);
    b.d_up = device, b.d_down = (char *)device + bytes;
    b.h_up = pinned, b.h_down = (char *)pinned + bytes;
    b.bytes = bytes;
    CUDA_CHECK(cudaStreamCreateWithFlags(&b.up, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&b.down, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&b.start, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&b.up_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&b.down_done, cudaEventDisableTiming));
    struct timing t = gpu_time(enqueue_both, &b, 2, reps);
    CUDA_CHECK(cudaStreamDestroy(b.up));
    CUDA_CHECK(cudaStreamDestroy(b.down));
    CUDA_CHECK(cudaEventDestroy(b.start));
    CUDA_CHECK(cudaEventDestroy(b.up_done));
    CUDA_CHECK(cudaEventDestroy(b.down_done));
    return effective_gbps((double)bytes, t.median_ms);
}

struct pinning {
    size_t bytes;
};

static void pin_and_free(void *context) {
    const struct pinning *p = (const struct pinning *)context;
    void *h;
    CUDA_CHECK(cudaHostAlloc(&h, p->bytes, cudaHostAllocDefault));
    CUDA_CHECK(cudaFreeHost(h));
}

void transfer_rates_measure(size_t bytes, int reps, struct transfer_rates *r) {
    memset(r, 0, sizeof *r);
    r->bytes = bytes;
    void *device = device_malloc(bytes, "the transfer-rate buffer");
    void *pinned;
    CUDA_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
    void *pageable = host_malloc(bytes, "the transfer-rate buffer");
    memset(pinned, 0x3f, bytes); /* real pages, not untouched ones */
    memset(pageable, 0x3f, bytes);
    CUDA_CHECK(cudaMemset(device, 0x3f, bytes));
    r->pinned_h2d = rate(device, pinned, bytes, cudaMemcpyHostToDevice, reps);
    r->pinned_d2h = rate(pinned, device, bytes, cudaMemcpyDeviceToHost, reps);
    r->pageable_h2d = rate(device, pageable, bytes, cudaMemcpyHostToDevice, reps);
    r->pageable_d2h = rate(pageable, device, bytes, cudaMemcpyDeviceToHost, reps);
    r->pinned_both = both_ways_rate(device, pinned, bytes / 2, reps); /* halves of the buffers */
    struct pinning p = {bytes};
    r->pin_ms = host_time(pin_and_free, &p, 3).median_ms;
    free(pageable);
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(device));
}

struct link_rates transfer_link(const struct transfer_rates *r) {
    struct link_rates link = {r->pinned_h2d, r->pinned_d2h};
    return link;
}

void link_probe_open(struct link_probe *p, void *device_up, void *device_down,
                     void *pinned_up, void *pinned_down, size_t bytes) {
    memset(p, 0, sizeof *p);
    p->device_up = device_up, p->device_down = device_down;
    p->pinned_up = pinned_up, p->pinned_down = pinned_down;
    p->bytes = bytes;
    CUDA_CHECK(cudaEventCreate(&p->start));
    CUDA_CHECK(cudaEventCreate(&p->stop));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->go, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->up_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->down_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->up, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->down, cudaStreamNonBlocking));
}

/* `enqueue` once between two events on the legacy stream: `bytes` over its time, in GB/s. */
static double probe_rate(struct link_probe *p, void (*enqueue)(void *), void *context) {
    CUDA_CHECK(cudaEventRecord(p->start, cudaStreamLegacy));
    enqueue(context);
    CUDA_CHECK(cudaEventRecord(p->stop, cudaStreamLegacy));
    CUDA_CHECK(cudaEventSynchronize(p->stop));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, p->start, p->stop));
    return effective_gbps((double)p->bytes, ms);
}

struct link_sample link_probe_sample(struct link_probe *p) {
    struct link_sample sample;
    struct copy up = {p->device_up, p->pinned_up, p->bytes, cudaMemcpyHostToDevice};
    struct copy down = {p->pinned_down, p->device_down, p->bytes, cudaMemcpyDeviceToHost};
    sample.alone.up = probe_rate(p, enqueue, &up);
    sample.alone.down = probe_rate(p, enqueue, &down);
    struct both_ways b = {p->device_up, p->device_down, p->pinned_up, p->pinned_down, p->bytes,
                          p->up, p->down, p->go, p->up_done, p->down_done};
    sample.both = probe_rate(p, enqueue_both, &b);
    return sample;
}

void link_probe_close(struct link_probe *p) {
    const cudaEvent_t events[5] = {p->start, p->stop, p->go, p->up_done, p->down_done};
    for (int k = 0; k < 5; ++k)
        CUDA_CHECK(cudaEventDestroy(events[k]));
    CUDA_CHECK(cudaStreamDestroy(p->up));
    CUDA_CHECK(cudaStreamDestroy(p->down));
    memset(p, 0, sizeof *p);
}
