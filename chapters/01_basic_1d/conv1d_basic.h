/* conv1d_basic.h: chapter 01's kernel interface, implemented twice with the same file name:
 * exercises/01_basic_1d/conv1d_basic.cu (yours to complete) and
 * solutions/01_basic_1d/conv1d_basic.cu (the reference). The driver main.c calls it. */
#ifndef CONV1D_BASIC_H
#define CONV1D_BASIC_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the one-thread-per-output kernel: d_out[i] = sum_j d_mask[j] * d_in[i + j - w/2],
 * ghost cells zero. All pointers are device memory; n >= 1, 1 <= mask_width, 1 <= block_size
 * <= 1024. Returns once the launch is queued (the kernel runs asynchronously). */
void conv1d_basic_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                         int mask_width, int block_size);

#ifdef __cplusplus
}
#endif
#endif
