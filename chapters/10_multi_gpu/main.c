/* main.c: chapter 10's driver, one image in horizontal slabs over several GPUs, a mask applied
 * K times (as diffusion or repeated blurring do), the halo rows traded through NCCL.
 *
 *   run      build/ch10_multi_gpu --iterations 10            (every visible GPU)
 *   yours    build/ch10_multi_gpu_exercise --check --iterations 3   (or: make check CH=10)
 *   scaling  build/ch10_multi_gpu --scaling --size 8192x8192 --mask-width 5 --iterations 20
 *   ranks    WB_NCCL_ID_FILE=/shared/nccl_id.$JOB mpirun -np 2 build/ch10_multi_gpu --check
 *
 * The kernels, as the 2D harness sees them (each takes the image from host memory, cuts it into
 * slabs, runs K passes and gathers the result): "ch10 slabs" (your exchange, the interior rows
 * computed while the halo travels), the same with the reference exchange (when grading), "ch10
 * serial" (trade, then compute) and "ch10 one GPU" (the baseline). They are checked against K
 * passes in double with the bound K float passes earn (common/iterated.h). In run and bench
 * modes a study follows the table, on data already on the GPUs: time per pass on 1 to N GPUs
 * (strong scaling: this image; weak: this image per GPU), the exchange's own time, the share of
 * it the interior hides, NCCL's rate for the halo's message, and each strong split's result
 * against one GPU's, bit for bit. --scaling runs the study alone (the table's CPU reference of
 * K passes over a large image takes far longer than the study).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_harness.h"
#include "cuda_check.h"
#include "data_gen.h"
#include "harness.h"
#include "masks.h"
#include "multi_gpu_cli.h"
#include "ranks.h"
#include "slab_engine.h"
#include "timing.h"

WB_SOLUTION_OF(exchange_halos);

static struct chapter_options chapter; /* multi_gpu_cli_spec sets its defaults */

/* ---- the GPUs: this process's, and the processes' ------------------------------------------- */

static struct {
    int ready;
    struct ranks ranks;
    int processes;          /* 1: this process drives every GPU */
    int devices[SLABS_MAX]; /* this process's GPUs */
    int count;              /* GPUs in all */
    unsigned char id[128];  /* NCCL's unique id, several processes */
} gpus;

/* What rank 0 hands every other process: NCCL's id, and the seed its data is drawn from (each
 * process draws the whole image; with seeds of their own, their slabs would be of different
 * images). */
struct handover {
    unsigned char id[128];
    uint64_t seed;
};

/* Which GPUs, and with several processes the id and the seed (rank 0's replaces *seed). main
 * calls this before any GPU work where a launcher started several processes or --gpus asks for
 * several GPUs, so that a launch that cannot work and GPUs that are not there are refused first:
 * the launcher's variables, --gpus against the processes, NCCL, WB_NCCL_ID_FILE (exit 2), then
 * the GPUs (none: exit 77; fewer than --gpus: exit 2). */
static void find_gpus(uint64_t *seed) {
    if (gpus.ready) return;
    char err[WB_ERR_LEN];
    const int launched = ranks_from_env(&gpus.ranks, err);
    if (launched < 0) wb_die(WB_EXIT_USAGE, "%s", err);
    if (launched && gpus.ranks.world > 1) {
        if (chapter.gpus && chapter.gpus != gpus.ranks.world)
            wb_die(WB_EXIT_USAGE, "--gpus %d, but %s started %d processes (one GPU each)",
                   chapter.gpus, gpus.ranks.launcher, gpus.ranks.world);
        if (chapter.slabs && chapter.slabs != gpus.ranks.world)
            wb_die(WB_EXIT_USAGE, "--slabs %d, but %s started %d processes (one slab each)",
                   chapter.slabs, gpus.ranks.launcher, gpus.ranks.world);
#ifndef WB_HAVE_NCCL
        wb_die(WB_EXIT_USAGE, "%d processes: this program was built without NCCL (install NCCL "
               "and rebuild: README.md, Requirements)", gpus.ranks.world);
#else
        if (!ranks_id_file(&gpus.ranks, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        if (sizeof(ncclUniqueId) > sizeof gpus.id) wb_die(1, "NCCL's unique id outgrew its room");
        if (!seed) wb_die(1, "find_gpus: several processes, and no seed to share");
        gpus.processes = gpus.count = gpus.ranks.world;
        gpus.devices[0] = gpus.ranks.local_rank % device_count();
        struct handover h;
        memset(&h, 0, sizeof h);
        if (gpus.ranks.rank == 0) {
            ncclUniqueId id;
            if (ncclGetUniqueId(&id) != ncclSuccess) wb_die(1, "ncclGetUniqueId failed");
            memcpy(h.id, &id, sizeof id);
            h.seed = *seed;
        }
        if (ranks_share_id(&gpus.ranks, &h, sizeof h, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        memcpy(gpus.id, h.id, sizeof gpus.id);
        *seed = h.seed;
#endif
    } else {
        const int visible = device_count();
        gpus.processes = 1;
        gpus.count = chapter.gpus ? chapter.gpus : visible;
        if (gpus.count > visible)
            wb_die(WB_EXIT_USAGE, "--gpus %d: only %d GPU%s visible", gpus.count, visible,
                   visible == 1 ? " is" : "s are");
        for (int g = 0; g < gpus.count; ++g)
            gpus.devices[g] = g;
    }
    gpus.ready = 1;
}

/* WB_SLABS_HALO_DELAY_US and WB_SLABS_COMPUTE_DELAY_US (tests, 0 to 100000): how long each
 * comm stream is held before a trade, and each compute stream before a pass (slab_engine.h);
 * 0 when unset, exit 2 when not a number in range. */
static unsigned long long delay_ns(const char *name) {
    const char *text = getenv(name);
    if (!text || !*text) return 0;
    long long us;
    if (wb_parse_whole(text, 0, 100000, &us))
        wb_die(WB_EXIT_USAGE, "%s='%s' is not 0 to 100000 microseconds", name, text);
    return (unsigned long long)us * 1000ull;
}

/* An engine of `count` slabs: one a GPU on this process's first GPUs, or, with more slabs than
 * GPUs, neighbouring slabs sharing a GPU (slabs 0 and 1 on the first of two GPUs for four); with
 * several processes, every process's one (count = their number) or this process's alone. */
static void open_engine(struct slab_engine *e, int width, int height, int mask_w, int mask_h,
                        int count) {
    find_gpus(NULL);
    if (gpus.processes > 1 && count > 1) {
        slab_engine_open(e, width, height, mask_w, mask_h, gpus.devices, 1, gpus.count,
                         gpus.ranks.rank, gpus.id);
    } else {
        int devices[SLABS_MAX];
        for (int g = 0; g < count; ++g)
            devices[g] = gpus.devices[count <= gpus.count ? g : g * gpus.count / count];
        slab_engine_open(e, width, height, mask_w, mask_h, devices, count, count, 0, NULL);
    }
    /* the grader's floor for a time: the work over every GPU the slabs use */
    harness_set_work_gpus(count < gpus.count ? count : gpus.count);
    e->halo_delay_ns = delay_ns("WB_SLABS_HALO_DELAY_US");
    e->compute_delay_ns = delay_ns("WB_SLABS_COMPUTE_DELAY_US");
}

/* ---- the kernels, as the harness runs them -------------------------------------------------- */

static float current_mask[SLAB_MAX_SIDE * SLAB_MAX_SIDE];
static int current_w, current_h;

static void remember_mask(const float *h_mask, int mask_w, int mask_h) {
    memcpy(current_mask, h_mask, sizeof(float) * mask_w * mask_h);
    current_w = mask_w, current_h = mask_h;
}

/* One engine kept open between launches of the same shape (NCCL's set-up takes a while). */
static struct {
    struct slab_engine e;
    int open, width, height, mask_w, mask_h, count;
} cached;

static void run_slabs(const float *h_in, float *h_out, size_t host_pitch, int width, int height,
                      int mask_w, int mask_h, int count, enum slab_mode mode,
                      void (*exchange)(struct slab_gpu *, int, int)) {
    if (mask_w != current_w || mask_h != current_h)
        wb_die(WB_EXIT_USAGE, "ch10: a %dx%d launch after a %dx%d mask", mask_w, mask_h,
               current_w, current_h);
    int caller_device; /* the harness times on its own device: give it back */
    CUDA_CHECK(cudaGetDevice(&caller_device));
    if (cached.open && (cached.width != width || cached.height != height ||
                        cached.mask_w != mask_w || cached.mask_h != mask_h ||
                        cached.count != count)) {
        slab_engine_close(&cached.e);
        cached.open = 0;
    }
    if (!cached.open) {
        open_engine(&cached.e, width, height, mask_w, mask_h, count);
        cached.open = 1, cached.width = width, cached.height = height;
        cached.mask_w = mask_w, cached.mask_h = mask_h, cached.count = count;
    }
    cached.e.exchange = exchange;
    slab_engine_set_mask(&cached.e, current_mask);
    slab_engine_scatter(&cached.e, h_in, host_pitch);
    slab_engine_run(&cached.e, chapter.iterations, mode);
    slab_engine_gather(&cached.e, h_out, host_pitch);
    CUDA_CHECK(cudaSetDevice(caller_device));
}

static int all_gpus(void) {
    find_gpus(NULL);
    return gpus.count;
}

/* The slabs an image of `height` rows is cut into: --slabs, or one a GPU of --gpus (or the
 * processes) as given, else one on every visible GPU that still gets a slab as tall as the mask's
 * reach (one at least). */
static int gpus_for(int height, int mask_h) {
    const int all = all_gpus();
    if (chapter.slabs) return chapter.slabs;
    if (chapter.gpus || gpus.processes > 1) return all;
    const int most = height / slabs_min_rows(mask_h);
    return most < 1 ? 1 : most < all ? most : all;
}

static void yours(const float *h_in, float *h_out, size_t host_pitch, int width, int height,
                  int mask_w, int mask_h, int block) {
    (void)block;
    run_slabs(h_in, h_out, host_pitch, width, height, mask_w, mask_h, gpus_for(height, mask_h),
              SLAB_OVERLAPPED, exchange_halos);
}
static void reference(const float *h_in, float *h_out, size_t host_pitch, int width, int height,
                      int mask_w, int mask_h, int block) {
    (void)block;
    run_slabs(h_in, h_out, host_pitch, width, height, mask_w, mask_h, gpus_for(height, mask_h),
              SLAB_OVERLAPPED, wb_solution_exchange_halos);
}
static void serial(const float *h_in, float *h_out, size_t host_pitch, int width, int height,
                   int mask_w, int mask_h, int block) {
    (void)block;
    run_slabs(h_in, h_out, host_pitch, width, height, mask_w, mask_h, gpus_for(height, mask_h),
              SLAB_SERIAL, exchange_halos);
}
static void one_gpu(const float *h_in, float *h_out, size_t host_pitch, int width, int height,
                    int mask_w, int mask_h, int block) {
    (void)block;
    run_slabs(h_in, h_out, host_pitch, width, height, mask_w, mask_h, 1, SLAB_OVERLAPPED,
              exchange_halos);
}

static struct conv2d_variant variants[] = {
    {.label = "ch10 slabs", .set_mask = remember_mask, .host_launch = yours},
    {.label = "ch10 slabs (reference)", .set_mask = remember_mask, .host_launch = reference,
     .solution = 1},
    {.label = "ch10 serial", .set_mask = remember_mask, .host_launch = serial},
    {.label = "ch10 one GPU", .set_mask = remember_mask, .host_launch = one_gpu, .comparison = 1},
};

/* ---- the study: passes on data already on the GPUs ------------------------------------------ */

/* Median of reps timings of K passes, after one warm-up pass; milliseconds per pass. */
static double per_pass_ms(struct slab_engine *e, enum slab_mode mode, int reps) {
    slab_engine_run(e, 1, mode);
    double *samples = host_malloc(sizeof(double) * reps, "timings");
    for (int r = 0; r < reps; ++r)
        samples[r] = slab_engine_time(e, chapter.iterations, mode) / chapter.iterations;
    const double ms = timing_summary(samples, reps).median_ms;
    free(samples);
    return ms;
}

/* Two modes timed in turn, rep after rep (K passes each, after a warm-up pass of each): their
 * medians per pass, and the median of the pairs' differences, a - b. The pairs share whatever the
 * GPUs' clocks did in between; two medians taken one after the other had differed by a few us
 * of a 0.3 to 1.2 ms pass on the H100 pair, as much as the difference itself. */
static double paired_difference_ms(struct slab_engine *e, enum slab_mode a, enum slab_mode b,
                                   int reps, double *a_ms, double *b_ms) {
    slab_engine_run(e, 1, a);
    slab_engine_run(e, 1, b);
    double *samples = host_malloc(sizeof(double) * 3 * (size_t)reps, "timings");
    double *of_a = samples, *of_b = samples + reps, *differences = samples + 2 * reps;
    for (int r = 0; r < reps; ++r) {
        of_a[r] = slab_engine_time(e, chapter.iterations, a) / chapter.iterations;
        of_b[r] = slab_engine_time(e, chapter.iterations, b) / chapter.iterations;
        differences[r] = of_a[r] - of_b[r];
    }
    *a_ms = timing_summary(of_a, reps).median_ms;
    *b_ms = timing_summary(of_b, reps).median_ms;
    const double ms = timing_summary(differences, reps).median_ms;
    free(samples);
    return ms;
}

/* K passes of image (width x height) on `count` GPUs into out; the per-pass time. */
static double run_split(const float *image, float *out, int width, int height,
                        const struct mask *m, int count, enum slab_mode mode, int reps) {
    struct slab_engine e;
    const size_t pitch = (size_t)width * sizeof(float);
    open_engine(&e, width, height, m->width, m->height, count);
    slab_engine_set_mask(&e, m->weights);
    slab_engine_scatter(&e, image, pitch);
    slab_engine_run(&e, chapter.iterations, mode);
    if (out) slab_engine_gather(&e, out, pitch);
    const double ms = reps ? per_pass_ms(&e, mode, reps) : 0.0;
    slab_engine_close(&e);
    return ms;
}

static void json_row(const struct cli_options *opt, const char *kind, int count, int width,
                     int height, const struct mask *m, double ms, double value) {
    if (!opt->json) return;
    printf("{\"program\":\"ch10_multi_gpu\",\"study\":\"%s\",\"gpus\":%d,\"width\":%d,"
           "\"height\":%d,\"mask_width\":%d,\"mask_height\":%d,\"iterations\":%d,"
           "\"ms_per_pass\":%.5f,\"value\":%.5f}\n",
           kind, count, width, height, m->width, m->height, chapter.iterations, ms, value);
}

/* Where the time of a pass goes on n GPUs, for one image: overlapped against serial, the
 * exchange alone, the compute alone in one kernel and split as overlapped splits it, the share of
 * the exchange hidden, and NCCL's time for the halo's message. */
static void breakdown(const struct cli_options *opt, const float *image, int width, int height,
                      const struct mask *m, int n, FILE *human) {
    const int reps = opt->reps;
    struct slab_engine e;
    open_engine(&e, width, height, m->width, m->height, n);
    slab_engine_set_mask(&e, m->weights);
    slab_engine_scatter(&e, image, (size_t)width * sizeof(float));
    double overlapped, split_ms, split_paired, compute;
    const double showing = paired_difference_ms(&e, SLAB_OVERLAPPED, SLAB_SPLIT_ONLY, reps,
                                                &overlapped, &split_ms);
    const double split_cost = paired_difference_ms(&e, SLAB_SPLIT_ONLY, SLAB_COMPUTE_ONLY, reps,
                                                   &split_paired, &compute);
    const double serial_ms = per_pass_ms(&e, SLAB_SERIAL, reps);
    const double exchange = per_pass_ms(&e, SLAB_EXCHANGE_ONLY, reps);
    const int halo_rows = m->height / 2 > m->height - 1 - m->height / 2
                              ? m->height / 2 : m->height - 1 - m->height / 2;
    double halo_ms = 0.0;
    const double gbps = slab_engine_halo_gbps(&e, halo_rows, reps, &halo_ms);
    slab_engine_close(&e);
    /* What the overlap leaves of the exchange: the overlapped pass less the same kernels and
     * streams without the trade, timed in pairs. Splitting the rows is a cost of its own, paid
     * with or without a trade: the split pass less one kernel over every row, also in pairs, is
     * shown apart. */
    double hidden = exchange > 0.0 ? 1.0 - showing / exchange : 1.0;
    hidden = hidden < 0.0 ? 0.0 : hidden > 1.0 ? 1.0 : hidden;
    fprintf(human, "  %dx%d on %d GPUs, ms per pass: overlapped %.4f, serial %.4f; exchange alone "
            "%.4f; compute alone %.4f in one kernel, %.4f split (interior, then edges)\n",
            width, height, n, overlapped, serial_ms, exchange, compute, split_ms);
    fprintf(human, "  the exchange's %.1f us: %.1f%% hidden (%.1f us left showing); splitting "
            "the rows costs %.1f us a pass\n", 1e3 * exchange, 100.0 * hidden,
            1e3 * showing, 1e3 * split_cost);
    fprintf(human, "  NCCL, %d halo rows of %zu bytes each way between two GPUs: %.1f us, "
            "%.1f GB/s\n", halo_rows, (size_t)width * sizeof(float), 1e3 * halo_ms, gbps);
    json_row(opt, "exchange_alone", n, width, height, m, exchange, 0.0);
    json_row(opt, "compute_alone", n, width, height, m, compute, 0.0);
    json_row(opt, "split_alone", n, width, height, m, split_ms, 0.0);
    json_row(opt, "serial", n, width, height, m, serial_ms, 0.0);
    json_row(opt, "hidden", n, width, height, m, overlapped, hidden);
    json_row(opt, "halo_gbps", n, width, height, m, halo_ms, gbps);
}

/* Strong and weak scaling over 1..N GPUs (N only, with one process per GPU), the exchange's
 * share hidden at N, NCCL's rate, and every strong split checked against one GPU bit for bit
 * (a weak split's image has no one-GPU result to compare with here). */
static int study(const struct cli_options *opt, int width, int height, const struct mask *m,
                 FILE *human) {
    const int n = gpus_for(height, m->height), reps = opt->reps;
    const int first = gpus.processes > 1 ? n : 1;
    const size_t count = (size_t)width * height;
    float *image = host_malloc(count * sizeof(float) * n, "the study's image");
    float *alone = host_malloc(count * sizeof(float), "one GPU's result");
    float *split = host_malloc(count * sizeof(float), "the split result");
    fill_uniform(image, count * n, opt->seed, 0.0f, 1.0f);
    int failed = 0;
    fprintf(human, "study: %dx%d per GPU, mask %s, %d passes, on data already on the GPUs\n",
            width, height, m->name, chapter.iterations);
    fprintf(human, "  %4s %-14s %11s %9s   %-14s %11s %10s\n", "GPUs", "strong: image",
            "ms per pass", "speedup", "weak: image", "ms per pass", "efficiency");
    const double one_strong = run_split(image, alone, width, height, m, 1, SLAB_OVERLAPPED, reps);
    for (int k = first; k <= n; ++k) {
        const double strong = k == 1 ? one_strong
                                     : run_split(image, split, width, height, m, k,
                                                 SLAB_OVERLAPPED, reps);
        if (k > 1 && memcmp(alone, split, count * sizeof(float))) {
            fprintf(human, "  %d GPUs: the result differs from one GPU's: FAIL\n", k);
            failed = 1;
        }
        const double weak = k == 1 ? one_strong
                                   : run_split(image, NULL, width, height * k, m, k,
                                               SLAB_OVERLAPPED, reps);
        char strong_size[32], weak_size[32];
        snprintf(strong_size, sizeof strong_size, "%dx%d", width, height);
        snprintf(weak_size, sizeof weak_size, "%dx%d", width, height * k);
        fprintf(human, "  %4d %-14s %11.4f %8.2fx   %-14s %11.4f %9.1f%%\n", k, strong_size,
                strong, one_strong / strong, weak_size, weak, 100.0 * one_strong / weak);
        json_row(opt, "strong", k, width, height, m, strong, one_strong / strong);
        json_row(opt, "weak", k, width, height * k, m, weak, one_strong / weak);
    }
    if (n > 1) { /* where the time goes at N GPUs: the strong image, and the weak one */
        breakdown(opt, image, width, height, m, n, human);
        breakdown(opt, image, width, height * n, m, n, human);
    }
    free(image), free(alone), free(split);
    return failed;
}

int main(int argc, char **argv) {
    struct cli_spec spec = multi_gpu_cli_spec(&chapter); /* the 2D options and chapter 10's */
    struct cli_options opt;
    if (harness_start(argc, argv, &spec, BLOCK_ANY, &opt) == 1) return WB_EXIT_PASS;
    slab_engine_nccl_defaults();
    delay_ns("WB_SLABS_HALO_DELAY_US"); /* bad values are refused before any GPU work */
    delay_ns("WB_SLABS_COMPUTE_DELAY_US");
    if (chapter.scaling && chapter.slabs)
        wb_die(WB_EXIT_USAGE, "--slabs: the scaling study cuts one slab a GPU; drop --slabs");
    if (chapter.scaling && (opt.mode == CLI_MODE_CHECK || opt.input_count))
        wb_die(WB_EXIT_USAGE, "--scaling measures on generated images: drop %s",
               opt.input_count ? "--input" : "--check");
    struct ranks launched;
    char err[WB_ERR_LEN];
    const int by_launcher = ranks_from_env(&launched, err);
    if (by_launcher < 0 || (by_launcher && launched.world > 1) || chapter.gpus > 1)
        find_gpus(&opt.seed); /* with several processes, all draw the same data: rank 0's seed */
    conv2d_set_passes(chapter.iterations);
    /* the reference exchange is linked only when grading (WITH_SOLUTION): absent otherwise */
    if (!wb_solution_exchange_halos) variants[1].host_launch = NULL;
    /* with one slab "ch10 serial" is "ch10 slabs" (nothing to trade): left out (without a GPU
     * the count fails, and conv2d_run says so) */
    int visible = 0;
    const int one_slab = gpus.processes <= 1 &&
                         (chapter.slabs ? chapter.slabs == 1
                                        : chapter.gpus == 1 ||
                                              (!chapter.gpus &&
                                               cudaGetDeviceCount(&visible) == cudaSuccess &&
                                               visible == 1));
    if (one_slab) variants[2].host_launch = NULL;
    const int n = sizeof variants / sizeof variants[0];
    int status = WB_EXIT_PASS;
    FILE *human = opt.json ? stderr : stdout;
    if (chapter.scaling) { /* the table would have probed the GPU: exit 77 without one */
        struct device_info device;
        human = harness_open_device(&opt, &device);
    } else {
        status = conv2d_run(&spec, &opt, variants, n, NULL);
    }
    if (cached.open) slab_engine_close(&cached.e);
    if (status != WB_EXIT_PASS || opt.mode == CLI_MODE_CHECK || opt.input_count) {
        slab_engine_release_communicators();
        return status;
    }
    /* the study, on the generated image of each size and each mask of the first --mask */
    int count;
    struct cli_options one = opt;
    one.mask_kind = opt.mask_kinds[0];
    struct mask *masks = harness_make_masks(&spec, &one, &count);
    int failed = 0;
    for (int s = 0; s < opt.size_count; ++s)
        for (int k = 0; k < count; ++k)
            failed |= study(&opt, (int)opt.sizes[s].width, (int)opt.sizes[s].height, &masks[k],
                            human);
    for (int k = 0; k < count; ++k)
        mask_free(&masks[k]);
    free(masks);
    slab_engine_release_communicators();
    return failed ? WB_EXIT_FAIL : status;
}
