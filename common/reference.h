/* reference.h: the CPU reference every GPU result is checked against.
 *
 *   cpu_correlate_1d   P[i] = sum_j M[j] * N[i + j - w/2], zero ghost cells
 *   cpu_correlate_2d   the same on rows and columns of one plane
 *   cpu_correlate_3d   and on the slices, rows and columns of a volume (chapter 09)
 *
 * Both accumulate in double and round once to float. Alongside the value they can return, per
 * output, the magnitude sum_j |M[j]| * |N[...]| over the same window: the scale of the rounding
 * error a float computation may make there (see verify.h). `parallel` selects the OpenMP loop
 * (the CPU baseline for speedups); 0 runs the readable single-threaded loop.
 */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[0..n-1] = correlation of in[0..n-1] with mask[0..w-1]; magnitude may be NULL. */
void cpu_correlate_1d(const float *in, size_t n, const float *mask, int w, float *out,
                      float *magnitude, int parallel);

/* One width x height plane (row-major, rows `width` floats apart) with a mask_w x mask_h mask
 * (row-major). out and magnitude (may be NULL) are width x height. */
void cpu_correlate_2d(const float *in, int width, int height, const float *mask, int mask_w,
                      int mask_h, float *out, float *magnitude, int parallel);

/* One width x height x depth volume (slice z, row y, column x at in[(z * height + y) * width +
 * x]) with a mask_w x mask_h x mask_d mask (the same layout, masks3d.h); out and magnitude (may
 * be NULL) are laid out like in. */
void cpu_correlate_3d(const float *in, int width, int height, int depth, const float *mask,
                      int mask_w, int mask_h, int mask_d, float *out, float *magnitude,
                      int parallel);

/* Number of OpenMP threads the parallel reference uses (1 when built without OpenMP). */
int cpu_thread_count(void);

#ifdef __cplusplus
}
#endif
#endif
