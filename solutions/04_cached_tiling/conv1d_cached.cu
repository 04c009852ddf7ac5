/* conv1d_cached.cu: chapter 04, tiling with the halo read through the caches.
 *
 * This file exists twice with the same name: exercises/04_cached_tiling/ holds it with TODO
 * blocks for you, solutions/04_cached_tiling/ the reference; outside the TODO blocks they are
 * identical (a test checks that). Check yours with `make check CH=04`.
 *
 * Only the block's own inputs [b*B, b*B + B) go to shared memory: one load per thread, no halo
 * logic. While summing, a window cell inside that range is read from shared memory; a cell
 * outside it (the halo) is read from global memory, and the L1 or L2 cache serves it because
 * the neighbouring block loads the same cells as its own tile.
 *
 *   conv1d_cached_kernel   load own cell, barrier, sum choosing shared or global per cell
 *   conv1d_cached_launch   grid geometry, shared-memory size, precondition checks
 */
#include "conv1d_cached.h"
#include "constant_mask.cuh"

static __constant__ float c_mask[WB_MAX_MASK_WIDTH_1D]; // as in chapter 02, private to this file

void conv1d_cached_set_mask(const float *h_mask, int mask_width) {
    upload_constant_mask("conv1d_cached_set_mask", c_mask, h_mask, mask_width, 1, WB_MAX_MASK_WIDTH_1D, 1);
}

__global__ void conv1d_cached_kernel(const float *in, float *out, int n, int mask_width) {
    extern __shared__ float s_tile[]; // blockDim.x floats, sized at launch
    int tile_start = blockIdx.x * blockDim.x;
    int i = tile_start + threadIdx.x;

    // ---- TODO 1 begin: stage this block's inputs, then wait for the whole tile
    s_tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    // ---- TODO 1 end

    // ---- TODO 2 begin: sum the window, from shared memory inside the tile, global outside
    if (i >= n) return; // safe: no barrier follows
    int tile_end = tile_start + blockDim.x;
    int window_start = i - mask_width / 2;
    float sum = 0.0f;
    for (int j = 0; j < mask_width; ++j) {
        int k = window_start + j;
        if (k >= tile_start && k < tile_end)
            sum += c_mask[j] * s_tile[k - tile_start];
        else if (k >= 0 && k < n)
            sum += c_mask[j] * in[k];
    }
    out[i] = sum;
    // ---- TODO 2 end
}

void conv1d_cached_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                          int mask_width, int block_size) {
    (void)d_mask; // the weights are in c_mask
    if (n < 1 || mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D || block_size < 1 ||
        block_size > 1024)
        wb_die(WB_EXIT_USAGE, "conv1d_cached_launch: bad arguments n=%d mask_width=%d block=%d",
               n, mask_width, block_size);
    int blocks = (n + block_size - 1) / block_size;
    size_t tile_bytes = (size_t)block_size * sizeof(float);
    conv1d_cached_kernel<<<blocks, block_size, tile_bytes>>>(d_in, d_out, n, mask_width);
    CUDA_CHECK_LAUNCH();
}
