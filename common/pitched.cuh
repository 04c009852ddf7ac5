/* pitched.cuh: addressing a pitched image in CUDA code.
 *
 *   row_of(image, pitch, y)   the first float of row y; rows are `pitch` BYTES apart
 *
 * The pitch is in bytes, so the step goes through a char pointer before the row is viewed as
 * floats again. Two overloads: a const image gives a const row (for loads), a writable image a
 * writable row (for stores), so no kernel has to cast a const away. Host code may use it too, to
 * offset a device pointer (it only computes an address).
 */
#ifndef PITCHED_CUH
#define PITCHED_CUH

#include <stddef.h>

__host__ __device__ __forceinline__ const float *row_of(const float *image, size_t pitch, int y) {
    return (const float *)((const char *)image + (size_t)y * pitch);
}

__host__ __device__ __forceinline__ float *row_of(float *image, size_t pitch, int y) {
    return (float *)((char *)image + (size_t)y * pitch);
}

#endif
