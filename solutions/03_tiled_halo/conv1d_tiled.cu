/* conv1d_tiled.cu: chapter 03, tiled 1D convolution with halo cells in shared memory.
 *
 * This file exists twice with the same name: exercises/03_tiled_halo/ holds it with TODO blocks
 * for you, solutions/03_tiled_halo/ the reference; outside the TODO blocks they are identical (a
 * test checks that). Check yours with `make check CH=03`.
 *
 * Block b owns outputs [b*B, b*B + B) for B = blockDim.x. Its input tile in shared memory is
 *
 *     s_tile:  | left halo (w/2) |     B internal cells      | right halo (w-1-w/2) |
 *     input:    b*B - w/2 ...       b*B ... b*B + B - 1         b*B + B ...
 *
 * Every thread loads its own internal cell; the last w/2 threads also load one left-halo cell
 * and the first w-1-w/2 threads one right-halo cell (so B >= w/2 is required). Ghost cells are
 * stored as zeros, which lets the compute loop run without a bounds test.
 *
 *   conv1d_tiled_kernel   load tile + halo, barrier, compute from shared memory
 *   conv1d_tiled_launch   grid geometry, dynamic shared-memory size, precondition checks
 */
#include "conv1d_tiled.h"
#include "constant_mask.cuh"

static __constant__ float c_mask[WB_MAX_MASK_WIDTH_1D]; // as in chapter 02, private to this file

void conv1d_tiled_set_mask(const float *h_mask, int mask_width) {
    upload_constant_mask("conv1d_tiled_set_mask", c_mask, h_mask, mask_width, 1, WB_MAX_MASK_WIDTH_1D, 1);
}

__global__ void conv1d_tiled_kernel(const float *in, float *out, int n, int mask_width) {
    extern __shared__ float s_tile[]; // blockDim.x + mask_width - 1 floats, sized at launch
    int halo_left = mask_width / 2;
    int halo_right = mask_width - 1 - halo_left;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // ---- TODO 1 begin: the last halo_left threads load the left halo
    if (threadIdx.x >= blockDim.x - halo_left) {
        int k = i - (int)blockDim.x; // halo_left cells before this block's first input
        s_tile[threadIdx.x - (blockDim.x - halo_left)] = (k >= 0) ? in[k] : 0.0f;
    }
    // ---- TODO 1 end

    // ---- TODO 2 begin: every thread loads its own cell
    s_tile[halo_left + threadIdx.x] = (i < n) ? in[i] : 0.0f;
    // ---- TODO 2 end

    // ---- TODO 3 begin: the first halo_right threads load the right halo
    if (threadIdx.x < halo_right) {
        int k = i + blockDim.x; // cells just after this block's last input
        s_tile[halo_left + blockDim.x + threadIdx.x] = (k < n) ? in[k] : 0.0f;
    }
    // ---- TODO 3 end

    // ---- TODO 4 begin: wait until the whole tile is loaded
    __syncthreads();
    // ---- TODO 4 end

    // ---- TODO 5 begin: compute this thread's output from shared memory
    if (i < n) {
        float sum = 0.0f;
        for (int j = 0; j < mask_width; ++j) sum += c_mask[j] * s_tile[threadIdx.x + j];
        out[i] = sum;
    }
    // ---- TODO 5 end
}

void conv1d_tiled_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                         int mask_width, int block_size) {
    (void)d_mask; // the weights are in c_mask
    if (n < 1 || mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D || block_size < 1 ||
        block_size > 1024 || block_size < mask_width / 2)
        wb_die(WB_EXIT_USAGE, "conv1d_tiled_launch: bad arguments n=%d mask_width=%d block=%d",
               n, mask_width, block_size);
    int blocks = (n + block_size - 1) / block_size;
    size_t tile_bytes = (size_t)(block_size + mask_width - 1) * sizeof(float);
    conv1d_tiled_kernel<<<blocks, block_size, tile_bytes>>>(d_in, d_out, n, mask_width);
    CUDA_CHECK_LAUNCH();
}
