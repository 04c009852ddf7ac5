/* conv3d_naive.cu: chapter 09's first kernel, one thread per output voxel.
 *
 * Blocks of 32 x 8 threads cover a 32 x 8 patch of one slice; the grid's z is the slice. Each
 * thread reads its mask_w x mask_h x mask_d window straight from global memory (the caches
 * catch much of the reuse) and the weights from constant memory: the baseline of "vs naive".
 */
#include "constant_mask.cuh"
#include "conv3d.h"

namespace {

constexpr int MAX_SIDE = 7, BLOCK_X = 32, BLOCK_Y = 8;

__constant__ float c_mask[MAX_SIDE * MAX_SIDE * MAX_SIDE];

__global__ void conv3d_naive_kernel(const float *__restrict__ in, float *__restrict__ out,
                                    int width, int height, int depth, int mask_w, int mask_h,
                                    int mask_d) {
    const int x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * BLOCK_Y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= width || y >= height) return;
    float sum = 0.0f;
    for (int k = 0; k < mask_d; ++k) {
        const int zz = z + k - mask_d / 2;
        if (zz < 0 || zz >= depth) continue;
        for (int i = 0; i < mask_h; ++i) {
            const int yy = y + i - mask_h / 2;
            if (yy < 0 || yy >= height) continue;
            const float *row = in + ((size_t)zz * height + yy) * width;
            for (int j = 0; j < mask_w; ++j) {
                const int xx = x + j - mask_w / 2;
                if (xx >= 0 && xx < width) sum += c_mask[(k * mask_h + i) * mask_w + j] * row[xx];
            }
        }
    }
    out[((size_t)z * height + y) * width + x] = sum;
}

} // namespace

void conv3d_naive_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d) {
    if (mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_naive_set_mask: mask depth %d is outside 1..%d", mask_d,
               MAX_SIDE);
    upload_constant_mask("conv3d_naive_set_mask", c_mask, h_mask, mask_w, mask_h * mask_d,
                         MAX_SIDE, MAX_SIDE * MAX_SIDE);
}

void conv3d_naive_launch(const float *d_in, float *d_out, int width, int height, int depth,
                         int mask_w, int mask_h, int mask_d, int block) {
    (void)block;
    if (width < 1 || height < 1 || depth < 1 || depth > 65535)
        wb_die(WB_EXIT_USAGE, "conv3d_naive_launch: volume %dx%dx%d (depth at most 65535)", width,
               height, depth);
    dim3 threads(BLOCK_X, BLOCK_Y), grid((width + BLOCK_X - 1) / BLOCK_X,
                                          (height + BLOCK_Y - 1) / BLOCK_Y, depth);
    conv3d_naive_kernel<<<grid, threads>>>(d_in, d_out, width, height, depth, mask_w, mask_h,
                                           mask_d);
    CUDA_CHECK_LAUNCH();
}
