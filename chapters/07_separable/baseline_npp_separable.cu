/* baseline_npp_separable.cu: NVIDIA's NPP separable filters on the same image and rank-1 mask,
 * the library counterpart of the two-pass path (see separable.h). Compiled only where the CUDA
 * Toolkit has NPP (WB_HAVE_NPP); elsewhere this file is empty.
 *
 *   nppiFilterRowBorder_32f_C1R_Ctx      row pass: the zero-padded input (npp_shared.h) into a
 *                                        temporary image as tall as the padded one
 *   nppiFilterColumnBorder_32f_C1R_Ctx   column pass: the temporary image into the output
 *
 * Every read lies inside its source image, so the border mode (replicate) never applies and
 * the ghost cells are the padding's zeros. As for NPP's 2D filter (chapter 06's
 * baseline_npp.cu), which coefficient meets which neighbour is measured, not assumed: the first
 * time a length is used, each filter runs on an impulse with coefficients 1, 2, 3, ...
 *
 *   calibrate               one direction's impulse response: each coefficient's offset
 *   npp_separable_refuses   masks of rank above 1, lengths whose response is not a permutation
 *   npp_separable_*         the mask's factors arranged for NPP; the two passes
 */
#ifdef WB_HAVE_NPP
#include <climits>
#include <cstdlib>

#include "cuda_check.h"
#include "npp_shared.h"
#include "pitched.cuh"
#include "separable.h"

namespace {

constexpr int MAX_SIDE = LOWRANK_MAX_SIDE;

typedef NppStatus (*filter_1d_fn)(const Npp32f *, Npp32s, NppiSize, NppiPoint, Npp32f *, Npp32s,
                                  NppiSize, const Npp32f *, Npp32s, Npp32s, NppiBorderType,
                                  NppStreamContext);

// One direction: coefficient t multiplies the input offset[t] away from the output, along it.
struct direction {
    const char *name;
    filter_1d_fn filter;
    int along_x;
    int taps;            // 0: not measured yet
    const char *problem; // NULL: usable
    int offset[MAX_SIDE];
    float *d_kernel;     // the factor arranged for NPP
};

direction row_direction = {"nppiFilterRowBorder_32f_C1R_Ctx", nppiFilterRowBorder_32f_C1R_Ctx, 1,
                           0, nullptr, {}, nullptr};
direction column_direction = {"nppiFilterColumnBorder_32f_C1R_Ctx",
                              nppiFilterColumnBorder_32f_C1R_Ctx, 0, 0, nullptr, {}, nullptr};

struct {
    int mask_w, mask_h;
    float *tmp; // width x (height + mask_h - 1), the row pass's output
    size_t tmp_pitch, tmp_bytes;
} state;

int anchor_for(int taps) { return taps - 1 - taps / 2; }

// `length` pixels along the direction, one across: the size and the step of such an image.
NppiSize line_size(const direction &d, int length) {
    return d.along_x ? NppiSize{length, 1} : NppiSize{1, length};
}
int line_step(const direction &d, int length) {
    return (d.along_x ? length : 1) * (int)sizeof(float);
}

void check(NppStatus status, const direction &d) {
    if (status != NPP_SUCCESS)
        wb_die(WB_EXIT_FAIL, "%s failed with NPP status %d", d.name, (int)status);
}

// An impulse in the middle of a 2 taps + 1 output line, with a taps-wide zero margin on both
// sides of the source so every read is valid; output x then holds coefficient t + 1 exactly
// where x + offset[t] is the impulse.
void calibrate(direction &d, int taps) {
    if (d.taps == taps) return;
    d.taps = taps;
    d.problem = NULL;
    const int out_n = 2 * taps + 1, src_n = out_n + 2 * taps;
    float src[4 * MAX_SIDE + 1] = {0}, out[2 * MAX_SIDE + 1], weights[MAX_SIDE];
    src[2 * taps] = 1.0f; // output position taps
    for (int t = 0; t < taps; ++t) weights[t] = (float)(t + 1);
    float *d_src = (float *)device_malloc(sizeof src, "NPP calibration line");
    float *d_out = (float *)device_malloc(sizeof out, "NPP calibration output");
    float *d_weights = (float *)device_malloc(sizeof weights, "NPP calibration kernel");
    CUDA_CHECK(cudaMemcpy(d_src, src, sizeof src, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_weights, weights, sizeof weights, cudaMemcpyHostToDevice));
    const NppiPoint origin = d.along_x ? NppiPoint{taps, 0} : NppiPoint{0, taps};
    check(d.filter(d_src + taps, line_step(d, src_n), line_size(d, src_n), origin, d_out,
                   line_step(d, out_n), line_size(d, out_n), d_weights, taps, anchor_for(taps),
                   NPP_BORDER_REPLICATE, npp_stream_context()),
          d);
    CUDA_CHECK(cudaMemcpy(out, d_out, out_n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_weights));
    int found = 0;
    for (int t = 0; t < taps; ++t) d.offset[t] = INT_MIN;
    for (int x = 0; x < out_n && !d.problem; ++x) {
        if (out[x] == 0.0f) continue;
        const int t = (int)out[x] - 1;
        if (out[x] != (float)(t + 1) || t < 0 || t >= taps || d.offset[t] != INT_MIN)
            d.problem = "NPP's impulse response is not a permutation of the factor";
        else
            d.offset[t] = taps - x, ++found;
    }
    for (int t = 0; t < taps && !d.problem; ++t)
        if (d.offset[t] < -(taps / 2) || d.offset[t] > taps - 1 - taps / 2)
            d.problem = "NPP reads outside the mask's window for this length";
    if (found != taps && !d.problem) d.problem = "NPP's impulse response misses coefficients";
}

// Coefficient t meets the neighbour offset[t] away: it gets our factor's weight for it.
void upload(direction &d, const float *factor) {
    float arranged[MAX_SIDE];
    for (int t = 0; t < d.taps; ++t) arranged[t] = factor[d.offset[t] + d.taps / 2];
    if (!d.d_kernel) d.d_kernel = (float *)device_malloc(sizeof arranged, "NPP separable kernel");
    CUDA_CHECK(cudaMemcpy(d.d_kernel, arranged, d.taps * sizeof(float), cudaMemcpyHostToDevice));
}

} // namespace

extern "C" {

const char *npp_separable_refuses(int mask_w, int mask_h) {
    const char *skip = getenv("WB_SKIP_NPP");
    if (skip && *skip) return "WB_SKIP_NPP is set";
    const struct mask_factors *f = separable_last_plan();
    if (!f || f->mask_w != mask_w || f->mask_h != mask_h)
        return "no mask of this size was factored before";
    if (f->rank > 1) return "NPP's separable filters take masks of rank 1";
    calibrate(row_direction, mask_w);
    calibrate(column_direction, mask_h);
    return row_direction.problem ? row_direction.problem : column_direction.problem;
}

void npp_separable_set_mask(const float *h_mask, int mask_w, int mask_h) {
    const struct mask_factors *f = separable_plan(h_mask, mask_w, mask_h);
    const char *why = npp_separable_refuses(mask_w, mask_h);
    if (why) wb_die(WB_EXIT_USAGE, "npp_separable_set_mask: %s (%dx%d)", why, mask_w, mask_h);
    static const float zeros[MAX_SIDE] = {0};
    upload(row_direction, f->rank ? f->row[0] : zeros);
    upload(column_direction, f->rank ? f->col[0] : zeros);
    state.mask_w = mask_w;
    state.mask_h = mask_h;
    npp_drop_padded_copies();
}

void npp_separable_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                          int mask_w, int mask_h, int block) {
    (void)block;
    if (mask_w != state.mask_w || mask_h != state.mask_h)
        wb_die(WB_EXIT_USAGE, "npp_separable_launch: mask %dx%d, but %dx%d was set", mask_w,
               mask_h, state.mask_w, state.mask_h);
    const int tall = height + mask_h - 1;
    if ((size_t)tall * width * sizeof(float) > state.tmp_bytes) {
        if (state.tmp) CUDA_CHECK(cudaFree(state.tmp));
        state.tmp = (float *)device_malloc_pitch((size_t)width * sizeof(float), tall,
                                                 &state.tmp_pitch, "NPP row pass output");
        state.tmp_bytes = (size_t)tall * width * sizeof(float);
    }
    size_t padded_pitch;
    const float *origin =
        npp_padded_origin(d_in, pitch, width, height, mask_w, mask_h, &padded_pitch);
    // rows -mask_h/2 .. height - 1 + (mask_h - 1 - mask_h/2) of the padded copy, every column
    const float *top = (const float *)((const char *)origin - (size_t)(mask_h / 2) * padded_pitch);
    check(row_direction.filter(top, (int)padded_pitch, NppiSize{width + mask_w - 1, tall},
                               NppiPoint{mask_w / 2, 0}, state.tmp, (int)state.tmp_pitch,
                               NppiSize{width, tall}, row_direction.d_kernel, mask_w,
                               anchor_for(mask_w), NPP_BORDER_REPLICATE, npp_stream_context()),
          row_direction);
    check(column_direction.filter(row_of(state.tmp, state.tmp_pitch, mask_h / 2),
                                  (int)state.tmp_pitch, NppiSize{width, tall},
                                  NppiPoint{0, mask_h / 2}, d_out, (int)pitch,
                                  NppiSize{width, height}, column_direction.d_kernel, mask_h,
                                  anchor_for(mask_h), NPP_BORDER_REPLICATE, npp_stream_context()),
          column_direction);
}
}
#endif // WB_HAVE_NPP
