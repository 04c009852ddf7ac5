/* conv1d_constant.cu: chapter 02, chapter 01's kernel with the mask in constant memory.
 *
 * This file exists twice with the same name: exercises/02_constant_mask/ holds it with TODO
 * blocks for you, solutions/02_constant_mask/ the reference; outside the TODO blocks they are
 * identical (a test checks that). Check yours with `make check CH=02`.
 *
 *   c_mask                     the weights, in the 64 KB constant space, cached per SM
 *   conv1d_constant_set_mask   cudaMemcpyToSymbol from the host
 *   conv1d_constant_kernel     one thread per output; every thread of a warp reads the same
 *                              c_mask[j] at the same time, which the constant cache broadcasts
 *   conv1d_constant_launch     grid geometry and precondition checks
 */
#include "conv1d_constant.h"
#include "cuda_check.h"

// static: this c_mask is private to this file. Later chapters' programs link this file beside
// their own kernel files, each with its own c_mask; static keeps that correct even in builds
// with relocatable device code (-rdc), where two non-static definitions would collide.
static __constant__ float c_mask[WB_MAX_MASK_WIDTH_1D];

void conv1d_constant_set_mask(const float *h_mask, int mask_width) {
    if (mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D)
        wb_die(WB_EXIT_USAGE, "conv1d_constant_set_mask: mask width %d is outside 1..%d",
               mask_width, WB_MAX_MASK_WIDTH_1D);
    // ---- TODO 1 begin: copy the weights into constant memory
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, h_mask, mask_width * sizeof(float)));
    // ---- TODO 1 end
}

__global__ void conv1d_constant_kernel(const float *in, float *out, int n, int mask_width) {
    // ---- TODO 2 begin: chapter 01's kernel body, reading the weights from c_mask
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int window_start = i - mask_width / 2;
    float sum = 0.0f;
    for (int j = 0; j < mask_width; ++j) {
        int k = window_start + j;
        if (k >= 0 && k < n) sum += c_mask[j] * in[k];
    }
    out[i] = sum;
    // ---- TODO 2 end
}

void conv1d_constant_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                            int mask_width, int block_size) {
    (void)d_mask; // the weights were placed in c_mask by conv1d_constant_set_mask
    if (n < 1 || mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D || block_size < 1 ||
        block_size > 1024)
        wb_die(WB_EXIT_USAGE, "conv1d_constant_launch: bad arguments n=%d mask_width=%d block=%d",
               n, mask_width, block_size);
    int blocks = (n + block_size - 1) / block_size;
    conv1d_constant_kernel<<<blocks, block_size>>>(d_in, d_out, n, mask_width);
    CUDA_CHECK_LAUNCH();
}
