/* exchange.cu: the halo trade between neighbouring slabs, through NCCL (chapter 10).
 *
 * This file exists twice with the same name: exercises/10_multi_gpu/ holds it with TODO blocks
 * for you, solutions/10_multi_gpu/ the reference; outside the TODO blocks they are identical (a
 * test checks). See chapters/10_multi_gpu/README.md, section 3.
 *
 * Buffer row r of a slab holds image row first - halo_above + r: its halo from the slab above,
 * then its own rows, then its halo from the slab below (slab_engine.h). A pass reads
 * buffer[current]. Before the edge rows can be computed, each slab needs:
 *   from the slab above   that slab's last reach_above rows, into its first halo_above rows
 *   from the slab below   that slab's first reach_below rows, into its last halo_below rows
 * and sends the same to its neighbours. Rows go whole, padding included (rows * pitch bytes, one
 * contiguous block), so one call moves them all. Slabs on different GPUs trade through NCCL;
 * slabs that share a GPU (or a build without NCCL) through the same calls, served by the
 * workbook (slab_trade.h), so one GPU is enough to check this file.
 */
#include "cuda_check.h"
#include "slab_engine.h"

/* where buffer row `first` starts, and how many floats `rows` whole rows hold */
static float *rows_at(const struct slab_gpu *g, int current, int first) {
    return (float *)((char *)g->buffer[current] + (size_t)first * g->pitch);
}
static size_t floats_in(const struct slab_gpu *g, int rows) {
    return (size_t)rows * (g->pitch / sizeof(float));
}

void exchange_halos(struct slab_gpu *gpus, int local, int current) {
    // ---- TODO 1 begin: the rows to send were written by the last pass: make each comm stream
    // wait for that pass (its pass_done event) before anything is sent
    for (int g = 0; g < local; ++g)
        CUDA_CHECK(cudaStreamWaitEvent(gpus[g].comm, gpus[g].pass_done, 0));
    // ---- TODO 1 end
    // ---- TODO 2 begin: open one NCCL group around every send and receive of every slab here
    // (without one, two neighbours that both send first wait for each other's receive, and one
    // thread driving several GPUs waits for a receive it has not issued yet)
    NCCL_CHECK(ncclGroupStart());
    // ---- TODO 2 end
    for (int g = 0; g < local; ++g) {
        const struct slab_gpu *s = &gpus[g];
        const int own = s->slab.halo_above; /* buffer row of the slab's first own row */
        // ---- TODO 3 begin: who sends which rows to whom, and where the received rows go
        if (s->above >= 0) {
            if (s->reach_below > 0) /* the slab above reads this many of my first rows */
                NCCL_CHECK(ncclSend(rows_at(s, current, own), floats_in(s, s->reach_below),
                                    ncclFloat, s->above, s->nccl, s->comm));
            if (s->slab.halo_above > 0)
                NCCL_CHECK(ncclRecv(rows_at(s, current, 0), floats_in(s, s->slab.halo_above),
                                    ncclFloat, s->above, s->nccl, s->comm));
        }
        if (s->below >= 0) {
            const int end = own + s->slab.rows; /* buffer row just past the slab's own */
            if (s->reach_above > 0) /* the slab below reads this many of my last rows */
                NCCL_CHECK(ncclSend(rows_at(s, current, end - s->reach_above),
                                    floats_in(s, s->reach_above), ncclFloat, s->below, s->nccl,
                                    s->comm));
            if (s->slab.halo_below > 0)
                NCCL_CHECK(ncclRecv(rows_at(s, current, end), floats_in(s, s->slab.halo_below),
                                    ncclFloat, s->below, s->nccl, s->comm));
        }
        // ---- TODO 3 end
    }
    // ---- TODO 4 begin: close the group (NCCL starts the transfers there); then the edge rows
    // wait for the halo: record halo_arrived on each comm stream and make the edge stream wait
    // for it (the interior rows were queued on the compute stream before this call)
    NCCL_CHECK(ncclGroupEnd());
    for (int g = 0; g < local; ++g) {
        CUDA_CHECK(cudaEventRecord(gpus[g].halo_arrived, gpus[g].comm));
        CUDA_CHECK(cudaStreamWaitEvent(gpus[g].edge, gpus[g].halo_arrived, 0));
    }
    // ---- TODO 4 end
}
