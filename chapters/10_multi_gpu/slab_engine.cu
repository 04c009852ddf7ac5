/* slab_engine.cu: the slabs, their passes and their timing (slab_engine.h).
 *
 *   kernel     slab_pass_kernel: rows [first, first + rows) of a slab's buffer, every column
 *              (compiled for 3x3, 5x5 and 7x7, any other size read at run time);
 *              inputs from the buffer's rows (zeros above row 0 and below its last: the image's
 *              ghost cells, since a slab at the image's edge has no halo there), an output tile
 *              from a shared-memory tile with its halo, four rows per thread: 32 x 32 for the
 *              interior, 128 x 8 for the few edge rows (a 32 x 32 tile there would compute 2 of
 *              its 32 rows, and its blocks, four times as many, take the interior's SMs)
 *   passes     per pass and mode, which kernels run on which stream after which event
 *   NCCL       its kernel's blocks, communicators (one process: ncclCommInitAll, or local
 *              ones where slabs share a GPU or NCCL is missing, slab_trade.h; one per GPU:
 *              ncclCommInitRank), the gather of every slab's rows to every process, the halo's
 *              bandwidth
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "hold_stream.cuh"
#include "slab_engine.h"
#include "timing.h"
#include "workbook.h"


/* Output tiles: TX x TY outputs from a block of TX x (TY / ROWS_PER_THREAD) threads. */
enum { ROWS_PER_THREAD = 4, WIDE_ROWS = 8 /* rows a launch may have for the wide tile */ };
struct square_tile { enum { TX = 32, TY = 32 }; };
struct wide_tile { enum { TX = 128, TY = WIDE_ROWS }; };

static __constant__ float c_slab_mask[SLAB_MAX_SIDE * SLAB_MAX_SIDE];

/* ---- the pass kernel ------------------------------------------------------------------------ */

/* MW, MH: the mask's size when known at compile time (the common squares: every loop over the
 * taps unrolls, the weights come from the constant bank), 0 when read at run time. Tile: its
 * output size, square_tile or wide_tile. */
template <int MW, int MH, class Tile>
__global__ void slab_pass_kernel(const float *in, float *out, size_t pitch, int width,
                                 int buffer_rows, int first, int rows, int run_w, int run_h) {
    enum { TILE_X = Tile::TX, TILE_Y = Tile::TY, THREADS_Y = TILE_Y / ROWS_PER_THREAD };
    __shared__ float tile[(TILE_Y + SLAB_MAX_SIDE - 1) * (TILE_X + SLAB_MAX_SIDE - 1)];
    const int mask_w = MW ? MW : run_w, mask_h = MH ? MH : run_h;
    const int x0 = blockIdx.x * TILE_X, y0 = first + blockIdx.y * TILE_Y;
    /* a tile's rows, fewer than TILE_Y in the last one (the edge rows: 2 of 8 at 5x5) */
    const int tile_rows = min(TILE_Y, first + rows - y0);
    const int span_x = TILE_X + mask_w - 1, span_y = tile_rows + mask_h - 1;
    const int left = mask_w / 2, up = mask_h / 2, last_read = first + rows + mask_h - 1 - up;
    const int thread = threadIdx.y * TILE_X + threadIdx.x, threads = TILE_X * THREADS_Y;
    for (int k = thread; k < span_x * span_y; k += threads) {
        const int ty = k / span_x, tx = k % span_x;
        const int y = y0 - up + ty, x = x0 - left + tx;
        float value = 0.0f;
        /* never past the rows these outputs read: the halo beyond may be arriving meanwhile */
        if (y >= 0 && y < buffer_rows && y < last_read && x >= 0 && x < width)
            value = ((const float *)((const char *)in + (size_t)y * pitch))[x];
        tile[ty * span_x + tx] = value;
    }
    __syncthreads();
    const int x = x0 + threadIdx.x;
    if (x >= width) return;
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r) {
        const int ty = threadIdx.y + r * THREADS_Y, y = y0 + ty;
        if (y >= first + rows) break;
        const float *window = tile + ty * span_x + threadIdx.x;
        float sum = 0.0f;
        if constexpr (MW > 0 && MH > 0) {
#pragma unroll
            for (int i = 0; i < MH; ++i)
#pragma unroll
                for (int j = 0; j < MW; ++j)
                    sum = fmaf(c_slab_mask[i * MW + j], window[i * span_x + j], sum);
        } else {
            for (int i = 0; i < mask_h; ++i)
                for (int j = 0; j < mask_w; ++j)
                    sum = fmaf(c_slab_mask[i * mask_w + j], window[i * span_x + j], sum);
        }
        ((float *)((char *)out + (size_t)y * pitch))[x] = sum;
    }
}

/* Buffer rows [first, first + rows) of slab g into the other buffer, on `stream`. */
static void compute_rows(const struct slab_engine *e, const struct slab_gpu *g, int first,
                         int rows, cudaStream_t stream) {
    if (rows < 1) return;
    const struct slab *b = &g->slab;
    const int buffer_rows = b->halo_above + b->rows + b->halo_below;
    const float *in = g->buffer[e->current];
    float *out = g->buffer[1 - e->current];
#define SLAB_LAUNCH(w, h, T)                                                                       \
    slab_pass_kernel<w, h, T><<<dim3((g->width + T::TX - 1) / T::TX, (rows + T::TY - 1) / T::TY), \
                                dim3(T::TX, T::TY / ROWS_PER_THREAD), 0, stream>>>(                \
        in, out, g->pitch, g->width, buffer_rows, first, rows, e->mask_w, e->mask_h)
#define SLAB_PASS(w, h)                                                                            \
    if (rows <= WIDE_ROWS)                                                                         \
        SLAB_LAUNCH(w, h, wide_tile);                                                              \
    else                                                                                           \
        SLAB_LAUNCH(w, h, square_tile)
    if (e->mask_w == 3 && e->mask_h == 3) {
        SLAB_PASS(3, 3);
    } else if (e->mask_w == 5 && e->mask_h == 5) {
        SLAB_PASS(5, 5);
    } else if (e->mask_w == 7 && e->mask_h == 7) {
        SLAB_PASS(7, 7);
    } else {
        SLAB_PASS(0, 0);
    }
#undef SLAB_LAUNCH
#undef SLAB_PASS
    CUDA_CHECK_LAUNCH();
}

/* ---- communicators: made once per set of GPUs, kept to the end ----------------------------- */

void slab_engine_nccl_defaults(void) {
    /* One block for NCCL's kernel: a halo of a few rows travels about as fast in one, and every
     * block NCCL takes spins on an SM the interior could use (less of the trade showed: the
     * lesson's Deeper, "One block for NCCL"). NCCL reads the variable when it makes a
     * communicator; a value the user set stays. */
#ifdef WB_HAVE_NCCL
    setenv("NCCL_MAX_CTAS", "1", 0);
    /* No NVLink SHARP (multicast through an NVSwitch): it serves collectives, and the halo goes
     * by send and receive; the two collectives here (a gather's broadcasts, a barrier of one
     * float) are small. Off, no communicator sets up multicast memory. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
#endif
}

#ifdef WB_HAVE_NCCL
/* 1 when two slabs of this process share a GPU: NCCL takes one rank a GPU. */
static int devices_repeat(const int *devices, int local) {
    for (int a = 0; a < local; ++a)
        for (int b = a + 1; b < local; ++b)
            if (devices[a] == devices[b]) return 1;
    return 0;
}

/* A unique id serves one ncclCommInitRank per process (its bootstrap root then closes), and
 * ncclCommInitAll takes a while: every engine of the same GPUs borrows the same communicators. */
static struct {
    int made;
    ncclComm_t comms[SLABS_MAX];
} one_process[SLABS_MAX + 1]; /* by GPU count */
static struct {
    int made;
    ncclComm_t comm;
} per_gpu;
#endif

static void communicators(struct slab_engine *e, const int *devices, int local, int count,
                          int first_rank, const void *unique_id) {
    ncclComm_t comms[SLABS_MAX];
#ifdef WB_HAVE_NCCL
    if (!unique_id && devices_repeat(devices, local)) {
#endif
        slab_trade_local_comms(comms, count, devices); /* a new set: the last engine's are done */
        for (int g = 0; g < local; ++g)
            e->gpus[g].nccl = comms[g];
        (void)first_rank, (void)unique_id;
        return;
#ifdef WB_HAVE_NCCL
    }
    if (unique_id) {
        if (!per_gpu.made) {
            ncclUniqueId id;
            memcpy(&id, unique_id, sizeof id);
            CUDA_CHECK(cudaSetDevice(devices[0]));
            NCCL_CHECK(ncclCommInitRank(&per_gpu.comm, count, id, first_rank));
            per_gpu.made = 1;
        }
        e->gpus[0].nccl = per_gpu.comm;
        return;
    }
    if (!one_process[count].made) {
        NCCL_CHECK(ncclCommInitAll(one_process[count].comms, count, devices));
        one_process[count].made = 1;
    }
    for (int g = 0; g < local; ++g)
        e->gpus[g].nccl = one_process[count].comms[g];
#endif
}

void slab_engine_release_communicators(void) {
#ifdef WB_HAVE_NCCL
    for (int count = 0; count <= SLABS_MAX; ++count)
        if (one_process[count].made) {
            for (int g = 0; g < count; ++g)
                NCCL_CHECK(ncclCommDestroy(one_process[count].comms[g]));
            one_process[count].made = 0;
        }
    if (per_gpu.made) NCCL_CHECK(ncclCommDestroy(per_gpu.comm));
    per_gpu.made = 0;
#endif
    slab_trade_release();
}

/* ---- opening and closing -------------------------------------------------------------------- */

void slab_engine_open(struct slab_engine *e, int width, int height, int mask_w, int mask_h,
                      const int *devices, int local, int count, int first_rank,
                      const void *unique_id) {
    memset(e, 0, sizeof *e);
    if (mask_w < 1 || mask_h < 1 || mask_w > SLAB_MAX_SIDE || mask_h > SLAB_MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "a %dx%d mask: the slab kernel takes 1 to %d a side", mask_w, mask_h,
               SLAB_MAX_SIDE);
    struct slab plan[SLABS_MAX];
    char err[256];
    if (slabs_plan(height, count, mask_h, plan, err)) wb_die(WB_EXIT_USAGE, "%s", err);
    e->local = local, e->count = count, e->width = width, e->height = height;
    e->mask_w = mask_w, e->mask_h = mask_h;
    e->exchange = exchange_halos;
    /* one pitch for every GPU, so that a row is the same number of floats everywhere */
    const size_t pitch = ((size_t)width * sizeof(float) + 511) / 512 * 512;
    for (int g = 0; g < local; ++g) {
        struct slab_gpu *s = &e->gpus[g];
        s->device = devices[g];
        s->rank = first_rank + g;
        s->above = s->rank > 0 ? s->rank - 1 : -1;
        s->below = s->rank < count - 1 ? s->rank + 1 : -1;
        s->slab = plan[s->rank];
        s->reach_above = mask_h / 2, s->reach_below = mask_h - 1 - mask_h / 2;
        s->width = width, s->pitch = pitch;
        const size_t bytes = pitch * (size_t)(s->slab.halo_above + s->slab.rows +
                                              s->slab.halo_below);
        CUDA_CHECK(cudaSetDevice(s->device));
        /* The comm and edge streams at the highest priority: NCCL's kernel and the edge rows
         * are launched while the interior's blocks fill the GPU, and the block scheduler starts
         * theirs first instead of after every waiting interior block. At the interior's
         * priority a little less of the trade showed on two GPUs, and 1 to 4 us a pass more on
         * four, also with a middle slab's two edges in one launch (the lesson's Deeper, "The
         * edge rows' priority"). */
        int lowest, highest;
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s->compute, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, highest));
        CUDA_CHECK(cudaStreamCreateWithPriority(&s->edge, cudaStreamNonBlocking, highest));
        for (int k = 0; k < 2; ++k) { /* exits 2 with the sizes when the GPU cannot hold it */
            s->buffer[k] = (float *)device_malloc(bytes, "slab (with its halo rows)");
            CUDA_CHECK(cudaMemsetAsync(s->buffer[k], 0, bytes, s->compute));
        }
        CUDA_CHECK(cudaEventCreateWithFlags(&s->pass_done, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s->halo_arrived, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s->edges_done, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(s->pass_done, s->compute));
    }
    if (count > 1) communicators(e, devices, local, count, first_rank, unique_id);
#ifdef WB_HAVE_NCCL
    if (unique_id) { /* one process per GPU: the gather's staging rows */
        size_t largest = 0;
        for (int s = 0; s < count; ++s)
            if ((size_t)plan[s].rows > largest) largest = plan[s].rows;
        e->staging = (float *)device_malloc(largest * pitch, "gather's staging rows");
    }
#endif
}

void slab_engine_close(struct slab_engine *e) {
    for (int g = 0; g < e->local; ++g) {
        struct slab_gpu *s = &e->gpus[g];
        CUDA_CHECK(cudaSetDevice(s->device));
        CUDA_CHECK(cudaStreamSynchronize(s->compute));
        CUDA_CHECK(cudaStreamSynchronize(s->comm));
        CUDA_CHECK(cudaStreamSynchronize(s->edge));
        CUDA_CHECK(cudaFree(s->buffer[0]));
        CUDA_CHECK(cudaFree(s->buffer[1]));
        CUDA_CHECK(cudaStreamDestroy(s->compute));
        CUDA_CHECK(cudaStreamDestroy(s->comm));
        CUDA_CHECK(cudaStreamDestroy(s->edge));
        CUDA_CHECK(cudaEventDestroy(s->pass_done));
        CUDA_CHECK(cudaEventDestroy(s->halo_arrived));
        CUDA_CHECK(cudaEventDestroy(s->edges_done));
    }
    if (e->staging) CUDA_CHECK(cudaFree(e->staging));
    memset(e, 0, sizeof *e);
}

void slab_engine_set_mask(struct slab_engine *e, const float *mask) {
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        /* on the compute stream, which does not wait for the default one */
        CUDA_CHECK(cudaMemcpyToSymbolAsync(c_slab_mask, mask,
                                           (size_t)e->mask_w * e->mask_h * sizeof(float), 0,
                                           cudaMemcpyHostToDevice, e->gpus[g].compute));
        CUDA_CHECK(cudaStreamSynchronize(e->gpus[g].compute));
    }
}

/* ---- data in and out ------------------------------------------------------------------------ */

void slab_engine_scatter(struct slab_engine *e, const float *image, size_t host_pitch) {
    e->current = 0;
    for (int g = 0; g < e->local; ++g) { /* the owned rows only: the halo comes by exchange */
        struct slab_gpu *s = &e->gpus[g];
        const struct slab *b = &s->slab;
        CUDA_CHECK(cudaSetDevice(s->device));
        CUDA_CHECK(cudaMemcpy2DAsync((char *)s->buffer[0] + (size_t)b->halo_above * s->pitch,
                                     s->pitch,
                                     (const char *)image + (size_t)b->first * host_pitch,
                                     host_pitch, (size_t)e->width * sizeof(float), b->rows,
                                     cudaMemcpyHostToDevice, s->compute));
        CUDA_CHECK(cudaEventRecord(s->pass_done, s->compute));
    }
    slab_engine_sync(e);
}

void slab_engine_gather(struct slab_engine *e, float *out, size_t host_pitch) {
    const size_t row_bytes = (size_t)e->width * sizeof(float);
    slab_engine_sync(e);
    if (!e->staging) { /* one process holds every slab */
        for (int g = 0; g < e->local; ++g) {
            const struct slab_gpu *s = &e->gpus[g];
            CUDA_CHECK(cudaSetDevice(s->device));
            CUDA_CHECK(cudaMemcpy2D((char *)out + (size_t)s->slab.first * host_pitch, host_pitch,
                                    (const char *)s->buffer[e->current] +
                                        (size_t)s->slab.halo_above * s->pitch,
                                    s->pitch, row_bytes, s->slab.rows, cudaMemcpyDeviceToHost));
        }
        return;
    }
#ifdef WB_HAVE_NCCL
    /* one process per GPU: each slab's rows broadcast from its owner to every process */
    struct slab_gpu *mine = &e->gpus[0];
    struct slab plan[SLABS_MAX];
    char err[256];
    if (slabs_plan(e->height, e->count, e->mask_h, plan, err)) wb_die(1, "%s", err);
    CUDA_CHECK(cudaSetDevice(mine->device));
    for (int s = 0; s < e->count; ++s) {
        if (s == mine->rank)
            CUDA_CHECK(cudaMemcpy2DAsync(e->staging, mine->pitch,
                                         (const char *)mine->buffer[e->current] +
                                             (size_t)mine->slab.halo_above * mine->pitch,
                                         mine->pitch, row_bytes, mine->slab.rows,
                                         cudaMemcpyDeviceToDevice, mine->comm));
        NCCL_CHECK(ncclBroadcast(e->staging, e->staging,
                                 (size_t)plan[s].rows * (mine->pitch / sizeof(float)), ncclFloat,
                                 s, mine->nccl, mine->comm));
        CUDA_CHECK(cudaMemcpy2DAsync((char *)out + (size_t)plan[s].first * host_pitch, host_pitch,
                                     e->staging, mine->pitch, row_bytes, plan[s].rows,
                                     cudaMemcpyDeviceToHost, mine->comm));
        CUDA_CHECK(cudaStreamSynchronize(mine->comm));
    }
#endif
}

/* ---- the passes ----------------------------------------------------------------------------- */

void slab_engine_run(struct slab_engine *e, int passes, enum slab_mode mode) {
    for (int pass = 0; pass < passes; ++pass) {
        const int split = mode == SLAB_OVERLAPPED || mode == SLAB_SPLIT_ONLY;
        const int trade = e->count > 1 && mode != SLAB_COMPUTE_ONLY && mode != SLAB_SPLIT_ONLY;
        if (trade && e->compute_delay_ns) /* tests: a late pass (slab_engine.h says how late) */
            for (int g = 0; g < e->local; ++g) {
                const int rank = e->gpus[g].rank;
                const int steps = pass % 2 ? e->count - rank : rank + 1;
                CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
                hold_stream<<<1, 1, 0, e->gpus[g].compute>>>(e->compute_delay_ns *
                                                             (unsigned long long)steps);
                CUDA_CHECK_LAUNCH();
            }
        if (split) /* the interior first: it needs no halo */
            for (int g = 0; g < e->local; ++g) {
                const struct slab_gpu *s = &e->gpus[g];
                CUDA_CHECK(cudaSetDevice(s->device));
                compute_rows(e, s, s->slab.interior_first - s->slab.first + s->slab.halo_above,
                             s->slab.interior_rows, s->compute);
            }
        if (trade && e->halo_delay_ns) /* tests: a late halo (slab_engine.h) */
            for (int g = 0; g < e->local; ++g) {
                CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
                hold_stream<<<1, 1, 0, e->gpus[g].comm>>>(e->halo_delay_ns);
                CUDA_CHECK_LAUNCH();
            }
        if (trade) e->exchange(e->gpus, e->local, e->current);
        for (int g = 0; g < e->local; ++g) {
            struct slab_gpu *s = &e->gpus[g];
            const struct slab *b = &s->slab;
            CUDA_CHECK(cudaSetDevice(s->device));
            if (split) {
                /* the edges on the edge stream, which the exchange made wait for the halo (and
                 * so for the last pass), beside the interior; the next pass after both. With no
                 * trade, they wait for the last pass here. */
                if (!trade) CUDA_CHECK(cudaStreamWaitEvent(s->edge, s->pass_done, 0));
                compute_rows(e, s, b->halo_above, b->edge_top_rows, s->edge);
                compute_rows(e, s, b->halo_above + b->rows - b->edge_bottom_rows,
                             b->edge_bottom_rows, s->edge);
                CUDA_CHECK(cudaEventRecord(s->edges_done, s->edge));
                CUDA_CHECK(cudaStreamWaitEvent(s->compute, s->edges_done, 0));
            } else {
                if (trade) CUDA_CHECK(cudaStreamWaitEvent(s->compute, s->halo_arrived, 0));
                if (mode != SLAB_EXCHANGE_ONLY) compute_rows(e, s, b->halo_above, b->rows,
                                                             s->compute);
            }
            CUDA_CHECK(cudaEventRecord(s->pass_done, s->compute));
        }
        if (mode != SLAB_EXCHANGE_ONLY) e->current = 1 - e->current;
    }
}

void slab_engine_sync(struct slab_engine *e) {
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        CUDA_CHECK(cudaStreamSynchronize(e->gpus[g].compute));
        CUDA_CHECK(cudaStreamSynchronize(e->gpus[g].comm));
        CUDA_CHECK(cudaStreamSynchronize(e->gpus[g].edge));
    }
}

/* ---- timing --------------------------------------------------------------------------------- */

#ifdef WB_HAVE_NCCL
/* every process here before any goes on: an all-reduce of one float, waited for */
static void barrier(struct slab_engine *e) {
    struct slab_gpu *s = &e->gpus[0];
    CUDA_CHECK(cudaSetDevice(s->device));
    NCCL_CHECK(ncclAllReduce(e->staging, e->staging, 1, ncclFloat, ncclSum, s->nccl, s->comm));
    CUDA_CHECK(cudaStreamSynchronize(s->comm));
}

/* several processes share no event: their spans are timed by the wall clock */
static double wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#endif

double slab_engine_time(struct slab_engine *e, int passes, enum slab_mode mode) {
    slab_engine_sync(e);
    if (e->staging) { /* several processes: no event spans them */
#ifdef WB_HAVE_NCCL
        barrier(e);
        const double start = wall_ms();
        slab_engine_run(e, passes, mode);
        slab_engine_sync(e);
        barrier(e);
        return wall_ms() - start;
#endif
    }
    /* One process: GPU 0 records the start, every GPU waits for it, and GPU 0 waits for every
     * GPU's last pass before it records the end (events order work across devices). */
    struct slab_gpu *first = &e->gpus[0];
    cudaEvent_t start, stop, ends[SLABS_MAX];
    CUDA_CHECK(cudaSetDevice(first->device));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, first->compute));
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        CUDA_CHECK(cudaStreamWaitEvent(e->gpus[g].compute, start, 0));
        CUDA_CHECK(cudaStreamWaitEvent(e->gpus[g].comm, start, 0));
        CUDA_CHECK(cudaStreamWaitEvent(e->gpus[g].edge, start, 0));
    }
    slab_engine_run(e, passes, mode);
    for (int g = 0; g < e->local; ++g) {
        struct slab_gpu *s = &e->gpus[g];
        CUDA_CHECK(cudaSetDevice(s->device));
        CUDA_CHECK(cudaEventCreateWithFlags(&ends[g], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(ends[g], s->compute)); /* after every stream's part */
    }
    CUDA_CHECK(cudaSetDevice(first->device));
    for (int g = 0; g < e->local; ++g)
        CUDA_CHECK(cudaStreamWaitEvent(first->compute, ends[g], 0));
    CUDA_CHECK(cudaEventRecord(stop, first->compute));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        CUDA_CHECK(cudaEventDestroy(ends[g]));
    }
    CUDA_CHECK(cudaSetDevice(first->device));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

double slab_engine_halo_gbps(struct slab_engine *e, int rows, int reps, double *ms) {
    *ms = 0.0;
#ifdef WB_HAVE_NCCL
    if (e->count < 2 || rows < 1) return 0.0;
    /* slab 0 and slab 1 trade `rows` rows each way, as a pass's halo; others sit it out */
    const size_t floats = (size_t)rows * (e->gpus[0].pitch / sizeof(float));
    float *send[SLABS_MAX] = {0}, *recv[SLABS_MAX] = {0};
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        CUDA_CHECK(cudaMalloc(&send[g], floats * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&recv[g], floats * sizeof(float)));
    }
    double *samples = (double *)malloc(sizeof(double) * (reps > 0 ? reps : 1));
    if (!samples) wb_die(1, "out of memory for %d timings", reps);
    for (int rep = -1; rep < reps; ++rep) { /* rep -1: the warm-up */
        slab_engine_sync(e);
        if (e->staging) barrier(e);
        const double start = wall_ms();
        NCCL_CHECK(ncclGroupStart());
        for (int g = 0; g < e->local; ++g) {
            const struct slab_gpu *s = &e->gpus[g];
            if (s->rank > 1) continue;
            const int peer = 1 - s->rank;
            NCCL_CHECK(ncclSend(send[g], floats, ncclFloat, peer, s->nccl, s->comm));
            NCCL_CHECK(ncclRecv(recv[g], floats, ncclFloat, peer, s->nccl, s->comm));
        }
        NCCL_CHECK(ncclGroupEnd());
        slab_engine_sync(e);
        if (e->staging) barrier(e);
        if (rep >= 0) samples[rep] = wall_ms() - start;
    }
    const double median_ms = timing_summary(samples, reps).median_ms;
    *ms = median_ms;
    free(samples);
    for (int g = 0; g < e->local; ++g) {
        CUDA_CHECK(cudaSetDevice(e->gpus[g].device));
        CUDA_CHECK(cudaFree(send[g]));
        CUDA_CHECK(cudaFree(recv[g]));
    }
    /* what one slab sends and receives, as the copy roof counts bytes read plus written */
    return 2.0 * floats * sizeof(float) / (median_ms * 1e6);
#else
    (void)e, (void)rows, (void)reps;
    return 0.0;
#endif
}
