/* lowrank.h: a 2D mask as a sum of separable (outer-product) masks, for the separable and
 * low-rank paths of the large-mask chapter (chapter 07).
 *
 *   mask_factor        the mask's singular value decomposition (one-sided Jacobi, in double),
 *                      its numerical rank r, and r pairs of float factors col_k, row_k with
 *                      mask[i][j] ~ sum_k col_k[i] * row_k[j]
 *   lowrank_pays       whether r separable passes cost fewer multiply-adds than the direct sum
 *   lowrank_bound_mask the rounding bound of r separable passes, as a mask for the tolerance rule
 *
 * The rank rule: r is the fewest terms whose remainder, sqrt(sum of the squared singular values
 * left out), is at most LOWRANK_TOLERANCE times the mask's Frobenius norm. Storing a mask in
 * float already moves each weight by up to 2^-24 of itself, at most 2^-24 of the norm in all, so
 * a remainder below FLT_EPSILON (2^-23) of the norm is below what the float mask can resolve: a
 * product of two float vectors, rounded to float, is rank 1 by this rule, and a low-rank mask
 * with noise well above the float rounding is not.
 */
#ifndef LOWRANK_H
#define LOWRANK_H

#include <float.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LOWRANK_MAX_SIDE = 31 };
#define LOWRANK_TOLERANCE FLT_EPSILON

struct mask_factors {
    int mask_w, mask_h;
    int rank;                              /* numerical rank, 0 for an all-zero mask */
    double sigma[LOWRANK_MAX_SIDE];        /* singular values, largest first (min(w, h) of them) */
    double remainder;                      /* Frobenius norm of what the rank-r sum leaves out */
    double norm;                           /* the mask's Frobenius norm */
    float col[LOWRANK_MAX_SIDE][LOWRANK_MAX_SIDE]; /* col[k][i], i < mask_h: sigma_k * u_k */
    float row[LOWRANK_MAX_SIDE][LOWRANK_MAX_SIDE]; /* row[k][j], j < mask_w: v_k, unit length */
};

/* Factors a mask_w x mask_h row-major mask (each side 1..LOWRANK_MAX_SIDE, weights finite).
 * Returns 0, or -1 for a size out of range or a weight that is not finite. Deterministic: each
 * row_k's largest-magnitude entry is positive. */
int mask_factor(const float *mask, int mask_w, int mask_h, struct mask_factors *out);

/* 1 when rank x (mask_w + mask_h) multiply-adds per output (a row pass and a column pass per
 * term) are fewer than the direct mask_w x mask_h; 0 otherwise (and for rank 0). */
int lowrank_pays(const struct mask_factors *f);

/* The tolerance rule (verify.h) for r separable passes, a row pass of w products and a column
 * pass of h per term, the r terms added: their rounding error at an output is at most
 * (w + h + r) * FLT_EPSILON / 2 times sum_k sum |col_k[i]| |row_k[j]| |x|, where the mask's own
 * rule has |mask[i][j]| (two terms of opposite sign may cancel in the mask but not in the error).
 * And the float factors rebuild the mask only up to `left_out`, the largest |mask - sum_k
 * col_k row_k|, which errs by at most left_out * sum |x| over the window. So: fills bound
 * (mask_h x mask_w) with sum_k |col_k[i]| |row_k[j]| plus twice that left_out spread as a share
 * of the rule, and returns terms = w + h + r; then terms * FLT_EPSILON * sum bound |x| bounds the
 * passes' error with a factor of two to spare, as the rule does for a direct kernel. */
int lowrank_bound_mask(const float *mask, const struct mask_factors *f, float *bound);

#ifdef __cplusplus
}
#endif
#endif
