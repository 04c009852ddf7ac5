/* prefetch_variants.h: chapter 06's compiled kernel variants (Iandola et al.'s technique).
 *
 * Every variant has a compile-time square mask size, a compile-time shape of outputs per
 * thread (OX x OY) and a memory path. Masks 2x2 .. 7x7 get every path with shapes 1x1, 2x2,
 * 4x4, 4x8 (and 4x16 on the ldg path); the odd masks 9, 11, 13, 15, 21, 25 and 31 get the ldg
 * and shared paths with 4x4 outputs, for the comparison with cuFFT. The table
 * prefetch_variants[] lists them all, so the autotuner, the tests and the driver walk the same
 * list. Other masks go to chapter 05's naive kernel (see tuner.h).
 *
 *   PATH_GLOBAL_LDG    window prefetched from global memory through the read-only cache
 *   PATH_TEXTURE       window prefetched with tex2D from a texture object (border mode: zeros)
 *   PATH_SHARED        block tile staged in shared memory, window copied to registers from it
 *   PATH_GLOBAL_ONLY   no prefetch: every tap loads its input from global memory
 */
#ifndef PREFETCH_VARIANTS_H
#define PREFETCH_VARIANTS_H

#include <stddef.h>

#include "conv2d_harness.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PREFETCH_MIN_SIDE 2
#define PREFETCH_MAX_SIDE 31 /* the largest compiled mask; not every side below has variants */

enum prefetch_path { PATH_GLOBAL_LDG, PATH_TEXTURE, PATH_SHARED, PATH_GLOBAL_ONLY, PATH_COUNT };

struct prefetch_variant {
    int mask_w, mask_h;       /* compile-time mask size */
    int out_x, out_y;         /* outputs per thread: a row of out_x, out_y rows */
    enum prefetch_path path;
    const char *label;        /* path and shape, "global ldg 4x4" */
    /* The 2D harness's launch: one plane, rows `pitch` bytes apart (a multiple of 16, as
     * cudaMallocPitch gives), the same pitch for input and output. The mask must be in place
     * (prefetch_set_mask); a mask other than mask_w x mask_h is refused (exit 2); `block` is
     * not used (blocks are 32 x 8 threads). */
    conv2d_launch_fn launch;
};

extern const struct prefetch_variant prefetch_variants[];
extern const int prefetch_variant_count;

const char *prefetch_path_name(enum prefetch_path path);

/* 1 if some variant is compiled for a mask_w x mask_h mask. */
int prefetch_has_variants(int mask_w, int mask_h);

/* Copies a mask of up to PREFETCH_MAX_SIDE per side into the variants' constant memory. */
void prefetch_set_mask(const float *h_mask, int mask_w, int mask_h);

#ifdef __cplusplus
}
#endif
#endif
