/* diagnose.c: reading the shape of a failed check (see diagnose.h for the order of the tests).
 * Sections: what each hint says, the pattern tests, the hypotheses, the run's summary. */
#include "diagnose.h"

#include <math.h>
#include <stdlib.h>

#include "verify.h"

enum {
    SAMPLES = 256,      /* wrong outputs a hypothesis is tried on */
    MIN_SAMPLES = 8,    /* fewer than this: no hypothesis is accepted */
    MIN_INFORMATIVE = 4 /* a pattern needs at least this many wrong outputs */
};
#define FIT_FRACTION 0.9   /* a hypothesis must explain this share of the samples */
#define SEAM_COVERAGE 0.75 /* seams so dense that they cover this share prove nothing */

/* ---- what each hint says ------------------------------------------------------------------ */

struct hint_text {
    const char *id;
    const char *what;                  /* the likely cause, in the student's terms */
    const char *lesson_1d, *lesson_2d; /* "path, 'section'" */
};

static const struct hint_text texts[HINT_COUNT] = {
    [HINT_NONE] = {"none", "", "", ""},
    [HINT_RACE] =
        {"race",
         "two launches on the same input gave different results: a missing "
         "__syncthreads() (a thread reads the shared tile before others have written it)",
         "chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early'",
         "chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early'"},
    [HINT_EVEN_WIDTHS] = {"even-widths",
                          "only even mask widths fail: an even window has one more element left "
                          "of the output than right of it (it starts mask_width/2 to the left)",
                          "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'",
                          "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_ONE_PLANE] = {"one-plane",
                        "only one channel (plane) is wrong: where that plane starts, or the "
                        "pitch and height used to step from plane to plane",
                        "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'",
                        "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_UNWRITTEN_END] =
        {"unwritten-end",
         "the last outputs were never written (still NaN): the grid covers "
         "too few outputs (round the number of blocks up; count the outputs "
         "each block really computes, its output tile)",
         "chapters/01_basic_1d/README.md, 'The mapping: one thread per output'",
         "chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"},
    [HINT_UNWRITTEN] =
        {"unwritten",
         "outputs were never written (still NaN): a thread or a whole block "
         "returns before its store, or a path through the kernel skips it",
         "chapters/01_basic_1d/README.md, 'The mapping: one thread per output'",
         "chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"},
    [HINT_GHOST_CELLS] = {"ghost-cells",
                          "only outputs within mask_width/2 of the ends are wrong: ghost cells "
                          "(inputs outside the signal) must count as zero, and every real input, "
                          "the first and the last included, must be used",
                          "chapters/01_basic_1d/README.md, 'Ghost cells'",
                          "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_TILE_SEAMS] =
        {"tile-seams",
         "only outputs next to the seams between tiles are wrong: the halo cells "
         "loaded into shared memory, or where a tile starts and ends",
         "chapters/03_tiled_halo/README.md, 'The tile and who loads it'",
         "chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"},
    [HINT_SHIFTED] = {"shifted",
                      "the results are shifted by one place: the window's anchor (it starts "
                      "mask_width/2 to the left of the output, integer division)",
                      "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'",
                      "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_FLIPPED] = {"flipped",
                      "you computed a convolution with the mask reversed; the workbook's formula "
                      "is the correlation: weight j meets input i - mask_width/2 + j",
                      "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'",
                      "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_PITCH] = {"pitch",
                    "rows are addressed by the image width: on the GPU a row starts pitch bytes "
                    "after the previous one, and the pitch is wider (use row_of)",
                    "chapters/05_tiled_2d/README.md, 'Pitched rows and DRAM bursts'",
                    "chapters/05_tiled_2d/README.md, 'Pitched rows and DRAM bursts'"},
    [HINT_ONE_TAP] = {"one-tap",
                      "one mask weight is missing or wrong everywhere: the loop over the mask "
                      "(its bounds), or the copy of the mask to the GPU (its byte count)",
                      "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'",
                      "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
    [HINT_WRONG_EVERYWHERE] =
        {"wrong-everywhere",
         "outputs are wrong throughout: the window sum itself, which "
         "weight meets which input (weight j, input i - mask_width/2 + j)",
         "chapters/01_basic_1d/README.md, 'What \"convolution\" means here'",
         "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"},
};

const char *hint_id(enum hint hint) {
    return hint > HINT_NONE && hint < HINT_COUNT ? texts[hint].id : "none";
}

void hint_print(FILE *out, struct diagnosis d, int dims, int mask_w) {
    if (d.hint <= HINT_NONE || d.hint >= HINT_COUNT) return;
    const struct hint_text *t = &texts[d.hint];
    fprintf(out, "  hint [%s]: %s", t->id, t->what);
    if (d.hint == HINT_ONE_PLANE) fprintf(out, " (plane %d)", d.detail);
    if (d.hint == HINT_ONE_TAP) {
        if (dims == 1)
            fprintf(out, " (weight %d, counting from 0, of %d)", d.detail, mask_w);
        else
            fprintf(out, " (row %d, column %d of the mask)", d.detail / mask_w, d.detail % mask_w);
    }
    fprintf(out, " (see %s)\n", dims == 1 ? t->lesson_1d : t->lesson_2d);
}

/* ---- the pattern tests -------------------------------------------------------------------- */

struct grid {
    const struct failure *f;
    size_t plane; /* width * height */
    int mx, my;   /* the border: outputs whose window reaches past the image */
};

static int is_bad(const struct failure *f, size_t i) {
    return !verify_output_ok(f->got[i], f->ref[i], f->magnitude[i], f->terms);
}

static int in_border(const struct grid *g, size_t x, size_t y) {
    const struct failure *f = g->f;
    /* One wider than the window's reach: the output whose window just touches the first or the
     * last input belongs to the border too (a bug there skips that input). */
    size_t mx = (size_t)g->mx + 1, my = f->height > 1 ? (size_t)g->my + 1 : 0;
    return x < mx || x + mx >= f->width || y < my || y + my >= f->height;
}

/* The NaN shape "the last outputs": in every plane, rows from some ky down are entirely NaN,
 * and each row above ends in the same number (> 0 somewhere) of NaN and holds no other. */
static int only_the_end(const struct failure *f) {
    for (int p = 0; p < f->planes; ++p) {
        const float *got = f->got + (size_t)p * f->width * f->height;
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
                size_t rest = bad[k] % g->plane, x = rest % f->width, y = rest / f->width;
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

/* ---- the hypotheses ----------------------------------------------------------------------- */

/* The input under window position (i, j) of output (x, y) in plane p, or 0 for a ghost cell;
 * *inside says which. */
static double input_at(const struct failure *f, int p, long y, long x, int *inside) {
    *inside = y >= 0 && x >= 0 && (size_t)y < f->height && (size_t)x < f->width;
    return *inside ? f->input[((size_t)p * f->height + (size_t)y) * f->width + (size_t)x] : 0.0;
}

static int fits(double value, double expected, double magnitude, int terms) {
    /* Twice the rule's tolerance: the hypothesis is computed in double, the kernel in float. */
    return fabs(value - expected) <= 2.0 * verify_tolerance(magnitude, terms);
}

/* The bugs whose output can be recomputed exactly. */
enum hypothesis { FLIPPED_MASK, ROWS_BY_WIDTH };

/* Computes what a kernel with the bug would give at output (p, y, x); returns 0 when that cannot
 * be known (the bug reads memory the reference does not model). */
static int buggy_output(const struct failure *f, enum hypothesis h, int p, size_t y, size_t x,
                        double *value, double *magnitude) {
    double sum = 0.0, mag = 0.0;
    long top = (long)y - f->mask_h / 2, left = (long)x - f->mask_w / 2;
    for (int i = 0; i < f->mask_h; ++i)
        for (int j = 0; j < f->mask_w; ++j) {
            int inside;
            long row = top + i, col = left + j;
            double in = input_at(f, p, row, col, &inside);
            if (!inside) continue;
            double w = f->mask[i * f->mask_w + j];
            if (h == FLIPPED_MASK) {
                w = f->mask[(f->mask_h - 1 - i) * f->mask_w + (f->mask_w - 1 - j)];
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

static int hypothesis_fits(const struct failure *f, enum hypothesis h, const size_t *samples,
                           int count, size_t plane) {
    int tried = 0, fitted = 0;
    for (int k = 0; k < count; ++k) {
        size_t i = samples[k], rest = i % plane;
        double value, magnitude;
        if (!buggy_output(f, h, (int)(i / plane), rest / f->width, rest % f->width, &value,
                          &magnitude))
            continue;
        ++tried;
        fitted += fits(f->got[i], value, magnitude, f->terms);
    }
    return tried >= MIN_SAMPLES && fitted >= FIT_FRACTION * tried;
}

/* got equals the reference of a neighbouring output (dx, dy away). */
static int shifted_fits(const struct failure *f, const size_t *samples, int count, size_t plane) {
    /* An even mask's anchor can be off along one axis or both. */
    static const int steps[8][2] = {{1, 0}, {-1, 0},  {0, 1},  {0, -1},
                                    {1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
    for (int s = 0; s < (f->height > 1 ? 8 : 2); ++s) {
        int fitted = 0;
        for (int k = 0; k < count; ++k) {
            size_t i = samples[k], rest = i % plane;
            size_t x = rest % f->width + steps[s][0], y = rest / f->width + steps[s][1];
            size_t j = i - rest + y * f->width + x; /* samples lie off the border: in range */
            fitted += fits(f->got[i], f->ref[j], f->magnitude[j], f->terms);
        }
        if (count >= MIN_SAMPLES && fitted >= FIT_FRACTION * count) return 1;
    }
    return 0;
}

/* The error is the same multiple of the input under one mask position: that weight is wrong. */
static int one_tap(const struct failure *f, const size_t *samples, int count, size_t plane) {
    double *ratios = malloc(sizeof *ratios * (size_t)count);
    int found = -1;
    for (int t = 0; ratios && found < 0 && t < f->mask_w * f->mask_h; ++t) {
        int n = 0;
        for (int k = 0; k < count; ++k) {
            size_t i = samples[k], rest = i % plane;
            int inside;
            double in = input_at(f, (int)(i / plane),
                                 (long)(rest / f->width) - f->mask_h / 2 + t / f->mask_w,
                                 (long)(rest % f->width) - f->mask_w / 2 + t % f->mask_w, &inside);
            if (!inside || fabs(in) < 1e-3 || isnan(f->got[i])) continue;
            ratios[n++] = ((double)f->got[i] - f->ref[i]) / in;
        }
        if (n < MIN_SAMPLES) continue;
        int agree = 0;
        for (int k = 0; k < n; ++k)
            agree += fabs(ratios[k] - ratios[0]) <= 1e-3 * fabs(ratios[0]) + 1e-4;
        if (agree >= FIT_FRACTION * n) found = t;
    }
    free(ratios);
    return found;
}

/* ---- diagnose_failure --------------------------------------------------------------------- */

struct diagnosis diagnose_failure(const struct failure *f) {
    struct diagnosis d = {HINT_WRONG_EVERYWHERE, 0};
    struct grid g = {f, f->width * f->height, f->mask_w / 2, f->mask_h / 2};
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
    if (f->planes > 1 && planes_bad == 1) return (struct diagnosis){HINT_ONE_PLANE, last_bad_plane};
    if (nan == bad) {
        d.hint = only_the_end(f) ? HINT_UNWRITTEN_END : HINT_UNWRITTEN;
        return d;
    }
    /* The wrong outputs off the border (the interior), for the remaining tests. */
    size_t *list = malloc(sizeof *list * bad), count = 0;
    if (!list) return d;
    int interior_exists =
        f->width > 2 * (size_t)g.mx + 2 && (f->height == 1 || f->height > 2 * (size_t)g.my + 2);
    for (size_t i = 0; i < total; ++i) {
        size_t rest = i % g.plane;
        if (is_bad(f, i) && !in_border(&g, rest % f->width, rest / f->width)) list[count++] = i;
    }
    if (interior_exists && count == 0) {
        d.hint = HINT_GHOST_CELLS;
    } else if (count >= MIN_INFORMATIVE && at_tile_seams(&g, list, count)) {
        d.hint = HINT_TILE_SEAMS;
    } else if (count >= MIN_SAMPLES) {
        /* Hypotheses on evenly spread samples one output further in, so neighbours exist. */
        size_t samples[SAMPLES];
        int n = 0;
        struct grid inner = g;
        inner.mx += 1, inner.my += 1; /* in_border ignores my in 1D */
        for (size_t k = 0; k < count && n < SAMPLES; k += count / SAMPLES + 1) {
            size_t rest = list[k] % g.plane;
            if (!in_border(&inner, rest % f->width, rest / f->width)) samples[n++] = list[k];
        }
        int tap;
        if (shifted_fits(f, samples, n, g.plane))
            d.hint = HINT_SHIFTED;
        else if (hypothesis_fits(f, FLIPPED_MASK, samples, n, g.plane))
            d.hint = HINT_FLIPPED;
        else if (f->pitch_floats > f->width &&
                 hypothesis_fits(f, ROWS_BY_WIDTH, samples, n, g.plane))
            d.hint = HINT_PITCH;
        else if ((tap = one_tap(f, samples, n, g.plane)) >= 0)
            d = (struct diagnosis){HINT_ONE_TAP, tap};
    }
    free(list);
    return d;
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
