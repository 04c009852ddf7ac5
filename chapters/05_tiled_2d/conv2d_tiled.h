/* conv2d_tiled.h: chapter 05's kernel interface, implemented in
 * exercises/05_tiled_2d/conv2d_tiled.cu (yours) and solutions/05_tiled_2d/ (ours). */
#ifndef CONV2D_TILED_H
#define CONV2D_TILED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest mask side the chapter accepts (odd; its constant array holds 15 x 15 floats). */
#define CONV2D_MAX_MASK_SIDE 15

/* Copies a mask_w x mask_h mask (row-major, each side 1..CONV2D_MAX_MASK_SIDE) into the
 * kernel's constant memory. */
void conv2d_tiled_set_mask(const float *h_mask, int mask_w, int mask_h);

/* Tiled 2D convolution of one plane. Blocks are block x block threads, one per cell of the
 * input tile; the output tile is (block - mask_w + 1) x (block - mask_h + 1), so block must be
 * >= both mask sides (1 <= block <= 32). d_in and d_out have rows `pitch` bytes apart. */
void conv2d_tiled_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block);

#ifdef __cplusplus
}
#endif
#endif
