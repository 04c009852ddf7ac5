/* conv1d_basic.cu: chapter 01, one thread per output, everything read from global memory.
 *
 * This file exists twice with the same name: exercises/01_basic_1d/ holds it with TODO blocks
 * for you to complete, solutions/01_basic_1d/ holds the reference. Outside the TODO blocks the
 * two are identical (a test checks that). Build and check your version with `make check CH=01`.
 *
 *   conv1d_basic_kernel   thread i computes out[i] = sum_j mask[j] * in[i + j - mask_width/2]
 *   conv1d_basic_launch   grid geometry and precondition checks
 */
#include "conv1d_basic.h"
#include "cuda_check.h"

__global__ void conv1d_basic_kernel(const float *in, const float *mask, float *out, int n,
                                    int mask_width) {
    // ---- TODO 1 begin: give each thread one output
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // ---- TODO 1 end

    // ---- TODO 2 begin: sum the mask over the window, treating ghost cells as zero
    int window_start = i - mask_width / 2;
    float sum = 0.0f;
    for (int j = 0; j < mask_width; ++j) {
        int k = window_start + j;
        if (k >= 0 && k < n) sum += mask[j] * in[k];
    }
    // ---- TODO 2 end

    // ---- TODO 3 begin: write the result
    out[i] = sum;
    // ---- TODO 3 end
}

void conv1d_basic_launch(const float *d_in, const float *d_mask, float *d_out, int n,
                         int mask_width, int block_size) {
    if (n < 1 || mask_width < 1 || block_size < 1 || block_size > 1024)
        wb_die(WB_EXIT_USAGE, "conv1d_basic_launch: bad arguments n=%d mask_width=%d block=%d", n,
               mask_width, block_size);
    // Round up so the last, partly filled block still covers the last outputs; the kernel's
    // bounds check idles the threads that overhang the signal.
    int blocks = (n + block_size - 1) / block_size;
    conv1d_basic_kernel<<<blocks, block_size>>>(d_in, d_mask, d_out, n, mask_width);
    CUDA_CHECK_LAUNCH();
}
