/* lowrank.c: singular value decomposition of a small mask, its numerical rank and its separable
 * factors (see lowrank.h). One-sided Jacobi (Hestenes): rotate pairs of columns of the mask until
 * every pair is orthogonal; the columns' lengths are then the singular values, the columns over
 * their lengths the left vectors, and the accumulated rotations the right vectors. For masks of
 * at most 31 x 31 a few sweeps of at most 465 rotations each converge to double precision. */
#include "lowrank.h"

#include <math.h>
#include <string.h>

enum { MAX_SWEEPS = 60 };

/* Column p of an m x n column-major array. */
static double *column(double *a, int m, int p) {
    return a + (size_t)p * m;
}

/* Orthogonalises the n columns of b (m x n, column-major) by plane rotations, applying the same
 * rotations to v (n x n, column-major, starting as the identity). */
static void jacobi(double *b, int m, int n, double *v) {
    for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (int p = 0; p < n - 1; ++p)
            for (int q = p + 1; q < n; ++q) {
                double *bp = column(b, m, p), *bq = column(b, m, q);
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (int i = 0; i < m; ++i) {
                    alpha += bp[i] * bp[i];
                    beta += bq[i] * bq[i];
                    gamma += bp[i] * bq[i];
                }
                if (gamma == 0.0 || fabs(gamma) <= DBL_EPSILON * sqrt(alpha * beta)) continue;
                double zeta = (beta - alpha) / (2.0 * gamma);
                double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
                for (int i = 0; i < m; ++i) {
                    double x = bp[i], y = bq[i];
                    bp[i] = c * x - s * y;
                    bq[i] = s * x + c * y;
                }
                double *vp = column(v, n, p), *vq = column(v, n, q);
                for (int i = 0; i < n; ++i) {
                    double x = vp[i], y = vq[i];
                    vp[i] = c * x - s * y;
                    vq[i] = s * x + c * y;
                }
                rotated = 1;
            }
        if (!rotated) return;
    }
}

int mask_factor(const float *mask, int mask_w, int mask_h, struct mask_factors *out) {
    if (mask_w < 1 || mask_h < 1 || mask_w > LOWRANK_MAX_SIDE || mask_h > LOWRANK_MAX_SIDE)
        return -1;
    memset(out, 0, sizeof *out);
    out->mask_w = mask_w;
    out->mask_h = mask_h;
    /* b: the mask as mask_h x mask_w, column-major, in double (exact: floats fit). */
    int m = mask_h, n = mask_w;
    double b[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE], v[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE];
    double norm2 = 0.0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double w = mask[i * n + j];
            if (!isfinite(w)) return -1;
            column(b, m, j)[i] = w;
            norm2 += w * w;
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            column(v, n, j)[i] = i == j ? 1.0 : 0.0;
    jacobi(b, m, n, v);

    /* Singular values: the columns' lengths; order the columns by them, largest first. */
    double length[LOWRANK_MAX_SIDE];
    int order[LOWRANK_MAX_SIDE];
    for (int j = 0; j < n; ++j) {
        double s = 0.0;
        for (int i = 0; i < m; ++i)
            s += column(b, m, j)[i] * column(b, m, j)[i];
        length[j] = sqrt(s);
        order[j] = j;
    }
    for (int a = 1; a < n; ++a) /* insertion sort: n <= 31 */
        for (int k = a; k > 0 && length[order[k]] > length[order[k - 1]]; --k) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    int terms = m < n ? m : n; /* at most min(w, h) nonzero singular values */
    for (int k = 0; k < terms; ++k)
        out->sigma[k] = length[order[k]];
    out->norm = sqrt(norm2);

    /* The rank: the fewest leading terms whose remainder is within the tolerance. The remainder
     * is summed from the smallest value up, so tiny values are not lost against large ones. */
    double tail2[LOWRANK_MAX_SIDE + 1];
    tail2[terms] = 0.0;
    for (int k = terms - 1; k >= 0; --k)
        tail2[k] = tail2[k + 1] + out->sigma[k] * out->sigma[k];
    int rank = 0;
    while (rank < terms && sqrt(tail2[rank]) > LOWRANK_TOLERANCE * out->norm)
        ++rank;
    out->rank = out->norm > 0.0 ? rank : 0;
    out->remainder = sqrt(tail2[out->rank]);

    /* Factors: col_k = b's column (sigma_k * u_k), row_k = v's column, signed so that row_k's
     * largest entry in magnitude is positive. */
    for (int k = 0; k < out->rank; ++k) {
        const double *bk = column(b, m, order[k]), *vk = column(v, n, order[k]);
        int big = 0;
        for (int j = 1; j < n; ++j)
            if (fabs(vk[j]) > fabs(vk[big])) big = j;
        double sign = vk[big] < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < m; ++i)
            out->col[k][i] = (float)(sign * bk[i]);
        for (int j = 0; j < n; ++j)
            out->row[k][j] = (float)(sign * vk[j]);
    }
    return 0;
}

int lowrank_pays(const struct mask_factors *f) {
    return f->rank > 0 && f->rank * (f->mask_w + f->mask_h) < f->mask_w * f->mask_h;
}

int lowrank_bound_mask(const float *mask, const struct mask_factors *f, float *bound) {
    int w = f->mask_w, h = f->mask_h, terms = w + h + f->rank;
    /* What the float factors leave out of the float mask, at its worst weight. */
    double left_out = 0.0;
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            double sum = 0.0;
            for (int k = 0; k < f->rank; ++k)
                sum += (double)f->col[k][i] * f->row[k][j];
            left_out = fmax(left_out, fabs(mask[i * w + j] - sum));
        }
    /* Twice it, as a share of the rule's terms * FLT_EPSILON, on every weight of the window. */
    double floor = 2.0 * left_out / (terms * (double)FLT_EPSILON);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            double sum = 0.0;
            for (int k = 0; k < f->rank; ++k)
                sum += fabs((double)f->col[k][i]) * fabs((double)f->row[k][j]);
            /* rounded up so that the float bound is never below the double one */
            bound[i * w + j] = nextafterf((float)(sum + floor), INFINITY);
        }
    return terms;
}
