/* conv1d_register.h: beyond the book, a register-tiled 1D kernel (the technique of chapter 06
 * applied to 1D), measured beside chapters 01-04 to show where the copy bound lies. Chapter 04's
 * second exercise: conv1d_register.cu in exercises/04_cached_tiling/ (yours, with TODO blocks)
 * and solutions/04_cached_tiling/ (the reference). */
#ifndef CONV1D_REGISTER_H
#define CONV1D_REGISTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Places the weights in this kernel's constant memory. */
void conv1d_register_set_mask(const float *h_mask, int mask_width);

/* Same contract as the chapter kernels (d_mask is not read). block_size is ignored: the kernel
 * is compiled for CONV1D_REGISTER_BLOCK threads, each computing CONV1D_REGISTER_OUTPUTS
 * consecutive outputs, for every mask width 1..WB_MAX_MASK_WIDTH_1D. */
void conv1d_register_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                            int mask_width, int block_size);

/* Chosen by a sweep on an H200 (see the chapter 04 lesson); override with -D to experiment. */
#ifndef CONV1D_REGISTER_BLOCK
#define CONV1D_REGISTER_BLOCK 128
#endif
#ifndef CONV1D_REGISTER_OUTPUTS
#define CONV1D_REGISTER_OUTPUTS 8
#endif

#ifdef __cplusplus
}
#endif
#endif
