/* slab_trade.h: NCCL's group, send and receive for the halo trade, served by the workbook itself
 * where NCCL cannot serve them, so that one GPU is enough to check chapter 10's exercise.
 *
 * NCCL takes one rank per GPU: two slabs on one GPU cannot share a communicator, and a build
 * without NCCL has none. The engine then makes local communicators (slab_trade_local_comms) for
 * slabs that one process drives, on any GPUs, one GPU included. exchange.cu calls ncclGroupStart,
 * ncclSend, ncclRecv and ncclGroupEnd as it would with NCCL; below, those four names (and
 * ncclGetErrorString) lead to slab_trade's functions, which pass a real communicator on to NCCL
 * and serve a local one here:
 *
 *   in a group     sends and receives are collected; a call outside one is refused (with one
 *                  thread driving several slabs, NCCL would wait forever there)
 *   at its end     each send is paired with its peer's receive, in the order issued, and must
 *                  move as many floats; the receiver's stream waits for the sender's, copies the
 *                  rows (GPU to GPU, or within one GPU), and the sender's stream waits for the
 *                  copy: the order NCCL gives, on the same streams
 *   a mismatch     (a send nobody receives, two sizes) is an error naming both slabs, where NCCL
 *                  would hang
 *
 * Without NCCL this header declares the part of nccl.h that the trade uses.
 */
#ifndef SLAB_TRADE_H
#define SLAB_TRADE_H

#include <stddef.h>

#include <cuda_runtime.h>
#ifdef WB_HAVE_NCCL
#include <nccl.h>
#else
typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5
} ncclResult_t;
typedef enum { ncclInt8 = 0, ncclInt32 = 2, ncclFloat32 = 7, ncclFloat = 7 } ncclDataType_t;
typedef struct ncclComm *ncclComm_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* count communicators for slabs 0 .. count-1 of this process, slab g on devices[g] (devices may
 * repeat); they last until slab_trade_release. */
void slab_trade_local_comms(ncclComm_t *comms, int count, const int *devices);
void slab_trade_release(void);

ncclResult_t slab_trade_group_start(void);
ncclResult_t slab_trade_group_end(void);
ncclResult_t slab_trade_send(const void *buffer, size_t count, ncclDataType_t type, int peer,
                             ncclComm_t comm, cudaStream_t stream);
ncclResult_t slab_trade_recv(void *buffer, size_t count, ncclDataType_t type, int peer,
                             ncclComm_t comm, cudaStream_t stream);
/* NCCL's text for a result, or, for a local communicator's error, what went wrong. */
const char *slab_trade_error_string(ncclResult_t result);

#ifdef __cplusplus
}
#endif

#ifndef SLAB_TRADE_IMPLEMENTATION /* slab_trade.c reaches NCCL's own */
#define ncclGroupStart slab_trade_group_start
#define ncclGroupEnd slab_trade_group_end
#define ncclSend slab_trade_send
#define ncclRecv slab_trade_recv
#define ncclGetErrorString slab_trade_error_string
#endif
#endif
