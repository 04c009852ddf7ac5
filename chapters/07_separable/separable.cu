/* separable.cu: chapter 07's column pass, the two-pass and fused separable paths, the path
 * choice and the separable paths' tolerance (see separable.h).
 *
 * A mask of rank r is a sum of r outer products col_k x row_k (lowrank.h). Its correlation is
 * then r separable ones: a row pass with row_k (w multiply-adds per output), a column pass with
 * col_k (h more), the r results added: r (w + h) multiply-adds instead of w h.
 *
 *   two-pass   the row pass writes a temporary image, the column pass reads it: the image goes
 *              through DRAM four times per term (read, write, read, write) instead of twice
 *   fused      a block marches down a strip of the image: each chunk of input rows is copied
 *              to shared memory once (cp.async, the next chunk in flight meanwhile), row-passed
 *              into a ring of shared rows per term, and column-passed from there; the r terms'
 *              sums stay in registers. DRAM sees one read and one write, whatever r is, and no
 *              halo row is row-passed twice except at a segment's start
 *
 * Both slide the weights along windows of inputs held in registers (as the row pass does, see
 * conv2d_row_pass.cu); a compile-time bound on each mask side (4, 8, 16 or 32) sizes the windows.
 */
#include <stdlib.h>
#include <string.h>

#include "async_copy.cuh"
#include "cuda_check.h"
#include "harness.h"
#include "pitched.cuh"
#include "prefetch_variants.h"
#include "reference.h"
#include "separable.h"

const char *const separable_path_names[] = {"auto", "direct", "separable", "lowrank", NULL};

enum {
    MAX_SIDE = LOWRANK_MAX_SIDE,
    TERM_STRIDE = 32,           /* weights of term k start at k * TERM_STRIDE */
    COLUMN_OUTPUTS = 32,        /* column pass: outputs per thread, down a column */
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

const struct mask_factors *separable_last_plan(void) {
    return plan.valid ? &plan.factors : NULL;
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

/* A block owns a strip of STRIP_COLS output columns and SEGMENT_ROWS output rows, and marches
 * down it CHUNK_ROWS rows at a time. Each step:
 *
 *   input chunk c (CHUNK_ROWS rows and the strip's halo columns) has landed in s_in[c % 2]
 *   row pass   s_in[c % 2] -> ring[term], CHUNK_ROWS rows of row-passed values per term
 *   copy       input chunk c + 2 requested into s_in[c % 2] (cp.async: it flies during the rest)
 *   column pass output chunk c - 1 from ring rows of chunks c - 1 and c (a mask is at most 31
 *              rows, so its window spans two chunks), the terms' sums added in registers
 *
 * Every input row is row-passed once per term (no halo rows computed twice, as a tile-per-block
 * kernel would), and the image crosses DRAM once each way. The segment's first chunk is its
 * only overhead: mask_h - 1 rows above it are row-passed for the first output chunk.
 * Row pass: lanes on rows (odd pitch: conflict-free), each warp a segment of FUSED_ROW_OUTPUTS
 * columns. Column pass: lanes on neighbouring columns, FUSED_COLUMN_OUTPUTS rows each. */
enum {
    STRIP_COLS = 128,
    CHUNK_ROWS = 32,
    SEGMENT_ROWS = 256,
    RING_ROWS = 2 * CHUNK_ROWS,
    FUSED_ROW_OUTPUTS = 16,              /* 8 warps x 16 = STRIP_COLS */
    FUSED_COLUMN_OUTPUTS = 16,           /* 2 groups x 16 = CHUNK_ROWS */
    IN_PITCH = STRIP_COLS + MAX_SIDE,    /* 159: odd */
    RING_PITCH = STRIP_COLS + 1,         /* 129: odd */
    TERMS_PER_LAUNCH = 4,
    IN_FLOATS = 2 * CHUNK_ROWS * IN_PITCH,
    RING_FLOATS = RING_ROWS * RING_PITCH
};

/* Input chunk `chunk` of the strip (image rows first_row + chunk * CHUNK_ROWS ...) into `s`,
 * zeros outside the image: warp w copies rows w, w + 8, ..., its lanes neighbouring columns. */
__device__ __forceinline__ void request_chunk(float *s, const float *in, size_t pitch, int width,
                                              int height, int first_row, int first_col, int span,
                                              int needed_rows, int chunk) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll 1 /* unrolled, the rows' addresses would all stay live: registers the passes need */
    for (int i = 0; i < CHUNK_ROWS / 8; ++i) {
        const int r = warp + 8 * i;
        if (chunk * CHUNK_ROWS + r >= needed_rows) break; /* below what the segment reads */
        const int y = first_row + chunk * CHUNK_ROWS + r;
        const bool row_inside = y >= 0 && y < height;
        const float *source = row_inside ? row_of(in, pitch, y) : in;
#pragma unroll
        for (int k = 0; k < (IN_PITCH + 31) / 32; ++k) {
            const int c = lane + 32 * k;
            if (c < span) {
                const int x = first_col + c;
                const bool inside = row_inside && x >= 0 && x < width;
                copy_or_zero_async(&s[r * IN_PITCH + c], inside ? source + x : in, inside);
            }
        }
    }
}

/* Three blocks per SM where the windows are short (their shared memory fits: 3 x 74 KB for one
 * term), two where longer windows need more registers than 3 blocks leave (80 each: spills). */
template <int MAX_W, int MAX_H>
__global__ void __launch_bounds__(256, MAX_W <= 8 && MAX_H <= 8 ? 3 : 2)
    fused_kernel(const float *in, float *out, size_t pitch, int width, int height, int mask_w,
                 int mask_h, int term0, int terms, int accumulate) {
    extern __shared__ float shared[];
    float *s_in = shared, *ring = shared + IN_FLOATS;
    const int x0 = blockIdx.x * STRIP_COLS, seg0 = blockIdx.y * SEGMENT_ROWS;
    const int seg_rows = min(SEGMENT_ROWS, height - seg0);
    const int first_row = seg0 - mask_h / 2, first_col = x0 - mask_w / 2;
    const int span = STRIP_COLS + mask_w - 1;
    const int out_chunks = (seg_rows + CHUNK_ROWS - 1) / CHUNK_ROWS, in_chunks = out_chunks + 1;
    const int needed_rows = seg_rows + mask_h - 1; /* input rows the segment's outputs read */
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int col = threadIdx.x % STRIP_COLS, group = threadIdx.x / STRIP_COLS;

    request_chunk(s_in, in, pitch, width, height, first_row, first_col, span, needed_rows, 0);
    async_commit();
    request_chunk(s_in + CHUNK_ROWS * IN_PITCH, in, pitch, width, height, first_row, first_col,
                  span, needed_rows, 1);
    async_commit();
    for (int c = 0; c < in_chunks; ++c) {
        float *chunk = s_in + (c % 2) * CHUNK_ROWS * IN_PITCH;
        async_wait<1>(); /* chunk c is in; c + 1 may still fly */
        __syncthreads(); /* ... for every thread; and the ring rows of chunk c - 2 are free */
        for (int t = 0; t < terms; ++t) {
            const float *source = chunk + lane * IN_PITCH + warp * FUSED_ROW_OUTPUTS;
            float window[FUSED_ROW_OUTPUTS + MAX_W - 1], sum[FUSED_ROW_OUTPUTS];
#pragma unroll
            for (int k = 0; k < FUSED_ROW_OUTPUTS + MAX_W - 1; ++k)
                if (k < FUSED_ROW_OUTPUTS + mask_w - 1) window[k] = source[k];
            slide_weights<FUSED_ROW_OUTPUTS, MAX_W>(window, c_rows + (term0 + t) * TERM_STRIDE,
                                                    mask_w, sum);
            float *target = ring + t * RING_FLOATS +
                            ((c % 2) * CHUNK_ROWS + lane) * RING_PITCH + warp * FUSED_ROW_OUTPUTS;
#pragma unroll
            for (int p = 0; p < FUSED_ROW_OUTPUTS; ++p)
                target[p] = sum[p];
        }
        __syncthreads(); /* ring rows of chunk c are in; s_in[c % 2] is free */
        if (c + 2 < in_chunks)
            request_chunk(chunk, in, pitch, width, height, first_row, first_col, span,
                          needed_rows, c + 2);
        async_commit(); /* an empty group near the end keeps the count async_wait relies on */
        if (c == 0) continue;
        /* output rows seg0 + o .. o + 15 read ring rows o .. o + 14 + mask_h */
        const int o = (c - 1) * CHUNK_ROWS + group * FUSED_COLUMN_OUTPUTS;
        float total[FUSED_COLUMN_OUTPUTS];
#pragma unroll
        for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
            total[q] = 0.0f;
        for (int t = 0; t < terms; ++t) {
            const float *source = ring + t * RING_FLOATS + col;
            float window[FUSED_COLUMN_OUTPUTS + MAX_H - 1], sum[FUSED_COLUMN_OUTPUTS];
#pragma unroll
            for (int k = 0; k < FUSED_COLUMN_OUTPUTS + MAX_H - 1; ++k)
                if (k < FUSED_COLUMN_OUTPUTS + mask_h - 1)
                    window[k] = source[((o + k) & (RING_ROWS - 1)) * RING_PITCH];
            slide_weights<FUSED_COLUMN_OUTPUTS, MAX_H>(window, c_cols + (term0 + t) * TERM_STRIDE,
                                                       mask_h, sum);
            /* the term's sum first, then added: the rounding the tolerance assumes */
#pragma unroll
            for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
                total[q] += sum[q];
        }
        const int x = x0 + col;
        if (x < width)
#pragma unroll
            for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
                if (o + q < seg_rows) {
                    float *target = row_of(out, pitch, seg0 + o + q) + x;
                    *target = accumulate ? *target + total[q] : total[q];
                }
    }
}

template <int MAX_W, int MAX_H>
static void launch_fused(dim3 blocks, size_t shared_bytes, const float *d_in, float *d_out,
                         size_t pitch, int width, int height, int mask_w, int mask_h, int term0,
                         int terms, int accumulate) {
    static int configured; /* the most dynamic shared memory any launch may ask, once */
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(fused_kernel<MAX_W, MAX_H>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (IN_FLOATS + TERMS_PER_LAUNCH * RING_FLOATS) *
                                            (int)sizeof(float)));
        configured = 1;
    }
    fused_kernel<MAX_W, MAX_H><<<blocks, 256, shared_bytes>>>(
        d_in, d_out, pitch, width, height, mask_w, mask_h, term0, terms, accumulate);
}

template <int MAX_W>
static void launch_fused_for_width(dim3 blocks, size_t shared_bytes, const float *d_in,
                                   float *d_out, size_t pitch, int width, int height, int mask_w,
                                   int mask_h, int term0, int terms, int accumulate) {
    switch (window_bound(mask_h)) {
    case 4:
        launch_fused<MAX_W, 4>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                               mask_h, term0, terms, accumulate);
        break;
    case 8:
        launch_fused<MAX_W, 8>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                               mask_h, term0, terms, accumulate);
        break;
    case 16:
        launch_fused<MAX_W, 16>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                                mask_h, term0, terms, accumulate);
        break;
    default:
        launch_fused<MAX_W, 32>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                                mask_h, term0, terms, accumulate);
    }
}

void fused_set_mask(const float *h_mask, int mask_w, int mask_h) {
    upload_factors(separable_plan(h_mask, mask_w, mask_h));
}

/* Up to TERMS_PER_LAUNCH terms per launch (their rings fill shared memory); a mask of higher
 * rank takes several launches, the later ones adding to the output. */
void fused_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block) {
    (void)block;
    const struct mask_factors *f = &plan.factors;
    if (!plan.valid || f->mask_w != mask_w || f->mask_h != mask_h || width < 1 || height < 1)
        wb_die(WB_EXIT_USAGE, "fused_launch: bad arguments %dx%d, mask %dx%d (set: %s)", width,
               height, mask_w, mask_h, plan.valid ? "another size" : "none");
    const dim3 blocks((width + STRIP_COLS - 1) / STRIP_COLS,
                      (height + SEGMENT_ROWS - 1) / SEGMENT_ROWS);
    const int terms = pass_terms(f);
    for (int term0 = 0; term0 < terms; term0 += TERMS_PER_LAUNCH) {
        const int count = terms - term0 < TERMS_PER_LAUNCH ? terms - term0 : TERMS_PER_LAUNCH;
        const size_t shared_bytes = (IN_FLOATS + (size_t)count * RING_FLOATS) * sizeof(float);
        const int accumulate = term0 > 0;
        switch (window_bound(mask_w)) {
        case 4:
            launch_fused_for_width<4>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                      mask_w, mask_h, term0, count, accumulate);
            break;
        case 8:
            launch_fused_for_width<8>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                      mask_w, mask_h, term0, count, accumulate);
            break;
        case 16:
            launch_fused_for_width<16>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                       mask_w, mask_h, term0, count, accumulate);
            break;
        default:
            launch_fused_for_width<32>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                       mask_w, mask_h, term0, count, accumulate);
        }
        CUDA_CHECK(cudaGetLastError());
    }
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

/* Chapter 06's tuned kernel where it has variants for the size and the mask is under
 * DIRECT_LARGE_MIN_SIDE (it beat direct_large at 9x9, 15x15 and 21x21 on the H100), direct_large
 * elsewhere (faster at 31x31; chapter 06 falls back to a naive kernel for sizes it lacks). */
static int use_direct_large(int mask_w, int mask_h) {
    return !prefetch_has_variants(mask_w, mask_h) || mask_w >= DIRECT_LARGE_MIN_SIDE ||
           mask_h >= DIRECT_LARGE_MIN_SIDE;
}

void chosen_set_mask(const float *h_mask, int mask_w, int mask_h) {
    chosen.path = separable_path_for(chosen.forced, h_mask, mask_w, mask_h);
    if (chosen.path != SEPARABLE_DIRECT)
        fused_set_mask(h_mask, mask_w, mask_h);
    else if (use_direct_large(mask_w, mask_h))
        direct_large_set_mask(h_mask, mask_w, mask_h);
    else
        chosen.direct->set_mask(h_mask, mask_w, mask_h);
}

void chosen_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                   int mask_w, int mask_h, int block) {
    if (chosen.path != SEPARABLE_DIRECT)
        fused_launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
    else if (use_direct_large(mask_w, mask_h))
        direct_large_launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
    else
        chosen.direct->launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
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
