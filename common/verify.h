/* verify.h: is a GPU result right? The tolerance rule, the report and the error map.
 *
 *   verify_tolerance   the largest error allowed for one output
 *   verify_outputs     compares every output, lists the first mismatches, fills a summary
 *   verify_print_summary   prints the summary and the PASS / FAIL line
 *   verify_error_map_png   2D: a PNG showing where the mismatches are
 *
 * The rule: |got - ref| <= VERIFY_ATOL + terms * FLT_EPSILON * magnitude, where
 * magnitude = sum |M| * |N| over the output's window and terms is the number of products (mask
 * width x height). Float summation of `terms` products in any order errs by at most about
 * terms * FLT_EPSILON/2 * magnitude, so a correct kernel always passes with a factor of two to
 * spare, while an output that used one wrong input, missed a term or was never written (the
 * output is poisoned with NaN before every run) fails. NaN never passes.
 */
#ifndef VERIFY_H
#define VERIFY_H

#include <stddef.h>
#include <stdio.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Absolute floor of the tolerance: only exact zeros (empty windows) rely on it. */
#define VERIFY_ATOL 1e-30

/* The layout being compared: 1D signals are width = n, height = channels = 1. Planes are
 * stored one after the other (plane c at offset c * width * height). */
struct verify_shape {
    size_t width;
    size_t height;
    int channels;
};

struct verify_summary {
    size_t checked;
    size_t mismatches;
    double max_abs_error;  /* over all outputs; NaN if any output is NaN */
    double worst_fraction; /* max of |got - ref| / tolerance: > 1 means a mismatch */
    double rel_l2_error;   /* ||got - ref|| / ||ref|| */
};

double verify_tolerance(double magnitude, int terms);
/* One output against the rule: 1 when it passes (never for NaN). */
int verify_output_ok(float got, float ref, float magnitude, int terms);

/* Compares got against ref with the rule above. Lists up to max_listed mismatches on `log`
 * (may be NULL) as "  mismatch at i=17: expected 0.5, got nan". Returns 0 if all pass, 1 if not. */
int verify_outputs(const float *got, const float *ref, const float *magnitude,
                   struct verify_shape shape, int terms, int max_listed, FILE *log,
                   struct verify_summary *summary);

/* Prints "  checked N outputs: M mismatches, max error E, relative L2 error R" and then
 * "<label>: PASS" or "<label>: FAIL". */
void verify_print_summary(FILE *out, const char *label, const struct verify_summary *summary);

/* Writes an RGB PNG of width x height: a pixel is coloured where a plane mismatches (plane 0
 * red, plane 1 green, plane 2 blue, mixed where several fail, white for a fourth) and is a dim
 * gray copy of the reference's first plane elsewhere, so tile edges, borders and a single
 * failing channel stand out. */
int verify_error_map_png(const char *path, const float *got, const float *ref,
                         const float *magnitude, struct verify_shape shape, int terms, char *err);

/* The rule for results computed through FFTs (chapter 06's cuFFT baseline). A transform of
 * `points` values spreads its rounding over every output, so the error is about
 * FLT_EPSILON * log2(points) times the size of the signals transformed, wherever the output
 * is. This fills `uniform` (count floats) with the largest output magnitude, or `floor` if that
 * is larger (callers give sum |mask| * max |input|: on a tiny image every window is cut short,
 * but the transform still carries the whole mask), and returns the number of terms to use with
 * it in verify_outputs: 4 * log2(points), rounded up. A wrong tap, a shifted window or an
 * unwritten output still errs by far more. */
int verify_fft_rule(const float *magnitude, size_t count, size_t points, float floor,
                    float *uniform);

/* The floor for verify_fft_rule: sum |mask| * max |input| over `count` inputs. */
float verify_fft_floor(const float *input, size_t count, const float *mask, int taps);

#ifdef __cplusplus
}
#endif
#endif
