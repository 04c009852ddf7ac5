/* constant_mask.cuh: chapter 02's constant-memory mask, for the 1D kernel files after it.
 *
 *   c_mask                  WB_MAX_MASK_WIDTH_1D floats of __constant__ memory
 *   copy_mask_to_constant   checked cudaMemcpyToSymbol into it
 *
 * Both are static: every kernel file that includes this gets its own private copy, so a program
 * can link several chapters' kernels side by side, each with its own mask, with or without
 * relocatable device code (-rdc).
 */
#ifndef CONSTANT_MASK_CUH
#define CONSTANT_MASK_CUH

#include "cuda_check.h"

static __constant__ float c_mask[WB_MAX_MASK_WIDTH_1D];

static void copy_mask_to_constant(const char *caller, const float *h_mask, int mask_width) {
    if (mask_width < 1 || mask_width > WB_MAX_MASK_WIDTH_1D)
        wb_die(WB_EXIT_USAGE, "%s: mask width %d is outside 1..%d", caller, mask_width,
               WB_MAX_MASK_WIDTH_1D);
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, h_mask, mask_width * sizeof(float)));
}

#endif
