/* main.c: chapter 06's driver, register-prefetch 2D convolution with an autotuner
 * (Iandola et al.), measured against NPP and cuFFT.
 *
 *   run      build/ch06_register_prefetch                  8192 x 8192, random 3x3 mask
 *   yours    build/ch06_register_prefetch_exercise --check (or: make check CH=06)
 *   tune     build/ch06_register_prefetch --tune     (every compiled size; build/ch06_tuned.csv)
 *   verify   build/ch06_register_prefetch --tune --check --size 1000x777,8191x4097 --mask-width 2:7
 *   compare  build/ch06_register_prefetch --mask-width 3,5,7,9,15,21,31   (where FFT wins)
 *   bench    build/ch06_register_prefetch --bench --mask-width 3,5,7
 *
 * Kernels, in the order they run: the exercise kernel (3x3 masks only), "ch06 tuned" (the
 * variant --tune saved for this GPU and mask size, or an untuned default; chapter 05's naive
 * kernel for sizes no variant covers), NPP (where the toolkit has it), cuFFT, chapter 05's tiled
 * kernel (masks up to 15) and the naive kernel (the "vs naive" baseline). WB_TUNED_FILE names
 * another file for the tuning results than build/ch06_tuned.csv.
 */
#include <stdio.h>

#include "baselines.h"
#include "conv2d_harness.h"
#include "conv2d_naive.h"
#include "conv2d_prefetch.h"
#include "conv2d_tiled.h"
#include "harness.h"
#include "safe_output.h"
#include "tuner.h"

/* Weak (workbook.h): earlier chapters' kernels are absent from a student's copy, the chapter's
 * own solution is linked only when grading. */
WB_EARLIER(conv2d_tiled_launch);
WB_EARLIER(conv2d_tiled_set_mask);
WB_SOLUTION_OF(conv2d_prefetch_launch);
WB_SOLUTION_OF(conv2d_prefetch_set_mask);
WB_SOLUTION_OF(conv2d_prefetch_refuses);

static const char *tiled_refuses(int mask_w, int mask_h) {
    static char reason[64];
    snprintf(reason, sizeof reason, "chapter 05's kernel takes masks up to %dx%d",
             CONV2D_MAX_MASK_SIDE, CONV2D_MAX_MASK_SIDE);
    return mask_w > CONV2D_MAX_MASK_SIDE || mask_h > CONV2D_MAX_MASK_SIDE ? reason : NULL;
}

static const struct conv2d_variant tiled = {.label = "ch05 tiled",
                                            .set_mask = conv2d_tiled_set_mask,
                                            .launch = conv2d_tiled_launch,
                                            .block_rule = BLOCK_COVERS_MASK,
                                            .refuses = tiled_refuses,
                                            .comparison = 1};
#ifdef WB_HAVE_NPP
static const struct conv2d_variant npp = {.label = "NPP filter",
                                          .set_mask = npp_filter_set_mask,
                                          .launch = npp_filter_launch,
                                          .refuses = npp_filter_refuses,
                                          .comparison = 1};
#endif
static const struct conv2d_variant fft = {.label = "cuFFT",
                                          .set_mask = fft_conv_set_mask,
                                          .launch = fft_conv_launch,
                                          .fft_points = fft_conv_points,
                                          .comparison = 1};

int main(int argc, char **argv) {
    struct cli_spec spec = conv2d_standard_spec(
        "ch06_register_prefetch",
        "register-prefetch 2D convolution, compile-time masks, autotuned (Iandola et al.)",
        CONV2D_NAIVE_MAX_MASK_SIDE);
    spec.default_mask.width = spec.default_mask.height = PREFETCH_EXERCISE_MASK;
    spec.allows_tune = 1;
    spec.tune_masks = tuner_mask_list();
    const struct conv2d_variant kernels[] = {
        {.label = "ch06 prefetch 3x3",
         .set_mask = conv2d_prefetch_set_mask,
         .launch = conv2d_prefetch_launch,
         .refuses = conv2d_prefetch_refuses},
        {.label = "solution",
         .set_mask = wb_solution_conv2d_prefetch_set_mask,
         .launch = wb_solution_conv2d_prefetch_launch,
         .refuses = wb_solution_conv2d_prefetch_refuses,
         .solution = 1},
        {.label = "ch06 tuned", .set_mask = tuned_set_mask, .launch = tuned_launch},
#ifdef WB_HAVE_NPP
        npp,
#endif
        fft,
        tiled,
        {.label = "naive global",
         .set_mask = conv2d_naive_set_mask,
         .launch = conv2d_naive_launch,
         .comparison = 1},
    };
    const struct conv2d_variant baselines[] = {
        tiled,
#ifdef WB_HAVE_NPP
        npp,
#endif
        fft,
    };
    char path[1024];
    tuned_file_path(argv[0], path, sizeof path);
    struct cli_options opt;
    if (harness_start(argc, argv, &spec, kernels[0].block_rule, &opt) == 1) return WB_EXIT_PASS;
    char err[WB_ERR_LEN];
    if (opt.tune && opt.mode != CLI_MODE_CHECK && safe_output_check(path, err)) /* before the GPU */
        wb_die(WB_EXIT_USAGE, "the tuned file (WB_TUNED_FILE or beside the program): %s", err);
    if (opt.tune)
        return tuner_run(&spec, &opt, opt.mode == CLI_MODE_CHECK ? NULL : path, baselines,
                         WB_COUNT(baselines));
    FILE *report = opt.json ? stderr : stdout;
    tuned_configure(path, report);
#ifndef WB_HAVE_NPP
    fprintf(report, "NPP baseline not built: this CUDA Toolkit has no npp.h\n");
#endif
    return conv2d_run(&spec, &opt, kernels, WB_COUNT(kernels), NULL);
}
