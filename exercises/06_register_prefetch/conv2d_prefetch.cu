/* conv2d_prefetch.cu: chapter 06, register-prefetch 2D convolution (Iandola et al.), one
 * configuration: a 3x3 mask, 2x2 outputs per thread.
 *
 * This file exists twice with the same name: exercises/06_register_prefetch/ holds it with
 * TODO blocks for you, solutions/06_register_prefetch/ the reference; outside the TODO blocks
 * they are identical (a test checks that). Check yours with `make check CH=06`.
 *
 * Each thread owns a 2x2 square of outputs. Together their 3x3 windows cover a 4x4 square of
 * input, so the thread first copies those 16 inputs into registers (the prefetch), then does
 * all 2 * 2 * 3 * 3 = 36 multiply-adds from registers:
 *
 *      input window (4 x 4, in registers)        outputs (2 x 2)
 *      w00 w01 w02 w03                           output (ox, oy) uses the 3x3 block of the
 *      w10 w11 w12 w13                           window whose top-left cell is (ox, oy):
 *      w20 w21 w22 w23                           out[oy][ox] = sum over i, j of
 *      w30 w31 w32 w33                               mask[i][j] * window[oy + i][ox + j]
 *
 * 16 loads feed 36 products (1 load per product without the prefetch). Every loop has
 * compile-time bounds and is unrolled, so window[][] and sum[][] are plain registers and every
 * c_mask index is a constant the FMA reads straight from the constant bank. A register array
 * indexed by a value known only at run time would be moved to (slow) local memory instead.
 *
 *   conv2d_prefetch_kernel    prefetch the window, multiply-add, store
 *   conv2d_prefetch_launch    grid geometry, precondition checks
 */
#include "constant_mask.cuh"
#include "conv2d_prefetch.h"
#include "pitched.cuh"

namespace {

constexpr int MASK = PREFETCH_EXERCISE_MASK;          // 3: mask side
constexpr int OUT = PREFETCH_EXERCISE_OUT;            // 2: outputs per thread, each way
constexpr int WINDOW = OUT + MASK - 1;                // 4: input window side
constexpr int BLOCK_X = 32, BLOCK_Y = 8;              // threads per block

__constant__ float c_mask[MASK * MASK];

__global__ void conv2d_prefetch_kernel(const float *__restrict__ in, float *__restrict__ out,
                                       size_t pitch, int width, int height) {
    // This thread's outputs start at (x0, y0); its window starts one cell up and left.
    const int x0 = (blockIdx.x * BLOCK_X + threadIdx.x) * OUT;
    const int y0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * OUT;
    const int wx = x0 - MASK / 2, wy = y0 - MASK / 2;
    float window[WINDOW][WINDOW];
    float sum[OUT][OUT];

    // ---- TODO 1 begin: prefetch the 4x4 input window into registers, ghost cells as zero
    // Two nested loops over i, j in 0..WINDOW-1, each preceded by `#pragma unroll` so that
    // window[i][j] always has constant indices. The cell is input (wx + j, wy + i): read it
    // with __ldg(row_of(in, pitch, y) + x) (the read-only cache) when it lies inside the image,
    // else store 0.0f (a ghost cell). Never read outside the image: the row padding of a
    // pitched image holds garbage, and rows above 0 or below height - 1 do not exist.
    // ---- TODO 1 end

    // ---- TODO 2 begin: the 2x2 outputs, every product from registers
    // For each output (ox, oy) in 0..OUT-1, sum c_mask[i * MASK + j] * window[oy + i][ox + j]
    // over i, j in 0..MASK-1 (fmaf(a, b, s) is one fused multiply-add) and keep it in
    // sum[oy][ox]. Unroll all four loops: then no index is a run-time value.
    // ---- TODO 2 end

    // ---- TODO 3 begin: store the outputs that lie inside the image
    // Write sum[oy][ox] to output (x0 + ox, y0 + oy), i.e. row_of(out, pitch, y0 + oy)[x0 + ox],
    // but only when that output lies inside the image, on both axes: the grid rounds up to whole
    // blocks of 64 x 16 outputs, so threads at the right and bottom own outputs past the edge.
    // ---- TODO 3 end
}

} // namespace

const char *conv2d_prefetch_refuses(int mask_w, int mask_h) {
    return mask_w == MASK && mask_h == MASK ? NULL : "the exercise kernel is built for 3x3 only";
}

void conv2d_prefetch_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_constant_mask("conv2d_prefetch_set_mask", c_mask, h_mask, mask_w, mask_h, MASK, MASK);
}

void conv2d_prefetch_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                            int mask_w, int mask_h, int block) {
    (void)block;
    if (width < 1 || height < 1 || conv2d_prefetch_refuses(mask_w, mask_h))
        wb_die(WB_EXIT_USAGE, "conv2d_prefetch_launch: bad arguments %dx%d mask %dx%d", width,
               height, mask_w, mask_h);
    dim3 threads(BLOCK_X, BLOCK_Y);
    dim3 blocks((width + BLOCK_X * OUT - 1) / (BLOCK_X * OUT),
                (height + BLOCK_Y * OUT - 1) / (BLOCK_Y * OUT));
    conv2d_prefetch_kernel<<<blocks, threads>>>(d_in, d_out, pitch, width, height);
    CUDA_CHECK_LAUNCH();
}
