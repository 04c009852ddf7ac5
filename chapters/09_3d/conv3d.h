/* conv3d.h: chapter 09's kernels, each behind the same host interface (conv3d_harness.h):
 *
 *   conv3d_naive_*    one thread per output, the mask in constant memory          (conv3d_naive.cu)
 *   conv3d_tiled_*    a cube of input in shared memory, halo included (PMPP)      (conv3d_tiled.cu)
 *   conv3d_stream_*   2.5D: a block marches along z, one input plane at a time in shared
 *                     memory, the outputs it feeds as sums in registers; compile-time masks
 *                     for the cubes 3, 5 and 7                                   (conv3d_stream.cu,
 *                     the exercise: exercises/09_3d/conv3d_stream.cu)
 * Each launcher checks its arguments (exit 2 naming the problem), launches on the default
 * stream, checks the launch and does not synchronize. WB_CONV3D_Z_CHUNK=N (tests) sets the
 * slices a 2.5D block marches through, which small volumes would otherwise keep to one or two;
 * WB_CONV3D_NO_TMA=1 (tests) makes the 2.5D kernel copy planes with cp.async even where the
 * Tensor Memory Accelerator could (sm_90, width a multiple of 4).
 */
#ifndef CONV3D_H
#define CONV3D_H

#ifdef __cplusplus
extern "C" {
#endif

#define CONV3D_TILED_MAX_BLOCK 10 /* an input tile of block^3 threads: at most 1000 */

void conv3d_naive_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d);
void conv3d_naive_launch(const float *d_in, float *d_out, int width, int height, int depth,
                         int mask_w, int mask_h, int mask_d, int block);

void conv3d_tiled_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d);
void conv3d_tiled_launch(const float *d_in, float *d_out, int width, int height, int depth,
                         int mask_w, int mask_h, int mask_d, int block);

void conv3d_stream_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d);
void conv3d_stream_launch(const float *d_in, float *d_out, int width, int height, int depth,
                          int mask_w, int mask_h, int mask_d, int block);

#ifdef __cplusplus
}
#endif
#endif
