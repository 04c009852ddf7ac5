/* main.c: chapter 07's driver, separable and low-rank masks: a row pass and a column pass
 * instead of the whole window, through a temporary image or fused in shared memory.
 *
 *   run      build/ch07_separable --mask gaussian --mask-width 3,9,15,31
 *   yours    build/ch07_separable_exercise --check (or: make check CH=07)
 *   ranks    build/ch07_separable --mask rank2 --mask-width 15 (the rank found, the path taken)
 *   force    build/ch07_separable --path direct|separable|lowrank (default auto)
 *   bench    build/ch07_separable --bench --mask gaussian --mask-width 3,7,15,31
 *
 * Kernels, in the order they run: "ch07 two-pass" (your row pass from the exercise, then the
 * chapter's column pass, once per term of the mask's rank), the same with the reference row pass
 * (when grading), "ch07 fused", "ch07 direct" (the direct sum for large masks), "ch07 chosen"
 * (the path auto picks, or --path forces: fused passes, or a direct kernel where separable
 * passes cost more), then for comparison NPP's separable filters (rank 1) and its 2D filter,
 * cuFFT, chapter 06's tuned kernel and chapter 05's naive kernel (the "vs naive" baseline).
 * Before each mask the program prints the rank it found and the path it chose; after each
 * benchmark table, every kernel's multiply-adds per second against the FP32 FMA roof.
 */
#include <stdio.h>
#include <stdlib.h>

#include "baselines.h"
#include "conv2d_harness.h"
#include "conv2d_naive.h"
#include "conv2d_row_pass.h"
#include "cuda_check.h"
#include "harness.h"
#include "masks.h"
#include "separable.h"
#include "tuner.h"

WB_EARLIER(conv2d_naive_launch);
WB_EARLIER(conv2d_naive_set_mask);
WB_SOLUTION_OF(row_pass_launch);
WB_SOLUTION_OF(row_pass_set_weights);

static const struct row_pass_impl yours = {row_pass_set_weights, row_pass_launch};
static struct row_pass_impl reference;

static void yours_set_mask(const float *h_mask, int mask_w, int mask_h) {
    two_pass_set_mask(&yours, h_mask, mask_w, mask_h);
}
static void yours_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block) {
    (void)block;
    two_pass_launch(&yours, d_in, d_out, pitch, width, height, mask_w, mask_h);
}
static void reference_set_mask(const float *h_mask, int mask_w, int mask_h) {
    two_pass_set_mask(&reference, h_mask, mask_w, mask_h);
}
static void reference_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                             int mask_w, int mask_h, int block) {
    (void)block;
    two_pass_launch(&reference, d_in, d_out, pitch, width, height, mask_w, mask_h);
}

/* The direct path of "ch07 chosen" for masks chapter 06 has variants for, under
 * DIRECT_LARGE_MIN_TAPS taps (direct_large takes the others, see separable.h). */
static const struct conv2d_variant direct = {.label = "ch06 tuned",
                                             .set_mask = tuned_set_mask,
                                             .launch = tuned_launch,
                                             .comparison = 1};

/* Before each mask: the rank found and the path chosen, on the human-readable stream; after
 * each benchmark, the compute roof. */
struct announce {
    FILE *out;
    enum separable_path forced;
    struct conv2d_variant *kernels;
    int count;
    int bench;
    double fma_peak; /* FMAs per second (found at the first table), 0 where unknown */
    char roof[128];  /* how fma_peak was found */
};

/* Also sets "ch07 chosen"'s tolerance for the mask: the separable paths' bound (computed once
 * for it, the two-pass and the fused kernel), or none of its own on the direct path. */
static int announce_path(void *context, const struct mask *mask,
                         const struct conv2d_variant **list) {
    struct announce *a = context;
    char line[256];
    separable_describe(a->forced, mask->weights, mask->width, mask->height, line, sizeof line);
    fprintf(a->out, "mask %s: %s\n", wb_shown(mask->name), line);
    int direct = separable_path_for(a->forced, mask->weights, mask->width, mask->height) ==
                 SEPARABLE_DIRECT;
    for (int k = 0; k < a->count; ++k)
        if (a->kernels[k].set_mask == chosen_set_mask)
            a->kernels[k].error_bound = direct ? NULL : separable_error_bound;
    *list = a->kernels;
    return a->count;
}

/* Multiply-adds per output the kernel does on this mask, 0 for the FFT (no such count). */
static long fmas_per_output(const struct announce *a, const struct conv2d_variant *k,
                            const struct mask *mask) {
    const struct mask_factors *f = separable_plan(mask->weights, mask->width, mask->height);
    long direct = (long)mask->width * mask->height;
    long passes = (long)(f->rank > 0 ? f->rank : 1) * (mask->width + mask->height);
    if (k->fft_points) return 0;
    if (k->set_mask == chosen_set_mask)
        return separable_path_for(a->forced, mask->weights, mask->width, mask->height) ==
                       SEPARABLE_DIRECT
                   ? direct
                   : passes;
    if (k->error_bound == separable_error_bound) /* two-pass, fused, NPP separable */
        return passes;
    return direct;
}

/* The FP32 roof under the benchmark table: what each kernel's multiply-adds per second are. */
static void report_roof(void *context, int width, int height, int planes, const struct mask *mask,
                        const struct conv2d_variant *list, int count,
                        const struct variant_result *results, double copy_gbps) {
    (void)copy_gbps;
    struct announce *a = context;
    if (!a->bench) return;
    if (!a->roof[0]) { /* the harness has opened the device by now */
        struct device_info device;
        int clock_khz = 0;
        device_probe(&device);
        a->fma_peak = device_fma_peak(&device, &clock_khz);
        snprintf(a->roof, sizeof a->roof, "%d SMs x %d lanes x %.0f MHz", device.multiprocessors,
                 fp32_lanes_per_sm(device.sm_major, device.sm_minor), clock_khz / 1e3);
    }
    if (a->fma_peak <= 0.0) return;
    fprintf(a->out, "  FP32 roof %.1f T FMA/s (%s): multiply-adds per output, rate, %% of roof\n",
            a->fma_peak / 1e12, a->roof);
    for (int k = 0; k < count; ++k) {
        long per_output = fmas_per_output(a, &list[k], mask);
        if (results[k].skipped || !results[k].passed || per_output == 0) continue;
        double rate = (double)per_output * width * height * planes /
                      (results[k].time.median_ms * 1e-3);
        fprintf(a->out, "    %-15s %6ld %8.2f T/s %6.1f%%\n", list[k].label, per_output,
                rate / 1e12, 100.0 * rate / a->fma_peak);
    }
}

int main(int argc, char **argv) {
    struct cli_spec spec = conv2d_standard_spec(
        "ch07_separable", "separable and low-rank 2D convolution: row and column passes",
        LOWRANK_MAX_SIDE);
    spec.default_mask.width = spec.default_mask.height = 15;
    spec.paths = separable_path_names;
    struct conv2d_variant kernels[] = {
        {.label = "ch07 two-pass",
         .set_mask = yours_set_mask,
         .launch = yours_launch,
         .error_bound = separable_error_bound},
        {.label = "solution",
         .set_mask = reference_set_mask,
         .launch = wb_solution_row_pass_launch ? reference_launch : NULL,
         .error_bound = separable_error_bound,
         .solution = 1},
        {.label = "ch07 fused",
         .set_mask = fused_set_mask,
         .launch = fused_launch,
         .refuses = fused_refuses,
         .error_bound = separable_error_bound},
        {.label = "ch07 direct", .set_mask = direct_large_set_mask, .launch = direct_large_launch},
        {.label = "ch07 chosen", .set_mask = chosen_set_mask, .launch = chosen_launch},
#ifdef WB_HAVE_NPP
        {.label = "NPP separable",
         .set_mask = npp_separable_set_mask,
         .launch = npp_separable_launch,
         .refuses = npp_separable_refuses,
         .error_bound = separable_error_bound,
         .comparison = 1},
        {.label = "NPP filter",
         .set_mask = npp_filter_set_mask,
         .launch = npp_filter_launch,
         .refuses = npp_filter_refuses,
         .comparison = 1},
#endif
        {.label = "cuFFT",
         .set_mask = fft_conv_set_mask,
         .launch = fft_conv_launch,
         .fft_points = fft_conv_points,
         .comparison = 1},
        direct,
        {.label = "naive global",
         .set_mask = conv2d_naive_set_mask,
         .launch = conv2d_naive_launch,
         .comparison = 1},
    };
    reference.set_weights = wb_solution_row_pass_set_weights;
    reference.launch = wb_solution_row_pass_launch;

    struct cli_options opt;
    if (harness_start(argc, argv, &spec, BLOCK_ANY, &opt) == 1) return WB_EXIT_PASS;
    enum separable_path forced = (enum separable_path)opt.path;
    /* A forced path that cannot run a mask is a usage error, found before the GPU is touched. */
    struct cli_options one = opt;
    for (int k = 0; k < opt.mask_kind_count; ++k) {
        int mask_count;
        one.mask_kind = opt.mask_kinds[k];
        struct mask *masks = harness_make_masks(&spec, &one, &mask_count);
        for (int m = 0; m < mask_count; ++m) {
            const char *why = separable_path_refuses(forced, masks[m].weights, masks[m].width,
                                                     masks[m].height);
            if (why) wb_die(WB_EXIT_USAGE, "mask %s: %s", masks[m].name, why);
        }
        for (int m = 0; m < mask_count; ++m)
            mask_free(&masks[m]);
        free(masks);
    }

    char path[1024];
    tuned_file_path(argv[0], path, sizeof path);
    FILE *human = opt.json ? stderr : stdout;
    tuned_configure(path, human);
    chosen_configure(forced, &direct);
    two_pass_check_padding(opt.mode == CLI_MODE_CHECK);
#ifndef WB_HAVE_NPP
    fprintf(human, "NPP baseline not built: this CUDA Toolkit has no npp.h\n");
#endif
    struct announce a = {
        .out = human, .forced = forced, .kernels = kernels, .count = WB_COUNT(kernels),
        .bench = opt.mode == CLI_MODE_BENCH};
    struct conv2d_observer observer = {
        .kernels_for = announce_path, .results = report_roof, .context = &a};
    return conv2d_run(&spec, &opt, NULL, 0, &observer);
}
