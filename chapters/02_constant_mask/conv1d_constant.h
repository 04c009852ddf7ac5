/* conv1d_constant.h: chapter 02's kernel interface, implemented in
 * exercises/02_constant_mask/conv1d_constant.cu (yours) and solutions/02_constant_mask/ (ours). */
#ifndef CONV1D_CONSTANT_H
#define CONV1D_CONSTANT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Copies mask_width weights (1 .. WB_MAX_MASK_WIDTH_1D) from host memory into the kernel's
 * __constant__ array. Call before every launch that uses a different mask. */
void conv1d_constant_set_mask(const float *h_mask, int mask_width);

/* Same contract as conv1d_basic_launch, but the weights come from constant memory (set by
 * conv1d_constant_set_mask); d_mask is not read. */
void conv1d_constant_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                            int mask_width, int block_size);

#ifdef __cplusplus
}
#endif
#endif
