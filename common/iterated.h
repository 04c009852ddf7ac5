/* iterated.h: the CPU reference for a mask applied K times (chapter 10), and the tolerance that
 * K float passes earn.
 *
 *   iterated_reference   R_K = M * (M * ... (M * x)), each pass with zero ghost cells, kept in
 *                        double through all K passes and rounded once; and per output the
 *                        bound B_K on how far a correct float computation may land from it
 *
 * The rule. One float pass of a mask with `terms` taps errs by at most te * (|M| * |input|),
 * te = terms * FLT_EPSILON (the workbook's rule, verify.h, with its factor of two to spare). A
 * float iterate G_k = M * G_(k-1) + d_k carries the error e_(k-1) = G_(k-1) - R_(k-1) of the
 * passes before through the mask and adds its own rounding d_k, bounded through
 * |G_(k-1)| <= |R_(k-1)| + B_(k-1):
 *
 *     B_0 = 0,   B_k = (1 + te) |M| * B_(k-1)  +  te |M| * |R_(k-1)|
 *
 * For K = 1 this is the one-pass rule exactly. The bound is returned as the `magnitude` that
 * verify_outputs takes with `terms` (magnitude = B_K / (terms * FLT_EPSILON)), so the listing,
 * the summary and the error map are the usual ones; a stale or missing halo row, a wrong tap or
 * an unwritten output still errs by far more than B_K.
 */
#ifndef ITERATED_H
#define ITERATED_H

#ifdef __cplusplus
extern "C" {
#endif

/* in: width x height, row-major; mask: mask_w x mask_h, row-major; iterations >= 0 (0 copies
 * the input). out and magnitude (width x height) receive R_K rounded to float and the bound in
 * verify_outputs' form. `parallel` selects the OpenMP loop. Returns 0, or -1 if the double
 * buffers (four of width x height) cannot be allocated. */
int iterated_reference(const float *in, int width, int height, const float *mask, int mask_w,
                       int mask_h, int iterations, float *out, float *magnitude, int parallel);

#ifdef __cplusplus
}
#endif
#endif
