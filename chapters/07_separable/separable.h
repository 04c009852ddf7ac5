/* separable.h: chapter 07's own kernels and paths, beside the exercise's row pass.
 *
 *   separable_plan            the mask's factors (common/lowrank.h), cached per mask
 *   separable_path_*          the paths --path forces, and the one auto picks for a mask
 *   column_pass_launch        out (+)= the column pass of one term over a row-passed image
 *   two_pass_*                r terms, each a row pass (yours or ours) then a column pass,
 *                             through a temporary image in global memory
 *   fused_*                   the same sums in one kernel: each block marches down a strip,
 *                             row-passing into shared memory and column-passing from there (no
 *                             temporary image, no halo row computed twice)
 *   direct_large_*            the direct sum for masks of any rank up to 31x31, near the FP32
 *                             FMA roof (direct_large.cu)
 *   chosen_*                  the path picked for the mask (or forced): fused, or a direct
 *                             kernel for masks whose rank makes separable passes cost more
 *   separable_error_bound     the tolerance of the separable paths (lowrank_bound_mask); the
 *                             direct path keeps the mask's own
 */
#ifndef SEPARABLE_H
#define SEPARABLE_H

#include <stddef.h>

#include "conv2d_harness.h"
#include "lowrank.h"

#ifdef __cplusplus
extern "C" {
#endif

enum separable_path { SEPARABLE_AUTO, SEPARABLE_DIRECT, SEPARABLE_RANK1, SEPARABLE_LOWRANK };
/* The names --path takes, in enum order, NULL-terminated. */
extern const char *const separable_path_names[];

/* The factors of a mask_w x mask_h mask (each side 1..31), computed once per mask. */
const struct mask_factors *separable_plan(const float *mask, int mask_w, int mask_h);

/* The factors separable_plan computed last (NULL before the first): for checks that see only
 * the mask's size, made after the driver has factored the mask it is about to run. */
const struct mask_factors *separable_last_plan(void);

/* NULL when `path` can run the mask, else why not (for exit 2 before the GPU is touched). */
const char *separable_path_refuses(enum separable_path path, const float *mask, int mask_w,
                                   int mask_h);
/* The path a run takes: `forced` unless it is SEPARABLE_AUTO, else separable passes (rank 1,
 * or low rank) when they cost fewer multiply-adds than the direct sum, else direct; and direct
 * for masks of at most DIRECT_SMALL_TAPS taps that chapter 06 has variants for. */
enum separable_path separable_path_for(enum separable_path forced, const float *mask, int mask_w,
                                       int mask_h);
/* One line for the report: "rank 1, path separable: 1 x (9 + 9) = 18 multiply-adds per output
 * (81 direct)". */
void separable_describe(enum separable_path forced, const float *mask, int mask_w, int mask_h,
                        char *line, size_t size);

/* out (+)= sum_i col_term[i] * tmp[y + i - mask_h / 2][x], zero outside; adds to out when
 * accumulate is set, else overwrites it. */
void column_pass_launch(const float *d_tmp, float *d_out, size_t pitch, int width, int height,
                        int mask_h, int term, int accumulate);

/* The row pass the two-pass path uses: the student's (exercise) or the reference. */
struct row_pass_impl {
    void (*set_weights)(const float *h_rows, int mask_w, int terms);
    void (*launch)(const float *d_in, float *d_out, size_t pitch, int width, int height,
                   int mask_w, int term);
};
void two_pass_set_mask(const struct row_pass_impl *row, const float *h_mask, int mask_w,
                       int mask_h);
void two_pass_launch(const struct row_pass_impl *row, const float *d_in, float *d_out,
                     size_t pitch, int width, int height, int mask_w, int mask_h);
/* On (a check, not a timed run): around each row pass the temporary image's row padding is
 * filled with all-ones bytes and must come back so, or the program stops with one line. A row
 * pass's output is the temporary, which the harness never sees: a store at x = width lands in
 * its padding, where no output shows it, but on rows with no padding it would be the next
 * row's first value. The harness checks the outputs' padding the same way. */
void two_pass_check_padding(int on);

void fused_set_mask(const float *h_mask, int mask_w, int mask_h);
void fused_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block);
/* NULL where the fused kernel fits this GPU for the mask, else the limit it breaks (a GPU with
 * less shared memory a block than one term's ring needs, such as sm_75's 64 KiB): the harness
 * then skips it with that line, and the chosen path takes the direct kernel. */
const char *fused_refuses(int mask_w, int mask_h);

/* The direct sum, any mask up to 31x31 (any rank); rows must be 16-byte aligned. */
void direct_large_set_mask(const float *h_mask, int mask_w, int mask_h);
void direct_large_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                         int mask_w, int mask_h, int block);
/* On the direct path, masks of at least DIRECT_LARGE_MIN_TAPS taps, and sizes chapter 06 has no
 * variant for, take direct_large; the others chapter 06's tuned kernel: where the two cross on
 * an H100 (% of the FP32 peak: 13x13 chapter 06 74.9 against 71.0, 15x15 direct_large 75.3
 * against 74.6; chapter 06's variants are square). */
#define DIRECT_LARGE_MIN_TAPS 225
/* Up to this many taps memory binds both paths, and auto takes chapter 06's single pass over
 * the fused kernel's shared-memory round trip (measured on the H100, Gaussian, 8192 x 8192, % of
 * copy: 3x3 98 against 90, 5x5 96 against 89, 7x7 85 against 89). */
#define DIRECT_SMALL_TAPS 25

/* NPP's row and column filters, two passes through a temporary image, for masks of rank 1
 * (only where the CUDA Toolkit has NPP: WB_HAVE_NPP). refuses: higher ranks (it reads the
 * size's last plan), lengths whose measured impulse response is not a permutation, or
 * WB_SKIP_NPP set. */
const char *npp_separable_refuses(int mask_w, int mask_h);
void npp_separable_set_mask(const float *h_mask, int mask_w, int mask_h);
void npp_separable_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                          int mask_w, int mask_h, int block);

/* The chosen path: `direct` (chapter 06's tuned kernel) is what it runs when separable passes do
 * not pay, except where direct_large takes over (above). */
void chosen_configure(enum separable_path forced, const struct conv2d_variant *direct);
void chosen_set_mask(const float *h_mask, int mask_w, int mask_h);
void chosen_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                   int mask_w, int mask_h, int block);

/* conv2d_error_bound_fn for the separable paths (two-pass, fused). */
int separable_error_bound(const float *in, int width, int height, const float *mask, int mask_w,
                          int mask_h, float *magnitude);

#ifdef __cplusplus
}
#endif
#endif
