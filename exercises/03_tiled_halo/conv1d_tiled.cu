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
    // The left halo is the halo_left inputs just before this block's first input, b*B. Let
    // the LAST halo_left threads of the block (threadIdx.x >= blockDim.x - halo_left) each load
    // one: the cell blockDim.x positions before its own input i, stored at the start of s_tile
    // (index threadIdx.x - (blockDim.x - halo_left)). Block 0's left halo lies before the
    // signal: store 0 for those ghost cells instead of reading in[negative]. Compute that index
    // as a signed int, int k = i - (int)blockDim.x, and test k >= 0. Without the cast, i is
    // converted to unsigned (blockDim.x is unsigned): in block 0, i - blockDim.x wraps around
    // to a huge positive number, and a test on it would let block 0 read before the signal.
    // ---- TODO 1 end

    // ---- TODO 2 begin: every thread loads its own cell
    // Thread t's own input in[i] goes to s_tile[halo_left + t]. Threads past the end of the
    // signal (i >= n) must not return early: they still take part in the barrier below. Let
    // them store a 0 and carry on.
    // ---- TODO 2 end

    // ---- TODO 3 begin: the first halo_right threads load the right halo
    // The right halo is the halo_right inputs just after this block's last input. Let the
    // FIRST halo_right threads load one each: the cell blockDim.x positions after i, stored
    // after the internal cells (index halo_left + blockDim.x + threadIdx.x). Past the end of
    // the signal they are ghost cells: store 0.
    // ---- TODO 3 end

    // ---- TODO 4 begin: wait until the whole tile is loaded
    // Thread t is about to read cells that other threads of the block wrote. Put the barrier
    // here that makes every thread wait until all loads above have landed in shared memory.
    // (Forget it and the result is right most of the time: the tests run compute-sanitizer's
    // racecheck to catch exactly that.)
    // ---- TODO 4 end

    // ---- TODO 5 begin: compute this thread's output from shared memory
    // For i < n: sum c_mask[j] * s_tile[threadIdx.x + j] over j = 0 .. mask_width-1 and store
    // it in out[i]. No ghost test is needed: the loads above stored zeros for ghost cells.
    // Count the loads: mask_width reads of shared memory per output, one of global memory.
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
