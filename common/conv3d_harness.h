/* conv3d_harness.h: the host program of the volume chapter (09).
 *
 * Like conv2d_harness.h, for volumes: the driver describes its kernels as conv3d_variant
 * entries and hands them, with its cli_spec, to conv3d_chapter_main():
 *   1. parse and validate the command line, every input volume (3-D .npy) and every mask (exit
 *      2 on bad input, and when --block is smaller than a mask side for the first kernel's rule)
 *   2. probe the GPU (exit 77 without one); a volume and its result that do not fit in the free
 *      GPU memory are refused with the sizes (exit 2)
 *   3. for every volume and mask: the CPU reference, the volume on the GPU once for all its
 *      masks, the output poisoned with NaN before each launch, every kernel launched twice (the
 *      two results must agree bit for bit), verified; the first mismatches listed as x, y, z
 *   4. --output: the GPU result as a 3-D .npy, or as a PNG montage of its slices (the input's
 *      montage beside it, NAME_input.png)
 *   5. run mode and --bench: each kernel timed against the device-to-device copy of the same
 *      bytes, with its share of the FP32 FMA peak; --bench adds the OpenMP CPU reference
 * The first variant is the chapter's own kernel; the last one is the baseline of "vs naive".
 * Volumes are dense: voxel (x, y, z) at [((size_t)z * height + y) * width + x].
 */
#ifndef CONV3D_HARNESS_H
#define CONV3D_HARNESS_H

#include <stddef.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One volume in, one out, on the GPU; launches on the default stream, checks the launch, does
 * not synchronize. */
typedef void (*conv3d_launch_fn)(const float *d_in, float *d_out, int width, int height,
                                 int depth, int mask_w, int mask_h, int mask_d, int block);
/* Places the mask (mask_w x mask_h x mask_d, masks3d.h's layout) where the kernel reads it. */
typedef void (*conv3d_set_mask_fn)(const float *h_mask, int mask_w, int mask_h, int mask_d);
/* NULL when the kernel takes this mask with this --block; else why not. */
typedef const char *(*conv3d_refuses_fn)(int mask_w, int mask_h, int mask_d, int block);

struct conv3d_variant {
    const char *label;
    conv3d_set_mask_fn set_mask;
    conv3d_launch_fn launch;
    conv3d_refuses_fn refuses; /* optional: skipped with the reason */
    int block_covers_mask;     /* the chapter's own kernel refuses --block < a mask side: the
                                  whole run is refused up front (exit 2), as in 2D */
    int solution;   /* the chapter's reference, linked only when grading: never the baseline */
    int comparison; /* shown beside the chapter's own (--own-kernels leaves it out) */
};

/* Chapter 09's spec: a 256 x 256 x 256 random volume, mask 3x3x3, masks up to 7 per axis. */
struct cli_spec conv3d_standard_spec(const char *program, const char *summary, int min_block,
                                     int max_block, int default_block);

int conv3d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv3d_variant *variants, int variant_count);

/* Generated volumes: the phantom of volumes.h (1) or uniform noise in [0, 1) (0, the default). */
void conv3d_use_phantom(int phantom);

#ifdef __cplusplus
}
#endif
#endif
