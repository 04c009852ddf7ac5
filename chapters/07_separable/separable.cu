/* separable.cu: chapter 07's column pass, the two-pass and fused separable paths, the path
 * choice and the separable paths' tolerance (see separable.h).
 *
 * A mask of rank r is a sum of r outer products col_k x row_k (lowrank.h). Its correlation is
 * then r separable ones: a row pass with row_k (w multiply-adds per output), a column pass with
 * col_k (h more), the r results added: r (w + h) multiply-adds instead of w h.
 *
 *   two-pass   the row pass writes a temporary image, the column pass reads it: the image goes
 *              through DRAM four times per term (read, write, read, write) instead of twice
 *   fused      a block loads its input tile once, row-passes it into shared memory (the tile's
 *              rows plus the column pass's halo rows), column-passes from there and keeps the
 *              r terms' sum in registers: DRAM sees one read and one write, whatever r is
 *
 * Both slide the weights along windows of inputs held in registers (as the row pass does, see
 * conv2d_row_pass.cu); a compile-time bound on each mask side (4, 8, 16 or 32) sizes the windows.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "harness.h"
#include "pitched.cuh"
#include "reference.h"
#include "separable.h"

const char *const separable_path_names[] = {"auto", "direct", "separable", "lowrank", NULL};

enum {
    MAX_SIDE = LOWRANK_MAX_SIDE,
    TERM_STRIDE = 32,           /* weights of term k start at k * TERM_STRIDE */
    COLUMN_OUTPUTS = 32,        /* column pass: outputs per thread, down a column */
    FUSED_COLS = 64,            /* fused: a block's output tile */
    FUSED_ROWS = 32,
    FUSED_ROW_OUTPUTS = 16,     /* its row pass: outputs per thread, along a row */
    FUSED_COLUMN_OUTPUTS = 8,   /* its column pass: outputs per thread, down a column */
    FUSED_IN_ROWS = FUSED_ROWS + MAX_SIDE - 1,
    FUSED_IN_PITCH = FUSED_COLS + MAX_SIDE, /* 95: odd, so lanes on 32 rows hit 32 banks */
    FUSED_MID_PITCH = FUSED_COLS + 1        /* 65: odd, likewise */
};

static __constant__ float c_rows[MAX_SIDE * TERM_STRIDE]; /* row_k[j], the fused kernel's */
static __constant__ float c_cols[MAX_SIDE * TERM_STRIDE]; /* col_k[i], both paths' */

static int window_bound(int side) {
    return side <= 4 ? 4 : side <= 8 ? 8 : side <= 16 ? 16 : 32;
}

/* ---- the plan ------------------------------------------------------------------------------ */

static struct {
    int valid, mask_w, mask_h;
    float mask[MAX_SIDE * MAX_SIDE];
    struct mask_factors factors;
} plan;

const struct mask_factors *separable_plan(const float *mask, int mask_w, int mask_h) {
    size_t bytes = (size_t)mask_w * mask_h * sizeof(float);
    if (plan.valid && plan.mask_w == mask_w && plan.mask_h == mask_h &&
        memcmp(plan.mask, mask, bytes) == 0)
        return &plan.factors;
    if (mask_factor(mask, mask_w, mask_h, &plan.factors))
        wb_die(WB_EXIT_USAGE, "separable_plan: cannot factor a %dx%d mask (1 to %d per side, "
               "finite weights)", mask_w, mask_h, MAX_SIDE);
    memcpy(plan.mask, mask, bytes);
    plan.mask_w = mask_w;
    plan.mask_h = mask_h;
    plan.valid = 1;
    return &plan.factors;
}

/* Terms the passes run: the rank, or one term of zeros for an all-zero mask (rank 0), so that
 * every output is still written. */
static int pass_terms(const struct mask_factors *f) {
    return f->rank > 0 ? f->rank : 1;
}

const char *separable_path_refuses(enum separable_path path, const float *mask, int mask_w,
                                   int mask_h) {
    static char reason[160];
    const struct mask_factors *f = separable_plan(mask, mask_w, mask_h);
    if (path == SEPARABLE_RANK1 && f->rank > 1) {
        snprintf(reason, sizeof reason,
                 "--path separable needs a mask of rank 1, and this %dx%d one has rank %d "
                 "(try --path lowrank)", mask_w, mask_h, f->rank);
        return reason;
    }
    return NULL;
}

enum separable_path separable_path_for(enum separable_path forced, const float *mask, int mask_w,
                                       int mask_h) {
    if (forced != SEPARABLE_AUTO) return forced;
    const struct mask_factors *f = separable_plan(mask, mask_w, mask_h);
    if (!lowrank_pays(f)) return SEPARABLE_DIRECT;
    return f->rank == 1 ? SEPARABLE_RANK1 : SEPARABLE_LOWRANK;
}

void separable_describe(enum separable_path forced, const float *mask, int mask_w, int mask_h,
                        char *line, size_t size) {
    const struct mask_factors *f = separable_plan(mask, mask_w, mask_h);
    enum separable_path path = separable_path_for(forced, mask, mask_w, mask_h);
    int direct = mask_w * mask_h, passes = pass_terms(f) * (mask_w + mask_h);
    if (path == SEPARABLE_DIRECT)
        snprintf(line, size, "rank %d, path direct%s: %d multiply-adds per output (%d x (%d + %d) "
                 "= %d through separable passes)", f->rank, forced ? " (forced)" : "", direct,
                 pass_terms(f), mask_w, mask_h, passes);
    else
        snprintf(line, size, "rank %d, path %s%s: %d x (%d + %d) = %d multiply-adds per output "
                 "(%d direct)", f->rank, separable_path_names[path], forced ? " (forced)" : "",
                 pass_terms(f), mask_w, mask_h, passes, direct);
}

/* The factors into the fused kernel's and the column pass's constant memory. */
static void upload_factors(const struct mask_factors *f) {
    static float rows[MAX_SIDE * TERM_STRIDE], cols[MAX_SIDE * TERM_STRIDE];
    memset(rows, 0, sizeof rows);
    memset(cols, 0, sizeof cols);
    for (int k = 0; k < f->rank; ++k) {
        for (int j = 0; j < f->mask_w; ++j)
            rows[k * TERM_STRIDE + j] = f->row[k][j];
        for (int i = 0; i < f->mask_h; ++i)
            cols[k * TERM_STRIDE + i] = f->col[k][i];
    }
    CUDA_CHECK(cudaMemcpyToSymbol(c_rows, rows, sizeof rows));
    CUDA_CHECK(cudaMemcpyToSymbol(c_cols, cols, sizeof cols));
}

/* sum[p] = sum_j weights[j] * window[p + j] over the first `taps` weights (taps <= MAX_TAPS):
 * the weights slid along a window held in registers. Every loop has compile-time bounds, so
 * every index into window and sum is a constant and both arrays stay in registers. */
template <int OUTPUTS, int MAX_TAPS>
__device__ __forceinline__ void slide_weights(const float (&window)[OUTPUTS + MAX_TAPS - 1],
                                              const float *weights, int taps,
                                              float (&sum)[OUTPUTS]) {
#pragma unroll
    for (int p = 0; p < OUTPUTS; ++p)
        sum[p] = 0.0f;
#pragma unroll
    for (int j = 0; j < MAX_TAPS; ++j)
        if (j < taps) {
            const float weight = weights[j];
#pragma unroll
            for (int p = 0; p < OUTPUTS; ++p)
                sum[p] += weight * window[p + j];
        }
}

/* ---- the column pass ----------------------------------------------------------------------- */

/* A thread owns COLUMN_OUTPUTS outputs down one column: it reads the COLUMN_OUTPUTS + mask_h - 1
 * inputs they need once (a warp reads 32 neighbouring columns: coalesced) and slides col_k
 * along them. */
template <int MAX_H>
__global__ void __launch_bounds__(256)
    column_pass_kernel(const float *tmp, float *out, size_t pitch, int width, int height,
                       int mask_h, int term, int accumulate) {
    const int x = blockIdx.x * 32 + threadIdx.x % 32;
    const int y0 = (blockIdx.y * 8 + threadIdx.x / 32) * COLUMN_OUTPUTS;
    if (x >= width || y0 >= height) return;
    const int top = y0 - mask_h / 2;
    float window[COLUMN_OUTPUTS + MAX_H - 1];
#pragma unroll
    for (int k = 0; k < COLUMN_OUTPUTS + MAX_H - 1; ++k)
        if (k < COLUMN_OUTPUTS + mask_h - 1) {
            const int y = top + k;
            window[k] = y >= 0 && y < height ? row_of(tmp, pitch, y)[x] : 0.0f;
        }
    float sum[COLUMN_OUTPUTS];
    slide_weights<COLUMN_OUTPUTS, MAX_H>(window, c_cols + term * TERM_STRIDE, mask_h, sum);
#pragma unroll
    for (int q = 0; q < COLUMN_OUTPUTS; ++q)
        if (y0 + q < height) {
            float *o = row_of(out, pitch, y0 + q) + x;
            *o = accumulate ? *o + sum[q] : sum[q];
        }
}

void column_pass_launch(const float *d_tmp, float *d_out, size_t pitch, int width, int height,
                        int mask_h, int term, int accumulate) {
    if (width < 1 || height < 1 || mask_h < 1 || mask_h > MAX_SIDE || term < 0 ||
        term >= MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "column_pass_launch: bad arguments %dx%d, mask height %d, term %d",
               width, height, mask_h, term);
    const int rows_per_block = 8 * COLUMN_OUTPUTS;
    const dim3 blocks((width + 31) / 32, (height + rows_per_block - 1) / rows_per_block);
    switch (window_bound(mask_h)) {
    case 4:
        column_pass_kernel<4><<<blocks, 256>>>(d_tmp, d_out, pitch, width, height, mask_h, term,
                                               accumulate);
        break;
    case 8:
        column_pass_kernel<8><<<blocks, 256>>>(d_tmp, d_out, pitch, width, height, mask_h, term,
                                               accumulate);
        break;
    case 16:
        column_pass_kernel<16><<<blocks, 256>>>(d_tmp, d_out, pitch, width, height, mask_h, term,
                                                accumulate);
        break;
    default:
        column_pass_kernel<32><<<blocks, 256>>>(d_tmp, d_out, pitch, width, height, mask_h, term,
                                                accumulate);
    }
    CUDA_CHECK(cudaGetLastError());
}

/* ---- two passes through a temporary image -------------------------------------------------- */

static struct {
    float *data;
    size_t bytes;
} temporary;

/* A temporary image with the same pitch as the input (the passes take one pitch). */
static float *temporary_image(size_t pitch, int height) {
    size_t bytes = pitch * (size_t)height;
    if (bytes > temporary.bytes) {
        if (temporary.data) CUDA_CHECK(cudaFree(temporary.data));
        temporary.data = (float *)device_malloc(bytes, "the row pass's temporary image");
        temporary.bytes = bytes;
    }
    return temporary.data;
}

void two_pass_set_mask(const struct row_pass_impl *row, const float *h_mask, int mask_w,
                       int mask_h) {
    const struct mask_factors *f = separable_plan(h_mask, mask_w, mask_h);
    static float rows[MAX_SIDE * MAX_SIDE];
    memset(rows, 0, sizeof rows);
    for (int k = 0; k < f->rank; ++k)
        for (int j = 0; j < mask_w; ++j)
            rows[k * mask_w + j] = f->row[k][j];
    row->set_weights(rows, mask_w, pass_terms(f));
    upload_factors(f);
}

void two_pass_launch(const struct row_pass_impl *row, const float *d_in, float *d_out,
                     size_t pitch, int width, int height, int mask_w, int mask_h) {
    const struct mask_factors *f = &plan.factors;
    if (!plan.valid || f->mask_w != mask_w || f->mask_h != mask_h)
        wb_die(WB_EXIT_USAGE, "two_pass_launch: mask %dx%d, but no such mask was set", mask_w,
               mask_h);
    float *tmp = temporary_image(pitch, height);
    for (int k = 0; k < pass_terms(f); ++k) {
        row->launch(d_in, tmp, pitch, width, height, mask_w, k);
        column_pass_launch(tmp, d_out, pitch, width, height, mask_h, k, k > 0);
    }
}

/* ---- fused --------------------------------------------------------------------------------- */

/* One FUSED_COLS x FUSED_ROWS output tile. The input tile (the output tile plus the mask's halo
 * on all sides) is loaded once; per term, the row pass fills s_mid for every row the column
 * pass needs (the tile's rows plus mask_h - 1), then the column pass adds the term's sums to
 * registers. Row pass: thread t takes s_mid row t % 64 (32 rows per warp, conflict-free, the
 * pitches being odd), FUSED_ROW_OUTPUTS columns from (t / 64) * FUSED_ROW_OUTPUTS. Column pass:
 * column t % 64, FUSED_COLUMN_OUTPUTS rows from (t / 64) * FUSED_COLUMN_OUTPUTS. */
template <int MAX_W, int MAX_H>
__global__ void __launch_bounds__(256) fused_kernel(const float *in, float *out, size_t pitch,
                                                    int width, int height, int mask_w,
                                                    int mask_h, int terms) {
    __shared__ float s_in[FUSED_IN_ROWS * FUSED_IN_PITCH];
    __shared__ float s_mid[FUSED_IN_ROWS * FUSED_MID_PITCH];
    const int x0 = blockIdx.x * FUSED_COLS, y0 = blockIdx.y * FUSED_ROWS;
    const int rows = FUSED_ROWS + mask_h - 1, span = FUSED_COLS + mask_w - 1;
    const int lane64 = threadIdx.x % 64, part = threadIdx.x / 64;
    /* four rows at a time, 64 neighbouring columns each: coalesced, and no division */
    for (int r = part; r < rows; r += 4) {
        const int y = y0 - mask_h / 2 + r;
        const bool row_inside = y >= 0 && y < height;
        for (int c = lane64; c < span; c += 64) {
            const int x = x0 - mask_w / 2 + c;
            s_in[r * FUSED_IN_PITCH + c] =
                row_inside && x >= 0 && x < width ? row_of(in, pitch, y)[x] : 0.0f;
        }
    }
    __syncthreads();

    const int mid_row = lane64, mid_col = part * FUSED_ROW_OUTPUTS;
    const int out_col = lane64, out_row = part * FUSED_COLUMN_OUTPUTS;
    float total[FUSED_COLUMN_OUTPUTS];
#pragma unroll
    for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
        total[q] = 0.0f;
    for (int term = 0; term < terms; ++term) {
        if (mid_row < rows) {
            const float *source = s_in + mid_row * FUSED_IN_PITCH + mid_col;
            float window[FUSED_ROW_OUTPUTS + MAX_W - 1], sum[FUSED_ROW_OUTPUTS];
#pragma unroll
            for (int k = 0; k < FUSED_ROW_OUTPUTS + MAX_W - 1; ++k)
                if (k < FUSED_ROW_OUTPUTS + mask_w - 1) window[k] = source[k];
            slide_weights<FUSED_ROW_OUTPUTS, MAX_W>(window, c_rows + term * TERM_STRIDE, mask_w,
                                                    sum);
#pragma unroll
            for (int p = 0; p < FUSED_ROW_OUTPUTS; ++p)
                s_mid[mid_row * FUSED_MID_PITCH + mid_col + p] = sum[p];
        }
        __syncthreads();
        {
            const float *source = s_mid + out_row * FUSED_MID_PITCH + out_col;
            float window[FUSED_COLUMN_OUTPUTS + MAX_H - 1], sum[FUSED_COLUMN_OUTPUTS];
#pragma unroll
            for (int k = 0; k < FUSED_COLUMN_OUTPUTS + MAX_H - 1; ++k)
                if (k < FUSED_COLUMN_OUTPUTS + mask_h - 1) window[k] = source[k * FUSED_MID_PITCH];
            slide_weights<FUSED_COLUMN_OUTPUTS, MAX_H>(window, c_cols + term * TERM_STRIDE,
                                                       mask_h, sum);
            /* the term's sum first, then added: the rounding the tolerance assumes */
#pragma unroll
            for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
                total[q] += sum[q];
        }
        __syncthreads(); /* s_mid is rewritten by the next term */
    }
    const int x = x0 + out_col;
#pragma unroll
    for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q) {
        const int y = y0 + out_row + q;
        if (x < width && y < height) row_of(out, pitch, y)[x] = total[q];
    }
}

template <int MAX_W>
static void launch_fused_for_width(dim3 blocks, const float *d_in, float *d_out, size_t pitch,
                                   int width, int height, int mask_w, int mask_h, int terms) {
    switch (window_bound(mask_h)) {
    case 4:
        fused_kernel<MAX_W, 4><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, mask_h,
                                                terms);
        break;
    case 8:
        fused_kernel<MAX_W, 8><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w, mask_h,
                                                terms);
        break;
    case 16:
        fused_kernel<MAX_W, 16><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w,
                                                 mask_h, terms);
        break;
    default:
        fused_kernel<MAX_W, 32><<<blocks, 256>>>(d_in, d_out, pitch, width, height, mask_w,
                                                 mask_h, terms);
    }
}

void fused_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_factors(separable_plan(h_mask, mask_w, mask_h));
}

void fused_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block) {
    (void)block;
    const struct mask_factors *f = &plan.factors;
    if (!plan.valid || f->mask_w != mask_w || f->mask_h != mask_h || width < 1 || height < 1)
        wb_die(WB_EXIT_USAGE, "fused_launch: bad arguments %dx%d, mask %dx%d (set: %s)", width,
               height, mask_w, mask_h, plan.valid ? "another size" : "none");
    const dim3 blocks((width + FUSED_COLS - 1) / FUSED_COLS,
                      (height + FUSED_ROWS - 1) / FUSED_ROWS);
    if (blocks.y > 65535)
        wb_die(WB_EXIT_USAGE, "fused_launch: %d rows need more than 65535 blocks", height);
    const int terms = pass_terms(f);
    switch (window_bound(mask_w)) {
    case 4:
        launch_fused_for_width<4>(blocks, d_in, d_out, pitch, width, height, mask_w, mask_h, terms);
        break;
    case 8:
        launch_fused_for_width<8>(blocks, d_in, d_out, pitch, width, height, mask_w, mask_h, terms);
        break;
    case 16:
        launch_fused_for_width<16>(blocks, d_in, d_out, pitch, width, height, mask_w, mask_h,
                                   terms);
        break;
    default:
        launch_fused_for_width<32>(blocks, d_in, d_out, pitch, width, height, mask_w, mask_h,
                                   terms);
    }
    CUDA_CHECK(cudaGetLastError());
}

/* ---- the chosen path ----------------------------------------------------------------------- */

static struct {
    enum separable_path forced, path;
    const struct conv2d_variant *direct;
} chosen;

void chosen_configure(enum separable_path forced, const struct conv2d_variant *direct) {
    chosen.forced = forced;
    chosen.direct = direct;
}

void chosen_set_mask(const float *h_mask, int mask_w, int mask_h) {
    chosen.path = separable_path_for(chosen.forced, h_mask, mask_w, mask_h);
    if (chosen.path == SEPARABLE_DIRECT)
        chosen.direct->set_mask(h_mask, mask_w, mask_h);
    else
        fused_set_mask(h_mask, mask_w, mask_h);
}

void chosen_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                   int mask_w, int mask_h, int block) {
    if (chosen.path == SEPARABLE_DIRECT)
        chosen.direct->launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
    else
        fused_launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
}

/* ---- tolerance ----------------------------------------------------------------------------- */

/* sum bound |x| over each output's window, through the CPU reference's magnitude output. */
static void bound_magnitude(const float *in, int width, int height, const float *bound,
                            int mask_w, int mask_h, float *magnitude) {
    float *scratch = (float *)host_malloc((size_t)width * height * sizeof(float), "error bounds");
    cpu_correlate_2d(in, width, height, bound, mask_w, mask_h, scratch, magnitude, 1);
    free(scratch);
}

int separable_error_bound(const float *in, int width, int height, const float *mask, int mask_w,
                          int mask_h, float *magnitude) {
    float bound[MAX_SIDE * MAX_SIDE];
    int terms = lowrank_bound_mask(mask, separable_plan(mask, mask_w, mask_h), bound);
    bound_magnitude(in, width, height, bound, mask_w, mask_h, magnitude);
    return terms;
}
