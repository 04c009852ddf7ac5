/* direct_large.cu: chapter 07's direct kernel for large masks of any rank, built to sit near
 * the FP32 FMA roof (see separable.h).
 *
 * At 31x31 a direct convolution does 961 multiply-adds per output against 8 bytes of DRAM
 * traffic: the FMA units bind, not memory. Chapter 06's kernels unroll every tap of the mask
 * (MW x MH x outputs FMAs in straight-line code, 15 376 at 31x31 with 4x4 outputs), which
 * overflows the instruction cache. This one keeps the code to one mask row:
 *
 *   tile      a block's 32 rows of 8 x OUTPUTS outputs (128 columns with 16 a thread) need
 *             31 + mask_h rows of inputs; they are copied to shared memory (sized for the mask)
 *             with cp.async (zeros outside the image), once
 *   weights   the mask, one row per 32 floats, in constant memory. The row index is the loop's
 *             counter, the same in every thread, so the compiler loads each pair of weights
 *             into a uniform register (ULDC.64, once per warp) and the FMAs read it there
 *             (FFMA R, R, UR, R): no shared-memory load, no per-thread register for a weight
 *   a thread  one row (its lane) of OUTPUTS neighbouring outputs (16 or 32: its warp's segment;
 *             the launch picks it by the mask and the GPU's limits, choose_direct_large in
 *             variant_choice.h); per mask row it slides the row's weights
 *             along a window of inputs, taps in groups of four: each group reads four more
 *             inputs as a float4 just before its 4 x OUTPUTS FMAs, so about OUTPUTS + 8 window
 *             registers are live, not all OUTPUTS + 4 x groups (16 outputs: 48 registers, four
 *             blocks per SM). At 31x31 with 32 outputs, 16 shared-memory loads and 16 ULDC.64
 *             (one a warp) feed 992 FMAs per mask row
 *
 * Lanes of a warp are on 32 rows, so the float4 loads are served a quarter-warp at a time: 8
 * rows, a pitch of 4 modulo 32 floats apart (164 with 16 outputs), fill the 32 banks exactly
 * once. The mask row loop is not unrolled (it is the only loop with a run-time bound); the
 * number of tap groups is a template parameter (1 to 8), and the last group's 1 to 4 taps a
 * warp-uniform switch, so no FMA meets a zero weight. What each choice buys at 31x31 on an H100
 * (% of the FP32 peak): exact tap groups instead of taps rounded up to 4 and tested at run
 * time, 67 to 77; interior tiles copied with no bounds test, 80; 32 outputs a thread, 81; the
 * weights from the constant bank instead of shared-memory float4 broadcasts, 88. The lesson's
 * Deeper part walks through these steps.
 */
#include "async_copy.cuh"
#include "cuda_check.h"
#include "pitched.cuh"
#include "separable.h"
#include "variant_choice.h"

enum {
    MAX_SIDE = LOWRANK_MAX_SIDE,
    WEIGHT_PITCH = 32,
};

/* A block of OUTPUTS outputs a thread: its columns, those it copies (up to 31 halo, the rest
 * unused) and its shared-memory row pitch, 4 modulo 32 (see the top; the bytes a mask's height
 * needs: variant_choice.h, which the launch's choice reads too). */
template <int OUTPUTS> struct direct_shape {
    static constexpr int cols = DIRECT_WARPS * OUTPUTS;
    static constexpr int copied = cols + 32;
    static constexpr int pitch = copied + 4;
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

/* TAPS neighbouring taps of one mask row into a thread's outputs: window[p + j] meets w[j]. */
template <int TAPS, int OUTPUTS>
__device__ __forceinline__ void apply_taps(float *acc, const float *window, const float *w) {
#pragma unroll
    for (int j = 0; j < TAPS; ++j)
#pragma unroll
        for (int p = 0; p < OUTPUTS; ++p)
            acc[p] = fmaf(w[j], window[p + j], acc[p]);
}

/* GROUPS = ceil(mask_w / 4): the taps of a mask row come in groups of 4, the last one holding
 * 1 to 4 (a switch, warp-uniform: no FMA is spent on a zero weight). OUTPUTS: a thread's
 * neighbouring outputs (16 or 32), BLOCKS: blocks an SM must hold (the register budget). */
template <int GROUPS, int OUTPUTS, int BLOCKS>
__global__ void __launch_bounds__(DIRECT_WARPS * 32, BLOCKS)
    direct_large_kernel(const float *in, float *out, size_t pitch, int width, int height,
                        int mask_w, int mask_h) {
    typedef direct_shape<OUTPUTS> shape;
    constexpr int DIRECT_COLS = shape::cols, DIRECT_COPIED = shape::copied,
                  DIRECT_PITCH = shape::pitch;
    extern __shared__ __align__(16) float shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int x0 = blockIdx.x * DIRECT_COLS, y0 = blockIdx.y * DIRECT_ROWS;
    const int rows = DIRECT_ROWS + mask_h - 1, span = DIRECT_COLS + mask_w - 1;
    const int first_row = y0 - mask_h / 2, first_col = x0 - mask_w / 2;
    float *s_in = shared;

    /* the columns a window may touch: DIRECT_COPIED, past the span too (see the last group) */
    const bool interior = first_row >= 0 && first_row + rows <= height && first_col >= 0 &&
                          first_col + DIRECT_COPIED <= width;
    if (interior) {
        /* Most tiles lie inside the image: no test, and each thread's two addresses move down
         * 8 rows at a time. On the H100 at 17x17 the tested copy's address arithmetic had been
         * ~7% of all instructions; this path took 15x15 from 64% to 70% of the FP32 peak,
         * 17x17 from 68% to 73%, 31x31 from 77% to 80%. */
        const char *from = (const char *)(in + first_col + lane) + (ptrdiff_t)(first_row + warp) *
                                                                      (ptrdiff_t)pitch;
        float *to = s_in + warp * DIRECT_PITCH + lane;
        for (int r = warp; r < rows;
             r += DIRECT_WARPS, from += DIRECT_WARPS * pitch, to += DIRECT_WARPS * DIRECT_PITCH)
#pragma unroll
            for (int i = 0; i < DIRECT_COPIED / 32; ++i)
                copy_or_zero_async(to + 32 * i, (const float *)from + 32 * i, true);
    } else {
        for (int r = warp; r < rows; r += DIRECT_WARPS) {
            const int y = first_row + r;
            const bool row_inside = y >= 0 && y < height;
            const float *source = row_inside ? row_of(in, pitch, y) : in;
            /* zeros outside the image and past the span */
#pragma unroll
            for (int i = 0; i < DIRECT_COPIED / 32; ++i) {
                const int c = lane + 32 * i, x = first_col + c;
                const bool inside = c < span && row_inside && x >= 0 && x < width;
                copy_or_zero_async(&s_in[r * DIRECT_PITCH + c], inside ? source + x : in, inside);
            }
        }
    }
    async_commit();
    async_wait<0>();
    __syncthreads();

    float acc[OUTPUTS];
#pragma unroll
    for (int p = 0; p < OUTPUTS; ++p)
        acc[p] = 0.0f;
    const int first = warp * OUTPUTS, last_taps = mask_w - 4 * (GROUPS - 1);
    for (int i = 0; i < mask_h; ++i) {
        const float *source = s_in + (lane + i) * DIRECT_PITCH + first;
        const float *weights = c_direct + i * WEIGHT_PITCH;
        /* Inputs arrive four at a time, just ahead of the group that first needs them: about
         * OUTPUTS + 8 of the window's registers are live at once, not all OUTPUTS + 4 x GROUPS. */
        float window[OUTPUTS + 4 * GROUPS], w[4];
#pragma unroll
        for (int q = 0; q < OUTPUTS / 4; ++q)
            load4(source + 4 * q, &window[4 * q]);
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            load4(source + OUTPUTS + 4 * g, &window[OUTPUTS + 4 * g]);
#pragma unroll
            for (int j = 0; j < 4; ++j)
                w[j] = weights[4 * g + j];
            if (g < GROUPS - 1) {
                apply_taps<4, OUTPUTS>(acc, window + 4 * g, w);
                continue;
            }
            switch (last_taps) {
            case 1: apply_taps<1, OUTPUTS>(acc, window + 4 * g, w); break;
            case 2: apply_taps<2, OUTPUTS>(acc, window + 4 * g, w); break;
            case 3: apply_taps<3, OUTPUTS>(acc, window + 4 * g, w); break;
            default: apply_taps<4, OUTPUTS>(acc, window + 4 * g, w); break;
            }
        }
    }

    const int y = y0 + lane, x = x0 + first;
    if (y >= height) return;
    float *target = row_of(out, pitch, y) + x;
    if (x + OUTPUTS <= width) {
#pragma unroll
        for (int q = 0; q < OUTPUTS / 4; ++q)
            *(float4 *)(target + 4 * q) =
                make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    } else {
#pragma unroll
        for (int p = 0; p < OUTPUTS; ++p)
            if (x + p < width) target[p] = acc[p];
    }
}

template <int OUTPUTS, int BLOCKS> static const void *kernel_for_groups(int groups) {
    switch (groups) {
#define DIRECT_CASE(g)                                                                             \
    case g:                                                                                        \
        if constexpr (OUTPUTS == 16 || 4 * g >= DIRECT_WIDE_FROM)                                  \
            return (const void *)direct_large_kernel<g, OUTPUTS, BLOCKS>;                          \
        else                                                                                       \
            return NULL;
        DIRECT_CASE(1) DIRECT_CASE(2) DIRECT_CASE(3) DIRECT_CASE(4)
        DIRECT_CASE(5) DIRECT_CASE(6) DIRECT_CASE(7) DIRECT_CASE(8)
#undef DIRECT_CASE
    default: return NULL;
    }
}

/* A thread's outputs by the mask (choose_direct_large, variant_choice.h). More outputs load
 * fewer inputs per FMA, but 32 need 80 registers, so three blocks an SM instead of four: on an
 * H100 (random masks, 8192 x 8192, % of the FP32 peak, 16 outputs against 32) 16 win up to
 * 17x17 (77.8 against 77.3) and 32 from 19x19 (80.9 against 79.4) to 31x31 (88.2 against
 * 85.4); 24 outputs, and 16 with five blocks, were never the best. 16 outputs are compiled for
 * every width: where the 32-output tile's shared memory (up to 72 416 bytes at 31 rows) is more
 * than a block may have (a T4's 64 KiB), the 16-output one (up to 40 672) takes the mask. The
 * kernels' resources are asked once per tap-group count. */
static struct direct_choice direct_choice_for(int mask_w, int mask_h) {
    static struct kernel_resources narrow[DIRECT_GROUPS + 1], wide[DIRECT_GROUPS + 1];
    static int asked[DIRECT_GROUPS + 1];
    const int groups = (mask_w + 3) / 4;
    if (!asked[groups]) {
        narrow[groups] = kernel_resources_of(kernel_for_groups<16, 4>(groups));
        if (direct_has_wide(groups))
            wide[groups] = kernel_resources_of(kernel_for_groups<32, 3>(groups));
        asked[groups] = 1;
    }
    static const int force_narrow = direct_force_narrow();
    struct direct_choice choice;
    char why[256];
    if (!choose_direct_large(gpu_limits_of_device(), &narrow[groups],
                             direct_has_wide(groups) ? &wide[groups] : NULL, mask_w, mask_h,
                             force_narrow, &choice, why, sizeof why))
        wb_die(WB_EXIT_USAGE, "direct_large_launch: %s", why);
    return choice;
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
    const struct direct_choice choice = direct_choice_for(mask_w, mask_h);
    const int cols = DIRECT_WARPS * choice.outputs;
    const dim3 blocks((width + cols - 1) / cols, (height + DIRECT_ROWS - 1) / DIRECT_ROWS);
    if (blocks.y > 65535)
        wb_die(WB_EXIT_USAGE, "direct_large_launch: %d rows need more than 65535 blocks", height);
    const void *kernel = choice.outputs == 32 ? kernel_for_groups<32, 3>((mask_w + 3) / 4)
                                              : kernel_for_groups<16, 4>((mask_w + 3) / 4);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)choice.shared_bytes));
    void *args[] = {(void *)&d_in, (void *)&d_out, (void *)&pitch, (void *)&width,
                    (void *)&height, (void *)&mask_w, (void *)&mask_h};
    CUDA_CHECK(cudaLaunchKernel(kernel, blocks, dim3(DIRECT_THREADS), args, choice.shared_bytes,
                                0));
    CUDA_CHECK(cudaGetLastError());
}
