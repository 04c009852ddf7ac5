/* conv1d_register.cu: chapter 04's second exercise, a register-tiled 1D convolution: the step
 * from chapter 05's tiles to chapter 06's registers, in 1D.
 *
 * This file exists twice with the same name: exercises/04_cached_tiling/ holds it with TODO
 * blocks for you, solutions/04_cached_tiling/ the reference; outside the TODO blocks they are
 * identical (a test checks that). Check yours with `make check CH=04` (the program's kernel
 * "beyond: regs"); the lesson's "Exercise 2" says what to do.
 *
 * Chapters 01-04 spend several instructions per tap (a load, a bounds test, an indexed constant
 * load, the multiply-add), so they are limited by instruction issue long before DRAM. This
 * kernel removes everything but the multiply-add from the inner loop, with chapter 06's tools:
 *   - the mask width W is a template parameter, so every loop is unrolled and each weight is
 *     c_mask[constant index], which the multiply-add reads straight from the constant bank;
 *   - each thread computes K = 8 consecutive outputs from K + W - 1 inputs held in registers,
 *     so one input fetched from shared memory feeds up to W multiply-adds;
 *   - the block's tile (B*K outputs plus halo) moves global -> shared with 16-byte loads, and
 *     shared -> registers with 16-byte loads; outputs leave as 16-byte stores.
 * Shared-memory layout: s_tile[u] holds in[tile_start - T::halo_pad + u], where T::halo_pad is
 * the left halo rounded up to a multiple of 4, so every thread's window starts 16-byte aligned.
 *
 *   conv1d_register_kernel<W>   load tile (given), registers (TODO 1), K sums (TODO 2), store
 *                               (TODO 3)
 *   conv1d_register_launch      picks the instantiation for the run-time mask width
 */
#include <utility>

#include "constant_mask.cuh"
#include "conv1d_register.h"

namespace {

__constant__ float c_mask[WB_MAX_MASK_WIDTH_1D];

constexpr int B = CONV1D_REGISTER_BLOCK;
constexpr int K = CONV1D_REGISTER_OUTPUTS;
static_assert(K % 4 == 0, "outputs per thread must fill whole float4 stores");

constexpr int round_up4(int v) {
    return (v + 3) / 4 * 4;
}

template <int W> struct Tile {
    static constexpr int halo_left = W / 2;
    static constexpr int halo_pad = round_up4(halo_left);      // left halo, 16-byte aligned
    static constexpr int lead = halo_pad - halo_left;          // unused cells before a window
    static constexpr int window = round_up4(lead + K + W - 1); // cells a thread reads
    static constexpr int cells = round_up4(halo_pad + B * K + (W - 1 - halo_left));
};

template <int W>
__global__ void __launch_bounds__(B)
    conv1d_register_kernel(const float *__restrict__ in, float *__restrict__ out, int n) {
    using T = Tile<W>;
    __shared__ __align__(16) float s_tile[T::cells + 4];
    const long tile_start = (long)blockIdx.x * B * K;
    const long base = tile_start - T::halo_pad; // global index of s_tile[0], a multiple of 4

    // Global -> shared in float4s. All of a thread's loads are issued before the first store
    // to shared memory (the loop has a compile-time trip count and is unrolled), so their DRAM
    // latencies overlap instead of adding up. Vectors that reach outside [0, n) go element by
    // element, with ghost cells as zero.
    constexpr int vectors = T::cells / 4, rounds = (vectors + B - 1) / B;
    float4 staged[rounds];
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
        int v = threadIdx.x + r * B;
        long g = base + 4L * v;
        if (v < vectors && g >= 0 && g + 4 <= n) {
            staged[r] = __ldg(reinterpret_cast<const float4 *>(in + g));
        } else {
            staged[r].x = (v < vectors && g + 0 >= 0 && g + 0 < n) ? in[g + 0] : 0.0f;
            staged[r].y = (v < vectors && g + 1 >= 0 && g + 1 < n) ? in[g + 1] : 0.0f;
            staged[r].z = (v < vectors && g + 2 >= 0 && g + 2 < n) ? in[g + 2] : 0.0f;
            staged[r].w = (v < vectors && g + 3 >= 0 && g + 3 < n) ? in[g + 3] : 0.0f;
        }
    }
#pragma unroll
    for (int r = 0; r < rounds; ++r)
        if (threadIdx.x + r * B < vectors)
            reinterpret_cast<float4 *>(s_tile)[threadIdx.x + r * B] = staged[r];
    __syncthreads();

    // ---- TODO 1 begin: copy this thread's window from shared memory into registers
    // The tile is in s_tile (staged above, after the barrier). Your window is x[u] =
    // s_tile[threadIdx.x * K + u] for u < T::window; its start is 16-byte aligned. Output o of
    // this thread uses x[T::lead + o] .. x[T::lead + o + W - 1]; the cells after
    // x[T::lead + K + W - 2] are padding. Declare `float x[T::window];` and fill it as
    // T::window / 4 float4s (one instruction per four floats; plain float reads work too).
    // Every loop bound here is a compile-time constant: write `#pragma unroll` above the loop so
    // that x[] stays in registers (an array indexed by a run-time value goes to local memory).
    // ---- TODO 1 end

    // ---- TODO 2 begin: the K outputs, each a sum over the W taps, from registers only
    // Declare `float acc[K];`. Output o of this thread (its global index is tile_start +
    // threadIdx.x * K + o) is the sum over j = 0 .. W-1 of c_mask[j] * x[T::lead + o + j]:
    // every input comes from x, never from shared or global memory. Start each sum at 0.0f and
    // add the taps in order of j. Unroll both loops, so each c_mask[j] is a constant index and
    // each x[...] a named register.
    // ---- TODO 2 end

    // ---- TODO 3 begin: store the K outputs (16-byte stores where all K lie inside the signal)
    // This thread's first output is first = tile_start + threadIdx.x * K (use long: the product
    // can pass 2^31 on large signals). When first + K <= n, write the K sums as K / 4 float4
    // stores at out + first (16-byte aligned: first is a multiple of K, which is a multiple of
    // 4, and out comes from cudaMalloc); otherwise write only the outputs with first + o < n,
    // one float at a time. Threads whose outputs all lie past the end write nothing.
    // ---- TODO 3 end
}

typedef void (*kernel_fn)(const float *, float *, int);

template <int... Ws> struct KernelTable {
    static constexpr kernel_fn entries[sizeof...(Ws)] = {conv1d_register_kernel<Ws + 1>...};
};

template <int... Is> constexpr auto make_table(std::integer_sequence<int, Is...>) {
    return KernelTable<Is...>{};
}

} // namespace

void conv1d_register_set_mask(const float *h_mask, int mask_width) {
    upload_constant_mask("conv1d_register_set_mask", c_mask, h_mask, mask_width, 1,
                         WB_MAX_MASK_WIDTH_1D, 1);
}

void conv1d_register_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                            int mask_width, int block_size) {
    (void)d_mask;
    (void)block_size; // fixed at compile time, see the header
    if (n < 1 || mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D)
        wb_die(WB_EXIT_USAGE, "conv1d_register_launch: bad arguments n=%d mask_width=%d", n,
               mask_width);
    using Table = decltype(make_table(std::make_integer_sequence<int, WB_MAX_MASK_WIDTH_1D>{}));
    long outputs_per_block = (long)B * K;
    int blocks = (int)((n + outputs_per_block - 1) / outputs_per_block);
    Table::entries[mask_width - 1]<<<blocks, B>>>(d_in, d_out, n);
    CUDA_CHECK_LAUNCH();
}
