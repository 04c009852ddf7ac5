/* diagnose.h: from where a failed check went wrong, the likely bug, in the student's terms, and
 * the lesson section that teaches the fix ("hints").
 *
 *   enum hint            the causes recognized; each has a short id printed in brackets
 *   struct failure       one failed kernel run: outputs, reference, input, mask, geometry
 *   diagnose_failure     the hint for one failed run; HINT_WRONG_EVERYWHERE when nothing more
 *                        specific fits
 *   hint_print           "  hint [ghost-cells]: ... (see chapters/01_basic_1d/README.md, 'Ghost
 *                        cells')"
 *   hint_tally, hint_tally_print   the run's one summary hint, after the verdict
 *
 * How a failure is read, in this order (the first that fits wins):
 *   one-plane       all wrong outputs lie in one plane (channel) of a multi-plane image
 *   unwritten-end   only NaN (never written), exactly the last outputs of each row / the last rows
 *   unwritten       only NaN, elsewhere (whole blocks, or a path that skips the store)
 *   ghost-cells     all wrong outputs lie within mask_width/2 of an end (2D: of the border)
 *   tile-seams      all wrong outputs lie within mask_width/2 of a tile seam, for a tile width the
 *                   kernel could be using (the block, the block less the halo, a power of two)
 *   then hypotheses, each tried on up to 256 wrong outputs away from the border, accepted when 90%
 *   of them fit: shifted (the neighbour's right value: the window's anchor), flipped (the mask
 *   reversed: a convolution), pitch (2D: rows addressed by the width instead of the pitch),
 *   one-tap (the error is a constant times the input under one mask position: that weight)
 *   wrong-everywhere   none of the above
 * The caller adds two that need more than one output array: race (a second launch on the same
 * input gave different bits) and even-widths (only even mask widths failed, from the tally).
 * Printed elsewhere: hang (the harness's watchdog), out-of-bounds and launch-config (a CUDA
 * fault or a refused launch: cuda_check.c), out-of-bounds and race (tests/sanitize.sh).
 */
#ifndef DIAGNOSE_H
#define DIAGNOSE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hint {
    HINT_NONE,
    HINT_RACE,
    HINT_EVEN_WIDTHS,
    HINT_ONE_PLANE,
    HINT_UNWRITTEN_END,
    HINT_UNWRITTEN,
    HINT_GHOST_CELLS,
    HINT_TILE_SEAMS,
    HINT_SHIFTED,
    HINT_FLIPPED,
    HINT_PITCH,
    HINT_ONE_TAP,
    HINT_WRONG_EVERYWHERE,
    HINT_COUNT
};

/* One failed run. Arrays hold `planes` planes of width x height floats, plane after plane; a 1D
 * signal is height = planes = 1. */
struct failure {
    const float *got, *ref, *magnitude; /* magnitude and terms: the tolerance (verify.h) */
    int terms;
    const float *input;
    const float *mask; /* mask_h rows of mask_w weights */
    int mask_w, mask_h;
    size_t width, height;
    int planes;
    int block;           /* --block: 1D threads per block, 2D input tile edge */
    size_t pitch_floats; /* 2D: the GPU rows' pitch in floats; 0 in 1D */
};

struct diagnosis {
    enum hint hint;
    int detail; /* one-plane: the plane; one-tap: the weight's index (row-major) */
};

struct diagnosis diagnose_failure(const struct failure *f);

/* The hint's id, e.g. "ghost-cells". */
const char *hint_id(enum hint hint);
/* One line: "  hint [id]: what is wrong and where to look (see <lesson>, '<section>')". */
void hint_print(FILE *out, struct diagnosis d, int dims, int mask_w);

/* The summary: each failed configuration is recorded (with its mask) and each passing one
 * noted; hint_tally_print prints the one hint that explains the most, or nothing. A failure
 * votes for its hint with `weight` (the outputs it has: a large image shows a bug's shape more
 * clearly than a signal of 33 values, where every output is near an end). */
void hint_tally(struct diagnosis d, int mask_w, int mask_h, int failed, double weight);
void hint_tally_print(FILE *out, int dims);

#ifdef __cplusplus
}
#endif
#endif
