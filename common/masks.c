/* masks.c: named masks, then the text-file reader (see masks.h). */
#define _POSIX_C_SOURCE 200809L
#include "masks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_gen.h"
#include "safe_input.h"

static const char *const kind_names[MASK_KIND_COUNT] = {
    "box", "gaussian", "sharpen", "laplacian", "sobel", "emboss", "random", "rank1", "rank2", "rank3"};

/* Masks larger than this are refused by the loaders here; chapters set tighter limits. */
enum { MASK_MAX_SIDE = 1024 };

const char *mask_kind_name(enum mask_kind kind) {
    return (kind >= 0 && kind < MASK_KIND_COUNT) ? kind_names[kind] : "?";
}

int mask_kind_parse(const char *name, enum mask_kind *kind, char *err) {
    for (int k = 0; k < MASK_KIND_COUNT; ++k) {
        if (strcmp(name, kind_names[k]) == 0) {
            *kind = (enum mask_kind)k;
            return 0;
        }
    }
    return wb_error(err,
                    "unknown mask '%s' (choose box, gaussian, sharpen, laplacian, sobel, emboss, "
                    "random, rank1, rank2, rank3, or give --mask-file)",
                    name);
}

static int mask_alloc(struct mask *m, int width, int height, char *err) {
    memset(m, 0, sizeof *m);
    if (width < 1 || height < 1 || width > MASK_MAX_SIDE || height > MASK_MAX_SIDE)
        return wb_error(err, "mask size %dx%d is out of range (1 to %d per side)", width, height,
                        MASK_MAX_SIDE);
    m->weights = calloc((size_t)width * height, sizeof *m->weights);
    if (!m->weights) return wb_error(err, "out of memory for a %dx%d mask", width, height);
    m->width = width;
    m->height = height;
    return 0;
}

/* Unnormalised 1D Gaussian centred between the ends, so even sizes stay symmetric. */
static double gaussian_weight(int i, int size) {
    double sigma = size / 6.0 > 0.5 ? size / 6.0 : 0.5;
    double d = i - (size - 1) / 2.0;
    return exp(-d * d / (2.0 * sigma * sigma));
}

/* Binomial coefficient C(n, k) as a double; n stays below MASK_MAX_SIDE. */
static double binomial(int n, int k) {
    double c = 1.0;
    for (int i = 1; i <= k; ++i)
        c = c * (n - k + i) / i;
    return c;
}

/* "gaussian 5x5", or "gaussian 5" for a 1D mask. */
static void name_mask(struct mask *m, enum mask_kind kind) {
    if (m->height == 1)
        snprintf(m->name, sizeof m->name, "%s %d", kind_names[kind], m->width);
    else
        snprintf(m->name, sizeof m->name, "%s %dx%d", kind_names[kind], m->width, m->height);
}

/* A sum of `terms` outer products of uniform [-1, 1) vectors: rank min(terms, width, height)
 * (with probability 1), the low-rank masks chapter 07 detects. */
static void outer_products(struct mask *m, int terms, uint64_t seed) {
    struct rng r;
    rng_init(&r, seed);
    for (int k = 0; k < terms; ++k) {
        float col[MASK_MAX_SIDE], row[MASK_MAX_SIDE];
        for (int i = 0; i < m->height; ++i)
            col[i] = rng_uniform(&r, -1.0f, 1.0f);
        for (int j = 0; j < m->width; ++j)
            row[j] = rng_uniform(&r, -1.0f, 1.0f);
        for (int i = 0; i < m->height; ++i)
            for (int j = 0; j < m->width; ++j)
                m->weights[i * m->width + j] += col[i] * row[j];
    }
}

int mask_make(enum mask_kind kind, int width, int height, uint64_t seed, struct mask *out,
              char *err) {
    if (kind < 0 || kind >= MASK_KIND_COUNT) return wb_error(err, "unknown mask kind %d", kind);
    if (mask_alloc(out, width, height, err)) return -1;
    if (kind >= MASK_RANK1 && kind <= MASK_RANK3) {
        outer_products(out, 1 + (kind - MASK_RANK1), seed);
        name_mask(out, kind);
        return 0;
    }
    int cx = width / 2, cy = height / 2, count = width * height;
    double sum = 0.0;
    struct rng r;
    rng_init(&r, seed);
    for (int i = 0; i < height; ++i) {
        for (int j = 0; j < width; ++j) {
            int anchor = (i == cy && j == cx);
            double w = 0.0;
            switch (kind) {
            case MASK_BOX:
                w = 1.0 / count;
                break;
            case MASK_GAUSSIAN:
                w = gaussian_weight(i, height) * gaussian_weight(j, width);
                break;
            case MASK_SHARPEN:
                w = 2.0 * anchor - 1.0 / count;
                break;
            case MASK_LAPLACIAN:
                w = anchor ? 1.0 - count : 1.0;
                break;
            case MASK_SOBEL:
                w = (j - (width - 1) / 2.0) * binomial(height - 1, i);
                break;
            case MASK_EMBOSS:
                w = (j - (width - 1) / 2.0) + (i - (height - 1) / 2.0) + anchor;
                break;
            case MASK_RANDOM:
                w = rng_uniform(&r, -1.0f, 1.0f);
                break;
            default:
                break;
            }
            out->weights[i * width + j] = (float)w;
            sum += w;
        }
    }
    if (kind == MASK_GAUSSIAN)
        for (int k = 0; k < count; ++k)
            out->weights[k] = (float)(out->weights[k] / sum);
    name_mask(out, kind);
    return 0;
}

int mask_parse_row(const char *path, int line_no, char *line, float *row, int capacity,
                   char *err) {
    int count = 0;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    for (char *p = line;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n')
            ++p;
        if (!*p) break;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p) {
            char token[24];
            snprintf(token, sizeof token, "%.*s", (int)strcspn(p, " \t,\r\n"), p);
            return wb_error(err, "%s:%d: '%s' is not a number", path, line_no, token);
        }
        if (errno == ERANGE || !isfinite(v) || fabs(v) > 3.4e38)
            return wb_error(err, "%s:%d: value %.*s is not a finite number in float range", path,
                            line_no, (int)(end - p), p);
        if (*end && !strchr(" \t,\r\n", *end))
            return wb_error(err, "%s:%d: '%.*s' is not a number", path, line_no,
                            (int)strcspn(p, " \t,\r\n"), p);
        if (count == capacity)
            return wb_error(err, "%s:%d: more than %d values in a row", path, line_no, capacity);
        row[count++] = (float)v;
        p = end;
    }
    return count;
}

int mask_load_file(const char *path, struct mask *out, char *err) {
    memset(out, 0, sizeof *out);
    FILE *f = safe_input_open(path, "mask file", MASK_FILE_MAX_BYTES, NULL, err);
    if (!f) return -1;
    float *values = malloc(sizeof(float) * MASK_MAX_SIDE * MASK_MAX_SIDE);
    float *row = malloc(sizeof(float) * MASK_MAX_SIDE);
    char *line = NULL;
    size_t line_cap = 0;
    int width = 0, height = 0, line_no = 0, first_row_line = 0, status = 0;
    if (!values || !row) status = wb_error(err, "out of memory reading '%s'", path);
    ssize_t length;
    while (!status && (length = getline(&line, &line_cap, f)) != -1) {
        ++line_no;
        if (strlen(line) != (size_t)length) { /* a text file holds no NUL byte */
            status = wb_error(err, "%s:%d: holds a NUL byte: not a text mask file", path, line_no);
            break;
        }
        int count = mask_parse_row(path, line_no, line, row, MASK_MAX_SIDE, err);
        if (count < 0) {
            status = -1;
        } else if (count > 0 && width == 0) {
            width = count;
            first_row_line = line_no;
        } else if (count > 0 && count != width) {
            status = wb_error(err, "%s:%d: row has %d values but the row on line %d has %d", path,
                              line_no, count, first_row_line, width);
        } else if (count > 0 && height == MASK_MAX_SIDE) {
            status = wb_error(err, "%s:%d: more than %d rows", path, line_no, MASK_MAX_SIDE);
        }
        if (!status && count > 0)
            memcpy(values + (size_t)height++ * width, row, sizeof(float) * width);
    }
    if (!status && ferror(f)) status = wb_error(err, "error reading '%s'", path);
    if (!status && height == 0) status = wb_error(err, "mask file '%s' holds no numbers", path);
    if (!status && !mask_alloc(out, width, height, err)) {
        memcpy(out->weights, values, sizeof(float) * width * height);
        char shown[48];
        wb_printable(shown, sizeof shown, path); /* the name is printed in every result line */
        snprintf(out->name, sizeof out->name, "file %.40s", shown);
    } else if (!status) {
        status = -1;
    }
    free(line);
    free(row);
    free(values);
    fclose(f);
    return status;
}

void mask_free(struct mask *m) {
    free(m->weights);
    memset(m, 0, sizeof *m);
}

double mask_abs_sum(const struct mask *m) {
    double s = 0.0;
    for (int k = 0; k < m->width * m->height; ++k)
        s += fabs(m->weights[k]);
    return s;
}
