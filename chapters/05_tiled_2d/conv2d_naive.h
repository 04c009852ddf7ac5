/* conv2d_naive.h: the straightforward 2D kernel chapter 05 measures its tiling against (and
 * chapter 06 too): one thread per output, every input read from global memory. Not an
 * exercise; it lives with the driver, in chapters/05_tiled_2d/conv2d_naive.cu. A twin reads the
 * mask from global memory instead of constant memory: constant against global, in 2D. */
#ifndef CONV2D_NAIVE_H
#define CONV2D_NAIVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mask into this kernel's constant memory (sides 1..CONV2D_NAIVE_MAX_MASK_SIDE). */
void conv2d_naive_set_mask(const float *h_mask, int mask_w, int mask_h);

/* One plane, rows `pitch` bytes apart; blocks of 32 x 8 threads (`block` is not used). */
void conv2d_naive_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block);

/* The twin: the same kernel with its mask in global memory (its own copy, set by its own call). */
void conv2d_naive_global_mask_set_mask(const float *h_mask, int mask_w, int mask_h);
void conv2d_naive_global_mask_launch(const float *d_in, float *d_out, size_t pitch, int width,
                                     int height, int mask_w, int mask_h, int block);

#define CONV2D_NAIVE_MAX_MASK_SIDE 31

#ifdef __cplusplus
}
#endif
#endif
