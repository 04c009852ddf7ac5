/* conv2d_naive.cu: the 2D baseline. Thread (x, y) computes output (x, y) straight from global
 * memory, testing every tap against the image border. Two builds of one kernel differ only in
 * where the mask lives: constant memory (the baseline, so its only difference from chapter 05's
 * kernel is the tiling), or global memory (to measure what constant memory buys in 2D).
 *
 *   conv2d_naive_kernel<MASK_IN>   one thread per output, blocks of 32 x 8
 *   conv2d_naive_launch            mask in constant memory
 *   conv2d_naive_global_mask_launch  mask in global memory
 */
#include "constant_mask.cuh"
#include "conv2d_naive.h"
#include "pitched.cuh"

enum mask_memory { MASK_IN_CONSTANT, MASK_IN_GLOBAL };

static __constant__ float c_mask[CONV2D_NAIVE_MAX_MASK_SIDE * CONV2D_NAIVE_MAX_MASK_SIDE];
static __device__ float g_mask[CONV2D_NAIVE_MAX_MASK_SIDE * CONV2D_NAIVE_MAX_MASK_SIDE];

void conv2d_naive_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_constant_mask("conv2d_naive_set_mask", c_mask, h_mask, mask_w, mask_h,
                         CONV2D_NAIVE_MAX_MASK_SIDE, CONV2D_NAIVE_MAX_MASK_SIDE);
}

/* The same checked copy (cudaMemcpyToSymbol works on any device symbol), into global memory. */
void conv2d_naive_global_mask_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_constant_mask("conv2d_naive_global_mask_set_mask", g_mask, h_mask, mask_w, mask_h,
                         CONV2D_NAIVE_MAX_MASK_SIDE, CONV2D_NAIVE_MAX_MASK_SIDE);
}

template <int MASK_IN>
__global__ void conv2d_naive_kernel(const float *in, float *out, size_t pitch, int width,
                                    int height, int mask_w, int mask_h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float *mask = MASK_IN == MASK_IN_CONSTANT ? c_mask : g_mask;
    float sum = 0.0f;
    for (int i = 0; i < mask_h; ++i) {
        int row = y + i - mask_h / 2;
        if (row < 0 || row >= height) continue;
        const float *in_row = row_of(in, pitch, row);
        for (int j = 0; j < mask_w; ++j) {
            int col = x + j - mask_w / 2;
            if (col >= 0 && col < width) sum += mask[i * mask_w + j] * in_row[col];
        }
    }
    row_of(out, pitch, y)[x] = sum;
}

template <int MASK_IN>
static void launch(const char *caller, const float *d_in, float *d_out, size_t pitch, int width,
                   int height, int mask_w, int mask_h) {
    if (width < 1 || height < 1 || mask_w < 1 || mask_h < 1 ||
        mask_w > CONV2D_NAIVE_MAX_MASK_SIDE || mask_h > CONV2D_NAIVE_MAX_MASK_SIDE)
        wb_die(WB_EXIT_USAGE, "%s: bad arguments %dx%d mask %dx%d", caller, width, height, mask_w,
               mask_h);
    dim3 threads(32, 8);
    dim3 blocks((width + 31) / 32, (height + 7) / 8);
    conv2d_naive_kernel<MASK_IN>
        <<<blocks, threads>>>(d_in, d_out, pitch, width, height, mask_w, mask_h);
    CUDA_CHECK_LAUNCH();
}

void conv2d_naive_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block) {
    (void)block;
    launch<MASK_IN_CONSTANT>("conv2d_naive_launch", d_in, d_out, pitch, width, height, mask_w,
                             mask_h);
}

void conv2d_naive_global_mask_launch(const float *d_in, float *d_out, size_t pitch, int width,
                                     int height, int mask_w, int mask_h, int block) {
    (void)block;
    launch<MASK_IN_GLOBAL>("conv2d_naive_global_mask_launch", d_in, d_out, pitch, width, height,
                           mask_w, mask_h);
}
