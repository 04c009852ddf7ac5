/* conv3d_tiled.cu: chapter 09's tiled kernel, chapter 05's input tile in three dimensions.
 *
 * A block of B x B x B threads (--block B, at most 10: 1000 threads) loads a B^3 cube of input,
 * halo included, into shared memory, one voxel per thread; the threads of its inner cube of
 * (B - mask_w + 1) x (B - mask_h + 1) x (B - mask_d + 1) compute one output each from shared
 * memory. The halo is what the cube costs: with B = 8 and a 3x3x3 mask, 216 of the 512 threads
 * compute (42%); with 5x5x5, 64 (12.5%); with 7x7x7, 8 (1.6%). Chapter 03 counted the same in
 * 1D, where the share stayed high; a cube's halo grows with the square and the cube of the mask.
 */
#include "constant_mask.cuh"
#include "conv3d.h"

namespace {

constexpr int MAX_SIDE = 7, MAX_BLOCK = CONV3D_TILED_MAX_BLOCK;

__constant__ float c_mask[MAX_SIDE * MAX_SIDE * MAX_SIDE];

__global__ void conv3d_tiled_kernel(const float *__restrict__ in, float *__restrict__ out,
                                    int width, int height, int depth, int mask_w, int mask_h,
                                    int mask_d) {
    __shared__ float tile[MAX_BLOCK * MAX_BLOCK * MAX_BLOCK];
    const int b = blockDim.x; /* the cube's edge; blockDim is b x b x b */
    const int out_w = b - mask_w + 1, out_h = b - mask_h + 1, out_d = b - mask_d + 1;
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    /* the input voxel this thread loads: the output tile's corner, less the halo */
    const int x = blockIdx.x * out_w + tx - mask_w / 2;
    const int y = blockIdx.y * out_h + ty - mask_h / 2;
    const int z = blockIdx.z * out_d + tz - mask_d / 2;
    const bool inside = x >= 0 && x < width && y >= 0 && y < height && z >= 0 && z < depth;
    tile[(tz * b + ty) * b + tx] = inside ? in[((size_t)z * height + y) * width + x] : 0.0f;
    __syncthreads();
    if (tx >= out_w || ty >= out_h || tz >= out_d) return;
    const int ox = x + mask_w / 2, oy = y + mask_h / 2, oz = z + mask_d / 2;
    if (ox >= width || oy >= height || oz >= depth) return;
    float sum = 0.0f;
    for (int k = 0; k < mask_d; ++k)
        for (int i = 0; i < mask_h; ++i)
            for (int j = 0; j < mask_w; ++j)
                sum += c_mask[(k * mask_h + i) * mask_w + j] *
                       tile[((tz + k) * b + ty + i) * b + tx + j];
    out[((size_t)oz * height + oy) * width + ox] = sum;
}

} // namespace

void conv3d_tiled_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d) {
    if (mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_tiled_set_mask: mask depth %d is outside 1..%d", mask_d,
               MAX_SIDE);
    upload_constant_mask("conv3d_tiled_set_mask", c_mask, h_mask, mask_w, mask_h * mask_d,
                         MAX_SIDE, MAX_SIDE * MAX_SIDE);
}

void conv3d_tiled_launch(const float *d_in, float *d_out, int width, int height, int depth,
                         int mask_w, int mask_h, int mask_d, int block) {
    if (block < 1 || block > MAX_BLOCK || block < mask_w || block < mask_h || block < mask_d)
        wb_die(WB_EXIT_USAGE, "conv3d_tiled_launch: --block %d must be 1..%d and cover the "
               "%dx%dx%d mask", block, MAX_BLOCK, mask_w, mask_h, mask_d);
    const int out_w = block - mask_w + 1, out_h = block - mask_h + 1, out_d = block - mask_d + 1;
    const long blocks_z = (depth + out_d - 1) / out_d;
    if (blocks_z > 65535)
        wb_die(WB_EXIT_USAGE, "conv3d_tiled_launch: %ld blocks along z (at most 65535)", blocks_z);
    dim3 threads(block, block, block);
    dim3 grid((width + out_w - 1) / out_w, (height + out_h - 1) / out_h, (unsigned)blocks_z);
    conv3d_tiled_kernel<<<grid, threads>>>(d_in, d_out, width, height, depth, mask_w, mask_h,
                                           mask_d);
    CUDA_CHECK_LAUNCH();
}
