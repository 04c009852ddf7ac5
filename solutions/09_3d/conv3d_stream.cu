/* conv3d_stream.cu: chapter 09, 2.5D convolution: a block marches along z.
 *
 * This file exists twice with the same name: exercises/09_3d/ holds it with TODO blocks for
 * you, solutions/09_3d/ the reference; outside the TODO blocks they are identical (a test
 * checks that). Check yours with `make check CH=09`.
 *
 * A block owns a column of outputs: 32 x RX by 8 x RY in x and y (RX outputs a thread along x,
 * RY along y: 32 x 32 for 3x3x3, 64 x 32 for 5x5x5, 64 x 16 for 7x7x7), and a run of z_chunk
 * slices. It reads the input one plane (a slice with its x-y halo) at a time into shared
 * memory, and each input plane feeds mask_d output slices at once: plane zi adds mask slice k
 * to output slice zi - k + mask_d / 2. So each thread keeps, for each of its outputs in x-y, a
 * queue of mask_d partial sums in registers, one per output slice still open:
 *
 *      queue slot q:        0              1        ...     mask_d - 1
 *      output slice:   zi - (mask_d-1) + a   ...   ...    zi + a          (a = mask_d / 2)
 *      mask slice k:      mask_d - 1        ...    ...       0           (k = mask_d - 1 - q)
 *
 * After plane zi, slot 0's output has had all its mask_d slices: it is stored, the queue moves
 * down one slot, and the last slot starts at zero for the output slice the next plane opens.
 * Every input voxel is read from global memory about once (plus the x-y halo, and mask_d - 1
 * planes of z halo per chunk), and every value read from shared memory feeds mask_d sums.
 * STAGES (4) planes share memory in turn, a ring: the one being computed and the next three,
 * which come in meanwhile; one barrier per plane. Each thread computes RY outputs along y and RX
 * along x (RX = 2 for 5x5x5 and 7x7x7), so the values their windows share are read from shared
 * memory once: RY + mask_h - 1 rows of mask_w + RX - 1 values feed RX x RY x mask_h x mask_w x
 * mask_d multiply-adds, and each weight read feeds RX x RY of them.
 *
 * What the TODO blocks use besides the kernel's own variables:
 *   fetcher.start(s, z)   plane z on its way into stage s (0 .. STAGES - 1); a plane
 *                         outside first .. last stops the kernel (a launch failure)
 *   fetcher.none()        nothing to start this step: it keeps the count of copies in step
 *   fetcher.wait(s, z)    (the march's own call, before TODO 1) plane z has landed in stage s
 *   c_mask[(k * mh + i) * mw + j]   the weight of mask slice k, row i, column j
 *   MD                    the mask's depth, compiled in: the queue's slots
 *   MW, MH                its width and height where compiled in (3x3x3, 5x5x5, 7x7x7; mw and
 *                         mh equal them), 0 where read at run time (any other mask: mw and mh)
 *   RY, RX                a thread's outputs along y and along x: acc[q][r][c], r < RY, c < RX
 *
 * The file in order, with the two headers it includes from chapters/09_3d/ (you need not read
 * them to write the TODO blocks):
 *   conv3d_stream_tiles.cuh    the block's shape, STAGES, c_mask, a plane's tile in shared
 *                              memory, plane_fetcher (TMA or cp.async), the launch bounds
 *   accumulate                 one plane into the queue: TODO 2
 *   conv3d_stream_kernel       the march: TODOs 1 and 3
 *   conv3d_stream_launch.cuh   the host side: the kernel for each mask size, TMA or cp.async,
 *                              the chunk length, conv3d.h's conv3d_stream_set_mask and _launch
 */
#include "conv3d_stream_tiles.cuh"

namespace {

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
                                                     height, depth, x0, y0, mw, mh, first, last);
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

} // namespace

// The host side instantiates the kernel above, so it is compiled here, in the same file.
#include "conv3d_stream_launch.cuh"
