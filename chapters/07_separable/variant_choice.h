/* variant_choice.h: which of chapter 07's kernel variants a GPU runs, chosen by pure host
 * functions of the GPU's limits (gpu_limits.h), so that tests/arch_fit.c can ask them for every
 * architecture without one.
 *
 *   direct_large (direct_large.cu)   16 or 32 outputs a thread, shared memory sized by the
 *                                    mask's height: choose_direct_large
 *   fused (separable.cu)             how many terms of a low-rank mask one launch takes (each
 *                                    term's ring of rows costs 49.5 KiB of shared memory):
 *                                    choose_fused_terms
 *
 * The shapes both kernels' shared memory follows live here, so the launch and the choice
 * compute the same bytes. Where nothing fits, a choice returns 0 and one line naming the limit.
 */
#ifndef VARIANT_CHOICE_H
#define VARIANT_CHOICE_H

#include <stddef.h>

#include "gpu_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    DIRECT_ROWS = 32,      /* a direct_large block's output rows: one per lane */
    DIRECT_WARPS = 8,      /* each takes a segment of OUTPUTS neighbouring columns */
    DIRECT_THREADS = 256,  /* DIRECT_WARPS x 32 */
    DIRECT_WIDE_FROM = 18, /* masks this wide and wider: 32 outputs a thread where they fit */
    DIRECT_GROUPS = 8,     /* tap groups of 4: masks up to 32 wide */
    FUSED_STRIP_COLS = 128,
    FUSED_CHUNK_ROWS = 32,
    FUSED_IN_PITCH = FUSED_STRIP_COLS + 36,  /* 164: room for the float4 windows, 4 mod 32 */
    FUSED_RING_PITCH = FUSED_STRIP_COLS + 4, /* 132 */
    FUSED_RING_ROWS = 3 * FUSED_CHUNK_ROWS,
    FUSED_MAX_TERMS = 3, /* terms one launch takes at most: 194 KB with their rings */
    FUSED_THREADS = 256,
    FUSED_IN_FLOATS = 2 * FUSED_CHUNK_ROWS * FUSED_IN_PITCH,
    FUSED_RING_FLOATS = FUSED_RING_ROWS * FUSED_RING_PITCH
};

/* direct_large's shared-memory row pitch for OUTPUTS outputs a thread: a block's columns, the
 * 32 it copies past them (up to 31 halo), and 4 more, so that the pitch is 4 modulo 32. */
static inline int direct_pitch(int outputs) {
    return DIRECT_WARPS * outputs + 32 + 4;
}

/* Its dynamic shared memory: 31 + mask_h input rows of that pitch. 32 outputs at 31 rows:
 * 4 x 62 x 292 = 72 416 bytes; 16 outputs: 4 x 62 x 164 = 40 672. */
static inline size_t direct_shared_bytes(int outputs, int mask_h) {
    return sizeof(float) * (size_t)(DIRECT_ROWS + mask_h - 1) * (size_t)direct_pitch(outputs);
}

/* Whether a 32-output kernel is compiled for masks of `groups` tap groups (16 is, for all). */
static inline int direct_has_wide(int groups) {
    return 4 * groups >= DIRECT_WIDE_FROM;
}

/* The fused kernel's dynamic shared memory for `terms` terms: two input chunks and a ring a
 * term (1: 92 672 bytes, 2: 143 360, 3: 194 048). */
static inline size_t fused_shared_bytes(int terms) {
    return sizeof(float) * ((size_t)FUSED_IN_FLOATS + (size_t)terms * FUSED_RING_FLOATS);
}

struct direct_choice {
    int outputs;         /* 16 or 32; 0: nothing fits */
    size_t shared_bytes; /* the launch's dynamic shared memory */
};

/* The direct kernel for a mask_w x mask_h mask: 32 outputs a thread from DIRECT_WIDE_FROM wide
 * where the 32-output kernel fits (measured faster there), else 16. narrow and wide are what the
 * compiler made of direct_large_kernel<ceil(mask_w / 4), 16, 4> and <.., 32, 3> (wide NULL
 * where none is compiled); force_narrow (WB_FORCE_DIRECT_OUTPUTS=16) takes 16 wherever it fits.
 * Returns the outputs; 0 with one line in why when neither fits. */
int choose_direct_large(const struct gpu_limits *lim, const struct kernel_resources *narrow,
                        const struct kernel_resources *wide, int mask_w, int mask_h,
                        int force_narrow, struct direct_choice *out, char *why, size_t size);

/* Terms a launch of the fused kernel takes: the most, up to FUSED_MAX_TERMS, whose shared
 * memory fits (k: what the compiler made of the launch's fused_kernel<MAX_W, MAX_H>); 0 with
 * one line in why when not even one does. */
int choose_fused_terms(const struct gpu_limits *lim, const struct kernel_resources *k, char *why,
                       size_t size);

/* WB_FORCE_DIRECT_OUTPUTS: unset or empty 0, "16" 1; anything else exits with 2. */
int direct_force_narrow(void);

#ifdef __cplusplus
}
#endif
#endif
