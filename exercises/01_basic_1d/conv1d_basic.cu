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
    // A grid of blocks, each of blockDim.x threads, covers the signal. Compute this thread's
    // global index i from blockIdx.x, blockDim.x and threadIdx.x. The launcher rounds the
    // number of blocks up, so the last block can overhang the signal: a thread with i >= n has
    // no output and must stop here (return), before it reads or writes anything.
    // ---- TODO 1 end

    // ---- TODO 2 begin: sum the mask over the window, treating ghost cells as zero
    // The window of output i starts mask_width/2 elements to its left (integer division: for
    // an even width the window has one more element left of i than right of it). Loop j over
    // 0 .. mask_width-1, and add mask[j] * in[i - mask_width/2 + j] to a float sum, but only
    // when that index lies inside 0 .. n-1: the elements outside are ghost cells, which count
    // as zero, and reading them would touch memory that is not ours.
    // Question to answer as you write it: how many global-memory loads does one thread make?
    // ---- TODO 2 end

    // ---- TODO 3 begin: write the result
    // Store the sum in out[i]. The driver fills out with NaN before every run, so an output
    // you forget to write shows up in the check as "got nan (never written?)".
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
