/* conv1d_tiled.h: chapter 03's kernel interface, implemented in
 * exercises/03_tiled_halo/conv1d_tiled.cu (yours) and solutions/03_tiled_halo/ (ours). */
#ifndef CONV1D_TILED_H
#define CONV1D_TILED_H

#ifdef __cplusplus
extern "C" {
#endif

/* Places the weights in this kernel's constant memory (as chapter 02). */
void conv1d_tiled_set_mask(const float *h_mask, int mask_width);

/* Tiled launch: each block of block_size threads stages its block_size inputs plus mask_width-1
 * halo cells in shared memory, then computes block_size outputs from there. Needs
 * block_size >= mask_width/2 (each thread loads at most one halo cell); d_mask is not read. */
void conv1d_tiled_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                         int mask_width, int block_size);

#ifdef __cplusplus
}
#endif
#endif
