/* conv2d_row_pass.h: chapter 07's exercise interface, the row pass of a separable convolution,
 * implemented in exercises/07_separable/conv2d_row_pass.cu (yours) and solutions/07_separable/
 * (ours). The chapter's column pass (separable.cu) completes it. */
#ifndef CONV2D_ROW_PASS_H
#define CONV2D_ROW_PASS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROW_PASS_MAX_WIDTH 31 /* the longest row of weights */
#define ROW_PASS_MAX_TERMS 31 /* rows of weights held at once (one per term of a low-rank mask) */

/* Copies `terms` rows of mask_w weights (row-major, term t at h_rows[t * mask_w]) into the
 * kernel's constant memory; 1 <= mask_w <= ROW_PASS_MAX_WIDTH, 1 <= terms <= ROW_PASS_MAX_TERMS. */
void row_pass_set_weights(const float *h_rows, int mask_w, int terms);

/* out[y][x] = sum_j row_term[j] * in[y][x + j - mask_w / 2], zero outside the image, for one
 * width x height plane (rows `pitch` bytes apart, the same pitch for both). Launches on the
 * default stream and does not synchronize. */
void row_pass_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                     int mask_w, int term);

#ifdef __cplusplus
}
#endif
#endif
