/* masks3d.h: masks for volumes (chapter 09), by name or from a text file.
 *
 *   struct mask3d       width x height x depth weights
 *   mask3d_kind_parse   "box", "gaussian", "laplacian7", "laplacian27", "random"
 *   mask3d_make         a named mask of any size from 1 to MASK3D_MAX_SIDE per axis (odd and
 *                       even), or a refusal naming the sizes it needs
 *   mask3d_load_file    slices of rows from a text file, strictly validated
 *   mask3d_free, mask3d_abs_sum
 *
 * Slice k, row i, column j is weights[(k * height + i) * width + j]. The anchor (the weight that
 * lands on the output voxel) is (width / 2, height / 2, depth / 2), as in 1D and 2D:
 *     P[z][y][x] = sum M[k][i][j] * N[z + k - depth/2][y + i - height/2][x + j - width/2]
 * with zeros outside the volume.
 */
#ifndef MASKS3D_H
#define MASKS3D_H

#include <stdint.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MASK3D_MAX_SIDE 7

enum mask3d_kind {
    MASK3D_BOX,         /* all weights 1/(w*h*d) */
    MASK3D_GAUSSIAN,    /* separable Gaussian, sigma = max(size/6, 0.5) per axis, sum 1 */
    MASK3D_LAPLACIAN7,  /* the 7-point stencil: -2 at the anchor and 1 on each side of it along
                           every axis at least 3 long; sums to 0 */
    MASK3D_LAPLACIAN27, /* the 27-point stencil (faces 6, edges 3, corners 2, anchor -88, all
                           over 26) at the anchor of a mask at least 3 on every axis; sums to 0 */
    MASK3D_RANDOM,      /* uniform in [-1, 1) from the seed */
    MASK3D_KIND_COUNT
};

struct mask3d {
    int width, height, depth;
    float *weights;
    char name[64]; /* "gaussian 5x5x5", "file masks/edge3d.txt" */
};

int mask3d_kind_parse(const char *name, enum mask3d_kind *kind, char *err);
const char *mask3d_kind_name(enum mask3d_kind kind);

/* A named mask; -1 with a message for a size outside 1..MASK3D_MAX_SIDE or one the kind does
 * not define (the Laplacians' neighbours must fit). The seed is used by MASK3D_RANDOM only. */
int mask3d_make(enum mask3d_kind kind, int width, int height, int depth, uint64_t seed,
                struct mask3d *out, char *err);

/* A mask from a text file: one row of numbers per line (spaces, tabs or commas between them),
 * the rows of one slice on consecutive lines, slices separated by one or more blank lines;
 * '#' starts a comment (a line holding only a comment separates nothing). Every row the same
 * length, every slice the same number of rows, at most MASK3D_MAX_SIDE per axis, finite values.
 * Returns -1 with the line and the problem in err otherwise. */
int mask3d_load_file(const char *path, struct mask3d *out, char *err);

void mask3d_free(struct mask3d *m);
double mask3d_abs_sum(const struct mask3d *m);

#ifdef __cplusplus
}
#endif
#endif
