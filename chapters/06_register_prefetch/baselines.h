/* baselines.h: the library baselines chapter 06 measures its kernels against, with the same
 * launch interface as every 2D kernel (conv2d_harness.h), so they run in the same program on
 * the same image and mask and are verified like the kernels.
 *
 *   NPP     nppiFilterBorder_32f_C1R_Ctx, NVIDIA's direct 2D filter (only when the CUDA Toolkit
 *           has NPP: the Makefile defines WB_HAVE_NPP and links libnppif/libnppc). Its border
 *           rule replicates edge pixels, so its source is a zero-padded copy of the plane, made
 *           once per plane and mask (not timed); every read falls inside it. Masks up to 31;
 *           which coefficient meets which neighbour is measured (see baseline_npp.cu).
 *   cuFFT   convolution theorem: pad the image to an FFT-friendly size, forward R2C, multiply
 *           by the mask's spectrum (computed once per mask, not timed), inverse C2R, crop.
 *           Held to verify_fft_rule: its rounding is spread over the whole image.
 */
#ifndef BASELINES_H
#define BASELINES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BASELINE_MAX_MASK_SIDE 31

/* NULL when NPP can run the mask as our correlation (measured once per size), else why not. */
const char *npp_filter_refuses(int mask_w, int mask_h);
void npp_filter_set_mask(const float *h_mask, int mask_w, int mask_h);
void npp_filter_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                       int mask_w, int mask_h, int block);

void fft_conv_set_mask(const float *h_mask, int mask_w, int mask_h);
void fft_conv_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                     int mask_w, int mask_h, int block);
/* The transform size for an image and mask: (fft width) x (fft height) points. */
size_t fft_conv_points(int width, int height, int mask_w, int mask_h);

#ifdef __cplusplus
}
#endif
#endif
