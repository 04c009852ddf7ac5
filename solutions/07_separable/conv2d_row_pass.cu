/* conv2d_row_pass.cu: chapter 07, the row pass of a separable convolution.
 *
 * This file exists twice with the same name: exercises/07_separable/ holds it with TODO blocks
 * for you, solutions/07_separable/ the reference; outside the TODO blocks they are identical (a
 * test checks that). Check yours with `make check CH=07`.
 *
 * A row pass needs neighbours along x only, so a tile's halo is mask_w - 1 columns and no rows.
 * A block of 256 threads owns TILE_ROWS x TILE_COLS outputs:
 *
 *     s_in: TILE_ROWS rows of  [ halo | TILE_COLS columns | halo ]   copied coalesced with
 *                               mask_w/2                  (mask_w-1)/2   cp.async, zeros outside
 *                                                                        the image
 *     each thread: one row (its lane), one segment of OUTPUTS_PER_THREAD columns (its warp);
 *       it reads OUTPUTS_PER_THREAD + mask_w - 1 inputs once into registers and slides the
 *       mask along them: mask_w multiply-adds per output, one shared-memory read per output
 *       plus the halo, instead of one per multiply-add
 *     s_out: the block's outputs, so that the global stores are coalesced again
 *
 * Lanes of a warp work on different rows of s_in. Its rows are S_IN_PITCH floats apart, an odd
 * number, so the 32 lanes' reads of the same column land in 32 different banks.
 *
 * The pass is bound by memory: what counts is how many bytes are in flight. A cp.async copy
 * (async_copy.cuh) goes from global to shared memory without a register, so a thread issues all
 * of its tile's copies at once and needs fewer registers, and more blocks fit on an SM. Measured
 * on the H100 under ncu at 21x21: 281 us with loads through registers (4 blocks an SM, 55% of
 * the DRAM bandwidth busy), 220 us with cp.async (5 blocks, 70%). Storing each thread's 16
 * outputs straight from its registers, without s_out, took 330 us: a warp's lanes are on 32
 * rows, so each store instruction touched 32 rows' memory segments instead of one.
 *
 *   row_pass_kernel<MAX_W>   one tile; MAX_W >= mask_w is the register window's compile-time
 *                            bound (4, 8, 16 or 32), so the window can live in registers
 *   row_pass_launch          picks MAX_W, the grid, checks the arguments
 */
#include "conv2d_row_pass.h"
#include "async_copy.cuh"
#include "cuda_check.h"
#include "pitched.cuh"

enum {
    TILE_ROWS = 32,
    OUTPUTS_PER_THREAD = 16,
    TILE_COLS = 8 * OUTPUTS_PER_THREAD, /* 8 warps, one segment each */
    S_IN_PITCH = TILE_COLS + 32 + 1,    /* room for a halo of up to 31 columns; odd */
    S_OUT_PITCH = TILE_COLS + 1
};

static __constant__ float c_rows[ROW_PASS_MAX_TERMS * ROW_PASS_MAX_WIDTH];

void row_pass_set_weights(const float *h_rows, int mask_w, int terms) {
    if (mask_w < 1 || mask_w > ROW_PASS_MAX_WIDTH || terms < 1 || terms > ROW_PASS_MAX_TERMS)
        wb_die(WB_EXIT_USAGE, "row_pass_set_weights: %d rows of %d weights is outside 1..%d of 1..%d",
               terms, mask_w, ROW_PASS_MAX_TERMS, ROW_PASS_MAX_WIDTH);
    CUDA_CHECK(cudaMemcpyToSymbol(c_rows, h_rows, (size_t)terms * mask_w * sizeof(float)));
}

template <int MAX_W>
__global__ void __launch_bounds__(256) row_pass_kernel(const float *in, float *out, size_t pitch,
                                                       int width, int height, int mask_w,
                                                       int term) {
    __shared__ float s_in[TILE_ROWS * S_IN_PITCH];
    __shared__ float s_out[TILE_ROWS * S_OUT_PITCH];

    // ---- TODO 1 begin: copy the tile and its halo columns to s_in, zeros outside the image
    const int x0 = blockIdx.x * TILE_COLS, y0 = blockIdx.y * TILE_ROWS;
    const int left = mask_w / 2, span = TILE_COLS + mask_w - 1;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // warp w copies rows w, w + 8, ...; its lanes neighbouring columns (coalesced), all of a
    // thread's copies in flight at once (see the top of the file)
#pragma unroll
    for (int i = 0; i < TILE_ROWS / 8; ++i) {
        const int r = warp + 8 * i, y = y0 + r;
        const float *source = row_of(in, pitch, y < height ? y : 0);
#pragma unroll
        for (int k = 0; k < (S_IN_PITCH + 31) / 32; ++k) {
            const int c = lane + 32 * k, x = x0 - left + c;
            const bool inside = y < height && x >= 0 && x < width;
            if (c < span) copy_or_zero_async(&s_in[r * S_IN_PITCH + c], inside ? source + x : in,
                                             inside);
        }
    }
    // ---- TODO 1 end
    async_commit();   /* the copies issued so far are one group */
    async_wait<0>();  /* ... which this thread waits for; the barrier waits for the others' */
    __syncthreads();

    // ---- TODO 2 begin: slide the weights along a window of inputs held in registers
    const int row = threadIdx.x % 32, first = (threadIdx.x / 32) * OUTPUTS_PER_THREAD;
    const float *weights = c_rows + term * mask_w, *source = s_in + row * S_IN_PITCH + first;
    // Each input is read just before the first tap that needs it: a window of 16 registers
    // slides along, not all 16 + mask_w - 1 at once, so more blocks fit on an SM.
    float window[OUTPUTS_PER_THREAD + MAX_W - 1], sum[OUTPUTS_PER_THREAD];
#pragma unroll
    for (int p = 0; p < OUTPUTS_PER_THREAD; ++p) {
        window[p] = source[p];
        sum[p] = 0.0f;
    }
#pragma unroll
    for (int j = 0; j < MAX_W; ++j)
        if (j < mask_w) {
            if (j > 0) window[OUTPUTS_PER_THREAD + j - 1] = source[OUTPUTS_PER_THREAD + j - 1];
            const float weight = weights[j];
#pragma unroll
            for (int p = 0; p < OUTPUTS_PER_THREAD; ++p)
                sum[p] += weight * window[p + j];
        }
#pragma unroll
    for (int p = 0; p < OUTPUTS_PER_THREAD; ++p)
        s_out[row * S_OUT_PITCH + first + p] = sum[p];
    // ---- TODO 2 end
    __syncthreads();

    // ---- TODO 3 begin: store the tile's outputs that lie inside the image, coalesced
#pragma unroll
    for (int i = 0; i < TILE_ROWS / 8; ++i) {
        const int r = threadIdx.x / 32 + 8 * i, y = y0 + r;
#pragma unroll
        for (int k = 0; k < TILE_COLS / 32; ++k) {
            const int c = threadIdx.x % 32 + 32 * k, x = x0 + c;
            if (x < width && y < height) row_of(out, pitch, y)[x] = s_out[r * S_OUT_PITCH + c];
        }
    }
    // ---- TODO 3 end
}

void row_pass_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                     int mask_w, int term) {
    if (width < 1 || height < 1 || mask_w < 1 || mask_w > ROW_PASS_MAX_WIDTH || term < 0 ||
        term >= ROW_PASS_MAX_TERMS)
        wb_die(WB_EXIT_USAGE, "row_pass_launch: bad arguments %dx%d, mask width %d, term %d", width,
               height, mask_w, term);
    const dim3 blocks((width + TILE_COLS - 1) / TILE_COLS, (height + TILE_ROWS - 1) / TILE_ROWS);
    if (blocks.y > 65535)
        wb_die(WB_EXIT_USAGE, "row_pass_launch: %d rows need more than 65535 blocks", height);
    if (mask_w <= 4)
        row_pass_kernel<4><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, term);
    else if (mask_w <= 8)
        row_pass_kernel<8><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, term);
    else if (mask_w <= 16)
        row_pass_kernel<16><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, term);
    else
        row_pass_kernel<32><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, term);
    CUDA_CHECK(cudaGetLastError());
}
