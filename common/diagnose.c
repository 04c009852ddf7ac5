/* diagnose.c: reading the shape of a failed check (see diagnose.h for the order of the tests).
 * Sections: what each hint says, the pattern tests (borders, tiles, strips and slabs, slices),
 * the hypotheses, two chapters' own readings (the zero halo of chapter 10, the rounding of
 * chapter 07), diagnose_failure, the run's summary. */
#include "diagnose.h"

#include <math.h>
#include <stdlib.h>

#include "iterated.h"
#include "lowrank.h"
#include "slabs.h"
#include "verify.h"
#include "workbook.h"

enum {
    SAMPLES = 256,           /* wrong outputs a hypothesis is tried on */
    ROUNDING_SAMPLES = 4096, /* wrong outputs the rounding bound is checked on */
    MIN_SAMPLES = 8,         /* fewer than this: no hypothesis is accepted */
    MIN_INFORMATIVE = 4      /* a pattern needs at least this many wrong outputs */
};
#define FIT_FRACTION 0.9   /* a hypothesis must explain this share of the samples */
#define SEAM_COVERAGE 0.75 /* seams so dense that they cover this share prove nothing */
/* An intermediate rounded to 11 significant bits (half precision) errs by at most 2^-11 of
 * itself; twice that bounds the error of an output against its terms' magnitudes. A bfloat16
 * (2^-8) or a wrong weight errs by more somewhere. */
#define ROUNDING_RELATIVE (1.0 / 1024.0)
#define ROUNDING_SIGN_SHARE 0.2     /* rounding to nearest errs both ways: each sign this often */
#define WEIGHT_RATIO_AGREEMENT 0.05 /* a wrong weight: error over its input, constant to 5% */

/* ---- what each hint says ------------------------------------------------------------------ */

static const char *const ids[HINT_COUNT] = {
    [HINT_NONE] = "none",
    [HINT_RACE] = "race",
    [HINT_EVEN_WIDTHS] = "even-widths",
    [HINT_ONE_PLANE] = "one-plane",
    [HINT_UNWRITTEN_END] = "unwritten-end",
    [HINT_UNWRITTEN] = "unwritten",
    [HINT_GHOST_CELLS] = "ghost-cells",
    [HINT_TILE_SEAMS] = "tile-seams",
    [HINT_STRIP_SEAMS] = "strip-seams",
    [HINT_SLAB_SEAMS] = "slab-seams",
    [HINT_NCCL_GROUP] = "nccl-group",
    [HINT_Z_HALO] = "z-halo",
    [HINT_Z_MARCH] = "z-march",
    [HINT_SHIFTED] = "shifted",
    [HINT_FLIPPED] = "flipped",
    [HINT_PITCH] = "pitch",
    [HINT_ONE_TAP] = "one-tap",
    [HINT_ROUNDING] = "rounding",
    [HINT_WRONG_EVERYWHERE] = "wrong-everywhere",
};

/* The lesson sections the hints cite (tests/hint_sections.sh checks that each exists). */
#define CH01_FORMULA "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'"
#define CH01_GHOSTS "chapters/01_basic_1d/README.md, 'Ghost cells'"
#define CH01_MAPPING "chapters/01_basic_1d/README.md, 'The mapping: one thread per output'"
#define CH02_TODO "chapters/02_constant_mask/README.md, 'Your turn: the two TODO blocks'"
#define CH03_BARRIER                                                                               \
    "chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early'"
#define CH03_TILE "chapters/03_tiled_halo/README.md, 'The tile and who loads it'"
#define CH04_REGS                                                                                  \
    "chapters/04_cached_tiling/README.md, 'Exercise 2: registers, a bridge to chapter 06'"
#define CH05_FORMULA "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"
#define CH05_PITCH "chapters/05_tiled_2d/README.md, 'Pitched rows and DRAM bursts'"
#define CH05_TILES                                                                                 \
    "chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"
#define CH06_TODO "chapters/06_register_prefetch/README.md, 'Your turn: the three TODO blocks'"
#define CH07_ROW_PASS "chapters/07_separable/README.md, 'Your turn: the row pass'"
#define CH07_ROUNDING "chapters/07_separable/README.md, 'Two passes round twice'"
#define CH08_STRIPS "chapters/08_streams/README.md, 'Strips: an image larger than the GPU'"
#define CH09_CUBE "chapters/09_3d/README.md, 'The halo of a cube'"
#define CH09_MARCH "chapters/09_3d/README.md, 'Marching along z'"
#define CH10_SLABS "chapters/10_multi_gpu/README.md, 'Slabs and their halo'"
#define CH10_NCCL "chapters/10_multi_gpu/README.md, 'NCCL: communicators and point-to-point calls'"
#define CH10_EXCHANGE "chapters/10_multi_gpu/README.md, 'Your exercise: the exchange'"

/* A hint's words: a chapter's own (chapter > 0), else those for the data's dimensions (dims >
 * 0), else for any. hint_print takes the first entry that fits, most specific first. */
struct hint_text {
    enum hint hint;
    int chapter, dims;
    const char *what;   /* the likely cause, in the student's terms */
    const char *lesson; /* "path, 'section'" */
};

static const struct hint_text texts[] = {
    {HINT_RACE, 8, 0,
     "two runs of the strip loop on the same image gave different results: a step that does not "
     "wait for the one it depends on (cudaStreamWaitEvent right before the step): an upload for "
     "the kernel that last read its buffer, a kernel for its upload and for the download that "
     "last emptied its output, a download for its kernel",
     CH08_STRIPS},
    {HINT_RACE, 9, 0,
     "two launches on the same input gave different results: a stage of the plane ring written "
     "while it is still being read, or read before its plane has landed: the next plane goes into "
     "the stage plane zi - 1 used, started after the wait and the barrier",
     CH09_MARCH},
    {HINT_RACE, 10, 0,
     "two runs on the same image gave different results: a stream that does not wait for its "
     "event: the comm stream for the pass that wrote the rows it sends (pass_done, TODO 1), the "
     "edge stream for the halo (halo_arrived, TODO 4)",
     CH10_EXCHANGE},
    {HINT_RACE, 0, 2,
     "two launches on the same input gave different results: a missing __syncthreads() between "
     "the tile's load and its use (a thread reads a cell of the shared tile before the thread "
     "that loads it has written it), or a thread that returns before the barrier",
     CH05_TILES},
    {HINT_RACE, 0, 0,
     "two launches on the same input gave different results: a missing __syncthreads() (a thread "
     "reads the shared tile before others have written it)",
     CH03_BARRIER},

    {HINT_EVEN_WIDTHS, 8, 0,
     "only masks of even height fail: a strip needs mask_h/2 rows above it and mask_h - 1 - "
     "mask_h/2 below it, one fewer below than above when mask_h is even",
     CH08_STRIPS},
    {HINT_EVEN_WIDTHS, 10, 0,
     "only masks of even height fail: a slab receives mask_h/2 rows from the slab above and "
     "mask_h - 1 - mask_h/2 from the slab below, and sends each neighbour what it reads "
     "(reach_below rows up, reach_above rows down)",
     CH10_SLABS},
    {HINT_EVEN_WIDTHS, 0, 1,
     "only even mask widths fail: an even window has one more element left of the output than "
     "right of it (it starts mask_width/2 to the left)",
     CH01_FORMULA},
    {HINT_EVEN_WIDTHS, 0, 3,
     "only masks with an even side fail: the window starts mask_w/2, mask_h/2 and mask_d/2 "
     "before the output; along z, plane zi meets mask slice k for output zi - k + mask_d/2",
     CH09_MARCH},
    {HINT_EVEN_WIDTHS, 0, 0,
     "only masks with an even side fail: an even window has one more element before the output "
     "than after it (it starts mask_w/2 columns left of it and mask_h/2 rows above it)",
     CH05_FORMULA},

    {HINT_ONE_PLANE, 0, 0,
     "only one channel (plane) is wrong: where that plane starts, or the pitch and height used "
     "to step from plane to plane",
     CH05_FORMULA},

    {HINT_UNWRITTEN_END, 7, 0,
     "the last columns or rows were never written (still NaN): the row pass's store must cover "
     "every output of its tile that lies inside the image (x < width, y < height)",
     CH07_ROW_PASS},
    {HINT_UNWRITTEN_END, 8, 0,
     "the last rows were never written (still NaN): the strips stop short of the image's end: "
     "(height + strip_rows - 1) / strip_rows strips, the last one with the rows that are left",
     CH08_STRIPS},
    {HINT_UNWRITTEN_END, 4, 0,
     "the last outputs were never written (still NaN): the register kernel's store (TODO 3) "
     "takes one output at a time where the signal ends among a thread's K, each one below n; "
     "the cached kernel's threads with i < n all store",
     CH04_REGS},
    {HINT_UNWRITTEN_END, 6, 0,
     "the last columns or rows were never written (still NaN): the store (TODO 3) must keep "
     "every output of the thread's 2x2 that lies inside the image, tested on both axes",
     CH06_TODO},
    {HINT_UNWRITTEN_END, 0, 1,
     "the last outputs were never written (still NaN): the grid covers too few outputs (round "
     "the number of blocks up; count the outputs each block really computes, its output tile)",
     CH01_MAPPING},
    {HINT_UNWRITTEN_END, 0, 3,
     "the last outputs were never written (still NaN): the blocks or the march stop short: the "
     "grid reaches the last column, row and slice, and a chunk's last output is stored after "
     "plane z_end - 1 + (mask_d - 1 - mask_d/2)",
     CH09_MARCH},
    {HINT_UNWRITTEN_END, 0, 0,
     "the last columns or rows were never written (still NaN): the grid covers too few outputs "
     "(round the number of blocks up; count the outputs each block really computes, its output "
     "tile)",
     CH05_TILES},

    {HINT_UNWRITTEN, 7, 0,
     "outputs were never written (still NaN): the row pass's store skips them: every output of "
     "the tile goes from s_out to the image",
     CH07_ROW_PASS},
    {HINT_UNWRITTEN, 8, 0,
     "rows were never written (still NaN): a strip's download is missing or lands on other rows: "
     "its first output row (s * strip_rows), that row's offset in its buffer, its row count",
     CH08_STRIPS},
    {HINT_UNWRITTEN, 0, 1,
     "outputs were never written (still NaN): a thread or a whole block returns before its "
     "store, or a path through the kernel skips it",
     CH01_MAPPING},
    {HINT_UNWRITTEN, 0, 3,
     "outputs were never written (still NaN): the march skips their store: after plane zi, queue "
     "slot 0 holds output zi - (mask_d - 1) + mask_d/2, stored when it is one of the chunk's "
     "(z0 <= done < z_end)",
     CH09_MARCH},
    {HINT_UNWRITTEN, 0, 0,
     "outputs were never written (still NaN): a thread or a whole block returns before its "
     "store, or a path through the kernel skips it",
     CH05_TILES},

    {HINT_GHOST_CELLS, 7, 0,
     "only outputs near the image's edges are wrong: the row pass's halo columns: zeros outside "
     "the image, every real column used (the first and the last), rows past the image never read",
     CH07_ROW_PASS},
    {HINT_GHOST_CELLS, 8, 0,
     "only the image's first or last rows are wrong: the first and the last strip, where the "
     "halo is cut at the image's edge: input rows from max(first - mask_h/2, 0) up to "
     "min(first + rows + mask_h - 1 - mask_h/2, height), and the strip's first output that many "
     "rows into its buffer",
     CH08_STRIPS},
    {HINT_GHOST_CELLS, 6, 0,
     "only outputs within one cell of the image's border are wrong: the prefetch (TODO 1): a "
     "window cell outside the image (x or y below 0, x >= width, y >= height) is 0, every cell "
     "inside is read, the first and the last row and column included",
     CH06_TODO},
    {HINT_GHOST_CELLS, 0, 1,
     "only outputs within mask_width/2 of the ends are wrong: ghost cells (inputs outside the "
     "signal) must count as zero, and every real input, the first and the last included, must "
     "be used",
     CH01_GHOSTS},
    {HINT_GHOST_CELLS, 0, 3,
     "only outputs within half a mask of the volume's faces are wrong: ghost cells (voxels "
     "outside the volume) must count as zero, and every real voxel, on each face, must be used",
     CH09_CUBE},
    {HINT_GHOST_CELLS, 0, 0,
     "only outputs within mask_w/2 columns or mask_h/2 rows of the image's border are wrong: "
     "ghost cells (inputs outside the image) must count as zero, and every real input, the "
     "first and the last row and column included, must be used",
     CH05_FORMULA},

    {HINT_TILE_SEAMS, 7, 0,
     "only outputs next to the seams between the row pass's tiles are wrong: the halo columns, "
     "mask_w/2 left and mask_w - 1 - mask_w/2 right of each tile of TILE_COLS columns",
     CH07_ROW_PASS},
    {HINT_TILE_SEAMS, 0, 1,
     "only outputs next to the seams between tiles are wrong: the halo cells loaded into shared "
     "memory, or where a tile starts and ends",
     CH03_TILE},
    {HINT_TILE_SEAMS, 0, 3,
     "only outputs next to the seams between the blocks' tiles in x and y are wrong: the tile's "
     "halo (mask_w - 1 columns, mask_h - 1 rows) and where a thread's outputs sit in the tile",
     CH09_MARCH},
    {HINT_TILE_SEAMS, 0, 0,
     "only outputs next to the seams between tiles are wrong: the halo cells loaded into shared "
     "memory, or where a tile starts and ends",
     CH05_TILES},

    {HINT_STRIP_SEAMS, 0, 0,
     "only outputs next to the boundaries between strips are wrong: a strip needs the mask_h/2 "
     "rows above it and the mask_h - 1 - mask_h/2 rows below it (cut at the image's edges), "
     "uploaded with it, and its first output sits that many rows into its buffer",
     CH08_STRIPS},
    {HINT_SLAB_SEAMS, 0, 0,
     "only outputs next to the boundaries between slabs are wrong (the band grows by mask_h/2 "
     "rows a pass): the trade: a slab sends its first reach_below rows to the slab above and its "
     "last reach_above rows to the slab below, and receives halo_above rows into its buffer's "
     "first rows and halo_below rows after its own",
     CH10_EXCHANGE},
    {HINT_NCCL_GROUP, 0, 0,
     "the slabs' halo rows never arrived: each slab came out as if it were the whole image, "
     "zeros past its own rows: NCCL starts a group's sends and receives at ncclGroupEnd: one "
     "ncclGroupStart before the first call, one ncclGroupEnd after the last, every send matched "
     "by its neighbour's receive of as many rows",
     CH10_NCCL},
    {HINT_Z_HALO, 0, 0,
     "only output slices near z = 0, z = depth - 1 or the edges of the blocks' chunks of slices "
     "are wrong: the z halo: a chunk of outputs z0 .. z_end - 1 reads the planes from "
     "z0 - mask_d/2 to z_end - 1 + (mask_d - 1 - mask_d/2), the last one included, zeros outside "
     "the volume",
     CH09_MARCH},
    {HINT_Z_MARCH, 0, 0,
     "whole output slices are wrong, at the same places in every chunk of slices: the queue: "
     "after it moves down, the last slot starts again from zero, slot q takes mask slice "
     "mask_d - 1 - q, slot 0 is stored before the move; the ring: every plane of the chunk is "
     "fetched (zi + STAGES - 1 <= last), into the stage plane zi - 1 used",
     CH09_MARCH},

    {HINT_SHIFTED, 7, 0,
     "the results are shifted by one column: the row pass's window starts mask_w/2 columns left "
     "of the output (integer division)",
     CH07_ROW_PASS},
    {HINT_SHIFTED, 4, 0,
     "the results are shifted by one place: the window's anchor: in the register kernel output "
     "o meets x[T::lead + o + j], the window copied from s_tile + threadIdx.x * K; in the cached "
     "kernel, tap j reads input i - mask_width/2 + j",
     CH04_REGS},
    {HINT_SHIFTED, 6, 0,
     "the results are shifted by one place: the window starts one cell up and left of the "
     "thread's first output (wx, wy), and output (oy, ox) meets window[oy + i][ox + j]",
     CH06_TODO},
    {HINT_SHIFTED, 0, 1,
     "the results are shifted by one place: the window's anchor (it starts mask_width/2 to the "
     "left of the output, integer division)",
     CH01_FORMULA},
    {HINT_SHIFTED, 0, 3,
     "the results are shifted by one place: the window's anchor, or along z the output that "
     "queue slot 0 holds after plane zi: zi - (mask_d - 1) + mask_d/2",
     CH09_MARCH},
    {HINT_SHIFTED, 0, 0,
     "the results are shifted by one place: the window's anchor (it starts mask_w/2 columns left "
     "of the output and mask_h/2 rows above it, integer division)",
     CH05_FORMULA},

    {HINT_FLIPPED, 0, 1,
     "you computed a convolution with the mask reversed; the workbook's formula is the "
     "correlation: weight j meets input i - mask_width/2 + j",
     CH01_FORMULA},
    {HINT_FLIPPED, 0, 3,
     "you computed a convolution, the mask reversed (along z alone, or along every axis); the "
     "workbook's formula is the correlation: queue slot q takes mask slice mask_d - 1 - q",
     CH09_MARCH},
    {HINT_FLIPPED, 0, 0,
     "you computed a convolution with the mask reversed; the workbook's formula is the "
     "correlation: weight (i, j) meets input (y - mask_h/2 + i, x - mask_w/2 + j)",
     CH05_FORMULA},

    {HINT_PITCH, 0, 0,
     "rows are addressed by the image width: on the GPU a row starts pitch bytes after the "
     "previous one, and the pitch is wider (use row_of)",
     CH05_PITCH},

    {HINT_ONE_TAP, 2, 0,
     "one mask weight is missing or wrong everywhere: the copy to constant memory moves "
     "mask_width * sizeof(float) bytes (a count of bytes, not of weights), or the loop over the "
     "mask stops early",
     CH02_TODO},
    {HINT_ONE_TAP, 0, 1,
     "one mask weight is missing or wrong everywhere: the loop over the mask (its bounds), or "
     "the copy of the mask to the GPU (its byte count)",
     CH01_FORMULA},
    {HINT_ONE_TAP, 0, 0,
     "one mask weight is missing or wrong everywhere: the loops over the mask (their bounds), or "
     "the copy of the mask to the GPU (its byte count)",
     CH05_FORMULA},

    {HINT_ROUNDING, 0, 0,
     "outputs are close to the reference everywhere, but not within the tolerance: an "
     "intermediate rounded more coarsely than a float, to about half precision (a __half "
     "temporary, bits cut off): the passes may round only as floats do, so the row pass keeps "
     "and stores its sums as floats",
     CH07_ROUNDING},

    {HINT_WRONG_EVERYWHERE, 2, 0,
     "outputs are wrong throughout: the mask in constant memory: TODO 1 copies it before any "
     "launch, cudaMemcpyToSymbol(c_mask, h_mask, mask_width * sizeof(float)) (a count in bytes; "
     "never copied, c_mask holds zeros), and the kernel reads weight j as c_mask[j]",
     CH02_TODO},
    {HINT_WRONG_EVERYWHERE, 6, 0,
     "outputs are wrong throughout: the sums (TODO 2): output (oy, ox) adds c_mask[i * MASK + j] "
     "times window[oy + i][ox + j], from the window the prefetch filled",
     CH06_TODO},
    {HINT_WRONG_EVERYWHERE, 7, 0,
     "outputs are wrong throughout: the row pass: the term's weights (c_rows + term * mask_w), "
     "which input each weight meets (weight j, column x - mask_w/2 + j), the tile's columns",
     CH07_ROW_PASS},
    {HINT_WRONG_EVERYWHERE, 8, 0,
     "outputs are wrong throughout: the strip loop: each strip's rows (first = s * strip_rows), "
     "its buffer (s % buffers) and copy stream, and the waits before each step (a kernel that "
     "does not wait for its upload computes on an older strip's rows)",
     CH08_STRIPS},
    {HINT_WRONG_EVERYWHERE, 10, 0,
     "outputs are wrong throughout: the trade: rows of buffer[current] (the one the pass reads), "
     "sent to the slab above (rank above) and below, received into that buffer's halo rows",
     CH10_EXCHANGE},
    {HINT_WRONG_EVERYWHERE, 0, 1,
     "outputs are wrong throughout: the window sum itself, which weight meets which input "
     "(weight j, input i - mask_width/2 + j)",
     CH01_FORMULA},
    {HINT_WRONG_EVERYWHERE, 0, 3,
     "outputs are wrong throughout: which mask slice meets which plane (plane zi adds mask slice "
     "k to output zi - k + mask_d/2), and the order of the queue's slots",
     CH09_MARCH},
    {HINT_WRONG_EVERYWHERE, 0, 0,
     "outputs are wrong throughout: the window sum itself, which weight meets which input "
     "(weight (i, j), input (y - mask_h/2 + i, x - mask_w/2 + j))",
     CH05_FORMULA},
};

const char *hint_id(enum hint hint) {
    return hint > HINT_NONE && hint < HINT_COUNT ? ids[hint] : "none";
}

static const struct hint_text *text_of(enum hint hint, int chapter, int dims) {
    const struct hint_text *fallback = NULL;
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; ++k) {
        const struct hint_text *t = &texts[k];
        if (t->hint != hint) continue;
        if (t->chapter == chapter && chapter > 0) return t;
        if (t->chapter == 0 && (t->dims == dims || t->dims == 0) && !fallback) fallback = t;
    }
    return fallback;
}

void hint_print(FILE *out, struct diagnosis d, int dims, int mask_w) {
    if (d.hint <= HINT_NONE || d.hint >= HINT_COUNT) return;
    const struct hint_text *t = text_of(d.hint, hint_chapter(wb_program_name()), dims);
    if (!t) return;
    fprintf(out, "  hint [%s]: %s", ids[d.hint], t->what);
    if (d.hint == HINT_ONE_PLANE) fprintf(out, " (plane %d)", d.detail);
    if (d.hint == HINT_ONE_TAP) {
        if (dims == 1)
            fprintf(out, " (weight %d, counting from 0, of %d)", d.detail, mask_w);
        else
            fprintf(out, " (row %d, column %d of the mask)", d.detail / mask_w, d.detail % mask_w);
    }
    if (d.hint == HINT_STRIP_SEAMS && d.detail > 0)
        fprintf(out, " (seams every %d rows)", d.detail);
    if ((d.hint == HINT_SLAB_SEAMS || d.hint == HINT_NCCL_GROUP) && d.detail > 0)
        fprintf(out, " (%d slabs)", d.detail);
    if (d.hint == HINT_Z_MARCH && d.detail > 0) fprintf(out, " (chunks of %d slices)", d.detail);
    fprintf(out, " (see %s)\n", t->lesson);
}

/* ---- the pattern tests -------------------------------------------------------------------- */

struct grid {
    const struct failure *f;
    size_t plane; /* width * height */
    int mx, my;   /* the border: outputs whose window (all passes of it) reaches past the image */
    int mz;       /* volumes: the same along z; 0 for images */
    int volume;   /* planes are slices along z */
};

static struct grid grid_of(const struct failure *f) {
    const int passes = f->passes > 1 ? f->passes : 1;
    struct grid g = {f,
                     f->width * f->height,
                     passes * (f->mask_w / 2),
                     passes * (f->mask_h / 2),
                     f->mask_d > 0 ? f->mask_d / 2 : 0,
                     f->mask_d > 0};
    return g;
}

static int is_bad(const struct failure *f, size_t i) {
    return !verify_output_ok(f->got[i], f->ref[i], f->magnitude[i], f->terms);
}

/* Output i's place: plane (or slice) p, row y, column x. */
static void place_of(const struct grid *g, size_t i, size_t *p, size_t *y, size_t *x) {
    const size_t rest = i % g->plane;
    *p = i / g->plane;
    *y = rest / g->f->width;
    *x = rest % g->f->width;
}

static int in_border(const struct grid *g, size_t x, size_t y) {
    const struct failure *f = g->f;
    /* One wider than the window's reach: the output whose window just touches the first or the
     * last input belongs to the border too (a bug there skips that input). */
    size_t mx = (size_t)g->mx + 1, my = f->height > 1 ? (size_t)g->my + 1 : 0;
    return x < mx || x + mx >= f->width || y < my || y + my >= f->height;
}

static int in_z_border(const struct grid *g, size_t z) {
    const size_t mz = (size_t)g->mz + 1;
    return g->volume && (z < mz || z + mz >= (size_t)g->f->planes);
}

/* A plane whose outputs are all NaN. */
static int all_nan(const float *values, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (!isnan(values[i])) return 0;
    return 1;
}

/* The NaN shape "the last outputs": in every plane, rows from some ky down are entirely NaN,
 * and each row above ends in the same number (> 0 somewhere) of NaN and holds no other. In a
 * volume, the last slices may be NaN entirely too (too few chunks along z). */
static int only_the_end(const struct grid *g) {
    const struct failure *f = g->f;
    int planes = f->planes;
    if (g->volume)
        while (planes > 0 && all_nan(f->got + (size_t)(planes - 1) * g->plane, g->plane))
            --planes;
    if (planes == 0) return 0; /* nothing was written: not an end */
    for (int p = 0; p < planes; ++p) {
        const float *got = f->got + (size_t)p * g->plane;
        size_t ky = f->height, tail = (size_t)-1;
        while (ky > 0) {
            size_t x = 0;
            while (x < f->width && isnan(got[(ky - 1) * f->width + x]))
                ++x;
            if (x < f->width) break;
            --ky;
        }
        for (size_t y = 0; y < ky; ++y) {
            const float *row = got + y * f->width;
            size_t run = 0, count = 0;
            while (run < f->width && isnan(row[f->width - 1 - run]))
                ++run;
            for (size_t x = 0; x < f->width; ++x)
                count += isnan(row[x]) != 0;
            if (count != run || (tail != (size_t)-1 && run != tail)) return 0;
            tail = run;
        }
        if (ky == 0) return 0; /* the whole plane unwritten: not an end */
    }
    return 1;
}

static int near_seam(size_t x, int tile, int margin) {
    if (tile < 2) return 0;
    size_t r = x % (size_t)tile;
    return r < (size_t)margin || r + margin >= (size_t)tile;
}

/* All wrong outputs off the border lie next to seams of one tile geometry the kernel could be
 * using, and those seams do not cover most of the image. */
static int at_tile_seams(const struct grid *g, const size_t *bad, size_t count) {
    const struct failure *f = g->f;
    int candidates[12], n = 0;
    candidates[n++] = 0; /* no seams along this axis */
    candidates[n++] = f->block;
    candidates[n++] = f->block - (f->mask_w - 1);
    candidates[n++] = f->block - (f->mask_h - 1);
    for (int t = 8; t <= 1024; t *= 2)
        candidates[n++] = t;
    int mx = g->mx > 0 ? g->mx : 1, my = g->my > 0 ? g->my : 1;
    for (int a = 0; a < n; ++a) {
        int tx = candidates[a];
        if (tx != 0 && (tx < 2 || (size_t)tx >= f->width)) continue;
        for (int b = 0; b < n; ++b) {
            int ty = candidates[b];
            if (ty != 0 && (ty < 2 || (size_t)ty >= f->height)) continue;
            if (tx == 0 && ty == 0) continue;
            size_t k = 0;
            for (; k < count; ++k) {
                size_t p, y, x;
                place_of(g, bad[k], &p, &y, &x);
                if (!near_seam(x, tx, mx) && !near_seam(y, ty, my)) break;
            }
            if (k < count) continue;
            double seam_x = tx ? (2.0 * mx) / tx : 0.0, seam_y = ty ? (2.0 * my) / ty : 0.0;
            double covered =
                1.0 - (1.0 - (seam_x < 1 ? seam_x : 1)) * (1.0 - (seam_y < 1 ? seam_y : 1));
            if (covered < SEAM_COVERAGE) return 1;
        }
    }
    return 0;
}

/* Which rows (images: of any plane) or slices (volumes) hold a wrong output; with
 * skip_z_border, a volume's slices within reach of its first and last slice are left out.
 * Returns how many are marked in marked[0 .. lines - 1]. */
static size_t mark_lines(const struct grid *g, int slices, int skip_z_border, unsigned char *marked,
                         size_t lines) {
    const struct failure *f = g->f;
    size_t count = 0;
    for (size_t k = 0; k < lines; ++k)
        marked[k] = 0;
    for (size_t i = 0; i < g->plane * (size_t)f->planes; ++i) {
        if (!is_bad(f, i)) continue;
        size_t p, y, x;
        place_of(g, i, &p, &y, &x);
        size_t line = slices ? p : y;
        if (slices && skip_z_border && in_z_border(g, p)) continue;
        count += !marked[line];
        marked[line] = 1;
    }
    return count;
}

/* The pieces of `period` lines each (strips of rows, chunks of slices), for the largest period
 * whose seams hold every marked line within `margin` of them; 0 when none does. A seam lies
 * between two pieces: not at the first piece's top nor the last one's bottom. */
static size_t periodic_seams(const unsigned char *marked, size_t lines, size_t margin) {
    size_t *at = malloc(sizeof *at * (lines ? lines : 1)), count = 0, found = 0;
    if (!at) return 0;
    for (size_t line = 0; line < lines; ++line)
        if (marked[line]) at[count++] = line;
    for (size_t period = lines - 1;
         count && !found && period >= 2 && 2.0 * margin / period < SEAM_COVERAGE; --period) {
        size_t k = 0;
        for (; k < count; ++k) {
            const size_t r = at[k] % period, start = at[k] - r;
            const int below_seam = start > 0 && r < margin;
            const int above_seam = start + period < lines && r + margin >= period;
            if (!below_seam && !above_seam) break;
        }
        if (k == count) found = period;
    }
    free(at);
    return found;
}

/* Chapter 10: the fewest slabs (slabs.h's plan) whose seams hold every marked row within
 * `margin`, with the plan in plan[]; 0 when none does. */
static int slab_seams(const unsigned char *marked, int height, int mask_h, size_t margin,
                      struct slab *plan) {
    char err[256];
    for (int n = 2; n <= SLABS_MAX; ++n) {
        if (slabs_plan(height, n, mask_h, plan, err)) break; /* slabs too thin from here on */
        if ((n - 1) * 2.0 * margin / height >= SEAM_COVERAGE) break;
        int y = 0;
        for (; y < height; ++y) {
            if (!marked[y]) continue;
            int s = 1;
            while (s < n && !((size_t)y + margin >= (size_t)plan[s].first &&
                              (size_t)y < (size_t)plan[s].first + margin))
                ++s;
            if (s == n) break;
        }
        if (y == height) return n;
    }
    return 0;
}

/* Volumes: whole slices wrong (half their outputs or more), the others right, in a pattern
 * that repeats with every chunk of C slices (at least three), counted from each chunk's first
 * slice or from its last. Slices within reach of the volume's first or last slice are left out:
 * there the ghost planes' zeros can hide a bug. Returns C, or 0. */
static int periodic_slices(const struct grid *g) {
    const struct failure *f = g->f;
    const int depth = f->planes;
    signed char *state = malloc((size_t)depth * 2); /* 1 wrong, 0 right, -1 left out */
    if (!state) return 0;
    signed char *seen = state + depth; /* per place in a chunk: -1 not yet seen */
    int wrong = 0, right = 0, partial = 0, found = 0;
    for (int z = 0; z < depth; ++z) {
        size_t count = 0;
        for (size_t i = (size_t)z * g->plane; i < (size_t)(z + 1) * g->plane; ++i)
            count += is_bad(f, i) != 0;
        state[z] = in_z_border(g, (size_t)z) ? -1 : count > 0;
        if (state[z] < 0) continue;
        wrong += count > 0;
        right += count == 0;
        partial |= count > 0 && 2 * count < g->plane;
    }
    for (int chunk = 2; !partial && wrong && right && !found && 3 * chunk <= depth; ++chunk)
        for (int from_end = 0; from_end < 2 && !found; ++from_end) {
            int z = 0;
            for (int c = 0; c < chunk; ++c)
                seen[c] = -1;
            for (; z < depth; ++z) {
                const int end = (z / chunk + 1) * chunk < depth ? (z / chunk + 1) * chunk : depth;
                const int c = from_end ? end - 1 - z : z % chunk;
                if (state[z] < 0) continue;
                if (seen[c] >= 0 && seen[c] != state[z]) break;
                seen[c] = state[z];
            }
            if (z == depth) found = chunk;
        }
    free(state);
    return found;
}

/* ---- the hypotheses ----------------------------------------------------------------------- */

/* The input at plane (or slice) p, row y, column x, or 0 for a ghost cell; *inside says which. */
static double input_at(const struct failure *f, long p, long y, long x, int *inside) {
    *inside = p >= 0 && p < f->planes && y >= 0 && x >= 0 && (size_t)y < f->height &&
              (size_t)x < f->width;
    return *inside ? f->input[((size_t)p * f->height + (size_t)y) * f->width + (size_t)x] : 0.0;
}

static int fits(double value, double expected, double magnitude, int terms) {
    /* Twice the rule's tolerance: the hypothesis is computed in double, the kernel in float. */
    return fabs(value - expected) <= 2.0 * verify_tolerance(magnitude, terms);
}

/* The bugs whose output can be recomputed exactly. */
enum hypothesis { FLIPPED_MASK, FLIPPED_Z, ROWS_BY_WIDTH };

/* Computes what a kernel with the bug would give at output (p, y, x); returns 0 when that cannot
 * be known (the bug reads memory the reference does not model). */
static int buggy_output(const struct failure *f, enum hypothesis h, int p, size_t y, size_t x,
                        double *value, double *magnitude) {
    const int depth = f->mask_d > 0 ? f->mask_d : 1, mw = f->mask_w, mh = f->mask_h;
    const long front = f->mask_d > 0 ? p - depth / 2 : p;
    const long top = (long)y - mh / 2, left = (long)x - mw / 2;
    double sum = 0.0, mag = 0.0;
    for (int k = 0; k < depth; ++k)
        for (int i = 0; i < mh; ++i)
            for (int j = 0; j < mw; ++j) {
                int inside;
                long row = top + i, col = left + j;
                double in = input_at(f, front + k, row, col, &inside);
                if (!inside) continue;
                double w = f->mask[(k * mh + i) * mw + j];
                if (h == FLIPPED_MASK) {
                    w = f->mask[((depth - 1 - k) * mh + (mh - 1 - i)) * mw + (mw - 1 - j)];
                } else if (h == FLIPPED_Z) {
                    w = f->mask[((depth - 1 - k) * mh + i) * mw + j];
                } else { /* linear index row * width + col into rows that are pitch_floats apart */
                    size_t linear = (size_t)row * f->width + (size_t)col;
                    size_t r = linear / f->pitch_floats, c = linear % f->pitch_floats;
                    if (c >= f->width || p * f->height + r >= f->planes * f->height) return 0;
                    in = f->input[((size_t)p * f->height + r) * f->width + c];
                }
                sum += w * in;
                mag += fabs(w * in);
            }
    *value = sum;
    *magnitude = mag;
    return 1;
}

static int hypothesis_fits(const struct grid *g, enum hypothesis h, const size_t *samples,
                           int count) {
    int tried = 0, fitted = 0;
    for (int k = 0; k < count; ++k) {
        size_t p, y, x;
        double value, magnitude;
        place_of(g, samples[k], &p, &y, &x);
        if (!buggy_output(g->f, h, (int)p, y, x, &value, &magnitude)) continue;
        ++tried;
        fitted += fits(g->f->got[samples[k]], value, magnitude, g->f->terms);
    }
    return tried >= MIN_SAMPLES && fitted >= FIT_FRACTION * tried;
}

/* got equals the reference of a neighbouring output (dx, dy, dz away). */
static int shifted_fits(const struct grid *g, const size_t *samples, int count) {
    /* An even mask's anchor can be off along one axis or several. */
    static const int steps[10][3] = {{1, 0, 0},   {-1, 0, 0}, {0, 1, 0},  {0, -1, 0}, {1, 1, 0},
                                     {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {0, 0, 1},  {0, 0, -1}};
    const struct failure *f = g->f;
    const int directions = g->volume ? 10 : f->height > 1 ? 8 : 2;
    for (int s = 0; s < directions; ++s) {
        int fitted = 0;
        for (int k = 0; k < count; ++k) {
            /* samples lie off the border: the neighbour is in range */
            size_t i = samples[k];
            size_t j = i + (size_t)((long)steps[s][2] * (long)g->plane +
                                    (long)steps[s][1] * (long)f->width + steps[s][0]);
            fitted += fits(f->got[i], f->ref[j], f->magnitude[j], f->terms);
        }
        if (count >= MIN_SAMPLES && fitted >= FIT_FRACTION * count) return 1;
    }
    return 0;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether the ratios agree: 90% of them within `agreement` (relative) of their median. */
static int ratios_agree(double *ratios, int n, double agreement) {
    if (n < MIN_SAMPLES) return 0;
    qsort(ratios, (size_t)n, sizeof *ratios, by_value);
    const double median = ratios[n / 2];
    int agree = 0;
    for (int k = 0; k < n; ++k)
        agree += fabs(ratios[k] - median) <= agreement * fabs(median) + 1e-4;
    return agree >= FIT_FRACTION * n;
}

/* Images: the error is the same multiple of the input under one mask position: that weight is
 * wrong. Returns the position (row-major), or -1. */
static int one_tap(const struct grid *g, const size_t *samples, int count) {
    const struct failure *f = g->f;
    double *ratios = malloc(sizeof *ratios * (size_t)count);
    int found = -1;
    for (int t = 0; ratios && found < 0 && t < f->mask_w * f->mask_h; ++t) {
        int n = 0;
        for (int k = 0; k < count; ++k) {
            size_t i = samples[k], p, y, x;
            int inside;
            place_of(g, i, &p, &y, &x);
            double in = input_at(f, (long)p, (long)y - f->mask_h / 2 + t / f->mask_w,
                                 (long)x - f->mask_w / 2 + t % f->mask_w, &inside);
            if (!inside || fabs(in) < 1e-3 || isnan(f->got[i])) continue;
            ratios[n++] = ((double)f->got[i] - f->ref[i]) / in;
        }
        if (ratios_agree(ratios, n, 1e-3)) found = t;
    }
    free(ratios);
    return found;
}

/* ---- chapter 10: the halo that never came ------------------------------------------------- */

/* Whether the wrong outputs are what the slabs give when their halo rows stay zero: each slab
 * filtered, all passes, as an image of its own. Near each seam that is computed on a band of
 * rows on either side, cut to the slab: a band of 2 * margin + mask_h rows is exact within
 * margin rows of the seam, where every sample lies (slab_seams). */
static int zero_halo_fits(const struct grid *g, const struct slab *plan, int slabs, size_t margin,
                          const size_t *samples, int count) {
    const struct failure *f = g->f;
    const int passes = f->passes > 1 ? f->passes : 1;
    const size_t band = 2 * margin + (size_t)f->mask_h;
    float *out = malloc(band * f->width * sizeof *out);
    float *mag = malloc(band * f->width * sizeof *mag);
    int tried = 0, fitted = 0, ready = out && mag;
    for (int p = 0; ready && p < f->planes; ++p)
        for (int s = 1; ready && s < slabs; ++s)
            for (int side = 0; ready && side < 2; ++side) { /* the slabs above and below */
                const struct slab *b = &plan[side ? s : s - 1];
                const size_t seam = (size_t)plan[s].first, rows = (size_t)b->rows;
                const size_t first = side ? seam : seam - (rows < band ? rows : band);
                const size_t height = side ? (rows < band ? rows : band) : seam - first;
                const float *in = f->input + ((size_t)p * f->height + first) * f->width;
                ready = iterated_reference(in, (int)f->width, (int)height, f->mask, f->mask_w,
                                           f->mask_h, passes, out, mag, 1) == 0;
                for (int k = 0; ready && k < count; ++k) {
                    size_t q, y, x;
                    place_of(g, samples[k], &q, &y, &x);
                    if ((int)q != p || y < first || y >= first + height) continue;
                    if (side ? y >= seam + margin : y + margin < seam) continue;
                    const size_t at = (y - first) * f->width + x;
                    ++tried;
                    fitted += fits(f->got[samples[k]], out[at], mag[at], f->terms);
                }
            }
    free(out);
    free(mag);
    return ready && tried >= MIN_SAMPLES && fitted >= FIT_FRACTION * tried;
}

/* ---- chapter 07: an intermediate rounded too coarsely ------------------------------------- */

/* The separable passes' terms at output (p, y, x): term k's row pass at row y', inter_k(y') =
 * sum_j row_k[j] in(y', x - mask_w/2 + j), and the column pass sum_i col_k[i] inter_k(y + i -
 * mask_h/2). Returns sum_k sum_i |col_k[i]| |inter_k|: the scale of what rounding the
 * intermediates can change. With only_column >= 0, returns instead the column pass of one
 * input column alone, sum_i col_k[i] in(y', x - mask_w/2 + only_column), for term `term`. */
static double separable_terms(const struct failure *f, const struct mask_factors *m, size_t p,
                              size_t y, size_t x, int term, int only_column) {
    double scale = 0.0, column = 0.0;
    for (int k = 0; k < m->rank; ++k)
        for (int i = 0; i < f->mask_h; ++i) {
            const long row = (long)y + i - f->mask_h / 2;
            double inter = 0.0;
            int inside;
            if (only_column >= 0) {
                if (k == term)
                    column +=
                        m->col[k][i] *
                        input_at(f, (long)p, row, (long)x - f->mask_w / 2 + only_column, &inside);
                continue;
            }
            for (int j = 0; j < f->mask_w; ++j)
                inter +=
                    m->row[k][j] * input_at(f, (long)p, row, (long)x - f->mask_w / 2 + j, &inside);
            scale += fabs(m->col[k][i] * inter);
        }
    return only_column >= 0 ? column : scale;
}

/* Every sampled wrong output errs by at most ROUNDING_RELATIVE of its terms' scale, the errors
 * take both signs, and no single row weight explains them (a wrong weight is exact, rounding
 * is not). */
static int rounded_intermediate(const struct grid *g, const size_t *list, size_t count) {
    const struct failure *f = g->f;
    struct mask_factors m;
    if (f->mask_w > LOWRANK_MAX_SIDE || f->mask_h > LOWRANK_MAX_SIDE ||
        mask_factor(f->mask, f->mask_w, f->mask_h, &m) || m.rank < 1)
        return 0;
    int up = 0, down = 0, n = 0;
    for (size_t k = 0; k < count && n < ROUNDING_SAMPLES; k += count / ROUNDING_SAMPLES + 1, ++n) {
        size_t p, y, x;
        place_of(g, list[k], &p, &y, &x);
        const double error = (double)f->got[list[k]] - f->ref[list[k]];
        const double scale = separable_terms(f, &m, p, y, x, 0, -1);
        if (isnan(error) || !(fabs(error) <= ROUNDING_RELATIVE * scale)) return 0;
        up += error > 0.0;
        down += error < 0.0;
    }
    if (n < MIN_SAMPLES || up < ROUNDING_SIGN_SHARE * n || down < ROUNDING_SIGN_SHARE * n) return 0;
    double ratios[SAMPLES];
    for (int k = 0; k < m.rank; ++k)
        for (int j = 0; j < f->mask_w; ++j) {
            int r = 0;
            for (size_t s = 0; s < count && r < SAMPLES; s += count / SAMPLES + 1) {
                size_t p, y, x;
                place_of(g, list[s], &p, &y, &x);
                const double column = separable_terms(f, &m, p, y, x, k, j);
                if (fabs(column) < 1e-3) continue;
                ratios[r++] = ((double)f->got[list[s]] - f->ref[list[s]]) / column;
            }
            if (ratios_agree(ratios, r, WEIGHT_RATIO_AGREEMENT)) return 0;
        }
    return 1;
}

/* ---- diagnose_failure --------------------------------------------------------------------- */

/* Up to SAMPLES wrong outputs spread evenly over all of them. */
static int spread_samples(const struct failure *f, size_t bad, size_t total, size_t *samples) {
    int n = 0;
    size_t seen = 0, stride = bad / SAMPLES + 1;
    for (size_t i = 0; i < total && n < SAMPLES; ++i)
        if (is_bad(f, i) && seen++ % stride == 0) samples[n++] = i;
    return n;
}

/* Images of chapters 08 and 10: the rows are cut into strips or slabs. */
static struct diagnosis row_pieces(const struct grid *g, size_t bad, size_t total) {
    const struct failure *f = g->f;
    struct diagnosis d = {HINT_NONE, 0};
    unsigned char *marked = malloc(f->height);
    if (!marked) return d;
    mark_lines(g, 0, 0, marked, f->height);
    const size_t margin = (size_t)(g->my > 0 ? g->my : 1);
    if (f->chapter == 8) {
        const size_t rows = periodic_seams(marked, f->height, margin);
        if (rows) d = (struct diagnosis){HINT_STRIP_SEAMS, (int)rows};
    } else {
        struct slab plan[SLABS_MAX];
        const int slabs = slab_seams(marked, (int)f->height, f->mask_h, margin, plan);
        size_t samples[SAMPLES];
        if (slabs) {
            int n = spread_samples(f, bad, total, samples);
            d.hint = zero_halo_fits(g, plan, slabs, margin, samples, n) ? HINT_NCCL_GROUP
                                                                        : HINT_SLAB_SEAMS;
            d.detail = slabs;
        }
    }
    free(marked);
    return d;
}

/* Volumes: all wrong outputs lie within reach of the first or the last slice, the volume has
 * slices further in, and those outputs are not all near the x-y border too (unless every output
 * is): the z halo, not the ghost cells of the x-y border. */
static int only_z_border(const struct grid *g) {
    const struct failure *f = g->f;
    if (f->planes <= 2 * g->mz + 2) return 0;
    const int xy_interior = f->width > 2 * (size_t)g->mx + 2 && f->height > 2 * (size_t)g->my + 2;
    int all_xy = 1;
    for (size_t i = 0; i < g->plane * (size_t)f->planes; ++i) {
        if (!is_bad(f, i)) continue;
        size_t p, y, x;
        place_of(g, i, &p, &y, &x);
        if (!in_z_border(g, p)) return 0;
        all_xy &= in_border(g, x, y);
    }
    return !all_xy || !xy_interior;
}

/* Volumes: the slices' patterns: wrong slices only next to the seams between chunks are their
 * z halo (the chunk's last plane included); whole slices wrong further in, the same in every
 * chunk, are the march's queue or ring. */
static struct diagnosis volume_slices(const struct grid *g) {
    const struct failure *f = g->f;
    struct diagnosis d = {HINT_NONE, 0};
    unsigned char *marked = malloc((size_t)f->planes);
    if (!marked) return d;
    if (mark_lines(g, 1, 1, marked, (size_t)f->planes) > 0) {
        const size_t slices =
            periodic_seams(marked, (size_t)f->planes, (size_t)(g->mz > 0 ? g->mz : 1));
        if (slices) d = (struct diagnosis){HINT_Z_HALO, (int)slices};
    }
    free(marked);
    const int chunk = d.hint == HINT_NONE ? periodic_slices(g) : 0;
    return chunk ? (struct diagnosis){HINT_Z_MARCH, chunk} : d;
}

/* The hypotheses on evenly spread samples one output further in, so that neighbours exist. */
static struct diagnosis hypotheses(const struct grid *g, const size_t *list, size_t count) {
    const struct failure *f = g->f;
    struct diagnosis d = {HINT_NONE, 0};
    size_t samples[SAMPLES];
    int n = 0;
    struct grid inner = *g;
    inner.mx += 1, inner.my += 1, inner.mz += 1; /* in_border ignores my in 1D */
    for (size_t k = 0; k < count && n < SAMPLES; k += count / SAMPLES + 1) {
        size_t p, y, x;
        place_of(g, list[k], &p, &y, &x);
        if (!in_border(&inner, x, y) && !in_z_border(&inner, p)) samples[n++] = list[k];
    }
    int tap;
    if (shifted_fits(g, samples, n))
        d.hint = HINT_SHIFTED;
    else if (hypothesis_fits(g, FLIPPED_MASK, samples, n))
        d.hint = HINT_FLIPPED;
    else if (g->volume && f->mask_d > 1 && hypothesis_fits(g, FLIPPED_Z, samples, n))
        d.hint = HINT_FLIPPED;
    else if (!g->volume && f->pitch_floats > f->width &&
             hypothesis_fits(g, ROWS_BY_WIDTH, samples, n))
        d.hint = HINT_PITCH;
    else if (!g->volume && (tap = one_tap(g, samples, n)) >= 0)
        d = (struct diagnosis){HINT_ONE_TAP, tap};
    return d;
}

struct diagnosis diagnose_failure(const struct failure *f) {
    struct diagnosis d = {HINT_WRONG_EVERYWHERE, 0};
    const struct grid g = grid_of(f);
    size_t total = g.plane * (size_t)f->planes, bad = 0, nan = 0;
    int planes_bad = 0, last_bad_plane = 0;
    for (int p = 0; p < f->planes; ++p) {
        size_t here = 0;
        for (size_t i = (size_t)p * g.plane; i < (size_t)(p + 1) * g.plane; ++i)
            if (is_bad(f, i)) {
                ++here;
                nan += isnan(f->got[i]) != 0;
            }
        if (here) ++planes_bad, last_bad_plane = p;
        bad += here;
    }
    if (bad == 0) return (struct diagnosis){HINT_NONE, 0};
    if (!g.volume && f->planes > 1 && planes_bad == 1)
        return (struct diagnosis){HINT_ONE_PLANE, last_bad_plane};
    if (nan == bad) {
        d.hint = only_the_end(&g) ? HINT_UNWRITTEN_END : HINT_UNWRITTEN;
        return d;
    }
    /* The wrong outputs off the border (the interior), for the remaining tests. */
    size_t *list = malloc(sizeof *list * bad), count = 0;
    if (!list) return d;
    int interior_exists = f->width > 2 * (size_t)g.mx + 2 &&
                          (f->height == 1 || f->height > 2 * (size_t)g.my + 2) &&
                          (!g.volume || f->planes > 2 * g.mz + 2);
    for (size_t i = 0; i < total; ++i) {
        size_t p, y, x;
        place_of(&g, i, &p, &y, &x);
        if (is_bad(f, i) && !in_border(&g, x, y) && !in_z_border(&g, p)) list[count++] = i;
    }
    const int rows_cut = !g.volume && (f->chapter == 8 || f->chapter == 10);
    struct diagnosis found = {HINT_NONE, 0};
    if (g.volume && only_z_border(&g))
        found.hint = HINT_Z_HALO;
    else if (interior_exists && count == 0)
        found.hint = HINT_GHOST_CELLS;
    else if (rows_cut && bad >= MIN_INFORMATIVE)
        found = row_pieces(&g, bad, total);
    else if (!rows_cut && count >= MIN_INFORMATIVE && at_tile_seams(&g, list, count))
        found.hint = HINT_TILE_SEAMS;
    if (found.hint == HINT_NONE && g.volume) found = volume_slices(&g);
    if (found.hint == HINT_NONE && f->passes <= 1 && count >= MIN_SAMPLES)
        found = hypotheses(&g, list, count);
    if (found.hint == HINT_NONE && f->chapter == 7 && !g.volume && 20 * bad >= total &&
        rounded_intermediate(&g, list, count))
        found.hint = HINT_ROUNDING;
    free(list);
    return found.hint == HINT_NONE ? d : found;
}

/* ---- the run's summary -------------------------------------------------------------------- */

static struct {
    double votes[HINT_COUNT];
    struct diagnosis example[HINT_COUNT];
    int example_mask_w[HINT_COUNT];
    int failed_odd, failed_even, passed_odd;
} tally;

void hint_tally(struct diagnosis d, int mask_w, int mask_h, int failed, double weight) {
    int even = mask_w % 2 == 0 || (mask_h > 1 && mask_h % 2 == 0);
    if (!failed) {
        tally.passed_odd += !even;
        return;
    }
    if (even)
        ++tally.failed_even;
    else
        ++tally.failed_odd;
    if (d.hint > HINT_NONE && d.hint < HINT_COUNT) {
        if (tally.votes[d.hint] == 0.0) {
            tally.example[d.hint] = d;
            tally.example_mask_w[d.hint] = mask_w;
        }
        tally.votes[d.hint] += weight > 0.0 ? weight : 1.0;
    }
}

void hint_tally_print(FILE *out, int dims) {
    enum hint best = HINT_NONE;
    if (tally.votes[HINT_RACE] > 0.0) {
        best = HINT_RACE;
    } else if (tally.failed_even && !tally.failed_odd && tally.passed_odd) {
        best = HINT_EVEN_WIDTHS;
        tally.example[best] = (struct diagnosis){HINT_EVEN_WIDTHS, 0};
    } else { /* the specific hint with most votes; the generic one only when it is alone */
        for (int h = HINT_NONE + 1; h < HINT_COUNT; ++h)
            if (h != HINT_WRONG_EVERYWHERE && tally.votes[h] > (best ? tally.votes[best] : 0.0))
                best = (enum hint)h;
        if (best == HINT_NONE && tally.votes[HINT_WRONG_EVERYWHERE] > 0.0)
            best = HINT_WRONG_EVERYWHERE;
    }
    if (best == HINT_NONE) return;
    fprintf(out, "most likely cause:\n");
    hint_print(out, tally.example[best], dims, tally.example_mask_w[best]);
}
