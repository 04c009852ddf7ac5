/* masks.h: convolution masks, by name or from a text file.
 *
 *   struct mask          width x height weights, row-major; a 1D mask has height 1
 *   mask_kind_parse      "box", "gaussian", ... -> enum mask_kind
 *   mask_make            a named mask at any size from 1x1 up (odd and even)
 *   mask_load_file       a mask from a text file, strictly validated
 *   mask_abs_sum         sum of |weight|, for error bounds and bandwidth notes
 *
 * The anchor (the weight that lands on the output pixel) is (width/2, height/2), integer
 * division, the workbook-wide convention: for even sizes it is the right/lower of the two middle weights.
 */
#ifndef MASKS_H
#define MASKS_H

#include <stdint.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mask_kind {
    MASK_BOX,       /* all weights 1/(w*h): blur */
    MASK_GAUSSIAN,  /* separable Gaussian, sigma = max(size/6, 0.5) per axis, sum 1 */
    MASK_SHARPEN,   /* 2*delta - box: boosts what differs from the local mean; sums to 1 */
    MASK_LAPLACIAN, /* 1 everywhere, 1-w*h at the anchor: edges of any direction; sums to 0 */
    MASK_SOBEL,     /* (x - cx) times binomial smoothing along y: horizontal gradient */
    MASK_EMBOSS,    /* (x - cx) + (y - cy), plus 1 at the anchor: the classic 3x3 emboss */
    MASK_RANDOM,    /* uniform in [-1, 1) from the seed: non-separable, no symmetry */
    MASK_RANK1,     /* one outer product col x row of uniform [-1, 1) vectors: separable */
    MASK_RANK2,     /* the sum of two such products: rank 2 (1 for a 1-wide or 1-tall mask) */
    MASK_RANK3,     /* the sum of three: rank min(3, width, height) */
    MASK_KIND_COUNT
};

struct mask {
    int width, height;
    float *weights; /* row i, column j at weights[i * width + j] */
    char name[64];  /* "gaussian 5x5", "file masks/edge.txt", for reports */
};

/* Sets *kind from a name; returns -1 with the list of valid names in err if unknown. */
int mask_kind_parse(const char *name, enum mask_kind *kind, char *err);
const char *mask_kind_name(enum mask_kind kind);

/* Builds a named mask of width x height (each >= 1). The seed is used by MASK_RANDOM only. */
int mask_make(enum mask_kind kind, int width, int height, uint64_t seed, struct mask *out,
              char *err);

/* The largest mask file read (the 2D and 3D readers): far more than 1024 rows of 1024 numbers
 * with comments need, and a cap on what a hostile file (or a device) can make the reader hold. */
#define MASK_FILE_MAX_BYTES ((long long)64 << 20)

/* Reads a mask from a text file: one row per line, numbers separated by spaces, tabs or commas;
 * '#' starts a comment; blank lines are skipped. Every row must have the same count, every value
 * must be a finite number, and there must be at least one. Returns -1 with the line number and
 * the problem in err otherwise. */
int mask_load_file(const char *path, struct mask *out, char *err);

/* One line of a mask file: its numbers into row[] (at most capacity; '#' starts a comment, which
 * is cut off the line); returns the count, 0 for a line without numbers, or -1 with
 * "path:line_no: ..." in err. For the volume masks' reader (masks3d.c). */
int mask_parse_row(const char *path, int line_no, char *line, float *row, int capacity,
                   char *err);

void mask_free(struct mask *m);
double mask_abs_sum(const struct mask *m);

#ifdef __cplusplus
}
#endif
#endif
