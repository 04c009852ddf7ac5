/* conv2d_tiled.cu: chapter 05, tiled 2D convolution on pitched images (PMPP 7.6).
 *
 * This file exists twice with the same name: exercises/05_tiled_2d/ holds it with TODO blocks
 * for you, solutions/05_tiled_2d/ the reference; outside the TODO blocks they are identical (a
 * test checks that). Check yours with `make check CH=05`.
 *
 * One thread per INPUT tile cell. A block of T x T threads loads a T x T input tile (output
 * tile plus halo, ghost cells as zero) into shared memory in one step, then only the threads of
 * the smaller output tile, (T - mask_w + 1) x (T - mask_h + 1), compute:
 *
 *        input tile (T x T, loaded)          output tile (computed)
 *     +---------------------------+        threads tx < T - mask_w + 1,
 *     | halo     mask_h/2 rows    |                    ty < T - mask_h + 1
 *     |   +-------------------+   |        output (x, y) reads the window whose top-left
 *     |   |   output tile     |   |        corner is tile cell (tx, ty)
 *     |   +-------------------+   |
 *     +---------------------------+
 * Images are pitched: row y starts `pitch` BYTES after row y-1, so rows are addressed with
 * row_of() (common/pitched.cuh) and never as y * width.
 *
 *   conv2d_tiled_kernel     load the input tile, barrier, compute the output tile
 *   conv2d_tiled_launch     grid geometry, shared-memory size, precondition checks
 */
#include "constant_mask.cuh"
#include "conv2d_tiled.h"
#include "pitched.cuh"

static __constant__ float c_mask[CONV2D_MAX_MASK_SIDE * CONV2D_MAX_MASK_SIDE];

void conv2d_tiled_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_constant_mask("conv2d_tiled_set_mask", c_mask, h_mask, mask_w, mask_h,
                         CONV2D_MAX_MASK_SIDE, CONV2D_MAX_MASK_SIDE);
}

__global__ void conv2d_tiled_kernel(const float *in, float *out, size_t pitch, int width,
                                    int height, int mask_w, int mask_h) {
    extern __shared__ float s_tile[]; // blockDim.x * blockDim.y floats, row-major

    // ---- TODO 1 begin: the output tile, and the input cell this thread loads
    // Each block covers an output tile of out_tile_w x out_tile_h outputs, where the output
    // tile is the thread block minus the mask's halo: out_tile_w = blockDim.x - (mask_w - 1),
    // and likewise for the height. Block (bx, by) owns outputs starting at
    // (bx * out_tile_w, by * out_tile_h). Thread (tx, ty) gets the candidate output
    // out_x = bx * out_tile_w + tx (out_y likewise) and loads the input cell
    // in_x = out_x - mask_w/2, in_y = out_y - mask_h/2: the top-left corner of out's window.
    // ---- TODO 1 end

    // ---- TODO 2 begin: load the input tile, ghost cells as zero
    // Read input (in_x, in_y) if it lies inside the image, else use 0 (a ghost cell), and
    // store it at s_tile[ty * blockDim.x + tx]. The image is pitched: use row_of(in, pitch,
    // in_y)[in_x], never in[in_y * width + in_x]. Every thread loads, and none may return
    // before the barrier below.
    // ---- TODO 2 end

    // ---- TODO 3 begin: wait for the whole tile
    // No thread may read the tile before every thread has written its cell.
    // ---- TODO 3 end

    // ---- TODO 4 begin: the output-tile threads compute and store
    // Only threads inside the output tile (tx < out_tile_w, ty < out_tile_h) whose output
    // lies inside the image compute. Their window is the mask_h x mask_w block of s_tile whose
    // top-left corner is (tx, ty): sum c_mask[i * mask_w + j] * s_tile[(ty + i) * blockDim.x
    // + tx + j], then store it at row_of(out, pitch, out_y)[out_x].
    // ---- TODO 4 end
}

void conv2d_tiled_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block) {
    if (width < 1 || height < 1 || mask_w < 1 || mask_h < 1 || mask_w > CONV2D_MAX_MASK_SIDE ||
        mask_h > CONV2D_MAX_MASK_SIDE || block < mask_w || block < mask_h || block > 32)
        wb_die(WB_EXIT_USAGE, "conv2d_tiled_launch: bad arguments %dx%d mask %dx%d block %d", width,
               height, mask_w, mask_h, block);
    int out_tile_w = block - (mask_w - 1), out_tile_h = block - (mask_h - 1);
    dim3 threads(block, block);
    dim3 blocks((width + out_tile_w - 1) / out_tile_w, (height + out_tile_h - 1) / out_tile_h);
    if (blocks.y > 65535)
        wb_die(WB_EXIT_USAGE,
               "conv2d_tiled_launch: %d rows need %u tile rows, over the grid's "
               "65535: use a larger --block",
               height, blocks.y);
    size_t tile_bytes = (size_t)block * block * sizeof(float);
    conv2d_tiled_kernel<<<blocks, threads, tile_bytes>>>(d_in, d_out, pitch, width, height, mask_w,
                                                         mask_h);
    CUDA_CHECK_LAUNCH();
}
