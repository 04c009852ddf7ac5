/* direct_large.cu: chapter 07's direct kernel for large masks of any rank, built to sit near
 * the FP32 FMA roof (see separable.h).
 *
 * At 31x31 a direct convolution does 961 multiply-adds per output against 8 bytes of DRAM
 * traffic: the FMA units bind, not memory. Chapter 06's kernels unroll every tap of the mask
 * (MW x MH x outputs FMAs in straight-line code, 15 376 at 31x31 with 4x4 outputs), which
 * overflows the instruction cache. This one keeps the code to one mask row:
 *
 *   tile      a block's 32 x 128 outputs need (31 + mask_h) x (127 + mask_w) inputs; they are
 *             copied to shared memory with cp.async (zeros outside the image), once
 *   weights   the mask, one row per 32 floats, in shared memory too: a thread reads them as
 *             float4 broadcasts (every lane the same address), each four just before their FMAs
 *   a thread  one row (its lane) of 16 neighbouring outputs (its warp's segment); per mask row
 *             it reads its inputs and weights as float4s and does 16 FMAs per tap, taps
 *             rounded up to a multiple of 4: 12 + 8 loads feed 16 x 32 FMAs at 31x31
 *
 * Lanes of a warp are on 32 rows, so the float4 loads are served a quarter-warp at a time: 8
 * rows, DIRECT_PITCH = 164 floats apart (4 banks modulo 32), fill the 32 banks exactly once.
 * The mask row loop is not unrolled (it is the only loop with a run-time bound); inside it the
 * taps run to a compile-time bound MAX_W (8, 16 or 32), skipping those past mask_w.
 */
#include "async_copy.cuh"
#include "cuda_check.h"
#include "pitched.cuh"
#include "separable.h"

enum {
    MAX_SIDE = LOWRANK_MAX_SIDE,
    DIRECT_COLS = 128,
    DIRECT_ROWS = 32,
    DIRECT_OUTPUTS = 16,                       /* per thread: 8 warps x 16 = DIRECT_COLS */
    DIRECT_PITCH = DIRECT_COLS + 36,           /* 164 = 4 modulo 32, room for 32 halo columns */
    DIRECT_IN_ROWS = DIRECT_ROWS + MAX_SIDE - 1,
    WEIGHT_PITCH = 32
};

static __constant__ float c_direct[MAX_SIDE * WEIGHT_PITCH]; /* mask row i at i * 32, zeros after */
static int direct_mask_w, direct_mask_h;

void direct_large_set_mask(const float *h_mask, int mask_w, int mask_h) {
    if (mask_w < 1 || mask_h < 1 || mask_w > MAX_SIDE || mask_h > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "direct_large_set_mask: mask %dx%d is outside 1..%d per side",
               mask_w, mask_h, MAX_SIDE);
    static float rows[MAX_SIDE * WEIGHT_PITCH];
    for (int i = 0; i < MAX_SIDE; ++i)
        for (int j = 0; j < WEIGHT_PITCH; ++j)
            rows[i * WEIGHT_PITCH + j] = i < mask_h && j < mask_w ? h_mask[i * mask_w + j] : 0.0f;
    CUDA_CHECK(cudaMemcpyToSymbol(c_direct, rows, sizeof rows));
    direct_mask_w = mask_w;
    direct_mask_h = mask_h;
}

/* 4 floats from a 16-byte aligned shared address into dst[0..3]. */
__device__ __forceinline__ void load4(const float *p, float *dst) {
    const float4 v = *(const float4 *)p;
    dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
}

template <int MAX_W>
__global__ void __launch_bounds__(256, 3)
    direct_large_kernel(const float *in, float *out, size_t pitch, int width, int height,
                        int mask_w, int mask_h) {
    __shared__ __align__(16) float s_in[DIRECT_IN_ROWS * DIRECT_PITCH];
    __shared__ __align__(16) float s_w[MAX_SIDE * WEIGHT_PITCH];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int x0 = blockIdx.x * DIRECT_COLS, y0 = blockIdx.y * DIRECT_ROWS;
    const int rows = DIRECT_ROWS + mask_h - 1, span = DIRECT_COLS + mask_w - 1;
    const int first_row = y0 - mask_h / 2, first_col = x0 - mask_w / 2;

    for (int k = threadIdx.x; k < mask_h * WEIGHT_PITCH; k += blockDim.x)
        s_w[k] = c_direct[k];
    for (int r = warp; r < rows; r += 8) {
        const int y = first_row + r;
        const bool row_inside = y >= 0 && y < height;
        const float *source = row_inside ? row_of(in, pitch, y) : in;
        /* every column a window may touch, zeros past the span (see the FMAs below) */
#pragma unroll
        for (int i = 0; i < DIRECT_PITCH / 32; ++i) {
            const int c = lane + 32 * i, x = first_col + c;
            const bool inside = c < span && row_inside && x >= 0 && x < width;
            copy_or_zero_async(&s_in[r * DIRECT_PITCH + c], inside ? source + x : in, inside);
        }
    }
    async_commit();
    async_wait<0>();
    __syncthreads();

    float acc[DIRECT_OUTPUTS];
#pragma unroll
    for (int p = 0; p < DIRECT_OUTPUTS; ++p)
        acc[p] = 0.0f;
    const int first = warp * DIRECT_OUTPUTS, taps4 = (mask_w + 3) / 4 * 4;
    for (int i = 0; i < mask_h; ++i) {
        const float *source = s_in + (lane + i) * DIRECT_PITCH + first;
        float window[DIRECT_OUTPUTS + MAX_W];
#pragma unroll
        for (int q = 0; q < (DIRECT_OUTPUTS + MAX_W) / 4; ++q)
            if (4 * q < DIRECT_OUTPUTS + taps4 - 1) load4(source + 4 * q, &window[4 * q]);
        /* The weights four at a time, each group just before its FMAs: few registers. Taps
         * past mask_w up to the next multiple of 4 have weight 0 and read loaded, finite
         * inputs (zeros past the span), so they add exactly 0 and need no test of their own. */
#pragma unroll
        for (int q = 0; q < MAX_W / 4; ++q)
            if (4 * q < mask_w) {
                float weight[4];
                load4(s_w + i * WEIGHT_PITCH + 4 * q, weight);
#pragma unroll
                for (int jj = 0; jj < 4; ++jj)
#pragma unroll
                    for (int p = 0; p < DIRECT_OUTPUTS; ++p)
                        acc[p] = fmaf(weight[jj], window[p + 4 * q + jj], acc[p]);
            }
    }

    const int y = y0 + lane, x = x0 + first;
    if (y >= height) return;
    float *target = row_of(out, pitch, y) + x;
    if (x + DIRECT_OUTPUTS <= width) {
#pragma unroll
        for (int q = 0; q < DIRECT_OUTPUTS / 4; ++q)
            *(float4 *)(target + 4 * q) =
                make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    } else {
#pragma unroll
        for (int p = 0; p < DIRECT_OUTPUTS; ++p)
            if (x + p < width) target[p] = acc[p];
    }
}

void direct_large_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block) {
    (void)block;
    if (width < 1 || height < 1 || mask_w != direct_mask_w || mask_h != direct_mask_h)
        wb_die(WB_EXIT_USAGE, "direct_large_launch: bad arguments %dx%d, mask %dx%d (set: %dx%d)",
               width, height, mask_w, mask_h, direct_mask_w, direct_mask_h);
    /* the float4 stores need 16-byte aligned rows; cudaMallocPitch gives far more */
    if (pitch % 16 || (size_t)d_out % 16)
        wb_die(WB_EXIT_USAGE, "direct_large_launch: rows must be 16-byte aligned (pitch %zu)",
               pitch);
    const dim3 blocks((width + DIRECT_COLS - 1) / DIRECT_COLS,
                      (height + DIRECT_ROWS - 1) / DIRECT_ROWS);
    if (blocks.y > 65535)
        wb_die(WB_EXIT_USAGE, "direct_large_launch: %d rows need more than 65535 blocks", height);
    if (mask_w <= 8)
        direct_large_kernel<8><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, mask_h);
    else if (mask_w <= 16)
        direct_large_kernel<16><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w,
                                                 mask_h);
    else
        direct_large_kernel<32><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w,
                                                 mask_h);
    CUDA_CHECK(cudaGetLastError());
}
