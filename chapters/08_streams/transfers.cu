/* transfers.cu: host-device copy rates, pinned and pageable (transfers.h).
 *
 * A pageable copy goes through a driver buffer that is page-locked: the CPU copies a chunk
 * there, the GPU's copy engine reads it, and so on, so the call returns only when it is done
 * and cannot overlap a kernel. A pinned copy is read or written by the copy engine directly.
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
    struct pinning p = {bytes};
    r->pin_ms = host_time(pin_and_free, &p, 3).median_ms;
    free(pageable);
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(device));
}
