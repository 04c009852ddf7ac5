/* conv2d_prefetch.h: chapter 06's exercise kernel interface, implemented in
 * exercises/06_register_prefetch/conv2d_prefetch.cu (yours) and solutions/06_register_prefetch/
 * (ours): the register-prefetch technique in one fixed configuration, a 3x3 mask with 2x2
 * outputs per thread. The driver's other kernels (prefetch_variants.h) cover every size. */
#ifndef CONV2D_PREFETCH_H
#define CONV2D_PREFETCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PREFETCH_EXERCISE_MASK 3  /* the only mask side the exercise kernel is built for */
#define PREFETCH_EXERCISE_OUT 2   /* outputs per thread: 2 x 2 */

/* NULL for a 3x3 mask, else why the kernel cannot run it (the driver skips it then). */
const char *conv2d_prefetch_refuses(int mask_w, int mask_h);

/* Copies the 3x3 mask (row-major) into the kernel's constant memory. */
void conv2d_prefetch_set_mask(const float *h_mask, int mask_w, int mask_h);

/* One plane, rows `pitch` bytes apart; blocks of 32 x 8 threads, each computing 2 x 2 outputs
 * (`block` is not used: the shape is part of the technique). */
void conv2d_prefetch_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                            int mask_w, int mask_h, int block);

#ifdef __cplusplus
}
#endif
#endif
