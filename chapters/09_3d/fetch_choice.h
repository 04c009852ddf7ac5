/* fetch_choice.h: how chapter 09's 2.5D kernel fetches planes on a GPU, chosen by a pure host
 * function of the GPU's limits (gpu_limits.h), so that tests/arch_fit.c can ask it for every
 * architecture without one.
 *
 *   choose_conv3d_fetch   TMA (sm_90, a width that is a multiple of 4) or cp.async, each only
 *                         where its kernel fits; none, with one line naming the limit
 *
 * The kernel's block is CONV3D_STREAM_THREADS threads (conv3d_stream_tiles.cuh asserts it) and
 * its shared memory is static (a ring of STAGES planes), so registers and that ring are what
 * must fit.
 */
#ifndef FETCH_CHOICE_H
#define FETCH_CHOICE_H

#include <stddef.h>

#include "gpu_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CONV3D_STREAM_THREADS 256

enum conv3d_fetch { CONV3D_FETCH_NONE, CONV3D_FETCH_TMA, CONV3D_FETCH_CP_ASYNC };

/* with_tma and without: what the compiler made of the mask's kernel in each way. TMA where the
 * GPU has it, the TMA kernel's code is sm_90's or later, no_tma (WB_CONV3D_NO_TMA=1) is 0, the
 * rows are whole 16-byte units (width % 4 == 0) and the kernel fits; else cp.async where that
 * kernel fits (on sm_75 its copies are plain loads and stores: async_copy.cuh); else
 * CONV3D_FETCH_NONE with one line in why. */
enum conv3d_fetch choose_conv3d_fetch(const struct gpu_limits *lim,
                                      const struct kernel_resources *with_tma,
                                      const struct kernel_resources *without, int width,
                                      int no_tma, char *why, size_t size);

#ifdef __cplusplus
}
#endif
#endif
