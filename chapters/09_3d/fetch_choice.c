/* fetch_choice.c: chapter 09's choice of how planes are fetched (see fetch_choice.h). */
#include "fetch_choice.h"

#include <stdio.h>

enum conv3d_fetch choose_conv3d_fetch(const struct gpu_limits *lim,
                                      const struct kernel_resources *with_tma,
                                      const struct kernel_resources *without, int width,
                                      int no_tma, char *why, size_t size) {
    if (lim->has_tma && with_tma->binary_version >= 90 && !no_tma && width % 4 == 0 &&
        gpu_kernel_fits(lim, with_tma, CONV3D_STREAM_THREADS, 0, why, size))
        return CONV3D_FETCH_TMA;
    if (gpu_kernel_fits(lim, without, CONV3D_STREAM_THREADS, 0, why, size))
        return CONV3D_FETCH_CP_ASYNC;
    char limit[200];
    snprintf(limit, sizeof limit, "%s", why);
    snprintf(why, size, "the 2.5D kernel does not fit: %s", limit);
    return CONV3D_FETCH_NONE;
}
