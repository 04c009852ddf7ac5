/* conv1d_harness.h: the host program shared by the 1D chapters (01-04).
 *
 * A chapter's driver describes its kernel(s) as conv1d_variant entries and hands them, with its
 * cli_spec, to conv1d_chapter_main(), which does the rest the same way for every chapter:
 *   1. parse and validate the command line, the input signal and the mask (exit 2 on bad input,
 *      also when --block breaks the first kernel's block rule)
 *   2. probe the GPU (exit 77 without one)
 *   3. for every --size and --mask-width: make the data, compute the CPU reference, copy the
 *      inputs to the GPU, poison the output with NaN, launch each variant, copy back, verify
 *   4. run mode and --bench: time each variant and the device-to-device copy of the same size;
 *      --bench adds the single-threaded and OpenMP CPU reference times
 * The first variant is the chapter's own kernel; further ones are earlier chapters' kernels shown
 * beside it (verified and timed the same way; one whose block rule this run breaks is skipped
 * with the reason). The last is chapter 01's kernel, the "vs ch01" baseline. Returns the process
 * exit code.
 */
#ifndef CONV1D_HARNESS_H
#define CONV1D_HARNESS_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the kernel on the default stream and checks the launch (CUDA_CHECK_LAUNCH); it must
 * not synchronize, so that CUDA events time the kernel alone. d_out has n floats. */
typedef void (*conv1d_launch_fn)(const float *d_in, const float *d_mask, float *d_out, int n,
                                 int mask_width, int block_size);

/* Optional: places the mask where the kernel expects it (e.g. constant memory). */
typedef void (*conv1d_set_mask_fn)(const float *h_mask, int mask_width);

struct conv1d_variant {
    const char *label;           /* "ch01 basic" */
    conv1d_set_mask_fn set_mask; /* NULL when the kernel reads the mask from d_mask */
    conv1d_launch_fn launch;
    enum block_rule block_rule; /* BLOCK_COVERS_HALO: launch refuses block_size < width/2 */
    int solution; /* the chapter's reference, linked only when grading: never the baseline */
    int comparison; /* an earlier chapter's kernel, shown beside this one (--own-kernels) */
    const char *name; /* where the chapter has several kernels of its own (spec.kernels): the
                         one --kernel NAME selects, the solution's being its kernel's */
};

/* The command-line spec all 1D chapters share: 2^26 floats by default, mask width 5 (at most
 * WB_MAX_MASK_WIDTH_1D), blocks of 1..1024 threads (256 by default), .npy input. */
struct cli_spec conv1d_standard_spec(const char *program, const char *summary);

int conv1d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv1d_variant *variants, int variant_count);

#ifdef __cplusplus
}
#endif
#endif
