/* conv3d_stream_tiles.cuh: the device-side machinery of chapter 09's 2.5D kernel
 * (conv3d_stream.cu, the exercise in exercises/09_3d/): the block's shape, the mask in constant
 * memory, the tile a plane takes in shared memory, the fetcher that brings planes into the ring
 * of stages, and the kernel's launch bounds. The exercise never edits it; the few names its TODO
 * blocks use are listed at the top of conv3d_stream.cu.
 *
 *   TX, THREADS_Y, THREADS     the block: a warp along x, 8 rows of threads, 256 threads
 *   STAGES                     planes in shared memory at once: the one computed, three coming
 *   MAX_SIDE, c_mask           the largest mask side, and the mask's weights: (k, i, j) at
 *                              (k * mh + i) * mw + j (conv3d_stream_set_mask uploads them)
 *   tile_shape                 one plane's tile: its rows, its columns, the floats of a stage
 *   plane_fetcher              planes into the stages (TMA or cp.async), and the waits for them
 *   blocks_per_sm              the blocks an SM must hold: the kernel's __launch_bounds__
 *
 * A plane goes from global to shared memory without passing through registers. Where the GPU
 * has a Tensor Memory Accelerator (sm_90) and the volume's rows are whole 16-byte units (width a
 * multiple of 4), one thread asks it for each plane, zeros outside the volume included;
 * elsewhere every thread copies its share of the plane's cells with cp.async, a zero where a
 * cell lies outside. The launcher picks the way (choose_conv3d_fetch, fetch_choice.h);
 * WB_CONV3D_NO_TMA=1 or WB_FORCE_SM=80 (tests) takes the second way everywhere.
 *
 * Everything here lies in an anonymous namespace, for the one file that includes it.
 */
#ifndef CONV3D_STREAM_TILES_CUH
#define CONV3D_STREAM_TILES_CUH

#include <cuda_pipeline_primitives.h>
#include <limits.h>

#include "fetch_choice.h"
#include "tensor_copy.cuh"

namespace {

constexpr int MAX_SIDE = 7;
constexpr int TX = 32;                  // threads along x: a warp; each has RX outputs
constexpr int THREADS_Y = 8;            // rows of threads
constexpr int THREADS = TX * THREADS_Y; // 256
static_assert(THREADS == CONV3D_STREAM_THREADS, "the block fetch_choice.h checks");
constexpr int STAGES = 4;               // planes in shared memory: one computed, three coming

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
//   start(stage, z)  plane z (one of the chunk's, first .. last) on its way into that stage
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
// A plane outside the chunk's first .. last is never needed: drain() would wait for it and no
// output would change, only the traffic, which a check of outputs alone could never see. So
// start() refuses one: it stops the kernel (a launch failure, "unspecified launch failure").
template <int MW, int MH, int RY, int RX, bool TMA> struct plane_fetcher {
    using T = tile_shape<MW, MH, RY, RX, TMA>;
    float *tiles;
    const float *in;
    const CUtensorMap *map;
    uint64_t *landed; /* TMA: a barrier a stage */
    int *started;     /* TMA: a stage's last plane started, then how many were (2 x STAGES) */
    size_t slice;     /* voxels in one slice of the volume */
    int depth, box_x, box_y;
    int first, last; /* the chunk's planes: the only ones start() takes */
    int col0; /* the tile's column of thread 0's first window cell */
    int offset[TMA ? 1 : T::LOADS];

    __device__ plane_fetcher(float *tiles_, uint64_t *landed_, int *started_, const float *volume,
                             const CUtensorMap *map_, int width, int height, int depth_, int x0,
                             int y0, int mw, int mh, int first_, int last_)
        : tiles(tiles_), in(volume), map(map_), landed(landed_), started(started_),
          slice((size_t)width * height), depth(depth_), box_x(TMA ? x0 - T::LEFT : x0 - mw / 2),
          box_y(y0 - mh / 2), first(first_), last(last_), col0(TMA ? T::LEFT - mw / 2 : 0) {
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
        if (z < first || z > last) __trap(); /* not one of the chunk's planes */
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

// The blocks an SM the compiler must leave room for, and so its registers a thread: two (128)
// where the queue and the window fit; one (up to 255) for the run-time kernels of depth 4 and
// more, which would spill to local memory, and for queues of 40 sums or more. ptxas gives 5x5x5
// with RX = 2 (a queue of 40) only 128 registers, so two of its blocks still fit an SM, and its
// code is faster than under a bound of two (124 registers; chapter 09's lesson has the numbers).
template <int MW, int MD, int RY, int RX> constexpr int blocks_per_sm() {
    return (MW ? MW : MAX_SIDE) * MD * RY <= 100 && MD * RY * RX < 40 ? 2 : 1;
}

} // namespace

#endif
