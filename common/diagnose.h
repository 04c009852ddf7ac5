/* diagnose.h: from where a failed check went wrong, the likely bug, in the student's terms, and
 * the lesson section that teaches the fix ("hints"). This is the developer's map; the students'
 * list of hints is chapters/hints.md (tests/hint_sections.sh keeps the two in step).
 *
 *   enum hint            the causes recognized; each has a short id printed in brackets
 *   struct failure       one failed kernel run: outputs, reference, input, mask, geometry, and
 *                        the chapter (which seams the data is cut along, which words to use)
 *   diagnose_failure     the hint for one failed run; HINT_WRONG_EVERYWHERE when nothing more
 *                        specific fits
 *   hint_print           "  hint [ghost-cells]: ... (see chapters/01_basic_1d/README.md, 'Ghost
 *                        cells')", worded for the program's chapter (wb_program_name)
 *   hint_tally, hint_tally_print   the run's one summary hint, after the verdict
 *   hint_chapter, hint_dims        the chapter a program name belongs to, and its data's
 *                                  dimensions (also for the hints printed outside this file)
 *
 * How a failure is read, in this order (the first that fits wins). "Reach" is half the mask
 * along an axis, times the passes where the mask is applied several times (chapter 10); the
 * border is the outputs within reach (plus one) of the data's edge.
 *   one-plane       images: all wrong outputs lie in one plane (channel) of a multi-plane image
 *   unwritten-end   only NaN (never written), exactly the last outputs of each row / the last
 *                   rows / in a volume also the last slices
 *   unwritten       only NaN, elsewhere (whole blocks, or a path that skips the store)
 *   z-halo          volumes: all wrong outputs lie within reach of the first or the last slice
 *                   (and not all within the x-y border, unless every output is)
 *   ghost-cells     all wrong outputs lie in the border
 *   then, by how the chapter cuts its data (failure.chapter):
 *   strip-seams     ch08: every wrong row lies within reach of a seam between strips of R rows,
 *                   for the largest R that fits (seams covering 75% of the rows prove nothing)
 *   nccl-group      ch10, on the slab seams below: the sampled wrong outputs are what the slabs
 *                   give when their halo rows stay zero (each slab filtered, all passes, as an
 *                   image of its own, on bands of rows at each seam): the trade never ran
 *   slab-seams      ch10: every wrong row lies within reach of a seam of the slab plan (slabs.h)
 *                   for some number of slabs, the fewest that fits
 *   tile-seams      other chapters: all wrong outputs off the border lie within reach of a tile
 *                   seam, for a tile the kernel could be using (the block, the block less the
 *                   halo, a power of two)
 *   z-halo          volumes: every wrong slice off the z border lies within reach of a seam
 *                   between chunks of C slices, for some C (the detail: a C that fits, not
 *                   printed: with a halo nearly as deep as the chunk, a neighbouring C fits too)
 *   z-march         volumes: whole slices wrong (half their outputs or more) and the others
 *                   right, in a pattern that repeats with every chunk of C slices (three or
 *                   more), counted from each chunk's start or from its end; slices within reach
 *                   of the first and last slice are left out (the ghost planes' zeros can hide a
 *                   bug there)
 *   then hypotheses, each tried on up to 256 wrong outputs one further in than the border,
 *   accepted when 90% of them fit; one pass only: shifted (the neighbour's right value: the
 *   window's anchor; in a volume also along z), flipped (the mask reversed: a convolution; in a
 *   volume also along z alone), pitch (2D: rows addressed by the width instead of the pitch),
 *   one-tap (images: the error is a constant times the input under one mask position)
 *   rounding        ch07: a twentieth of the outputs or more wrong; each of up to 4096 wrong
 *                   outputs off the border errs by at most 2^-10 of its separable terms'
 *                   magnitude (sum over terms and column weights of |weight| |row pass|);
 *                   errors of both signs, 20% or more each; and no single row weight explains
 *                   them (error over that weight's column of inputs constant to 5%): an
 *                   intermediate rounded to about half precision, not a wrong weight
 *   wrong-everywhere   none of the above
 * The caller adds two that need more than one output array: race (a second launch on the same
 * input gave different bits) and even-widths (only even mask widths failed, from the tally).
 * Printed elsewhere: hang (the harness's watchdog), out-of-bounds and launch-config (a CUDA
 * fault or a refused launch: cuda_check.c), out-of-bounds, race and divergent-barrier
 * (tests/sanitize.sh: memcheck, racecheck, synccheck).
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
    HINT_STRIP_SEAMS,
    HINT_SLAB_SEAMS,
    HINT_NCCL_GROUP,
    HINT_Z_HALO,
    HINT_Z_MARCH,
    HINT_SHIFTED,
    HINT_FLIPPED,
    HINT_PITCH,
    HINT_ONE_TAP,
    HINT_ROUNDING,
    HINT_WRONG_EVERYWHERE,
    HINT_COUNT
};

/* One failed run. Arrays hold `planes` planes of width x height floats, plane after plane; a 1D
 * signal is height = planes = 1. A volume (mask_d > 0) is `planes` slices along z. */
struct failure {
    const float *got, *ref, *magnitude; /* magnitude and terms: the tolerance (verify.h) */
    int terms;
    const float *input;
    const float *mask; /* mask_d slices of mask_h rows of mask_w weights */
    int mask_w, mask_h;
    int mask_d; /* volumes: the mask's depth; 0 for signals and images */
    size_t width, height;
    int planes;
    int block;           /* --block: 1D threads per block, 2D input tile edge */
    size_t pitch_floats; /* 2D: the GPU rows' pitch in floats; 0 in 1D */
    int passes;          /* the mask applied this many times (chapter 10); 0 or 1: once */
    int chapter;         /* hint_chapter of the program; 0: none known (no chapter's seams) */
};

struct diagnosis {
    enum hint hint;
    int detail; /* one-plane: the plane; one-tap: the weight's index (row-major); strip-seams:
                   the rows a strip; slab-seams, nccl-group: the slabs; z-march: the slices
                   a chunk; z-halo: a chunk length that fits (0: the volume's first and last
                   slices), not printed */
};

struct diagnosis diagnose_failure(const struct failure *f);

/* The hint's id, e.g. "ghost-cells". */
const char *hint_id(enum hint hint);
/* One line: "  hint [id]: what is wrong and where to look (see <lesson>, '<section>')", in the
 * words of the program's chapter where it has its own, else of the data's dimensions. */
void hint_print(FILE *out, struct diagnosis d, int dims, int mask_w);

/* The summary: each failed configuration is recorded (with its mask) and each passing one
 * noted; hint_tally_print prints the one hint that explains the most, or nothing. A failure
 * votes for its hint with `weight` (the outputs it has: a large image shows a bug's shape more
 * clearly than a signal of 33 values, where every output is near an end). */
void hint_tally(struct diagnosis d, int mask_w, int mask_h, int failed, double weight);
void hint_tally_print(FILE *out, int dims);

/* The chapter of a program named "chNN_name" or "chNN_name_exercise" (NN), else 0. Inline, so
 * that cuda_check.c words its hints by chapter without linking this file's checks. */
static inline int hint_chapter(const char *program) {
    if (!program || program[0] != 'c' || program[1] != 'h' || program[2] < '0' ||
        program[2] > '9' || program[3] < '0' || program[3] > '9' || program[4] != '_')
        return 0;
    return (program[2] - '0') * 10 + (program[3] - '0');
}

/* The dimensions of a chapter's data: 1 for chapters 01-04 (signals), 3 for 09 (volumes), 2 for
 * the other chapters (images); 0 for no chapter. */
static inline int hint_dims(int chapter) {
    if (chapter < 1) return 0;
    return chapter <= 4 ? 1 : chapter == 9 ? 3 : 2;
}

#ifdef __cplusplus
}
#endif
#endif
