/* conv2d_harness.h: the host program shared by the image chapters (05 to 08, and 10).
 *
 * Like conv1d_harness.h, for images: a chapter's driver describes its kernel(s) as
 * conv2d_variant entries and hands them, with its cli_spec, to conv2d_chapter_main():
 *   1. parse and validate the command line, the input image (PNG of any colour type, or a
 *      float32 .npy of shape (H, W) or (C, H, W)) and the masks (exit 2 on bad input, also
 *      when --block breaks the first kernel's block rule)
 *   2. probe the GPU (exit 77 without one)
 *   3. for every --size and --mask-width: make or load the image, compute the CPU reference per
 *      colour plane, copy the planes into a pitched device image (cudaMallocPitch +
 *      cudaMemcpy2D; NaN in its row padding and in a guard row above and below), poison the
 *      output with NaN, launch each variant on each plane, copy back, verify; on a mismatch
 *      write an error-map PNG
 *   4. --output: write the result as PNG (alpha copied through unchanged) or .npy
 *   5. run mode and --bench: time each variant and the device-to-device copy of the same bytes;
 *      --bench adds the OpenMP CPU reference
 * Alpha is never convolved: it is copied from the input. The first variant is the chapter's
 * own kernel; the last is the baseline that the "vs naive" column divides by. A variant whose
 * block rule the run breaks, or that refuses a mask, is skipped for it with the reason;
 * FFT-based variants are held to verify_fft_rule instead of the per-output tolerance, and a
 * variant that sums other products (separable passes) to the bounds it computes itself.
 *
 * A program with a sweep of its own (chapter 06's tuner) calls harness_start itself, then
 * conv2d_run with an observer that picks the kernels for each mask and receives the results.
 */
#ifndef CONV2D_HARNESS_H
#define CONV2D_HARNESS_H

#include <stddef.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One plane: d_in and d_out are width x height floats, rows `pitch` bytes apart (the same
 * pitch for both). Launches on the default stream, checks the launch, does not synchronize. */
typedef void (*conv2d_launch_fn)(const float *d_in, float *d_out, size_t pitch, int width,
                                 int height, int mask_w, int mask_h, int block);

/* One plane in host memory, for a variant that moves the data itself (chapter 08's strips):
 * h_in and h_out are width x height floats, rows host_pitch bytes apart, page-locked (the
 * harness's own cudaHostAlloc copies), h_out poisoned with NaN before the checked launches.
 * Returns when h_out holds the result; timed between events on the legacy stream, so work on
 * other streams must be ordered after what that stream holds (strips_begin does). */
typedef void (*conv2d_host_launch_fn)(const float *h_in, float *h_out, size_t host_pitch,
                                      int width, int height, int mask_w, int mask_h, int block);

/* Places the mask (mask_w x mask_h, row-major) where the kernel reads it. */
typedef void (*conv2d_set_mask_fn)(const float *h_mask, int mask_w, int mask_h);

/* NULL when the kernel handles a mask_w x mask_h mask; else why not ("built for 3x3 only"). */
typedef const char *(*conv2d_refuses_fn)(int mask_w, int mask_h);

/* For a kernel that sums other products than the mask's width x height ones (chapter 07's
 * separable and low-rank paths): fills magnitude (width x height, one plane) so that
 * terms * FLT_EPSILON * magnitude bounds the kernel's error against the reference at each output,
 * and returns terms. Verification and the error map then use these instead of the mask's. */
typedef int (*conv2d_error_bound_fn)(const float *in, int width, int height, const float *mask,
                                     int mask_w, int mask_h, float *magnitude);

/* FFT-based results: the number of points the transform of a width x height image uses. */
typedef size_t (*conv2d_fft_points_fn)(int width, int height, int mask_w, int mask_h);

struct conv2d_variant {
    const char *label;
    conv2d_set_mask_fn set_mask;
    conv2d_launch_fn launch;           /* the image on the GPU; or else */
    conv2d_host_launch_fn host_launch; /* the image in host memory (above) */
    enum block_rule block_rule;      /* BLOCK_COVERS_MASK: launch refuses block < a mask side */
    conv2d_refuses_fn refuses;       /* optional: masks it cannot run (skipped, with the reason) */
    conv2d_fft_points_fn fft_points; /* optional: verify with verify_fft_rule, not per output */
    conv2d_error_bound_fn error_bound; /* optional: its own rounding bounds (above) */
    int solution; /* the chapter's reference, linked only when grading: never the baseline */
    int comparison; /* an earlier chapter's, a library's or a baseline kernel (--own-kernels) */
};

/* Chapter 10: every kernel applies the mask `passes` times (1 unless set). The reference is then
 * iterated.h's (K passes in double, with the bound K float passes earn), GB/s count every pass's
 * read and write, and the CPU baseline runs the K passes too. */
void conv2d_set_passes(int passes);

/* The 2D chapters' common spec: 8192x8192 random image by default, mask 5x5, masks up to
 * max_side x max_side, PNG or .npy input. --block is the input tile edge, 1..32 (32 by default). */
struct cli_spec conv2d_standard_spec(const char *program, const char *summary, int max_side);

int conv2d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv2d_variant *variants, int variant_count);

struct mask;
struct variant_result;

/* Lets a sweep choose the kernels per mask and collect what they did. */
struct conv2d_observer {
    /* The kernels to run on this mask: sets *list, returns how many (at least 1). */
    int (*kernels_for)(void *context, const struct mask *mask,
                       const struct conv2d_variant **list);
    /* After each image and mask: the kernels that ran there and their results (on `planes`
     * planes of width x height). */
    void (*results)(void *context, int width, int height, int planes, const struct mask *mask,
                    const struct conv2d_variant *list, int count,
                    const struct variant_result *results, double copy_gbps);
    void *context;
};

/* Steps 1 (after parsing) to 5 on parsed options. With an observer its kernels_for replaces
 * `variants` (pass NULL, 0) and no kernel's block rule is enforced up front. */
int conv2d_run(const struct cli_spec *spec, const struct cli_options *opt,
               const struct conv2d_variant *variants, int variant_count,
               const struct conv2d_observer *observer);

#ifdef __cplusplus
}
#endif
#endif
