/* masks3d.c: named volume masks, then the text-file reader (see masks3d.h). */
#define _POSIX_C_SOURCE 200809L
#include "masks3d.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_gen.h"
#include "masks.h"
#include "safe_input.h"

static const char *const kind_names[MASK3D_KIND_COUNT] = {"box", "gaussian", "laplacian7",
                                                          "laplacian27", "random"};

const char *mask3d_kind_name(enum mask3d_kind kind) {
    return (kind >= 0 && kind < MASK3D_KIND_COUNT) ? kind_names[kind] : "?";
}

int mask3d_kind_parse(const char *name, enum mask3d_kind *kind, char *err) {
    for (int k = 0; k < MASK3D_KIND_COUNT; ++k)
        if (strcmp(name, kind_names[k]) == 0) {
            *kind = (enum mask3d_kind)k;
            return 0;
        }
    return wb_error(err, "unknown volume mask '%s' (choose box, gaussian, laplacian7, laplacian27, "
                    "random, or give --mask-file)", name);
}

static int mask3d_alloc(struct mask3d *m, int width, int height, int depth, char *err) {
    memset(m, 0, sizeof *m);
    if (width < 1 || height < 1 || depth < 1 || width > MASK3D_MAX_SIDE ||
        height > MASK3D_MAX_SIDE || depth > MASK3D_MAX_SIDE)
        return wb_error(err, "mask size %dx%dx%d is out of range (1 to %d per axis)", width, height,
                        depth, MASK3D_MAX_SIDE);
    m->weights = calloc((size_t)width * height * depth, sizeof *m->weights);
    if (!m->weights) return wb_error(err, "out of memory for a %dx%dx%d mask", width, height, depth);
    m->width = width;
    m->height = height;
    m->depth = depth;
    return 0;
}

static float *at(struct mask3d *m, int k, int i, int j) {
    return &m->weights[((size_t)k * m->height + i) * m->width + j];
}

/* Unnormalised 1D Gaussian centred between the ends, so even sizes stay symmetric. */
static double gaussian_weight(int i, int size) {
    double sigma = size / 6.0 > 0.5 ? size / 6.0 : 0.5;
    double d = i - (size - 1) / 2.0;
    return exp(-d * d / (2.0 * sigma * sigma));
}

int mask3d_make(enum mask3d_kind kind, int width, int height, int depth, uint64_t seed,
                struct mask3d *out, char *err) {
    if (kind < 0 || kind >= MASK3D_KIND_COUNT) return wb_error(err, "unknown volume mask kind");
    if (kind == MASK3D_LAPLACIAN7 && width < 3 && height < 3 && depth < 3)
        return wb_error(err, "laplacian7 needs at least 3 along one axis, not %dx%dx%d", width,
                        height, depth);
    if (kind == MASK3D_LAPLACIAN27 && (width < 3 || height < 3 || depth < 3))
        return wb_error(err, "laplacian27 needs at least 3x3x3, not %dx%dx%d", width, height,
                        depth);
    if (mask3d_alloc(out, width, height, depth, err)) return -1;
    const int cx = width / 2, cy = height / 2, cz = depth / 2;
    const size_t count = (size_t)width * height * depth;
    switch (kind) {
    case MASK3D_BOX:
        for (size_t n = 0; n < count; ++n)
            out->weights[n] = (float)(1.0 / (double)count);
        break;
    case MASK3D_GAUSSIAN: {
        double sum = 0.0;
        for (int k = 0; k < depth; ++k)
            for (int i = 0; i < height; ++i)
                for (int j = 0; j < width; ++j)
                    sum += gaussian_weight(k, depth) * gaussian_weight(i, height) *
                           gaussian_weight(j, width);
        for (int k = 0; k < depth; ++k)
            for (int i = 0; i < height; ++i)
                for (int j = 0; j < width; ++j)
                    *at(out, k, i, j) = (float)(gaussian_weight(k, depth) *
                                                gaussian_weight(i, height) *
                                                gaussian_weight(j, width) / sum);
        break;
    }
    case MASK3D_LAPLACIAN7: /* the second difference along each axis that has room for it */
        if (width >= 3) *at(out, cz, cy, cx - 1) += 1.0f, *at(out, cz, cy, cx + 1) += 1.0f;
        if (height >= 3) *at(out, cz, cy - 1, cx) += 1.0f, *at(out, cz, cy + 1, cx) += 1.0f;
        if (depth >= 3) *at(out, cz - 1, cy, cx) += 1.0f, *at(out, cz + 1, cy, cx) += 1.0f;
        *at(out, cz, cy, cx) = -2.0f * ((width >= 3) + (height >= 3) + (depth >= 3));
        break;
    case MASK3D_LAPLACIAN27: /* by how many axes a neighbour is off the anchor */
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    static const float by_distance[4] = {-88.0f, 6.0f, 3.0f, 2.0f};
                    int off = (dz != 0) + (dy != 0) + (dx != 0);
                    *at(out, cz + dz, cy + dy, cx + dx) = by_distance[off] / 26.0f;
                }
        break;
    case MASK3D_RANDOM:
        fill_uniform(out->weights, count, seed, -1.0f, 1.0f);
        break;
    default:
        break;
    }
    snprintf(out->name, sizeof out->name, "%s %dx%dx%d", kind_names[kind], width, height, depth);
    return 0;
}

/* A line holding nothing but white space: the end of a slice (a comment line is not). */
static int blank(const char *line) {
    return line[strspn(line, " \t\r\n")] == '\0';
}

/* Where the reader is: the slices so far, and the rows of the one being read. */
struct slices {
    int height, depth, rows;
    int slice_line, first_slice_line; /* where this slice and the first one start */
};

static int close_slice(struct slices *s, const char *path, char *err) {
    if (!s->height) s->height = s->rows, s->first_slice_line = s->slice_line;
    if (s->rows != s->height)
        return wb_error(err, "%s:%d: the slice starting here has %d rows but the one on line %d "
                        "has %d (ragged slices)", path, s->slice_line, s->rows,
                        s->first_slice_line, s->height);
    ++s->depth;
    s->rows = 0;
    return 0;
}

int mask3d_load_file(const char *path, struct mask3d *out, char *err) {
    memset(out, 0, sizeof *out);
    FILE *f = safe_input_open(path, "mask file", MASK_FILE_MAX_BYTES, NULL, err);
    if (!f) return -1;
    enum { MAX = MASK3D_MAX_SIDE };
    float values[MAX * MAX * MAX], row[MAX + 1];
    char *line = NULL;
    size_t line_cap = 0;
    int width = 0, line_no = 0, status = 0, first_row_line = 0;
    struct slices s = {0, 0, 0, 0, 0};
    ssize_t length;
    while (!status && (length = getline(&line, &line_cap, f)) != -1) {
        ++line_no;
        if (strlen(line) != (size_t)length) {
            status = wb_error(err, "%s:%d: holds a NUL byte: not a text mask file", path, line_no);
            break;
        }
        const int ends_slice = blank(line);
        int count = mask_parse_row(path, line_no, line, row, MAX + 1, err);
        if (count < 0) {
            status = -1;
        } else if (count > MAX) {
            status = wb_error(err, "%s:%d: more than %d values in a row: a volume mask is at most "
                              "%d per axis", path, line_no, MAX, MAX);
        } else if (count > 0) {
            if (!width) width = count, first_row_line = line_no;
            if (count != width)
                status = wb_error(err, "%s:%d: row has %d values but the row on line %d has %d",
                                  path, line_no, count, first_row_line, width);
            else if (s.rows == MAX)
                status = wb_error(err, "%s:%d: a slice of more than %d rows", path, line_no, MAX);
            else if (s.rows == 0 && s.depth == MAX)
                status = wb_error(err, "%s:%d: more than %d slices", path, line_no, MAX);
            else {
                if (s.rows == 0) s.slice_line = line_no;
                memcpy(values + ((size_t)s.depth * MAX + s.rows++) * MAX, row, sizeof(float) * count);
            }
        }
        if (!status && ends_slice && s.rows > 0)
            status = close_slice(&s, path, err);
    }
    if (!status && s.rows > 0) status = close_slice(&s, path, err); /* ended by the file's end */
    if (!status && ferror(f)) status = wb_error(err, "error reading '%s'", path);
    if (!status && s.depth == 0) status = wb_error(err, "mask file '%s' holds no numbers", path);
    if (!status && !mask3d_alloc(out, width, s.height, s.depth, err)) {
        for (int k = 0; k < s.depth; ++k)
            for (int i = 0; i < s.height; ++i)
                memcpy(at(out, k, i, 0), values + ((size_t)k * MAX + i) * MAX,
                       sizeof(float) * width);
        /* the end of the path names the file: a long one keeps its last 40 characters */
        char shown[256];
        wb_printable(shown, sizeof shown, path);
        size_t length = strlen(shown);
        snprintf(out->name, sizeof out->name, "file %s%.40s", length > 40 ? "..." : "",
                 length > 40 ? shown + length - 40 : shown);
    } else if (!status) {
        status = -1;
    }
    free(line);
    fclose(f);
    return status;
}

void mask3d_free(struct mask3d *m) {
    free(m->weights);
    memset(m, 0, sizeof *m);
}

double mask3d_abs_sum(const struct mask3d *m) {
    double s = 0.0;
    for (size_t n = 0; n < (size_t)m->width * m->height * m->depth; ++n)
        s += fabs(m->weights[n]);
    return s;
}
