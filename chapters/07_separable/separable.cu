/* separable.cu: chapter 07's column pass, the two-pass and fused separable paths, the path
 * choice and the separable paths' tolerance (see separable.h).
 *
 * A mask of rank r is a sum of r outer products col_k x row_k (lowrank.h). Its correlation is
 * then r separable ones: a row pass with row_k (w multiply-adds per output), a column pass with
 * col_k (h more), the r results added: r (w + h) multiply-adds instead of w h.
 *
 *   two-pass   the row pass writes a temporary image, the column pass reads it: the image goes
 *              through DRAM four times per term (read, write, read, write) instead of twice.
 *              The column pass marches down columns, each row read once (column_pass_kernel)
 *   fused      a block marches down a strip of the image: each chunk of input rows is copied
 *              to shared memory once (cp.async, the next chunk in flight meanwhile), row-passed
 *              into a ring of shared rows per term, and column-passed from there; the r terms'
 *              sums stay in registers. DRAM sees one read and one write for up to three terms
 *              (one launch; each further three: a launch that adds to the output), and
 *              no halo row is row-passed twice except at a segment's start
 *
 * Weights reach the kernels as parameters (an FMA reads them from the constant bank, no load),
 * 0 past the mask's sides, so that a compile-time bound on each side (4, 8, 16, 24 or 32 taps) is
 * every loop's bound: the loops unroll and their windows stay in registers.
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
#include "variant_choice.h"

const char *const separable_path_names[] = {"auto", "direct", "separable", "lowrank", NULL};

enum {
    MAX_SIDE = LOWRANK_MAX_SIDE,
};

/* The compile-time number of taps the kernels run for a mask side (taps past it weigh 0): a
 * mask pays for its bucket, so the buckets are close (measured on the H100, Gaussian 21x21
 * fused: 65% of copy in the bucket of 32, the cost of 31x31). */
static int window_bound(int side) {
    return side <= 4 ? 4 : side <= 8 ? 8 : side <= 16 ? 16 : side <= 24 ? 24 : 32;
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

/* Small masks: memory binds every path, and chapter 06's single pass moves the image with no
 * shared-memory round trip (see DIRECT_SMALL_TAPS). */
static int small_direct_wins(int mask_w, int mask_h) {
    return mask_w * mask_h <= DIRECT_SMALL_TAPS && prefetch_has_variants(mask_w, mask_h);
}

static int fused_terms_here(int mask_w, int mask_h, char *why, size_t size);

enum separable_path separable_path_for(enum separable_path forced, const float *mask, int mask_w,
                                       int mask_h) {
    if (forced != SEPARABLE_AUTO) return forced;
    const struct mask_factors *f = separable_plan(mask, mask_w, mask_h);
    if (!lowrank_pays(f) || small_direct_wins(mask_w, mask_h)) return SEPARABLE_DIRECT;
    /* a GPU whose blocks cannot hold one term of the fused kernel (sm_75) takes the direct sum */
    char why[256];
    if (!fused_terms_here(mask_w, mask_h, why, sizeof why)) return SEPARABLE_DIRECT;
    return f->rank == 1 ? SEPARABLE_RANK1 : SEPARABLE_LOWRANK;
}

void separable_describe(enum separable_path forced, const float *mask, int mask_w, int mask_h,
                        char *line, size_t size) {
    const struct mask_factors *f = separable_plan(mask, mask_w, mask_h);
    enum separable_path path = separable_path_for(forced, mask, mask_w, mask_h);
    int direct = mask_w * mask_h, passes = pass_terms(f) * (mask_w + mask_h);
    if (path == SEPARABLE_DIRECT)
        snprintf(line, size, "rank %d, path direct%s: %d multiply-adds per output (%d x (%d + %d) "
                 "= %d through separable passes%s)", f->rank, forced ? " (forced)" : "", direct,
                 pass_terms(f), mask_w, mask_h, passes,
                 !forced && passes < direct ? "; a small mask: memory binds, one pass wins" : "");
    else
        snprintf(line, size, "rank %d, path %s%s: %d x (%d + %d) = %d multiply-adds per output "
                 "(%d direct)", f->rank, separable_path_names[path], forced ? " (forced)" : "",
                 pass_terms(f), mask_w, mask_h, passes, direct);
}

/* ---- the column pass ----------------------------------------------------------------------- */

/* A thread marches down one column of a segment of outputs, reading each row once and
 * scattering it: row k adds w[j] * row to output k - j for every tap j, so the TAPS outputs in
 * progress sit in a ring of registers (output o in acc[o % TAPS]) and one completes per row.
 * The loop is unrolled over PERIOD rows, a multiple of TAPS, so every ring index is a constant.
 * Loads run MARCH_AHEAD rows ahead of their use (a second ring, the register prefetch of
 * chapter 06), and the weights are a kernel parameter: each FMA reads its weight straight from
 * the constant bank, no register or load spent. A segment reads its rows + TAPS - 1 (its length
 * is chosen per launch: column_segment_rows); a warp reads 32 neighbouring columns, 128 bytes,
 * per row. */
enum { MARCH_AHEAD = 8, MARCH_THREADS = 256, MARCH_MAX_ROWS = 2048 };

/* compile-time flags for column_pass_kernel's period */
struct checked_flag {
    static constexpr bool value = true;
};
struct unchecked_flag {
    static constexpr bool value = false;
};

struct column_weights {
    float w[32]; /* taps past mask_h are 0: they add exactly 0 to finite sums */
};

template <int TAPS, bool ACCUMULATE>
__global__ void __launch_bounds__(MARCH_THREADS, TAPS > 16 ? (ACCUMULATE ? 2 : 3) : 4)
    column_pass_kernel(const float *tmp, float *out, size_t pitch, int width, int height,
                       int mask_h, int segment_rows, const struct column_weights weights) {
    constexpr int PERIOD = TAPS > MARCH_AHEAD ? TAPS : MARCH_AHEAD;
    const int x = blockIdx.x * MARCH_THREADS + threadIdx.x, y0 = blockIdx.y * segment_rows;
    if (x >= width) return;
    const int outputs = min(segment_rows, height - y0), top = y0 - mask_h / 2;
    /* rows read: k = 0 .. steps - 1 (row top + k); zeros above and below the image */
    const int steps = outputs + TAPS - 1;
    const int first_inside = max(0, -top), end_inside = min(steps, height - top);
    const char *source = (const char *)(tmp + x) + (ptrdiff_t)top * (ptrdiff_t)pitch;
    char *target = (char *)(out + x) + (size_t)y0 * pitch;
#define MARCH_FETCH(k)                                                                             \
    ((k) >= first_inside && (k) < end_inside                                                       \
         ? *(const float *)(source + (ptrdiff_t)(k) * (ptrdiff_t)pitch)                            \
         : 0.0f)
    float ahead[MARCH_AHEAD], prior[MARCH_AHEAD], acc[TAPS];
    const ptrdiff_t prior_offset = (ptrdiff_t)MARCH_AHEAD * (ptrdiff_t)pitch;
#pragma unroll
    for (int a = 0; a < MARCH_AHEAD; ++a) {
        ahead[a] = MARCH_FETCH(a);
        /* output o = a - (TAPS - 1) completes at row a: its old value, when adding a term */
        const int o = a - (TAPS - 1);
        if (ACCUMULATE) prior[a] = o >= 0 && o < outputs ? *(const float *)(target + o * pitch) : 0;
    }
#pragma unroll
    for (int p = 0; p < TAPS; ++p)
        acc[p] = 0.0f;
    /* PERIOD rows from row `base`; CHECKED tests every row read and output written against the
     * image and the segment, the other walks two pointers down with no test at all */
    auto period = [&](auto checked, int base) {
        constexpr bool CHECKED = decltype(checked)::value;
        const char *fetch = source + (ptrdiff_t)(base + MARCH_AHEAD) * (ptrdiff_t)pitch;
        char *store = target + (ptrdiff_t)(base - (TAPS - 1)) * (ptrdiff_t)pitch;
#pragma unroll
        for (int s = 0; s < PERIOD; ++s) {
            const int k = base + s, o = k - (TAPS - 1), later = o + MARCH_AHEAD;
            const float row = ahead[s % MARCH_AHEAD];
            ahead[s % MARCH_AHEAD] = CHECKED ? MARCH_FETCH(k + MARCH_AHEAD) : *(const float *)fetch;
#pragma unroll
            for (int j = 0; j < TAPS; ++j)
                acc[(s - j + PERIOD) % TAPS] += weights.w[j] * row;
            float done = acc[(s + 1) % TAPS];
            acc[(s + 1) % TAPS] = 0.0f;
            if (ACCUMULATE) {
                done += prior[s % MARCH_AHEAD];
                prior[s % MARCH_AHEAD] =
                    !CHECKED || (later >= 0 && later < outputs)
                        ? *(const float *)(store + prior_offset) : 0;
            }
            if (!CHECKED || (o >= 0 && o < outputs)) *(float *)store = done;
            fetch += pitch;
            store += pitch;
        }
    };
    for (int base = 0; base < steps; base += PERIOD) {
        /* inside the image and the segment for every row of the period: most of them */
        const bool clear = base >= TAPS - 1 && base + MARCH_AHEAD >= first_inside &&
                           base + PERIOD + MARCH_AHEAD <= end_inside &&
                           base + PERIOD - TAPS + (ACCUMULATE ? MARCH_AHEAD : 0) < outputs;
        if (clear)
            period(unchecked_flag(), base);
        else
            period(checked_flag(), base);
    }
#undef MARCH_FETCH
}

static int sm_count(void) {
    static int sms; /* of the one device a program uses, asked once */
    if (!sms) {
        int device;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    return sms;
}

/* Rows per segment. A segment reads TAPS - 1 rows more than it outputs, so long ones read less
 * twice; but they make fewer blocks, and the blocks run in waves of those that fit at once, the
 * last wave maybe part-empty. Of lengths 32, 64, ... MARCH_MAX_ROWS, the one whose
 * waves x (rows + TAPS - 1) is least. (On the H100 at 8192 x 8192, 128-row segments made 2048
 * blocks of the 32-tap pass for 396 places, 3 per SM: 5.2 waves, so six ran. This rule, the
 * row pass's sliding window and the unchecked periods above together took the two-pass path
 * from 34.8% to 38.1% of copy at 31x31, measured in one run.) */
template <int TAPS, bool ACCUMULATE>
static int column_segment_rows(int width, int height) {
    static int per_sm; /* blocks resident on an SM, asked once */
    if (!per_sm)
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, column_pass_kernel<TAPS, ACCUMULATE>, MARCH_THREADS, 0));
    const long resident = (long)sm_count() * (per_sm > 0 ? per_sm : 1);
    const long across = (width + MARCH_THREADS - 1) / MARCH_THREADS;
    int best = 0;
    long best_cost = -1;
    for (int rows = 32; rows <= MARCH_MAX_ROWS; rows += 32) {
        const long segments = (height + rows - 1) / rows;
        const long waves = (across * segments + resident - 1) / resident;
        const long cost = waves * ((rows < height ? rows : height) + TAPS - 1);
        if (segments <= 65535 && (best_cost < 0 || cost < best_cost)) best_cost = cost, best = rows;
        if (rows >= height) break;
    }
    if (!best)
        wb_die(WB_EXIT_USAGE, "column_pass_launch: %d rows need more than 65535 segments of %d",
               height, MARCH_MAX_ROWS);
    return best;
}

template <int TAPS, bool ACCUMULATE>
static void column_pass_run(const float *d_tmp, float *d_out, size_t pitch, int width,
                            int height, int mask_h, const struct column_weights *weights) {
    const int rows = column_segment_rows<TAPS, ACCUMULATE>(width, height);
    const dim3 blocks((width + MARCH_THREADS - 1) / MARCH_THREADS, (height + rows - 1) / rows);
    column_pass_kernel<TAPS, ACCUMULATE><<<blocks, MARCH_THREADS>>>(d_tmp, d_out, pitch, width,
                                                                    height, mask_h, rows, *weights);
}

template <int TAPS>
static void column_pass_taps(const float *d_tmp, float *d_out, size_t pitch, int width,
                             int height, int mask_h, const struct column_weights *weights,
                             int accumulate) {
    if (accumulate)
        column_pass_run<TAPS, true>(d_tmp, d_out, pitch, width, height, mask_h, weights);
    else
        column_pass_run<TAPS, false>(d_tmp, d_out, pitch, width, height, mask_h, weights);
}

void column_pass_launch(const float *d_tmp, float *d_out, size_t pitch, int width, int height,
                        int mask_h, int term, int accumulate) {
    if (width < 1 || height < 1 || mask_h < 1 || mask_h > MAX_SIDE || term < 0 ||
        term >= MAX_SIDE || !plan.valid || mask_h != plan.mask_h ||
        term >= pass_terms(&plan.factors))
        wb_die(WB_EXIT_USAGE, "column_pass_launch: bad arguments %dx%d, mask height %d, term %d",
               width, height, mask_h, term);
    struct column_weights weights = {{0}};
    if (term < plan.factors.rank)
        for (int i = 0; i < mask_h; ++i)
            weights.w[i] = plan.factors.col[term][i];
    switch (window_bound(mask_h)) {
    case 4:
        column_pass_taps<4>(d_tmp, d_out, pitch, width, height, mask_h, &weights, accumulate);
        break;
    case 8:
        column_pass_taps<8>(d_tmp, d_out, pitch, width, height, mask_h, &weights, accumulate);
        break;
    case 16:
        column_pass_taps<16>(d_tmp, d_out, pitch, width, height, mask_h, &weights, accumulate);
        break;
    case 24:
        column_pass_taps<24>(d_tmp, d_out, pitch, width, height, mask_h, &weights, accumulate);
        break;
    default:
        column_pass_taps<32>(d_tmp, d_out, pitch, width, height, mask_h, &weights, accumulate);
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

static int padding_checked;
void two_pass_check_padding(int on) { padding_checked = on; }

static void poison_padding(float *tmp, size_t pitch, int width, int height) {
    const size_t row = (size_t)width * sizeof(float);
    CUDA_CHECK(cudaMemset2DAsync((char *)tmp + row, pitch, 0xff, pitch - row, (size_t)height, 0));
}

/* Stops the program where the row pass wrote into the padding poison_padding filled. */
static void require_padding_untouched(const float *tmp, size_t pitch, int width, int height) {
    const size_t row = (size_t)width * sizeof(float), pad = pitch - row;
    unsigned char *bytes = (unsigned char *)host_malloc(pad * height, "the temporary's padding");
    CUDA_CHECK(cudaMemcpy2D(bytes, pad, (const char *)tmp + row, pitch, pad, (size_t)height,
                            cudaMemcpyDeviceToHost));
    size_t hit = 0;
    while (hit < pad * height && bytes[hit] == 0xff)
        ++hit;
    free(bytes);
    if (hit < pad * height)
        wb_die(WB_EXIT_FAIL,
               "the row pass wrote past the end of a row of its output: row %zu, column %zu (the "
               "image is %d wide; a store needs x < width)",
               hit / pad, (size_t)width + hit % pad / sizeof(float), width);
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
}

void two_pass_launch(const struct row_pass_impl *row, const float *d_in, float *d_out,
                     size_t pitch, int width, int height, int mask_w, int mask_h) {
    const struct mask_factors *f = &plan.factors;
    if (!plan.valid || f->mask_w != mask_w || f->mask_h != mask_h)
        wb_die(WB_EXIT_USAGE, "two_pass_launch: mask %dx%d, but no such mask was set", mask_w,
               mask_h);
    float *tmp = temporary_image(pitch, height);
    const int check = padding_checked && pitch > (size_t)width * sizeof(float);
    for (int k = 0; k < pass_terms(f); ++k) {
        if (check) poison_padding(tmp, pitch, width, height);
        row->launch(d_in, tmp, pitch, width, height, mask_w, k);
        if (check) require_padding_untouched(tmp, pitch, width, height);
        column_pass_launch(tmp, d_out, pitch, width, height, mask_h, k, k > 0);
    }
}

/* ---- fused --------------------------------------------------------------------------------- */

/* A block owns a strip of STRIP_COLS output columns and a segment of rows (fused_segments), and
 * marches down it CHUNK_ROWS rows at a time. Each step:
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
 *
 * Both passes slide their weights along windows fetched four taps ahead (slide_groups) and take
 * the weights from the kernel's parameters, which an FMA reads straight from the constant bank:
 * all of a pass's loop bounds are compile-time (2 x fused_lead(MAX_W) or MAX_H taps, the weights
 * past the mask are 0), so nothing but FMAs and window loads is left in them. Row pass: lanes on
 * rows, each warp a segment of FUSED_ROW_OUTPUTS columns, windows read as float4s (IN_PITCH is 4
 * modulo 32: conflict-free), results stored as float4s to the ring (RING_PITCH likewise). Column
 * pass: lanes on neighbouring columns, FUSED_COLUMN_OUTPUTS rows each, read straight down the
 * ring (an even chunk is stored twice, so no window wraps: no address arithmetic per load).
 * Measured on the H100, Gaussian 31x31: 33% of copy with scalar copies and loads, run-time tap
 * tests and weights indexed in constant memory; 55% with the weights as parameters and float4
 * windows; 66% with float4 copies too; 69% with each thread's copy addresses worked out once
 * (chunk_copier). */
enum {
    STRIP_COLS = FUSED_STRIP_COLS,
    CHUNK_ROWS = FUSED_CHUNK_ROWS,
    RING_ROWS = FUSED_RING_ROWS,         /* slots 0 and 1, then slot 0 again (even chunks) */
    FUSED_ROW_OUTPUTS = 16,              /* 8 warps x 16 = STRIP_COLS */
    FUSED_COLUMN_OUTPUTS = 16,           /* 2 groups x 16 = CHUNK_ROWS */
    IN_PITCH = FUSED_IN_PITCH,           /* 164: room for the float4 windows, 4 modulo 32 */
    RING_PITCH = FUSED_RING_PITCH,       /* 132 */
    TERMS_PER_LAUNCH = FUSED_MAX_TERMS,  /* their rings and the input chunks fill 194 KB */
    IN_FLOATS = FUSED_IN_FLOATS,
    RING_FLOATS = FUSED_RING_FLOATS
};
static_assert(RING_ROWS == 3 * CHUNK_ROWS && STRIP_COLS == 8 * FUSED_ROW_OUTPUTS &&
                  CHUNK_ROWS == 2 * FUSED_COLUMN_OUTPUTS,
              "variant_choice.h's shapes are the kernel's");

/* The weights of up to TERMS_PER_LAUNCH terms, 0 past the mask's sides. */
struct fused_weights {
    float row[TERMS_PER_LAUNCH][32], col[TERMS_PER_LAUNCH][32];
};

/* sum[p] = sum_j w[j] * window[p + j], j < TAPS (a multiple of 4), the window fetched four at a
 * time by fetch4(q, dst) (window[4q .. 4q + 3]) just before the first group of taps needing it:
 * about OUTPUTS + 8 of its registers are live at once. */
template <int OUTPUTS, int TAPS, class Fetch4>
__device__ __forceinline__ void slide_groups(const float (&w)[32], Fetch4 fetch4,
                                             float (&sum)[OUTPUTS]) {
    float window[OUTPUTS + TAPS];
#pragma unroll
    for (int q = 0; q < OUTPUTS / 4; ++q)
        fetch4(q, &window[4 * q]);
#pragma unroll
    for (int p = 0; p < OUTPUTS; ++p)
        sum[p] = 0.0f;
#pragma unroll
    for (int g = 0; g < TAPS / 4; ++g) {
        fetch4(OUTPUTS / 4 + g, &window[OUTPUTS + 4 * g]);
#pragma unroll
        for (int j = 4 * g; j < 4 * g + 4; ++j)
#pragma unroll
            for (int p = 0; p < OUTPUTS; ++p)
                sum[p] = fmaf(w[j], window[p + j], sum[p]);
    }
}

/* A strip's input rows start LEAD columns left of its first output, a multiple of 4 at least
 * mask_w / 2 for every mask of the bucket: rows copy as aligned float4s and windows read them
 * as float4s. The row pass then takes 2 x LEAD taps, its weights moved right by LEAD - mask_w / 2
 * (the host does it) and zeros around them. */
__host__ __device__ constexpr int fused_lead(int max_w) {
    return max_w / 2 < 4 ? 4 : max_w / 2;
}

/* A thread's share of copying the strip's input chunks into shared memory, chunk after chunk:
 * where each of its float4s comes from is worked out once, and each chunk moves the rows down
 * (the kernel is bound by instruction issue: redoing the addresses per chunk cost 5% of its time
 * at 31x31 on the H100).
 * Zeros outside the image and below the rows the segment reads (a zero weight must meet a
 * finite input). */
template <int LEAD>
struct chunk_copier {
    static constexpr int ROW_FLOAT4S = (STRIP_COLS + 2 * LEAD) / 4;
    static constexpr int COPIES = (CHUNK_ROWS * ROW_FLOAT4S + 255) / 256;
    const float *image;         /* a valid address for the copies that read nothing */
    const char *source[COPIES]; /* the float4 in the next chunk's row */
    int row[COPIES];            /* that row of the image */
    int count[COPIES];          /* floats of the float4 inside the image's width, 0 to 4 */
    int target[COPIES];         /* its place in a chunk of shared memory */
    int row_end;                /* the rows from here on are past the image or the segment */
    size_t chunk_bytes;

    __device__ __forceinline__ chunk_copier(const float *in, size_t pitch, int width, int height,
                                            int first_row, int first_col, int needed_rows)
        : image(in), row_end(min(height, first_row + needed_rows)),
          chunk_bytes(CHUNK_ROWS * pitch) {
#pragma unroll
        for (int i = 0; i < COPIES; ++i) {
            const int e = threadIdx.x + 256 * i, r = e / ROW_FLOAT4S, c = 4 * (e % ROW_FLOAT4S);
            const int x = first_col + c;
            row[i] = first_row + r;
            count[i] = x >= 0 && r < CHUNK_ROWS ? min(4, max(0, width - x)) : 0;
            target[i] = r < CHUNK_ROWS ? r * IN_PITCH + c : -1; /* -1: past the chunk, no copy */
            source[i] = (const char *)in + (ptrdiff_t)row[i] * (ptrdiff_t)pitch + 4 * (ptrdiff_t)x;
        }
    }

    /* The next chunk into s. */
    __device__ __forceinline__ void request(float *s) {
#pragma unroll
        for (int i = 0; i < COPIES; ++i) {
            const bool inside = row[i] >= 0 && row[i] < row_end;
            const int n = inside ? count[i] : 0;
            if (COPIES * 256 == CHUNK_ROWS * ROW_FLOAT4S || target[i] >= 0)
                copy4_or_zero_async(s + target[i], n ? (const float *)source[i] : image, n);
            row[i] += CHUNK_ROWS;
            source[i] += chunk_bytes;
        }
    }
};

/* Two blocks per SM: one term's input chunks and ring take 91 KB of shared memory, so no more
 * fit, and the bound leaves the compiler up to 128 registers (it takes about 96). */
template <int MAX_W, int MAX_H>
__global__ void __launch_bounds__(256, 2)
    fused_kernel(const float *in, float *out, size_t pitch, int width, int height, int mask_w,
                 int mask_h, int terms, int accumulate,
                 const __grid_constant__ struct fused_weights weights) {
    extern __shared__ __align__(16) float shared[];
    float *s_in = shared, *ring = shared + IN_FLOATS;
    /* the grid's rows of blocks share the image's chunks evenly (fused_segments: none is empty) */
    const int image_chunks = (height + CHUNK_ROWS - 1) / CHUNK_ROWS;
    const int segment_rows = CHUNK_ROWS * ((image_chunks + gridDim.y - 1) / gridDim.y);
    const int x0 = blockIdx.x * STRIP_COLS, seg0 = blockIdx.y * segment_rows;
    const int seg_rows = min(segment_rows, height - seg0);
    constexpr int LEAD = fused_lead(MAX_W);
    const int first_row = seg0 - mask_h / 2, first_col = x0 - LEAD;
    const int out_chunks = (seg_rows + CHUNK_ROWS - 1) / CHUNK_ROWS, in_chunks = out_chunks + 1;
    const int needed_rows = seg_rows + mask_h - 1; /* input rows the segment's outputs read */
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int col = threadIdx.x % STRIP_COLS, group = threadIdx.x / STRIP_COLS;

    chunk_copier<LEAD> copier(in, pitch, width, height, first_row, first_col, needed_rows);
    copier.request(s_in);
    async_commit();
    copier.request(s_in + CHUNK_ROWS * IN_PITCH);
    async_commit();
    for (int c = 0; c < in_chunks; ++c) {
        float *chunk = s_in + (c % 2) * CHUNK_ROWS * IN_PITCH;
        async_wait<1>(); /* chunk c is in; c + 1 may still fly */
        __syncthreads(); /* ... for every thread; and the ring rows of chunk c - 2 are free */
        const float *row_source = chunk + lane * IN_PITCH + warp * FUSED_ROW_OUTPUTS;
        const int ring_row = ((c % 2) * CHUNK_ROWS + lane) * RING_PITCH + warp * FUSED_ROW_OUTPUTS;
#pragma unroll
        for (int t = 0; t < TERMS_PER_LAUNCH; ++t) {
            if (t >= terms) break;
            float sum[FUSED_ROW_OUTPUTS];
            slide_groups<FUSED_ROW_OUTPUTS, 2 * LEAD>(
                weights.row[t], [&](int q, float *dst) {
                    const float4 v = *(const float4 *)(row_source + 4 * q);
                    dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
                }, sum);
            float *target = ring + t * RING_FLOATS + ring_row;
#pragma unroll
            for (int q = 0; q < FUSED_ROW_OUTPUTS / 4; ++q) {
                const float4 v =
                    make_float4(sum[4 * q], sum[4 * q + 1], sum[4 * q + 2], sum[4 * q + 3]);
                *(float4 *)(target + 4 * q) = v;
                /* an even chunk also goes after the odd one: windows never wrap */
                if (c % 2 == 0) *(float4 *)(target + 2 * CHUNK_ROWS * RING_PITCH + 4 * q) = v;
            }
        }
        __syncthreads(); /* ring rows of chunk c are in; s_in[c % 2] is free */
        if (c + 2 < in_chunks)
            copier.request(chunk);
        async_commit(); /* an empty group near the end keeps the count async_wait relies on */
        if (c == 0) continue;
        /* output rows seg0 + o .. o + 15 read FUSED_COLUMN_OUTPUTS + MAX_H - 1 ring rows from
         * `first` on, straight down (taps past mask_h weigh 0; their rows hold row-passed zeros
         * or finite leftovers) */
        const int o = (c - 1) * CHUNK_ROWS + group * FUSED_COLUMN_OUTPUTS;
        const int first = ((c - 1) % 2) * CHUNK_ROWS + group * FUSED_COLUMN_OUTPUTS;
        float total[FUSED_COLUMN_OUTPUTS];
#pragma unroll
        for (int t = 0; t < TERMS_PER_LAUNCH; ++t) {
            if (t >= terms) break;
            const float *source = ring + t * RING_FLOATS + first * RING_PITCH + col;
            float sum[FUSED_COLUMN_OUTPUTS];
            slide_groups<FUSED_COLUMN_OUTPUTS, MAX_H>(
                weights.col[t], [&](int q, float *dst) {
#pragma unroll
                    for (int k = 0; k < 4; ++k)
                        dst[k] = source[(4 * q + k) * RING_PITCH];
                }, sum);
            /* the term's sum first, then added: the rounding the tolerance assumes */
#pragma unroll
            for (int q = 0; q < FUSED_COLUMN_OUTPUTS; ++q)
                total[q] = t == 0 ? sum[q] : total[q] + sum[q];
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
                         size_t pitch, int width, int height, int mask_w, int mask_h, int terms,
                         int accumulate, const struct fused_weights *weights) {
    static size_t configured; /* the most dynamic shared memory a launch has asked so far */
    if (shared_bytes > configured) {
        CUDA_CHECK(cudaFuncSetAttribute(fused_kernel<MAX_W, MAX_H>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)shared_bytes));
        configured = shared_bytes;
    }
    fused_kernel<MAX_W, MAX_H><<<blocks, 256, shared_bytes>>>(
        d_in, d_out, pitch, width, height, mask_w, mask_h, terms, accumulate, *weights);
}

template <int MAX_W>
static void launch_fused_for_width(dim3 blocks, size_t shared_bytes, const float *d_in,
                                   float *d_out, size_t pitch, int width, int height, int mask_w,
                                   int mask_h, int terms, int accumulate,
                                   const struct fused_weights *weights) {
    switch (window_bound(mask_h)) {
    case 4:
        launch_fused<MAX_W, 4>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                               mask_h, terms, accumulate, weights);
        break;
    case 8:
        launch_fused<MAX_W, 8>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                               mask_h, terms, accumulate, weights);
        break;
    case 16:
        launch_fused<MAX_W, 16>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                                mask_h, terms, accumulate, weights);
        break;
    case 24:
        launch_fused<MAX_W, 24>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                                mask_h, terms, accumulate, weights);
        break;
    default:
        launch_fused<MAX_W, 32>(blocks, shared_bytes, d_in, d_out, pitch, width, height, mask_w,
                                mask_h, terms, accumulate, weights);
    }
}

template <int MAX_W> static const void *fused_kernel_for_height(int mask_h) {
    switch (window_bound(mask_h)) {
    case 4: return (const void *)fused_kernel<MAX_W, 4>;
    case 8: return (const void *)fused_kernel<MAX_W, 8>;
    case 16: return (const void *)fused_kernel<MAX_W, 16>;
    case 24: return (const void *)fused_kernel<MAX_W, 24>;
    default: return (const void *)fused_kernel<MAX_W, 32>;
    }
}

/* The fused kernel a mask's launch runs: the buckets of its width and height. */
static const void *fused_kernel_for(int mask_w, int mask_h) {
    switch (window_bound(mask_w)) {
    case 4: return fused_kernel_for_height<4>(mask_h);
    case 8: return fused_kernel_for_height<8>(mask_h);
    case 16: return fused_kernel_for_height<16>(mask_h);
    case 24: return fused_kernel_for_height<24>(mask_h);
    default: return fused_kernel_for_height<32>(mask_h);
    }
}

/* Terms one launch of the mask's fused kernel takes on this GPU (choose_fused_terms): three
 * where 194 KB of shared memory a block fit (sm_90), fewer elsewhere; 0, with the limit in why,
 * where not even one term's 92 672 bytes do (sm_75's 64 KiB). */
static int fused_terms_here(int mask_w, int mask_h, char *why, size_t size) {
    /* each bucket's kernel is asked once: no runtime query sits between a timed launch's events */
    static struct kernel_resources asked[33][33];
    static bool known[33][33];
    const int w = window_bound(mask_w), h = window_bound(mask_h);
    if (!known[w][h]) {
        asked[w][h] = kernel_resources_of(fused_kernel_for(mask_w, mask_h));
        known[w][h] = true;
    }
    return choose_fused_terms(gpu_limits_of_device(), &asked[w][h], why, size);
}

/* How many segments a strip is cut into. Each segment row-passes one chunk it outputs nothing
 * for, so long segments waste less; but they make fewer blocks, and the blocks run in waves of
 * those that fit at once, the last wave maybe part-full. Of segments of 256, 512 or 1024 rows,
 * the one whose waves x (rows + one chunk) is least; for the 32-tap window only, where that
 * chunk costs most (measured on the H100, Gaussian, 8192 x 8192: 31x31 69% of copy with 256
 * rows, 71% with 512, 72% with 1024; 15x15 87%, 85%, 84%). */
static int fused_segments(int width, int height, int mask_h, size_t shared_bytes) {
    static int shared_per_sm; /* of the one device a program uses, asked once */
    if (!shared_per_sm) {
        int device;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm,
                                          cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    }
    const int sms = sm_count();
    const long per_sm = shared_per_sm / (long)(shared_bytes + 1024); /* 1 KB the driver keeps */
    const long resident = (long)sms * (per_sm < 1 ? 1 : per_sm > 2 ? 2 : per_sm);
    const long strips = (width + STRIP_COLS - 1) / STRIP_COLS;
    int best = (height + 255) / 256;
    if (window_bound(mask_h) < 32) return best;
    long best_cost = -1;
    for (int rows = 256; rows <= 1024; rows *= 2) {
        const int segments = (height + rows - 1) / rows;
        const long waves = (strips * segments + resident - 1) / resident;
        const long cost = waves * ((rows < height ? rows : height) + CHUNK_ROWS);
        if (best_cost < 0 || cost < best_cost) best_cost = cost, best = segments;
    }
    return best;
}

const char *fused_refuses(int mask_w, int mask_h) {
    static char why[256];
    return fused_terms_here(mask_w, mask_h, why, sizeof why) ? NULL : why;
}

void fused_set_mask(const float *h_mask, int mask_w, int mask_h) {
    separable_plan(h_mask, mask_w, mask_h);
}

/* Up to TERMS_PER_LAUNCH terms per launch (their rings fill shared memory), fewer where the GPU
 * has less (fused_terms_here); a mask of higher rank takes several launches, the later ones
 * adding to the output. */
void fused_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block) {
    (void)block;
    const struct mask_factors *f = &plan.factors;
    if (!plan.valid || f->mask_w != mask_w || f->mask_h != mask_h || width < 1 || height < 1)
        wb_die(WB_EXIT_USAGE, "fused_launch: bad arguments %dx%d, mask %dx%d (set: %s)", width,
               height, mask_w, mask_h, plan.valid ? "another size" : "none");
    /* the float4 copies need 16-byte aligned rows; cudaMallocPitch gives far more */
    if (pitch % 16 || (size_t)d_in % 16)
        wb_die(WB_EXIT_USAGE, "fused_launch: rows must be 16-byte aligned (pitch %zu)", pitch);
    const int terms = pass_terms(f);
    char why[256];
    const int per_launch = fused_terms_here(mask_w, mask_h, why, sizeof why);
    if (!per_launch) wb_die(WB_EXIT_USAGE, "fused_launch: %s", why);
    for (int term0 = 0; term0 < terms; term0 += per_launch) {
        const int count = terms - term0 < per_launch ? terms - term0 : per_launch;
        const size_t shared_bytes = (IN_FLOATS + (size_t)count * RING_FLOATS) * sizeof(float);
        const dim3 blocks((width + STRIP_COLS - 1) / STRIP_COLS,
                          fused_segments(width, height, mask_h, shared_bytes));
        const int accumulate = term0 > 0;
        struct fused_weights weights;
        memset(&weights, 0, sizeof weights);
        const int shift = fused_lead(window_bound(mask_w)) - mask_w / 2;
        for (int t = 0; t < count && term0 + t < f->rank; ++t) {
            for (int j = 0; j < mask_w; ++j)
                weights.row[t][shift + j] = f->row[term0 + t][j];
            for (int i = 0; i < mask_h; ++i)
                weights.col[t][i] = f->col[term0 + t][i];
        }
        switch (window_bound(mask_w)) {
        case 4:
            launch_fused_for_width<4>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                      mask_w, mask_h, count, accumulate, &weights);
            break;
        case 8:
            launch_fused_for_width<8>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                      mask_w, mask_h, count, accumulate, &weights);
            break;
        case 16:
            launch_fused_for_width<16>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                       mask_w, mask_h, count, accumulate, &weights);
            break;
        case 24:
            launch_fused_for_width<24>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                       mask_w, mask_h, count, accumulate, &weights);
            break;
        default:
            launch_fused_for_width<32>(blocks, shared_bytes, d_in, d_out, pitch, width, height,
                                       mask_w, mask_h, count, accumulate, &weights);
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
 * DIRECT_LARGE_MIN_TAPS (it beat direct_large at 13x13 on the H100), direct_large elsewhere
 * (faster from 15x15; chapter 06 falls back to a naive kernel for sizes it lacks). */
static int use_direct_large(int mask_w, int mask_h) {
    return !prefetch_has_variants(mask_w, mask_h) || mask_w * mask_h >= DIRECT_LARGE_MIN_TAPS;
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
