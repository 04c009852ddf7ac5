/* conv3d_stream.cu: chapter 09, 2.5D convolution: a block marches along z.
 *
 * This file exists twice with the same name: exercises/09_3d/ holds it with TODO blocks for
 * you, solutions/09_3d/ the reference; outside the TODO blocks they are identical (a test
 * checks that). Check yours with `make check CH=09`.
 *
 * A block owns a column of outputs: 32 x RX by 8 x RY in x and y (RX outputs a thread along x,
 * RY along y, below: 32 x 32 for 3x3x3, 64 x 32 for 5x5x5, 64 x 16 for 7x7x7), and a run of
 * z_chunk slices. It reads the input one plane (a slice with its x-y halo) at a time into
 * shared memory, and each input plane feeds mask_d output slices at once: plane zi adds mask
 * slice k to output slice zi - k + mask_d / 2. So each thread keeps, for each of its outputs in
 * x-y, a queue of mask_d partial sums in registers, one per output slice still open:
 *
 *      queue slot q:        0              1        ...     mask_d - 1
 *      output slice:   zi - (mask_d-1) + a   ...   ...    zi + a          (a = mask_d / 2)
 *      mask slice k:      mask_d - 1        ...    ...       0           (k = mask_d - 1 - q)
 *
 * After plane zi, slot 0's output has had all its mask_d slices: it is stored, the queue moves
 * down one slot, and the last slot starts at zero for the output slice the next plane opens.
 * Every input voxel is read from global memory about once (plus the x-y halo, and mask_d - 1
 * planes of z halo per chunk), and every value read from shared memory feeds mask_d sums.
 *
 * Each thread computes RY outputs along y (4; 2 for 7x7x7), so the mask_h - 1 rows its windows
 * share are read once, and for 5x5x5 and 7x7x7 RX = 2 neighbouring outputs along x, so a row's
 * mask_w + 1 values feed both: RY + mask_h - 1 rows of mask_w + RX - 1 values feed
 * RX x RY x mask_h x mask_w x mask_d multiply-adds, and each weight read feeds RX x RY of them.
 * Four planes share memory in turn: the one being computed and the next three, which come in
 * meanwhile without passing through registers; one barrier per plane. Where the GPU has a
 * Tensor Memory Accelerator (sm_90) and the volume's rows are whole 16-byte units (width a
 * multiple of 4), one thread asks it for each plane, zeros outside the volume included;
 * elsewhere every thread copies its share of the plane's cells (cp.async, a zero where a cell
 * lies outside). WB_CONV3D_NO_TMA=1 (tests) takes the second way everywhere.
 *
 * Masks 3x3x3, 5x5x5 and 7x7x7 get kernels with every size known at compile time (every loop
 * unrolled, every weight's place in the constant bank known, so the compiler keeps weights in
 * registers and reloads those that do not fit each plane, into uniform registers or ordinary
 * ones, as the machine code of earlier versions shows); any other mask up to 7 on each side
 * runs a kernel with its depth compiled in and its width and height read at run time.
 *
 *   plane_fetcher, accumulate   planes into shared memory (TMA or cp.async); one into the queue
 *   conv3d_stream_kernel        the march
 *   conv3d_stream_launch        the fetch, the chunk length, the instantiation for the mask
 */
#include <cuda_pipeline_primitives.h>
#include <limits.h>
#include <stdlib.h>

#include "constant_mask.cuh"
#include "conv3d.h"
#include "tensor_copy.cuh"

namespace {

constexpr int MAX_SIDE = 7;
constexpr int TX = 32;                   // threads along x: a warp; each has RX outputs
constexpr int THREADS_Y = 8;             // rows of threads
constexpr int THREADS = TX * THREADS_Y;  // 256
constexpr int STAGES = 4;                // planes in shared memory: one computed, three coming
constexpr int TARGET_BLOCKS = 2048;      // enough blocks for a few waves on a large GPU

__constant__ float c_mask[MAX_SIDE * MAX_SIDE * MAX_SIDE];

// The shared tile of one plane: the block's outputs in x-y (TX x RX by THREADS_Y x RY) plus the
// mask's halo. A side known only at run time is given room for the largest mask. TMA reads from
// 16-byte boundaries and writes whole 16-byte units: its tile starts LEFT = 4 cells left of the
// block's first output (room for the largest mask's halo) and its rows are a multiple of 4
// cells; every stage of the ring starts on 128 bytes, as TMA needs.
template <int MW, int MH, int RY, int RX, bool TMA> struct tile_shape {
    static constexpr int LEFT = TMA ? 4 : 0;
    static constexpr int RIGHT = (MW ? MW : MAX_SIDE) - 1 - (MW ? MW : MAX_SIDE) / 2;
    static constexpr int COLS = TX * RX; // the block's outputs along x
    static constexpr int W =
        TMA ? (LEFT + COLS + RIGHT + 3) / 4 * 4 : COLS + (MW ? MW : MAX_SIDE) - 1;
    static constexpr int H = THREADS_Y * RY + (MH ? MH : MAX_SIDE) - 1;
    static constexpr int CELLS = W * H;
    static constexpr int STAGE = (CELLS + 31) / 32 * 32;           // floats a stage takes
    static constexpr int LOADS = (CELLS + THREADS - 1) / THREADS; // cp.async: cells a thread
};

// Planes of the volume into the ring of stages in shared memory, and the wait for them.
//   start(stage, z)  plane z on its way into that stage
//   none()           nothing to start this step (the cp.async way counts groups of copies)
//   wait(stage, z)   plane z, started into that stage, has landed
//   drain()          every copy started has landed
//   tile(stage)      that stage as rows of W floats
// TMA: thread 0 asks for the box of the plane at (x0 - LEFT, y0 - mh/2, z) and the stage's
// barrier tells when its bytes have landed. Thread 0 also notes which plane it started into
// each stage and how many it has, so a wait is for the copy truly started there, with that
// phase's parity: a march that forgets a plane computes on a stale tile and fails its check
// instead of waiting forever, and the block's end waits for every copy it started.
// cp.async: the tile's cells a thread copies, and their voxels' offsets within a slice of the
// volume (-1 outside it: a zero), are the same for every plane, so the fetcher works them out
// once; a plane then costs an address and a copy a cell, and a thread waits for its own group
// of copies (the barrier after the wait shares them).
template <int MW, int MH, int RY, int RX, bool TMA> struct plane_fetcher {
    using T = tile_shape<MW, MH, RY, RX, TMA>;
    float *tiles;
    const float *in;
    const CUtensorMap *map;
    uint64_t *landed; /* TMA: a barrier a stage */
    int *started;     /* TMA: a stage's last plane started, then how many were (2 x STAGES) */
    size_t slice;     /* voxels in one slice of the volume */
    int depth, box_x, box_y;
    int col0; /* the tile's column of thread 0's first window cell */
    int offset[TMA ? 1 : T::LOADS];

    __device__ plane_fetcher(float *tiles_, uint64_t *landed_, int *started_, const float *volume,
                             const CUtensorMap *map_, int width, int height, int depth_, int x0,
                             int y0, int mw, int mh)
        : tiles(tiles_), in(volume), map(map_), landed(landed_), started(started_),
          slice((size_t)width * height), depth(depth_), box_x(TMA ? x0 - T::LEFT : x0 - mw / 2),
          box_y(y0 - mh / 2), col0(TMA ? T::LEFT - mw / 2 : 0) {
        const int tid = threadIdx.y * TX + threadIdx.x;
        if constexpr (TMA) {
            if (tid < STAGES) {
                tensor_barrier_init(&landed[tid]);
                started[tid] = INT_MIN; /* no plane */
                started[STAGES + tid] = 0;
            }
            __syncthreads(); /* every barrier ready before anyone starts or waits */
        } else {
#pragma unroll
            for (int n = 0; n < T::LOADS; ++n) {
                const int e = tid + n * THREADS, r = e / T::W, c = e % T::W;
                const int x = box_x + c, y = box_y + r;
                offset[n] = e < T::CELLS && x >= 0 && x < width && y >= 0 && y < height
                                ? y * width + x
                                : -1;
            }
        }
    }

    __device__ void start(int stage, int z) const {
        float *cells = tiles + stage * T::STAGE;
        if constexpr (TMA) {
            if (threadIdx.x == 0 && threadIdx.y == 0) {
                started[stage] = z;
                ++started[STAGES + stage];
                tensor_fetch_3d(cells, map, box_x, box_y, z, &landed[stage],
                                T::CELLS * sizeof(float));
            }
        } else {
            const int tid = threadIdx.y * TX + threadIdx.x;
            const bool plane_inside = z >= 0 && z < depth;
            const float *plane = in + (plane_inside ? (size_t)z * slice : 0);
#pragma unroll
            for (int n = 0; n < T::LOADS; ++n) {
                const int e = tid + n * THREADS;
                if (e >= T::CELLS) break;
                const bool inside = plane_inside && offset[n] >= 0;
                __pipeline_memcpy_async(cells + e, inside ? plane + offset[n] : in,
                                        sizeof(float), inside ? 0 : sizeof(float));
            }
            __pipeline_commit();
        }
    }

    __device__ void none() const {
        if constexpr (!TMA) __pipeline_commit(); /* an empty group keeps the count in step */
    }

    __device__ void wait(int stage, int z) const {
        if constexpr (TMA) {
            if (started[stage] == z) tensor_wait(&landed[stage], phase(stage));
        } else {
            (void)stage, (void)z;
            __pipeline_wait_prior(STAGES - 2); /* all but the newest groups: plane z */
        }
    }

    // TMA: the parity of the stage's barrier phase that its last copy completes.
    __device__ unsigned phase(int stage) const { return (started[STAGES + stage] - 1) & 1; }

    // Before the block ends: no copy may still be writing into its shared memory.
    __device__ void drain() const {
        if constexpr (TMA) {
            for (int stage = 0; stage < STAGES; ++stage)
                if (started[STAGES + stage]) tensor_wait(&landed[stage], phase(stage));
        } else {
            __pipeline_wait_prior(0);
        }
    }

    __device__ const float (*tile(int stage) const)[T::W] {
        return reinterpret_cast<const float(*)[T::W]>(tiles + stage * T::STAGE);
    }
};

// One plane, in shared memory, into the queue: slot q takes mask slice mask_d - 1 - q. A row of
// the tile gives v[0 .. mw + RX - 2]: output c (0 .. RX - 1) of the thread's row meets v[c + j].
template <int MW, int MH, int MD, int RY, int RX, int W>
__device__ void accumulate(float (&acc)[MD][RY][RX], const float (*tile)[W], int col0, int mw,
                           int mh) {
    constexpr int MW_MAX = MW ? MW : MAX_SIDE, MH_MAX = MH ? MH : MAX_SIDE;
    mw = MW ? MW : mw; /* compile-time where the kernel's sizes are: constant weight indices */
    mh = MH ? MH : mh;
    const int row0 = threadIdx.y * RY, col = col0 + threadIdx.x * RX;
#pragma unroll
    for (int in_row = 0; in_row < RY + MH_MAX - 1; ++in_row) {
        if (!MH && in_row >= RY + mh - 1) break;
        float v[MW_MAX + RX - 1];
#pragma unroll
        for (int j = 0; j < MW_MAX + RX - 1; ++j)
            v[j] = (MW || j < mw + RX - 1) ? tile[row0 + in_row][col + j] : 0.0f;
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            const int i = in_row - r; // the mask row that meets this input row for output r
            if (i < 0 || i >= MH_MAX || (!MH && i >= mh)) continue;
            // ---- TODO 2 begin: which mask slice each queue slot takes
#pragma unroll
            for (int q = 0; q < MD; ++q) {
                const int k = MD - 1 - q;
#pragma unroll
                for (int j = 0; j < MW_MAX; ++j)
#pragma unroll
                    for (int c = 0; c < RX; ++c)
                        if (MW || j < mw) acc[q][r][c] += c_mask[(k * mh + i) * mw + j] * v[c + j];
            }
            // ---- TODO 2 end
        }
    }
}

// The blocks an SM the compiler must leave room for, and so its registers a thread: two (128)
// where the queue and the window fit; one (up to 255) for the run-time kernels of depth 4 and
// more, which would spill to local memory, and for queues of 40 sums or more. ptxas gives 5x5x5
// with RX = 2 (a queue of 40) only 128 registers, so two of its blocks still fit an SM, and its
// code is faster than under a bound of two (124 registers; chapter 09's lesson has the numbers).
template <int MW, int MD, int RY, int RX> constexpr int blocks_per_sm() {
    return (MW ? MW : MAX_SIDE) * MD * RY <= 100 && MD * RY * RX < 40 ? 2 : 1;
}

template <int MW, int MH, int MD, int RY, int RX, bool TMA>
__global__ void __launch_bounds__(THREADS, blocks_per_sm<MW, MD, RY, RX>())
    conv3d_stream_kernel(const float *__restrict__ in, float *__restrict__ out,
                         const __grid_constant__ CUtensorMap map, int width, int height,
                         int depth, int mask_w, int mask_h, int z_chunk) {
    using T = tile_shape<MW, MH, RY, RX, TMA>;
    constexpr int TY = THREADS_Y * RY;
    __shared__ __align__(128) float tiles[STAGES * T::STAGE];
    __shared__ uint64_t landed[STAGES];
    __shared__ int started[2 * STAGES];
    const int mw = MW ? MW : mask_w, mh = MH ? MH : mask_h;
    const int x0 = blockIdx.x * T::COLS, y0 = blockIdx.y * TY;
    const int x = x0 + threadIdx.x * RX, y_first = y0 + threadIdx.y * RY; /* first outputs */
    (void)x, (void)y_first; /* used in TODO 3 */
    const int z0 = blockIdx.z * z_chunk, z_end = min(z0 + z_chunk, depth);
    // The input planes this chunk needs: its first output's mask_d / 2 planes before it, its
    // last output's mask_d - 1 - mask_d / 2 after it.
    const int first = z0 - MD / 2, last = z_end - 1 + (MD - 1 - MD / 2);

    float acc[MD][RY][RX];
#pragma unroll
    for (int q = 0; q < MD; ++q)
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
            for (int c = 0; c < RX; ++c)
                acc[q][r][c] = 0.0f;
    // STAGES - 1 planes on their way before the march starts; every step waits for the oldest
    // and starts one more.
    const plane_fetcher<MW, MH, RY, RX, TMA> fetcher(tiles, landed, started, in, &map, width,
                                                     height, depth, x0, y0, mw, mh);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s)
        if (first + s <= last)
            fetcher.start(s, first + s);
        else
            fetcher.none();
    __syncthreads(); /* what was started is known to everyone */

    for (int zi = first, stage = 0; zi <= last; ++zi, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        fetcher.wait(stage, zi); /* plane zi has landed */
        __syncthreads(); /* for everyone; everyone is done with plane zi - 1 */
        // ---- TODO 1 begin: start fetching the plane STAGES - 1 after this one, into the stage
        // plane zi - 1 used
        const int ahead = stage == 0 ? STAGES - 1 : stage - 1;
        if (zi + STAGES - 1 <= last)
            fetcher.start(ahead, zi + STAGES - 1);
        else
            fetcher.none();
        // ---- TODO 1 end
        accumulate<MW, MH, MD, RY, RX>(acc, fetcher.tile(stage), fetcher.col0, mw, mh);
        // ---- TODO 3 begin: store the output slot 0 finished, if it is one of the chunk's, and
        // move the queue down
        const int done = zi - (MD - 1) + MD / 2;
        if (done >= z0 && done < z_end && x < width) {
#pragma unroll
            for (int r = 0; r < RY; ++r)
#pragma unroll
                for (int c = 0; c < RX; ++c)
                    if (y_first + r < height && x + c < width)
                        out[((size_t)done * height + y_first + r) * width + x + c] = acc[0][r][c];
        }
#pragma unroll
        for (int q = 0; q < MD - 1; ++q)
#pragma unroll
            for (int r = 0; r < RY; ++r)
#pragma unroll
                for (int c = 0; c < RX; ++c)
                    acc[q][r][c] = acc[q + 1][r][c];
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
            for (int c = 0; c < RX; ++c)
                acc[MD - 1][r][c] = 0.0f;
        // ---- TODO 3 end
    }
    fetcher.drain(); /* no copy outlives the block */
}

using kernel_fn = void (*)(const float *, float *, const CUtensorMap, int, int, int, int, int,
                          int);

// What this GPU makes of one of the march's kernels, asked once: blocks of it an SM holds at
// once, and whether its code is sm_90's (TMA) or later.
struct kernel_fit {
    int blocks_per_sm, binary_version;
};
static kernel_fit fit_of(kernel_fn kernel) {
    kernel_fit fit;
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.blocks_per_sm, kernel, THREADS, 0));
    fit.binary_version = attributes.binaryVersion;
    return fit;
}

// The slices a block marches through. Each chunk rereads mask_d - 1 planes, and blocks at many
// depths at once scatter their reads over many planes: chunks are as long as the GPU allows.
// With TMA, just enough chunks for a block on every SM. With cp.async, a mask of fewer than 64
// weights (bound by bandwidth) wants many blocks in flight, about TARGET_BLOCKS, each issuing
// its copies; a larger one (bound by arithmetic) one block in every slot of the GPU. On an
// H100 at 512^3 (256 blocks in x-y) the wrong choice costs 5 to 8 % either way: TMA's 3x3x3 in
// 8 chunks instead of one, cp.async's 3x3x3 in one instead of 8, cp.async's 7x7x7 in 8.
static int chunk_length(long xy_blocks, int depth, int mask_weights, bool tma, int sms,
                        long slots) {
    const long wanted = tma ? sms : mask_weights < 64 ? TARGET_BLOCKS : slots;
    long chunks = (wanted + xy_blocks - 1) / xy_blocks;
    if (chunks > depth) chunks = depth;
    return (int)((depth + chunks - 1) / chunks);
}

template <int MW, int MH, int MD, int RX = 1, int RY = 4>
void launch(const float *d_in, float *d_out, int width, int height, int depth, int mask_w,
            int mask_h) {
    constexpr int TY = THREADS_Y * RY, COLS = TX * RX;
    const int blocks_x = (width + COLS - 1) / COLS, blocks_y = (height + TY - 1) / TY;
    if (blocks_y > 65535)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: height %d needs more than 65535 blocks",
               height);
    // TMA where the code runs as sm_90 or later and the volume suits it (tensor_copy.cuh).
    static const kernel_fit with_tma = fit_of(conv3d_stream_kernel<MW, MH, MD, RY, RX, true>);
    static const kernel_fit without = fit_of(conv3d_stream_kernel<MW, MH, MD, RY, RX, false>);
    static const char *no_tma = getenv("WB_CONV3D_NO_TMA");
    using T = tile_shape<MW, MH, RY, RX, true>;
    CUtensorMap map = {};
    const bool tma = with_tma.binary_version >= 90 && !(no_tma && *no_tma == '1') &&
                     tensor_map_3d(&map, d_in, width, height, depth, T::W, T::H);
    const kernel_fn kernel = tma ? conv3d_stream_kernel<MW, MH, MD, RY, RX, true>
                                 : conv3d_stream_kernel<MW, MH, MD, RY, RX, false>;
    int device, sms;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const long slots = (long)sms * (tma ? with_tma : without).blocks_per_sm;
    const long xy = (long)blocks_x * blocks_y;
    int z_chunk = chunk_length(xy, depth, mask_w * mask_h * MD, tma, sms, slots);
    // Tests: small volumes get chunks of a slice or two, so WB_CONV3D_Z_CHUNK=N sets the length
    // (cut to the depth) to march blocks through many planes there too.
    const char *forced = getenv("WB_CONV3D_Z_CHUNK");
    if (forced && *forced) {
        char *end;
        const long n = strtol(forced, &end, 10);
        if (*end || n < 1 || n > 65535)
            wb_die(WB_EXIT_USAGE, "WB_CONV3D_Z_CHUNK='%s' is not a whole number 1 to 65535",
                   forced);
        z_chunk = n < depth ? (int)n : depth;
    }
    dim3 grid(blocks_x, blocks_y, (depth + z_chunk - 1) / z_chunk), threads(TX, THREADS_Y);
    kernel<<<grid, threads>>>(d_in, d_out, map, width, height, depth, mask_w, mask_h, z_chunk);
    CUDA_CHECK_LAUNCH();
}

} // namespace

void conv3d_stream_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d) {
    if (mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_set_mask: mask depth %d is outside 1..%d", mask_d,
               MAX_SIDE);
    upload_constant_mask("conv3d_stream_set_mask", c_mask, h_mask, mask_w, mask_h * mask_d,
                         MAX_SIDE, MAX_SIDE * MAX_SIDE);
}

void conv3d_stream_launch(const float *d_in, float *d_out, int width, int height, int depth,
                          int mask_w, int mask_h, int mask_d, int block) {
    (void)block; /* the block's shape is compiled in */
    if (width < 1 || height < 1 || depth < 1 || mask_w < 1 || mask_w > MAX_SIDE || mask_h < 1 ||
        mask_h > MAX_SIDE || mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: volume %dx%dx%d, mask %dx%dx%d (1..%d a side)",
               width, height, depth, mask_w, mask_h, mask_d, MAX_SIDE);
    const int cube = mask_w == mask_h && mask_h == mask_d ? mask_w : 0;
    // Outputs a thread, each the fastest of its neighbours on an H100 at 512^3: 3x3x3 four
    // along y (eight: 7 % slower); 5x5x5 four along y and two along x (one along x: 15 %
    // slower); 7x7x7 two along y and two along x, two blocks an SM (four along y needs 254
    // registers, one block an SM, and is no faster and less steady).
    switch (cube) {
    case 3: return launch<3, 3, 3>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 5: return launch<5, 5, 5, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 7: return launch<7, 7, 7, 2, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    default: break;
    }
    switch (mask_d) {
    case 1: return launch<0, 0, 1>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 2: return launch<0, 0, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 3: return launch<0, 0, 3>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 4: return launch<0, 0, 4>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 5: return launch<0, 0, 5>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 6: return launch<0, 0, 6>(d_in, d_out, width, height, depth, mask_w, mask_h);
    default: return launch<0, 0, 7>(d_in, d_out, width, height, depth, mask_w, mask_h);
    }
}
