/* npp_shared.h: what NPP baselines share (C++ only; defined in baseline_npp.cu, compiled where
 * the CUDA Toolkit has NPP).
 *
 *   npp_padded_origin       pixel (0, 0) of a zero-padded copy of an input plane: mask_w - 1
 *                           extra columns, mask_h - 1 extra rows, the image at (mask_w / 2,
 *                           mask_h / 2). NPP's border modes replicate edges; reading only
 *                           inside this copy makes the ghost cells zeros. Cached per plane and
 *                           mask size, so the timed launches do not pay for it.
 *   npp_drop_padded_copies  forget them (a new mask: the harness may hand the next image in a
 *                           buffer at the same address)
 *   npp_stream_context      the default stream's NppStreamContext, built once
 */
#ifndef NPP_SHARED_H
#define NPP_SHARED_H

#include <stddef.h>

#include <npp.h>

const float *npp_padded_origin(const float *d_in, size_t pitch, int width, int height,
                               int mask_w, int mask_h, size_t *padded_pitch);
void npp_drop_padded_copies();
const NppStreamContext &npp_stream_context();

#endif
