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
 *   row_geometry<>             where a thread's row segment starts and how long it is
 *   load_checked               one float from global memory, zero outside the image
 *   load_vector<V, S>          V floats in one load, from global (__ldg) or shared memory
 *   accumulate_row<>           the products one input row contributes to the outputs
 *   stream_rows<>              the ldg and texture paths' row loop, next row prefetched
 *   ldg_rows<>, texture_rows<> how each of the two loads a row segment
 *   path_global_ldg<>          the four memory paths, one function each; each computes the
 *   path_texture<>               thread's OX x OY sums
 *   path_shared<>
 *   path_global_only<>
 *   store_outputs<>            the sums into the output image
 *   prefetch_kernel<>          the kernel template: geometry, interior flag, path, store
 *   texture_for, launch<>      the texture object for PATH_TEXTURE, checks and grid geometry
 *   prefetch_variants[]        the instantiations
 */
#include "constant_mask.cuh"
#include "cuda_check.h"
#include "pitched.cuh"
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

__device__ __forceinline__ float load_checked(const float *__restrict__ in, size_t pitch,
                                              int width, int height, int y, int x) {
    if (x < 0 || x >= width || y < 0 || y >= height) return 0.0f;
    return __ldg(row_of(in, pitch, y) + x);
}

// Where a vector comes from. The kernels never write their input, so global loads may go
// through the read-only cache (__ldg); shared memory has no such path, a plain load reads it.
enum class space { global, shared };

template <space S, class T> __device__ __forceinline__ T load_from(const T *p) {
    if constexpr (S == space::global)
        return __ldg(p);
    else
        return *p;
}

// V floats from a V-aligned address p into dst[0 .. V-1], as one float, float2 or float4 load.
template <int V, space S> __device__ __forceinline__ void load_vector(const float *p, float *dst) {
    static_assert(V == 1 || V == 2 || V == 4, "load_vector: a vector is 1, 2 or 4 floats");
    if constexpr (V == 4) {
        const float4 v = load_from<S>((const float4 *)p);
        dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
    } else if constexpr (V == 2) {
        const float2 v = load_from<S>((const float2 *)p);
        dst[0] = v.x, dst[1] = v.y;
    } else {
        dst[0] = load_from<S>(p);
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

// The ldg and texture paths: each row segment straight into registers, the next row's loads
// issued into `next` before this row's FMAs so that their latency overlaps them. Only the
// loading differs: rows.load(r, row) fills `row` with the segment of input row r of the
// window (ldg_rows, texture_rows).
template <int MW, int MH, int OX, int OY, class Rows>
__device__ __forceinline__ void stream_rows(const Rows &rows, float (&acc)[OY][OX]) {
    using G = row_geometry<MW, OX>;
    constexpr int RH = OY + MH - 1;
    float row[G::LENGTH], next[G::LENGTH];
    rows.load(0, next);
#pragma unroll
    for (int r = 0; r < RH; ++r) {
#pragma unroll
        for (int k = 0; k < G::LENGTH; ++k) row[k] = next[k];
        if (r + 1 < RH) rows.load(r + 1, next);
        accumulate_row<MW, MH, OX, OY>(r, row, acc);
    }
}

// PATH_GLOBAL_LDG loads input row r of the window, whose top-left cell is (seg_x, top), from
// global memory through the read-only cache: interior blocks load whole vectors with no bounds
// tests; border blocks load only the cells the outputs use, one by one, zero outside the image.
template <int MW, int OX> struct ldg_rows {
    using G = row_geometry<MW, OX>;
    const float *in;
    size_t pitch;
    int width, height, seg_x, top;
    bool interior;

    __device__ __forceinline__ void load(int r, float (&row)[G::LENGTH]) const {
        const int y = top + r;
        if (interior) {
#pragma unroll
            for (int q = 0; q < G::VECTORS; ++q)
                load_vector<G::V, space::global>(row_of(in, pitch, y) + seg_x + q * G::V,
                                                 &row[q * G::V]);
        } else {
#pragma unroll
            for (int k = 0; k < G::LENGTH; ++k)
                row[k] = (k >= G::SHIFT && k < G::SHIFT + OX + MW - 1)
                             ? load_checked(in, pitch, width, height, y, seg_x + k)
                             : 0.0f;
        }
    }
};

template <int MW, int MH, int OX, int OY>
__device__ __forceinline__ void path_global_ldg(const float *__restrict__ in, size_t pitch,
                                                int width, int height, bool interior, int x0,
                                                int y0, float (&acc)[OY][OX]) {
    using G = row_geometry<MW, OX>;
    constexpr int HY = MH / 2;
    const ldg_rows<MW, OX> rows = {in, pitch, width, height, x0 + G::V * G::FIRST, y0 - HY,
                                   interior};
    stream_rows<MW, MH, OX, OY>(rows, acc);
}

// PATH_TEXTURE loads the same segment with one tex2D per cell the outputs use, in every block:
// the border addressing mode returns the zeros outside the image.
template <int MW, int OX> struct texture_rows {
    using G = row_geometry<MW, OX>;
    cudaTextureObject_t texture;
    int seg_x, top;

    __device__ __forceinline__ void load(int r, float (&row)[G::LENGTH]) const {
        const int y = top + r;
#pragma unroll
        for (int k = 0; k < G::LENGTH; ++k)
            row[k] = (k >= G::SHIFT && k < G::SHIFT + OX + MW - 1)
                         ? tex2D<float>(texture, seg_x + k + 0.5f, y + 0.5f)
                         : 0.0f;
    }
};

template <int MW, int MH, int OX, int OY>
__device__ __forceinline__ void path_texture(cudaTextureObject_t texture, int x0, int y0,
                                             float (&acc)[OY][OX]) {
    using G = row_geometry<MW, OX>;
    constexpr int HY = MH / 2;
    const texture_rows<MW, OX> rows = {texture, x0 + G::V * G::FIRST, y0 - HY};
    stream_rows<MW, MH, OX, OY>(rows, acc);
}

// PATH_SHARED: the block's input tile (outputs plus halo, V-aligned) is staged once; each thread
// then copies its row segments from it with vector loads. No `next` here: after the barrier the
// segments come from shared memory, and the compiler schedules those loads among the FMAs as it
// sees fit.
template <int MW, int MH, int OX, int OY>
__device__ __forceinline__ void path_shared(const float *__restrict__ in, size_t pitch, int width,
                                            int height, bool interior, int block_x, int block_y,
                                            float (&acc)[OY][OX]) {
    using G = row_geometry<MW, OX>;
    constexpr int V = G::V, HY = MH / 2, RH = OY + MH - 1;
    constexpr int TH = BY * OY + MH - 1, TW = (BX - 1) * OX + G::LENGTH, TV = TW / V;
    __shared__ __align__(16) float tile[TH][TW];
    const int tile_x = block_x + V * G::FIRST, tile_y = block_y - HY;
    const int thread = threadIdx.y * BX + threadIdx.x;
    if (interior) {
        for (int k = thread; k < TH * TV; k += BX * BY)
            load_vector<V, space::global>(row_of(in, pitch, tile_y + k / TV) + tile_x + k % TV * V,
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
        for (int q = 0; q < G::VECTORS; ++q)
            load_vector<V, space::shared>(src + q * V, &row[q * V]);
        accumulate_row<MW, MH, OX, OY>(r, row, acc);
    }
}

// PATH_GLOBAL_ONLY: no prefetch, every product loads its input again (served by L1 at best).
template <int MW, int MH, int OX, int OY>
__device__ __forceinline__ void path_global_only(const float *__restrict__ in, size_t pitch,
                                                 int width, int height, int x0, int y0,
                                                 float (&acc)[OY][OX]) {
    constexpr int HX = MW / 2, HY = MH / 2;
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
}

// Interior blocks store each output row as one vector of OX floats; border blocks store output
// by output, only those inside the image.
template <int OX, int OY>
__device__ __forceinline__ void store_outputs(float *__restrict__ out, size_t pitch, int width,
                                              int height, bool interior, int x0, int y0,
                                              const float (&acc)[OY][OX]) {
#pragma unroll
    for (int oy = 0; oy < OY; ++oy) {
        float *dst = row_of(out, pitch, y0 + oy) + x0;
        if (interior) {
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

template <int MW, int MH, int OX, int OY, int PATH>
__global__ void __launch_bounds__(BX *BY)
    prefetch_kernel(const float *__restrict__ in, float *__restrict__ out, size_t pitch, int width,
                    int height, cudaTextureObject_t texture) {
    static_assert(OX == 1 || OX == 2 || OX == 4,
                  "OX: a row of outputs is one float, float2 or float4");
    static_assert(OY >= 1, "OY: at least one row of outputs");
    static_assert(MW >= 1 && MW <= PREFETCH_MAX_SIDE && MH >= 1 && MH <= PREFETCH_MAX_SIDE,
                  "mask sides: 1..PREFETCH_MAX_SIDE, what c_mask holds");
    static_assert(PATH >= 0 && PATH < PATH_COUNT, "PATH: one of enum prefetch_path");
    using G = row_geometry<MW, OX>;
    constexpr int V = G::V, HY = MH / 2;
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

    if constexpr (PATH == PATH_GLOBAL_LDG)
        path_global_ldg<MW, MH, OX, OY>(in, pitch, width, height, interior, x0, y0, acc);
    else if constexpr (PATH == PATH_TEXTURE)
        path_texture<MW, MH, OX, OY>(texture, x0, y0, acc);
    else if constexpr (PATH == PATH_SHARED)
        path_shared<MW, MH, OX, OY>(in, pitch, width, height, interior, block_x, block_y, acc);
    else
        path_global_only<MW, MH, OX, OY>(in, pitch, width, height, x0, y0, acc);

    store_outputs<OX, OY>(out, pitch, width, height, interior, x0, y0, acc);
}

// A texture object per input plane, made the first time a plane is seen and kept, so the timed
// launches do not pay for it. Several are kept (chapter 08's strips alternate between buffers
// while earlier kernels still read them: one object rebuilt per launch would be destroyed in
// use); the oldest goes when all TEXTURE_CACHE are taken, after the GPU has finished with it.
enum { TEXTURE_CACHE = 8 };

cudaTextureObject_t texture_for(const float *d_in, size_t pitch, int width, int height) {
    static struct {
        cudaTextureObject_t object;
        const float *in;
        size_t pitch;
        int width, height;
        unsigned long long used; /* when it was last asked for */
    } cache[TEXTURE_CACHE];
    static unsigned long long now;
    ++now;
    int oldest = 0;
    for (int k = 0; k < TEXTURE_CACHE; ++k) {
        if (cache[k].object && cache[k].in == d_in && cache[k].pitch == pitch &&
            cache[k].width == width && cache[k].height == height) {
            cache[k].used = now;
            return cache[k].object;
        }
        if (cache[k].used < cache[oldest].used) oldest = k;
    }
    if (cache[oldest].object) {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaDestroyTextureObject(cache[oldest].object));
    }
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
    CUDA_CHECK(cudaCreateTextureObject(&cache[oldest].object, &resource, &view, NULL));
    cache[oldest].in = d_in;
    cache[oldest].pitch = pitch;
    cache[oldest].width = width;
    cache[oldest].height = height;
    cache[oldest].used = now;
    return cache[oldest].object;
}

// The 2D harness's launch (conv2d_launch_fn) for one variant.
template <int MW, int MH, int OX, int OY, int PATH>
void launch(const float *d_in, float *d_out, size_t pitch, int width, int height, int mask_w,
            int mask_h, int block) {
    (void)block; // blocks are always BX x BY threads
    const char *path = prefetch_path_name((enum prefetch_path)PATH);
    if (width < 1 || height < 1 || mask_w != MW || mask_h != MH)
        wb_die(WB_EXIT_USAGE, "prefetch %s %dx%d for %dx%d masks: bad arguments %dx%d mask %dx%d",
               path, OX, OY, MW, MH, width, height, mask_w, mask_h);
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

// The paths' names: prefetch_path_name's table, and the first word(s) of each variant's label.
#define NAME_PATH_GLOBAL_LDG "global ldg"
#define NAME_PATH_TEXTURE "texture"
#define NAME_PATH_SHARED "shared"
#define NAME_PATH_GLOBAL_ONLY "global only"

// One variant: mask M x M, X x Y outputs per thread, path P, labelled "<path name> XxY".
#define VARIANT(M, X, Y, P) {M, M, X, Y, P, NAME_##P " " #X "x" #Y, launch<M, M, X, Y, P>}
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
    static const char *const names[PATH_COUNT] = {NAME_PATH_GLOBAL_LDG, NAME_PATH_TEXTURE,
                                                  NAME_PATH_SHARED, NAME_PATH_GLOBAL_ONLY};
    return path >= 0 && path < PATH_COUNT ? names[path] : "?";
}

int prefetch_has_variants(int mask_w, int mask_h) {
    for (int v = 0; v < prefetch_variant_count; ++v)
        if (prefetch_variants[v].mask_w == mask_w && prefetch_variants[v].mask_h == mask_h) return 1;
    return 0;
}

void prefetch_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_constant_mask("prefetch_set_mask", c_mask, h_mask, mask_w, mask_h, PREFETCH_MAX_SIDE,
                         PREFETCH_MAX_SIDE);
}
}
