/* slab_trade.c: the halo trade for local communicators, NCCL's for the rest (slab_trade.h).
 *
 * A local communicator is one entry of `locals`: its slab's rank and device. A group collects
 * the calls on local communicators in `pending`; its end pairs them and queues the copies. One
 * thread drives the trade, as it drives the engine.
 */
#define SLAB_TRADE_IMPLEMENTATION
#include "slab_trade.h"

#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "slabs.h"

struct ncclComm; /* NCCL's, opaque; a local communicator points into `locals` instead */

static struct local_comm {
    int rank, device, count;
} locals[SLABS_MAX];
static int local_count;

struct call {
    int send; /* 1: a send, 0: a receive */
    const struct local_comm *comm;
    int peer;
    void *buffer;
    size_t bytes;
    cudaStream_t stream;
};
static struct call pending[4 * SLABS_MAX];
static int pending_count, group_depth;
static char failure[256]; /* why the last local call failed */

static const struct local_comm *local_of(ncclComm_t comm) {
    for (int k = 0; k < local_count; ++k)
        if ((const void *)comm == (const void *)&locals[k]) return &locals[k];
    return NULL;
}

static ncclResult_t refuse(ncclResult_t result, const char *why) {
    snprintf(failure, sizeof failure, "%s", why);
    return result;
}

void slab_trade_local_comms(ncclComm_t *comms, int count, const int *devices) {
    if (count > SLABS_MAX) wb_die(1, "slab_trade_local_comms: %d slabs", count);
    local_count = count;
    for (int g = 0; g < count; ++g) {
        locals[g] = (struct local_comm){.rank = g, .device = devices[g], .count = count};
        comms[g] = (ncclComm_t)(void *)&locals[g];
    }
}

void slab_trade_release(void) {
    local_count = 0;
}

ncclResult_t slab_trade_group_start(void) {
    ++group_depth;
#ifdef WB_HAVE_NCCL
    return ncclGroupStart();
#else
    return ncclSuccess;
#endif
}

static size_t type_size(ncclDataType_t type) {
    switch (type) {
    case ncclInt8: return 1;
    case ncclInt32: return 4;
    case ncclFloat32: return 4;
    default: return 0;
    }
}

static ncclResult_t collect(int send, void *buffer, size_t count, ncclDataType_t type, int peer,
                            const struct local_comm *comm, cudaStream_t stream) {
    const char *what = send ? "ncclSend" : "ncclRecv";
    if (!group_depth)
        return refuse(ncclInvalidUsage, send ? "an ncclSend outside ncclGroupStart/ncclGroupEnd: "
                      "with one thread driving several slabs, NCCL would wait forever here"
                      : "an ncclRecv outside ncclGroupStart/ncclGroupEnd: with one thread driving "
                      "several slabs, NCCL would wait forever here");
    if (peer < 0 || peer >= comm->count || peer == comm->rank) {
        snprintf(failure, sizeof failure, "%s from slab %d names peer %d (slabs 0 to %d)", what,
                 comm->rank, peer, comm->count - 1);
        return ncclInvalidArgument;
    }
    if (!type_size(type)) return refuse(ncclInvalidArgument, "a data type the trade does not move");
    if (pending_count == (int)(sizeof pending / sizeof pending[0]))
        return refuse(ncclInvalidUsage, "more sends and receives in one group than slabs can need");
    pending[pending_count++] = (struct call){send, comm, peer, buffer, count * type_size(type),
                                             stream};
    return ncclSuccess;
}

ncclResult_t slab_trade_send(const void *buffer, size_t count, ncclDataType_t type, int peer,
                             ncclComm_t comm, cudaStream_t stream) {
    const struct local_comm *local = local_of(comm);
#ifdef WB_HAVE_NCCL
    if (!local) return ncclSend(buffer, count, type, peer, comm, stream);
#endif
    if (!local) return refuse(ncclInvalidArgument, "a communicator the trade did not make");
    return collect(1, (void *)buffer, count, type, peer, local, stream);
}

ncclResult_t slab_trade_recv(void *buffer, size_t count, ncclDataType_t type, int peer,
                             ncclComm_t comm, cudaStream_t stream) {
    const struct local_comm *local = local_of(comm);
#ifdef WB_HAVE_NCCL
    if (!local) return ncclRecv(buffer, count, type, peer, comm, stream);
#endif
    if (!local) return refuse(ncclInvalidArgument, "a communicator the trade did not make");
    return collect(0, buffer, count, type, peer, local, stream);
}

/* `later` waits for what `earlier` (on `device`) has queued so far. */
static void stream_waits(cudaStream_t later, cudaStream_t earlier, int device) {
    cudaEvent_t mark;
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaEventCreateWithFlags(&mark, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(mark, earlier));
    CUDA_CHECK(cudaStreamWaitEvent(later, mark, 0));
    CUDA_CHECK(cudaEventDestroy(mark)); /* released once the wait is over */
}

/* Pairs each send with its peer's first unpaired receive from the sender; queues the copies. */
static ncclResult_t trade_pending(void) {
    int paired[4 * SLABS_MAX] = {0};
    for (int s = 0; s < pending_count; ++s) {
        const struct call *send = &pending[s];
        if (!send->send) continue;
        int r = 0;
        while (r < pending_count && (paired[r] || pending[r].send ||
                                     pending[r].comm->rank != send->peer ||
                                     pending[r].peer != send->comm->rank))
            ++r;
        if (r == pending_count) {
            snprintf(failure, sizeof failure, "slab %d sends %zu bytes to slab %d, which receives "
                     "nothing from it in this group (NCCL would wait forever)", send->comm->rank,
                     send->bytes, send->peer);
            return ncclInvalidUsage;
        }
        const struct call *recv = &pending[r];
        if (recv->bytes != send->bytes) {
            snprintf(failure, sizeof failure, "slab %d sends %zu bytes to slab %d, which receives "
                     "%zu", send->comm->rank, send->bytes, send->peer, recv->bytes);
            return ncclInvalidUsage;
        }
        paired[s] = paired[r] = 1;
        stream_waits(recv->stream, send->stream, send->comm->device);
        CUDA_CHECK(cudaSetDevice(recv->comm->device));
        CUDA_CHECK(cudaMemcpyPeerAsync(recv->buffer, recv->comm->device, send->buffer,
                                       send->comm->device, send->bytes, recv->stream));
        stream_waits(send->stream, recv->stream, recv->comm->device);
    }
    for (int r = 0; r < pending_count; ++r)
        if (!paired[r]) {
            snprintf(failure, sizeof failure, "slab %d receives %zu bytes from slab %d, which "
                     "sends it nothing in this group (NCCL would wait forever)",
                     pending[r].comm->rank, pending[r].bytes, pending[r].peer);
            return ncclInvalidUsage;
        }
    return ncclSuccess;
}

ncclResult_t slab_trade_group_end(void) {
    if (!group_depth) return refuse(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    ncclResult_t result = ncclSuccess;
    if (--group_depth == 0 && pending_count) {
        int device;
        CUDA_CHECK(cudaGetDevice(&device));
        result = trade_pending();
        pending_count = 0;
        CUDA_CHECK(cudaSetDevice(device));
    }
#ifdef WB_HAVE_NCCL
    const ncclResult_t theirs = ncclGroupEnd();
    if (result == ncclSuccess) result = theirs;
#endif
    return result;
}

const char *slab_trade_error_string(ncclResult_t result) {
    if (failure[0]) return failure;
#ifdef WB_HAVE_NCCL
    return ncclGetErrorString(result);
#else
    return result == ncclSuccess ? "no error" : "error";
#endif
}
