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
    // For every g below local: cudaStreamWaitEvent(gpus[g].comm, gpus[g].pass_done, 0), checked
    // with CUDA_CHECK. Without it a send may read rows the last pass has not written yet, and a
    // receive overwrite halo rows that the pass before it may still be reading.
    // ---- TODO 1 end
    // ---- TODO 2 begin: open one NCCL group around every send and receive of every slab here
    // (without one, two neighbours that both send first wait for each other's receive, and one
    // thread driving several GPUs waits for a receive it has not issued yet)
    // ncclGroupStart(), checked with NCCL_CHECK; TODO 4 closes it.
    // ---- TODO 2 end
    for (int g = 0; g < local; ++g) {
        const struct slab_gpu *s = &gpus[g];
        const int own = s->slab.halo_above; /* buffer row of the slab's first own row */
        // ---- TODO 3 begin: who sends which rows to whom, and where the received rows go
        // With a slab above (s->above >= 0): send it your first s->reach_below own rows (from
        // buffer row `own`), receive its last rows into your s->slab.halo_above rows from row 0.
        // With a slab below (s->below >= 0): send it your last s->reach_above own rows (they end
        // at buffer row own + s->slab.rows), receive into your s->slab.halo_below rows from there.
        // ncclSend(pointer, count, ncclFloat, peer, s->nccl, s->comm) and ncclRecv likewise;
        // rows_at(s, current, row) is where buffer row `row` starts, floats_in(s, rows) the count
        // of whole rows. Skip a call whose row count is 0 (a mask of height 1 or 2).
        // ---- TODO 3 end
    }
    // ---- TODO 4 begin: close the group (NCCL starts the transfers there); then the edge rows
    // wait for the halo: record halo_arrived on each comm stream and make the edge stream wait
    // for it (the interior rows were queued on the compute stream before this call)
    // ncclGroupEnd(); then for every g: cudaEventRecord(gpus[g].halo_arrived, gpus[g].comm) and
    // cudaStreamWaitEvent(gpus[g].edge, gpus[g].halo_arrived, 0). Forget the wait and nothing
    // holds the edge rows back: they read a halo still on its way, or rows of the last pass not
    // yet written.
    // ---- TODO 4 end
}
