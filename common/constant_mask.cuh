/* constant_mask.cuh: a mask into a kernel file's __constant__ array, checked on the way in.
 *
 *   upload_constant_mask(caller, c_mask, h_mask, mask_w, mask_h, max_w, max_h)
 *       copies the mask_w x mask_h weights (row-major; mask_h = 1 in 1D) from host memory into
 *       c_mask after checking 1 <= mask_w <= max_w and 1 <= mask_h <= max_h and that they fit
 *       in the array; a bad size is a caller's bug: exit 2 naming `caller`
 *
 * Each kernel file declares its own `static __constant__ float c_mask[...]`, sized for the
 * largest mask it takes. static keeps it private to the file, so a program can link several
 * chapters' kernels side by side, each with its own mask, with or without relocatable device
 * code (-rdc). The template takes the array by reference, which keeps its address: that
 * address is how the runtime finds the symbol on the device.
 */
#ifndef CONSTANT_MASK_CUH
#define CONSTANT_MASK_CUH

#include <stddef.h>

#include "cuda_check.h"

template <size_t N>
void upload_constant_mask(const char *caller, const float (&c_mask)[N], const float *h_mask,
                          int mask_w, int mask_h, int max_w, int max_h) {
    if (mask_w < 1 || mask_h < 1 || mask_w > max_w || mask_h > max_h ||
        (size_t)mask_w * (size_t)mask_h > N)
        wb_die(WB_EXIT_USAGE, "%s: mask %dx%d is outside 1x1..%dx%d", caller, mask_w, mask_h, max_w,
               max_h);
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, h_mask, (size_t)mask_w * mask_h * sizeof(float)));
}

#endif
