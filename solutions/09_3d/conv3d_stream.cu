/* conv3d_stream.cu: chapter 09, 2.5D convolution: a block marches along z.
 *
 * This file exists twice with the same name: exercises/09_3d/ holds it with TODO blocks for
 * you, solutions/09_3d/ the reference; outside the TODO blocks they are identical (a test
 * checks that). Check yours with `make check CH=09`.
 *
 * A block owns a column of outputs: 32 x 32 in x and y, and a run of z_chunk slices. It reads
 * the input one plane (a slice with its x-y halo) at a time into shared memory, and each input
 * plane feeds mask_d output slices at once: plane zi adds mask slice k to output slice
 * zi - k + mask_d / 2. So each thread keeps, for each of its outputs in x-y, a queue of mask_d
 * partial sums in registers, one per output slice still open:
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
 * Each thread computes RY = 4 outputs along y, so the mask_h - 1 rows its windows share are read
 * once: RY + mask_h - 1 rows of mask_w values feed RY x mask_h x mask_w x mask_d multiply-adds.
 * Three planes share memory in turn: the one being computed and the next two, which the SM's
 * load unit copies in meanwhile (cp.async, no registers on the way); one barrier per plane.
 * Against one plane prefetched through registers, this took 3x3x3 at 512^3 on an H100 from
 * 69.7% to 76.5% of the copy bandwidth and 7x7x7 from 46.8% to 51.6% of the FMA peak (before
 * plane_fetcher worked out the copies' addresses once a thread).
 *
 * Masks 3x3x3, 5x5x5 and 7x7x7 get kernels with every size known at compile time (every loop
 * unrolled, every weight an operand of its FMA straight from the constant bank); any other mask
 * up to 7 on each side runs a kernel with its depth compiled in and its width and height read
 * at run time.
 *
 *   plane_fetcher, accumulate   one plane into shared memory; one plane into the queue
 *   conv3d_stream_kernel        the march
 *   conv3d_stream_launch        the chunk length, the instantiation for the mask
 */
#include <cuda_pipeline_primitives.h>
#include <stdlib.h>

#include "constant_mask.cuh"
#include "conv3d.h"

namespace {

constexpr int MAX_SIDE = 7;
constexpr int TX = 32;                   // outputs along x per block: one per thread of a warp
constexpr int THREADS_Y = 8;             // rows of threads
constexpr int THREADS = TX * THREADS_Y;  // 256
constexpr int STAGES = 3;                // planes in shared memory: one computed, two coming
constexpr int TARGET_BLOCKS = 2048;      // enough blocks for a few waves on a large GPU

__constant__ float c_mask[MAX_SIDE * MAX_SIDE * MAX_SIDE];

// The shared tile of one plane: the block's outputs in x-y plus the mask's halo. A side known
// only at run time is given room for the largest mask.
template <int MW, int MH, int RY> struct tile_shape {
    static constexpr int W = TX + (MW ? MW : MAX_SIDE) - 1;
    static constexpr int H = THREADS_Y * RY + (MH ? MH : MAX_SIDE) - 1;
    static constexpr int LOADS = (W * H + THREADS - 1) / THREADS; // per thread
};

// Where this thread's share of a plane's tile comes from. The tile's cells it copies, and their
// voxels' offsets within a slice of the volume (-1 outside it: a zero), are the same for every
// plane, so the march works them out once; a plane then costs an address and a copy a cell.
template <int MW, int MH, int RY> struct plane_fetcher {
    using T = tile_shape<MW, MH, RY>;
    const float *in;
    size_t slice; /* voxels in one slice of the volume */
    int depth;
    int offset[T::LOADS];

    __device__ plane_fetcher(const float *volume, int width, int height, int depth_, int x0,
                             int y0, int mw, int mh)
        : in(volume), slice((size_t)width * height), depth(depth_) {
        const int tid = threadIdx.y * TX + threadIdx.x;
#pragma unroll
        for (int n = 0; n < T::LOADS; ++n) {
            const int e = tid + n * THREADS, r = e / T::W, c = e % T::W;
            const int x = x0 + c - mw / 2, y = y0 + r - mh / 2;
            offset[n] = e < T::W * T::H && x >= 0 && x < width && y >= 0 && y < height
                            ? y * width + x
                            : -1;
        }
    }

    // Plane z into the tile, copied without passing through registers (cp.async: the thread
    // goes on while the SM's load unit fills the tile), as one group of copies; zeros outside
    // the volume (the formula's ghost cells).
    __device__ void fetch(float (*tile)[T::W], int z) const {
        const int tid = threadIdx.y * TX + threadIdx.x;
        const bool plane_inside = z >= 0 && z < depth;
        const float *plane = in + (plane_inside ? (size_t)z * slice : 0);
        float *cells = &tile[0][0];
#pragma unroll
        for (int n = 0; n < T::LOADS; ++n) {
            const int e = tid + n * THREADS;
            if (e >= T::W * T::H) break;
            const bool inside = plane_inside && offset[n] >= 0;
            __pipeline_memcpy_async(cells + e, inside ? plane + offset[n] : in, sizeof(float),
                                    inside ? 0 : sizeof(float));
        }
        __pipeline_commit();
    }
};

// One plane, in shared memory, into the queue: slot q takes mask slice mask_d - 1 - q.
template <int MW, int MH, int MD, int RY>
__device__ void accumulate(float (&acc)[MD][RY], const float (*tile)[tile_shape<MW, MH, RY>::W],
                           int mw, int mh) {
    constexpr int MW_MAX = MW ? MW : MAX_SIDE, MH_MAX = MH ? MH : MAX_SIDE;
    mw = MW ? MW : mw; /* compile-time where the kernel's sizes are: constant weight indices */
    mh = MH ? MH : mh;
    const int row0 = threadIdx.y * RY, col = threadIdx.x;
#pragma unroll
    for (int in_row = 0; in_row < RY + MH_MAX - 1; ++in_row) {
        if (!MH && in_row >= RY + mh - 1) break;
        float v[MW_MAX];
#pragma unroll
        for (int j = 0; j < MW_MAX; ++j)
            v[j] = (MW || j < mw) ? tile[row0 + in_row][col + j] : 0.0f;
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
                    if (MW || j < mw) acc[q][r] += c_mask[(k * mh + i) * mw + j] * v[j];
            }
            // ---- TODO 2 end
        }
    }
}

// Two blocks an SM where the queue and the window leave room for them (the 7x7x7 kernel, and
// the run-time ones of depth 4 and more, would spill to local memory): 128 registers a thread.
template <int MW, int MD, int RY> constexpr int blocks_per_sm() {
    return (MW ? MW : MAX_SIDE) * MD * RY <= 100 ? 2 : 1;
}

template <int MW, int MH, int MD, int RY>
__global__ void __launch_bounds__(THREADS, blocks_per_sm<MW, MD, RY>())
    conv3d_stream_kernel(const float *__restrict__ in, float *__restrict__ out, int width,
                         int height, int depth, int mask_w, int mask_h, int z_chunk) {
    using T = tile_shape<MW, MH, RY>;
    constexpr int TY = THREADS_Y * RY;
    __shared__ float tiles[STAGES][T::H][T::W];
    const int mw = MW ? MW : mask_w, mh = MH ? MH : mask_h;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    const int x = x0 + threadIdx.x, y_first = y0 + threadIdx.y * RY;
    (void)x, (void)y_first; /* used in TODO 3 */
    const int z0 = blockIdx.z * z_chunk, z_end = min(z0 + z_chunk, depth);
    // The input planes this chunk needs: its first output's mask_d / 2 planes before it, its
    // last output's mask_d - 1 - mask_d / 2 after it.
    const int first = z0 - MD / 2, last = z_end - 1 + (MD - 1 - MD / 2);

    float acc[MD][RY];
#pragma unroll
    for (int q = 0; q < MD; ++q)
#pragma unroll
        for (int r = 0; r < RY; ++r)
            acc[q][r] = 0.0f;
    // Two planes on their way before the march starts; every step then waits for the older.
    const plane_fetcher<MW, MH, RY> fetcher(in, width, height, depth, x0, y0, mw, mh);
    fetcher.fetch(tiles[0], first);
    fetcher.fetch(tiles[1], first + 1);

    for (int zi = first, stage = 0; zi <= last; ++zi, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        __pipeline_wait_prior(1); /* this thread's copies of plane zi have landed */
        __syncthreads();          /* and everyone's; everyone is done with plane zi - 1 */
        // ---- TODO 1 begin: start fetching the plane two after this one, into the stage plane
        // zi - 1 used
        const int ahead = stage == 0 ? STAGES - 1 : stage - 1;
        if (zi + 2 <= last)
            fetcher.fetch(tiles[ahead], zi + 2);
        else
            __pipeline_commit(); /* an empty group keeps the count of groups in step */
        // ---- TODO 1 end
        accumulate<MW, MH, MD, RY>(acc, tiles[stage], mw, mh);
        // ---- TODO 3 begin: store the output slot 0 finished, if it is one of the chunk's, and
        // move the queue down
        const int done = zi - (MD - 1) + MD / 2;
        if (done >= z0 && done < z_end && x < width) {
#pragma unroll
            for (int r = 0; r < RY; ++r)
                if (y_first + r < height)
                    out[((size_t)done * height + y_first + r) * width + x] = acc[0][r];
        }
#pragma unroll
        for (int q = 0; q < MD - 1; ++q)
#pragma unroll
            for (int r = 0; r < RY; ++r)
                acc[q][r] = acc[q + 1][r];
#pragma unroll
        for (int r = 0; r < RY; ++r)
            acc[MD - 1][r] = 0.0f;
        // ---- TODO 3 end
    }
    __pipeline_wait_prior(0); /* no copy outlives the block (the empty groups past the end) */
}

template <int MW, int MH, int MD, int RY = 4>
void launch(const float *d_in, float *d_out, int width, int height, int depth, int mask_w,
            int mask_h) {
    constexpr int TY = THREADS_Y * RY;
    const int blocks_x = (width + TX - 1) / TX, blocks_y = (height + TY - 1) / TY;
    if (blocks_y > 65535)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: height %d needs more than 65535 blocks",
               height);
    // Chunks along z: as many as give about TARGET_BLOCKS blocks, so a large GPU runs a few
    // waves; each chunk rereads mask_d - 1 planes, so they stay long where x-y gives enough.
    const long xy = (long)blocks_x * blocks_y;
    long chunks = (TARGET_BLOCKS + xy - 1) / xy;
    if (chunks > depth) chunks = depth;
    int z_chunk = (int)((depth + chunks - 1) / chunks);
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
    conv3d_stream_kernel<MW, MH, MD, RY>
        <<<grid, threads>>>(d_in, d_out, width, height, depth, mask_w, mask_h, z_chunk);
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
    // Four outputs a thread along y for every cube: on an H100, 8 for 3x3x3 and 2 for 5x5x5
    // and 7x7x7 were slower (0.508 against 0.473 ms, 1.180 against 1.171, 2.788 against 2.670
    // at 512^3).
    switch (cube) {
    case 3: return launch<3, 3, 3>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 5: return launch<5, 5, 5>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 7: return launch<7, 7, 7>(d_in, d_out, width, height, depth, mask_w, mask_h);
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
