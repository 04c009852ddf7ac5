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
    // Block (bx, by) owns the outputs from x0 = bx * TILE_COLS, y0 = by * TILE_ROWS. Its input is
    // the same TILE_ROWS rows, but TILE_COLS + mask_w - 1 columns starting mask_w / 2 to the left
    // of x0 (the halo is along x only). Share the rows out by warp (warp w = threadIdx.x / 32
    // takes rows w, w + 8, w + 16, w + 24) and the columns of a row by lane (lane l =
    // threadIdx.x % 32 takes columns l, l + 32, ... below the span), so that a warp reads 32
    // neighbouring floats at a time (coalesced). Cell (r, c) goes to s_in[r * S_IN_PITCH + c];
    // a cell outside the image (x < 0, x >= width or y >= height) is 0. Rows are `pitch` bytes
    // apart: row_of(in, pitch, y).
    // Copy each cell with copy_or_zero_async(&s_in[...], source, inside) (async_copy.cuh): it
    // copies *source when `inside` is true and writes 0 otherwise, never reading source then
    // (pass any valid pointer, `in` will do). The commit and the wait after this block make the
    // copies complete before the barrier. Give both loops compile-time trip counts (TILE_ROWS / 8
    // rows, (S_IN_PITCH + 31) / 32 columns, skipping those past the span) so they unroll.
    // ---- TODO 1 end
    async_commit();   /* the copies issued so far are one group */
    async_wait<0>();  /* ... which this thread waits for; the barrier waits for the others' */
    __syncthreads();

    // ---- TODO 2 begin: slide the weights along a window of inputs held in registers
    // Thread t computes OUTPUTS_PER_THREAD outputs of tile row t % 32 (its lane), columns from
    // first = (t / 32) * OUTPUTS_PER_THREAD (its warp's segment). Output `first + p` needs s_in
    // cells first + p .. first + p + mask_w - 1 of that row; together the segment needs
    // OUTPUTS_PER_THREAD + mask_w - 1 cells: read them once into a register array `window` and
    // sum weights[j] * window[p + j] for each p, where weights = c_rows + term * mask_w. Loops
    // whose bounds are compile-time constants (MAX_W, OUTPUTS_PER_THREAD) let the compiler keep
    // the array in registers: loop to MAX_W and skip j >= mask_w. Put each result in
    // s_out[row * S_OUT_PITCH + first + p].
    // For speed: read cell OUTPUTS_PER_THREAD + j - 1 just before tap j, the first that needs it,
    // rather than all cells up front: then about OUTPUTS_PER_THREAD of them are live at once, the
    // kernel needs fewer registers and more blocks fit on an SM (`make compile CH=07` shows the
    // count; the reference needs 48 at MAX_W = 32).
    // ---- TODO 2 end
    __syncthreads();

    // ---- TODO 3 begin: store the tile's outputs that lie inside the image, coalesced
    // Walk the TILE_ROWS x TILE_COLS outputs as in TODO 1 (rows by warp, columns by lane) and
    // store s_out's value for each one that lies inside the image.
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
