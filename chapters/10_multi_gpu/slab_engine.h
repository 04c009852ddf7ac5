/* slab_engine.h: chapter 10's engine, one image in horizontal slabs over several GPUs, a mask
 * applied K times, the halo rows traded through NCCL between passes.
 *
 *   slab_engine_open     the slabs (slabs.h), one per GPU: buffers, streams, events, NCCL
 *   slab_engine_set_mask the mask, into every GPU's constant memory
 *   slab_engine_scatter  the image from host memory into the slabs (halo rows included)
 *   slab_engine_run      K passes in one of four modes (below)
 *   slab_engine_gather   the slabs' rows back into one host image
 *   slab_engine_close
 *
 * A slab keeps two buffers of halo_above + rows + halo_below rows (the same pitch everywhere); a
 * pass reads one and writes the other's owned rows. OVERLAPPED, per pass: the interior rows on
 * the compute stream at once, the halo trade on the comm stream meanwhile (exchange.cu, your
 * exercise), and the edge rows on the edge stream once the halo has arrived, while the interior
 * still runs; the compute stream waits for them before the next pass. SERIAL trades first and
 * computes all rows after. EXCHANGE_ONLY, COMPUTE_ONLY and SPLIT_ONLY leave part of the work out
 * (wrong results, right times): the exchange's own time, the compute's in one kernel and in
 * OVERLAPPED's kernels and streams, for the share of the exchange the overlap hides and what
 * splitting the rows costs.
 *
 * One process may drive every slab (ncclCommInitAll: `local` slabs here, all of them, one a
 * GPU) or one GPU of many processes (ncclCommInitRank: one slab here, rank and world from the
 * launcher, see ranks.h). Where one process's slabs share a GPU, or the build has no NCCL, the
 * trade goes through the workbook's local communicators instead (slab_trade.h): one GPU is
 * enough for several slabs.
 */
#ifndef SLAB_ENGINE_H
#define SLAB_ENGINE_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "slab_trade.h" /* NCCL's calls, or the workbook's where NCCL cannot serve the slabs */
#include "slabs.h"
#include "workbook.h"

/* An NCCL call; on failure the call's text, where, NCCL's reason, and exit 1. */
#define NCCL_CHECK(expr)                                                                           \
    do {                                                                                           \
        ncclResult_t nccl_status_ = (expr);                                                        \
        if (nccl_status_ != ncclSuccess)                                                           \
            wb_die(1, "%s failed at %s:%d: %s", #expr, __FILE__, __LINE__,                         \
                   ncclGetErrorString(nccl_status_));                                              \
    } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* The largest mask side the pass kernel takes: an iterated filter repeats a small mask (K passes
 * of a 5x5 blur reach as far as one pass of a (4K+1)-wide one). */
#define SLAB_MAX_SIDE 15

enum slab_mode {
    SLAB_OVERLAPPED,    /* interior, trade beside it, edges after the halo: the real thing */
    SLAB_SERIAL,        /* trade, then every row */
    SLAB_EXCHANGE_ONLY, /* timing: the trade alone */
    SLAB_COMPUTE_ONLY,  /* timing: every row in one kernel, no trade */
    SLAB_SPLIT_ONLY     /* timing: OVERLAPPED's kernels and streams, no trade */
};

/* One slab on one GPU. Buffer row r holds image row slab.first - slab.halo_above + r. */
struct slab_gpu {
    int device;            /* the CUDA device */
    int rank;              /* the slab's index, top to bottom: its NCCL rank */
    int above, below;      /* the neighbouring slabs' ranks, -1 at the image's top or bottom */
    struct slab slab;      /* rows owned and received (slabs.h) */
    int reach_above;       /* mask_h / 2: rows the slab below needs of this one's last rows */
    int reach_below;       /* mask_h - 1 - mask_h / 2: rows the slab above needs of its first */
    int width;
    size_t pitch;          /* bytes from one buffer row to the next, equal on every GPU */
    float *buffer[2];
    cudaStream_t compute;  /* the interior rows (all rows in SERIAL and COMPUTE_ONLY) */
    cudaStream_t comm;     /* the halo trade (the highest priority, as edge) */
    cudaStream_t edge;     /* the edge rows, once the halo is in */
    cudaEvent_t pass_done;    /* on compute, after a pass's last kernel */
    cudaEvent_t halo_arrived; /* on comm, after the trade */
    cudaEvent_t edges_done;   /* on edge, after the edge rows */
    ncclComm_t nccl;          /* NCCL's, or a local one (slab_trade.h) */
};

struct slab_engine {
    struct slab_gpu gpus[SLABS_MAX]; /* this process's slabs: gpus[0..local-1] */
    int local;                       /* slabs driven by this process */
    int count;                       /* slabs in all (every process's) */
    int width, height, mask_w, mask_h;
    int current;                     /* which buffer holds the latest pass's result */
    float *staging;                  /* one process per GPU: a slab's rows on their way */
    /* the halo trade the passes call: exchange_halos, or the reference's when grading */
    void (*exchange)(struct slab_gpu *gpus, int local, int current);
    /* tests: each comm stream is held this long before each trade (WB_SLABS_HALO_DELAY_US), so
     * that edge rows which do not wait for the halo read it before it comes, every time; each
     * compute stream before each pass (WB_SLABS_COMPUTE_DELAY_US), so that a trade which does
     * not wait for the last pass, or waits for another slab's, sends rows before that pass has
     * written them. Slab k of n is held k + 1 times as long in even passes, n - k in odd ones:
     * the rows a slab sends are copied once its neighbour's pass is done too, so only a
     * neighbour held less shows a missing wait, and each slab has one in one pass or the next */
    unsigned long long halo_delay_ns, compute_delay_ns;
};

/* Before any NCCL call: NCCL's kernels limited to one block (NCCL_MAX_CTAS=1) and NVLink SHARP
 * off (NCCL_NVLS_ENABLE=0), each unless the environment already sets it. */
void slab_engine_nccl_defaults(void);
/* Slabs of a width x height image for a mask of mask_h rows. devices[0..local-1]: the GPUs this
 * process drives; count: slabs in all; first_rank: the rank of devices[0] (0 with one process;
 * the process's rank with one process per GPU, local = 1). unique_id: NCCL's id, shared by every
 * process (NULL with one process). Exits 2 with a line when the image cannot be cut that way. */
void slab_engine_open(struct slab_engine *e, int width, int height, int mask_w, int mask_h,
                      const int *devices, int local, int count, int first_rank,
                      const void *unique_id);
void slab_engine_set_mask(struct slab_engine *e, const float *mask);
/* image: width x height floats, rows host_pitch bytes apart; every process passes the whole
 * image and each copies its own slabs' rows, not their halo: that comes by the first exchange. */
void slab_engine_scatter(struct slab_engine *e, const float *image, size_t host_pitch);
/* K passes; returns when they are queued (slab_engine_sync waits). */
void slab_engine_run(struct slab_engine *e, int passes, enum slab_mode mode);
void slab_engine_sync(struct slab_engine *e);
/* Every slab's owned rows of the latest result into out (every process gets the whole image). */
void slab_engine_gather(struct slab_engine *e, float *out, size_t host_pitch);
/* K passes timed: milliseconds from the first pass's start to the last one's end on any GPU
 * (CUDA events with one process; the wall clock between two NCCL barriers with several). */
double slab_engine_time(struct slab_engine *e, int passes, enum slab_mode mode);
/* NCCL's rate for the halo's message: GB/s of one slab's send and receive to a neighbour,
 * `rows` rows each way (median of reps, wall clock around the group, its milliseconds in *ms);
 * 0 with a single slab. */
double slab_engine_halo_gbps(struct slab_engine *e, int rows, int reps, double *ms);
/* Frees the slabs; the NCCL communicators stay for the next engine of the same GPUs. */
void slab_engine_close(struct slab_engine *e);
/* At the end of the program: destroys every communicator made. */
void slab_engine_release_communicators(void);

/* The exercise (exercises/10_multi_gpu/exchange.cu): trade the halo rows of buffer `current`
 * between neighbouring slabs. For each of gpus[0..local-1]: after the pass that wrote its rows,
 * on its comm stream, send the rows each neighbour needs and receive its own halo rows, all in
 * one NCCL group; then record halo_arrived and make the edge stream wait for it. */
void exchange_halos(struct slab_gpu *gpus, int local, int current);

#ifdef __cplusplus
}
#endif
#endif
