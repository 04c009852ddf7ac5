/* prefetch_variants.cu: the register-prefetch kernels of chapter 06, one template, every
 * variant the autotuner may choose (see prefetch_variants.h).
 *
 * Thread (tx, ty) of a 32 x 8 block computes OX x OY neighbouring outputs whose top-left one is
 * (x0, y0) = ((bx * 32 + tx) * OX, (by * 8 + ty) * OY). It walks down the OY + MH - 1 input
 * rows its outputs need: each row segment is prefetched into a register array `row`, then every
 * output whose window contains that row takes its MW products from it. Only OX x OY sums and
 * one row segment are live at a time, so taller shapes cost few registers. Every weight
 * c_mask[i * MW + j] and every register index is a compile-time constant after unrolling, so
 * the FMAs read the weights straight from the constant bank and nothing spills.
 *
 * Loads are vectors of V = OX floats (float, float2, float4) from V-aligned addresses: a warp
 * asks for 32 * OX contiguous floats per instruction instead of 32 scalars OX floats apart,
 * which is what keeps the L1 (or shared memory) wavefront count low. A block whose loads all
 * fall inside the image takes the vector path without bounds tests; the blocks on the image
 * border test every cell (ghost cells are zero).
 *
 *   row_geometry<>          where a thread's row segment starts and how long it is
 *   load_vector<V>          V floats from global memory through the read-only cache
 *   accumulate_row<>        the products one input row contributes to the outputs
 *   prefetch_kernel<>       the kernel template (four memory paths)
 *   launch<>, texture_for   grid geometry, the texture object for PATH_TEXTURE
 *   prefetch_variants[]     the instantiations
 */
#include "cuda_check.h"
#include "prefetch_variants.h"

namespace {

constexpr int BX = 32, BY = 8;

__constant__ float c_mask[PREFETCH_MAX_SIDE * PREFETCH_MAX_SIDE];

constexpr int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// A thread's row segment: vectors FIRST..LAST (in units of V floats, relative to x0) cover the
// inputs x0 - HX .. x0 + OX - 1 + (MW - 1 - HX) that its outputs read; register k holds input
// x0 + V * FIRST + k, and output ox's tap j is register ox + j + SHIFT.
template <int MW, int OX> struct row_geometry {
    static constexpr int V = OX, HX = MW / 2;
    static constexpr int FIRST = floor_div(-HX, V), LAST = floor_div(OX - 1 + MW - 1 - HX, V);
    static constexpr int VECTORS = LAST - FIRST + 1, LENGTH = VECTORS * V;
    static constexpr int SHIFT = -HX - V * FIRST;
};

__device__ __forceinline__ const float *row_of(const float *image, size_t pitch, int y) {
    return (const float *)((const char *)image + (size_t)y * pitch);
}

__device__ __forceinline__ float load_checked(const float *__restrict__ in, size_t pitch,
                                              int width, int height, int y, int x) {
    if (x < 0 || x >= width || y < 0 || y >= height) return 0.0f;
    return __ldg(row_of(in, pitch, y) + x);
}

template <int V> __device__ __forceinline__ void load_vector(const float *p, float *dst) {
    if constexpr (V == 4) {
        const float4 v = __ldg((const float4 *)p);
        dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
    } else if constexpr (V == 2) {
        const float2 v = __ldg((const float2 *)p);
        dst[0] = v.x, dst[1] = v.y;
    } else {
        dst[0] = __ldg(p);
    }
}

// Input row r of the thread's window (image row y0 - HY + r) meets output row oy at mask row
// i = r - oy; after unrolling, the test i in [0, MH) is decided at compile time.
template <int MW, int MH, int OX, int OY>
__device__ __forceinline__ void accumulate_row(int r, const float *row, float (&acc)[OY][OX]) {
    using G = row_geometry<MW, OX>;
#pragma unroll
    for (int oy = 0; oy < OY; ++oy) {
        const int i = r - oy;
        if (i < 0 || i >= MH) continue;
#pragma unroll
        for (int ox = 0; ox < OX; ++ox)
#pragma unroll
            for (int j = 0; j < MW; ++j)
                acc[oy][ox] = fmaf(c_mask[i * MW + j], row[ox + j + G::SHIFT], acc[oy][ox]);
    }
}

template <int MW, int MH, int OX, int OY, int PATH>
__global__ void __launch_bounds__(BX *BY)
    prefetch_kernel(const float *__restrict__ in, float *__restrict__ out, size_t pitch, int width,
                    int height, cudaTextureObject_t texture) {
    using G = row_geometry<MW, OX>;
    constexpr int V = G::V, HX = G::HX, HY = MH / 2, RH = OY + MH - 1;
    const int block_x = blockIdx.x * BX * OX, block_y = blockIdx.y * BY * OY;
    const int x0 = block_x + threadIdx.x * OX, y0 = block_y + threadIdx.y * OY;
    // Block-uniform: every vector any thread of this block loads (or stores) lies in the image.
    const bool interior = block_x + V * G::FIRST >= 0 &&
                          block_x + (BX - 1) * OX + V * (G::LAST + 1) <= width &&
                          block_y - HY >= 0 && block_y + BY * OY + MH - 1 - HY <= height;
    float acc[OY][OX];
#pragma unroll
    for (int oy = 0; oy < OY; ++oy)
#pragma unroll
        for (int ox = 0; ox < OX; ++ox) acc[oy][ox] = 0.0f;

    if constexpr (PATH == PATH_GLOBAL_ONLY) {
        // No prefetch: every product loads its input again (served by L1 at best).
#pragma unroll
        for (int oy = 0; oy < OY; ++oy)
#pragma unroll
            for (int ox = 0; ox < OX; ++ox)
#pragma unroll
                for (int i = 0; i < MH; ++i)
#pragma unroll
                    for (int j = 0; j < MW; ++j)
                        acc[oy][ox] = fmaf(c_mask[i * MW + j],
                                           load_checked(in, pitch, width, height, y0 + oy + i - HY,
                                                        x0 + ox + j - HX),
                                           acc[oy][ox]);
    } else if constexpr (PATH == PATH_SHARED) {
        // The block's input tile (outputs plus halo, V-aligned) is staged once; each thread then
        // copies its row segments from it with vector loads.
        constexpr int TH = BY * OY + MH - 1, TW = (BX - 1) * OX + G::LENGTH, TV = TW / V;
        __shared__ __align__(16) float tile[TH][TW];
        const int tile_x = block_x + V * G::FIRST, tile_y = block_y - HY;
        const int thread = threadIdx.y * BX + threadIdx.x;
        if (interior) {
            for (int k = thread; k < TH * TV; k += BX * BY)
                load_vector<V>(row_of(in, pitch, tile_y + k / TV) + tile_x + k % TV * V,
                               &tile[k / TV][k % TV * V]);
        } else {
            for (int k = thread; k < TH * TW; k += BX * BY)
                tile[k / TW][k % TW] =
                    load_checked(in, pitch, width, height, tile_y + k / TW, tile_x + k % TW);
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < RH; ++r) {
            float row[G::LENGTH];
            const float *src = &tile[threadIdx.y * OY + r][threadIdx.x * OX];
#pragma unroll
            for (int q = 0; q < G::VECTORS; ++q) {
                if constexpr (V == 4) {
                    const float4 v = *(const float4 *)(src + q * 4);
                    row[q * 4] = v.x, row[q * 4 + 1] = v.y, row[q * 4 + 2] = v.z,
                            row[q * 4 + 3] = v.w;
                } else if constexpr (V == 2) {
                    const float2 v = *(const float2 *)(src + q * 2);
                    row[q * 2] = v.x, row[q * 2 + 1] = v.y;
                } else {
                    row[q] = src[q];
                }
            }
            accumulate_row<MW, MH, OX, OY>(r, row, acc);
        }
    } else {
        // Global (read-only cache) or texture: each row segment straight into registers, the
        // next row's loads issued before this row's FMAs so that their latency overlaps them.
        const int seg_x = x0 + V * G::FIRST;
        auto load_row = [&](int r, float(&row)[G::LENGTH]) {
            const int y = y0 - HY + r;
            if constexpr (PATH == PATH_TEXTURE) {
#pragma unroll
                for (int k = 0; k < G::LENGTH; ++k) // border addressing returns the zeros
                    row[k] = (k >= G::SHIFT && k < G::SHIFT + OX + MW - 1)
                                 ? tex2D<float>(texture, seg_x + k + 0.5f, y + 0.5f)
                                 : 0.0f;
            } else if (interior) {
#pragma unroll
                for (int q = 0; q < G::VECTORS; ++q)
                    load_vector<V>(row_of(in, pitch, y) + seg_x + q * V, &row[q * V]);
            } else {
#pragma unroll
                for (int k = 0; k < G::LENGTH; ++k)
                    row[k] = (k >= G::SHIFT && k < G::SHIFT + OX + MW - 1)
                                 ? load_checked(in, pitch, width, height, y, seg_x + k)
                                 : 0.0f;
            }
        };
        float row[G::LENGTH], next[G::LENGTH];
        load_row(0, next);
#pragma unroll
        for (int r = 0; r < RH; ++r) {
#pragma unroll
            for (int k = 0; k < G::LENGTH; ++k) row[k] = next[k];
            if (r + 1 < RH) load_row(r + 1, next);
            accumulate_row<MW, MH, OX, OY>(r, row, acc);
        }
    }

#pragma unroll
    for (int oy = 0; oy < OY; ++oy) {
        float *dst = (float *)row_of(out, pitch, y0 + oy) + x0;
        if (interior && V == OX) {
            if constexpr (OX == 4)
                *(float4 *)dst = make_float4(acc[oy][0], acc[oy][1], acc[oy][2], acc[oy][3]);
            else if constexpr (OX == 2)
                *(float2 *)dst = make_float2(acc[oy][0], acc[oy][1]);
            else
                dst[0] = acc[oy][0];
        } else {
            if (y0 + oy >= height) break;
#pragma unroll
            for (int ox = 0; ox < OX; ++ox)
                if (x0 + ox < width) dst[ox] = acc[oy][ox];
        }
    }
}

// A texture object over the current input plane; rebuilt only when the plane changes, so the
// timed launches do not pay for it.
cudaTextureObject_t texture_for(const float *d_in, size_t pitch, int width, int height) {
    static cudaTextureObject_t cached;
    static const float *cached_in;
    static size_t cached_pitch;
    static int cached_width, cached_height;
    if (cached && cached_in == d_in && cached_pitch == pitch && cached_width == width &&
        cached_height == height)
        return cached;
    if (cached) CUDA_CHECK(cudaDestroyTextureObject(cached));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = (void *)d_in;
    resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    resource.res.pitch2D.width = width;
    resource.res.pitch2D.height = height;
    resource.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc view = {};
    view.addressMode[0] = view.addressMode[1] = cudaAddressModeBorder; // outside: zero
    view.filterMode = cudaFilterModePoint;
    view.readMode = cudaReadModeElementType;
    view.normalizedCoords = 0;
    CUDA_CHECK(cudaCreateTextureObject(&cached, &resource, &view, NULL));
    cached_in = d_in;
    cached_pitch = pitch;
    cached_width = width;
    cached_height = height;
    return cached;
}

template <int MW, int MH, int OX, int OY, int PATH>
void launch(const float *d_in, float *d_out, size_t pitch, int width, int height) {
    // Vector loads and stores need 16-byte aligned rows; cudaMallocPitch gives far more.
    if (pitch % 16 || (size_t)d_in % 16 || (size_t)d_out % 16)
        wb_die(WB_EXIT_USAGE, "prefetch kernels need 16-byte aligned rows (pitch %zu)", pitch);
    dim3 threads(BX, BY);
    dim3 blocks((width + BX * OX - 1) / (BX * OX), (height + BY * OY - 1) / (BY * OY));
    cudaTextureObject_t texture = 0;
    if (PATH == PATH_TEXTURE) texture = texture_for(d_in, pitch, width, height);
    prefetch_kernel<MW, MH, OX, OY, PATH>
        <<<blocks, threads>>>(d_in, d_out, pitch, width, height, texture);
    CUDA_CHECK_LAUNCH();
}

} // namespace

#define VARIANT(M, X, Y, P) {M, M, X, Y, P, launch<M, M, X, Y, P>}
#define SHAPES(M, P)                                                                               \
    VARIANT(M, 1, 1, P), VARIANT(M, 2, 2, P), VARIANT(M, 4, 4, P), VARIANT(M, 4, 8, P)
#define PATHS(M)                                                                                   \
    SHAPES(M, PATH_GLOBAL_LDG), VARIANT(M, 4, 16, PATH_GLOBAL_LDG), SHAPES(M, PATH_TEXTURE),       \
        SHAPES(M, PATH_SHARED), VARIANT(M, 1, 1, PATH_GLOBAL_ONLY)
// Larger odd masks, for the comparison with cuFFT: the two paths and the shape that win on the
// small ones.
#define LARGE(M) VARIANT(M, 4, 4, PATH_GLOBAL_LDG), VARIANT(M, 4, 4, PATH_SHARED)

extern "C" {

const struct prefetch_variant prefetch_variants[] = {
    PATHS(2), PATHS(3),  PATHS(4),  PATHS(5),  PATHS(6),  PATHS(7),  LARGE(9),
    LARGE(11), LARGE(13), LARGE(15), LARGE(21), LARGE(25), LARGE(31)};
const int prefetch_variant_count = sizeof prefetch_variants / sizeof prefetch_variants[0];

const char *prefetch_path_name(enum prefetch_path path) {
    static const char *const names[PATH_COUNT] = {"global ldg", "texture", "shared", "global only"};
    return path >= 0 && path < PATH_COUNT ? names[path] : "?";
}

int prefetch_has_variants(int mask_w, int mask_h) {
    for (int v = 0; v < prefetch_variant_count; ++v)
        if (prefetch_variants[v].mask_w == mask_w && prefetch_variants[v].mask_h == mask_h) return 1;
    return 0;
}

void prefetch_set_mask(const float *h_mask, int mask_w, int mask_h) {
    if (mask_w < 1 || mask_h < 1 || mask_w > PREFETCH_MAX_SIDE || mask_h > PREFETCH_MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "prefetch_set_mask: mask %dx%d is outside 1..%d per side", mask_w,
               mask_h, PREFETCH_MAX_SIDE);
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, h_mask, (size_t)mask_w * mask_h * sizeof(float)));
}
}
