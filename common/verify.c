/* verify.c: the tolerance rule, the comparison with its report, the error map (see verify.h). */
#include "verify.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "image_io.h"

double verify_tolerance(double magnitude, int terms) {
    return VERIFY_ATOL + (double)terms * FLT_EPSILON * magnitude;
}

int verify_output_ok(float got, float ref, float magnitude, int terms) {
    /* Written so that NaN in got (or anywhere) compares false, i.e. fails. */
    return fabs((double)got - (double)ref) <= verify_tolerance(magnitude, terms);
}

static void print_position(FILE *log, size_t index, struct verify_shape shape) {
    if (shape.height == 1 && shape.channels == 1) {
        fprintf(log, "i=%zu", index);
        return;
    }
    size_t plane = shape.width * shape.height;
    size_t c = index / plane, rest = index % plane;
    fprintf(log, "x=%zu y=%zu", rest % shape.width, rest / shape.width);
    if (shape.channels > 1) fprintf(log, " channel=%zu", c);
}

int verify_outputs(const float *got, const float *ref, const float *magnitude,
                   struct verify_shape shape, int terms, int max_listed, FILE *log,
                   struct verify_summary *summary) {
    size_t count = shape.width * shape.height * (size_t)shape.channels, mismatches = 0;
    struct verify_summary s = {count, 0, 0.0, 0.0, 0.0};
    double diff_sq = 0.0, ref_sq = 0.0, max_abs = 0.0, worst = 0.0;
    int saw_nan = 0;
    /* One parallel pass for the statistics (images of 2^28 outputs), then, only if something
     * failed, a sequential pass that lists the first mismatches in order. */
#pragma omp parallel for reduction(+ : diff_sq, ref_sq, mismatches) \
    reduction(max : max_abs, worst) reduction(| : saw_nan)
    for (size_t i = 0; i < count; ++i) {
        double diff = fabs((double)got[i] - (double)ref[i]);
        double fraction = diff / verify_tolerance(magnitude[i], terms);
        saw_nan |= isnan(diff);
        diff_sq += diff * diff;
        ref_sq += (double)ref[i] * ref[i];
        if (diff > max_abs) max_abs = diff; /* NaN compares false; saw_nan keeps it */
        if (fraction > worst) worst = fraction;
        mismatches += !verify_output_ok(got[i], ref[i], magnitude[i], terms);
    }
    for (size_t i = 0; log && mismatches && i < count && (long)s.mismatches < max_listed; ++i) {
        if (verify_output_ok(got[i], ref[i], magnitude[i], terms)) continue;
        fprintf(log, "  mismatch at ");
        print_position(log, i, shape);
        /* The poison is all-ones bytes, a NaN with its sign bit set: print it as plain nan. */
        fprintf(log, ": expected %.9g, got %.9g%s\n", ref[i], isnan(got[i]) ? NAN : got[i],
                isnan(got[i]) ? " (never written?)" : "");
        ++s.mismatches;
    }
    s.mismatches = mismatches;
    s.max_abs_error = max_abs;
    s.worst_fraction = worst;
    s.rel_l2_error = ref_sq > 0.0 ? sqrt(diff_sq / ref_sq) : sqrt(diff_sq);
    if (saw_nan) s.max_abs_error = s.worst_fraction = NAN;
    *summary = s;
    return mismatches ? 1 : 0;
}

void verify_print_summary(FILE *out, const char *label, const struct verify_summary *s) {
    fprintf(out,
            "  checked %zu outputs: %zu mismatches, max error %.3g (%.2f of tolerance), "
            "relative L2 error %.3g\n",
            s->checked, s->mismatches, s->max_abs_error, s->worst_fraction,
            isnan(s->rel_l2_error) ? NAN : s->rel_l2_error); /* "nan", never "-nan" */
    fprintf(out, "%s: %s\n", label, s->mismatches ? "FAIL" : "PASS");
}

int verify_error_map_png(const char *path, const float *got, const float *ref,
                         const float *magnitude, struct verify_shape shape, int terms, char *err) {
    struct image map;
    if (image_alloc(&map, (int)shape.width, (int)shape.height, 3, err)) return -1;
    size_t plane = shape.width * shape.height;
    for (size_t p = 0; p < plane; ++p) {
        /* Plane 0 failing lights red, plane 1 green, plane 2 blue, a fourth all three. */
        float colour[3] = {0.0f, 0.0f, 0.0f};
        int bad = 0;
        for (int c = 0; c < shape.channels; ++c) {
            size_t i = (size_t)c * plane + p;
            if (verify_output_ok(got[i], ref[i], magnitude[i], terms)) continue;
            bad = 1;
            for (int k = 0; k < 3; ++k)
                if (k == c || c > 2) colour[k] = 1.0f;
        }
        float context = 0.15f + 0.35f * fminf(fmaxf(ref[p], 0.0f), 1.0f);
        for (int k = 0; k < 3; ++k)
            map.data[(size_t)k * plane + p] = bad ? colour[k] : context;
    }
    int status = image_save_png(path, &map, err);
    image_free(&map);
    return status;
}

float verify_fft_floor(const float *input, size_t count, const float *mask, int taps) {
    float largest = 0.0f, mask_sum = 0.0f;
    for (size_t i = 0; i < count; ++i)
        largest = fmaxf(largest, fabsf(input[i]));
    for (int k = 0; k < taps; ++k)
        mask_sum += fabsf(mask[k]);
    return largest * mask_sum;
}

int verify_fft_rule(const float *magnitude, size_t count, size_t points, float floor,
                    float *uniform) {
    float largest = floor;
    for (size_t i = 0; i < count; ++i)
        largest = fmaxf(largest, magnitude[i]);
    for (size_t i = 0; i < count; ++i)
        uniform[i] = largest;
    return (int)ceil(4.0 * log2((double)(points > 2 ? points : 2)));
}
