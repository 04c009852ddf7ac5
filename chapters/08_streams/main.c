/* main.c: chapter 08's driver, images that live in host memory: the copies to and from the
 * GPU, pinned memory, streams that overlap copies with kernels, and images larger than the
 * GPU, in strips.
 *
 *   strips   build/ch08_streams --bench --size 8192x8192 --mask-width 5 --gpu-memory-budget 64
 *   yours    build/ch08_streams_exercise --check (or: make check CH=08)
 *   forced   build/ch08_streams --check --strip-rows 1,7,64 --streams 1,2,3 --size 1000x777
 *   batch    build/ch08_streams --batch 32 --size 4096x4096 --mask-width 5 --streams 1,2,3,4
 *   folder   build/ch08_streams --input-dir data/images --output-dir build/out/blurred
 *
 * Strips (the default): the harness checks and times "ch08 strips" (your strip loop, one
 * variant per --strip-rows x --streams), the reference loop (when grading), "ch08 one pass"
 * (the whole image up, computed, down, one step after the other), then the kernel alone on an
 * image already on the GPU and chapter 05's naive kernel. In run and bench modes each strip
 * set-up and the one pass run once more with their steps marked: the stage times, the ideal
 * pipelined time and the efficiency follow the table, and the first strip set-up's text
 * timeline.
 * Batch (--batch or --input-dir): batch.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "conv2d_harness.h"
#include "conv2d_naive.h"
#include "conv2d_tiled.h"
#include "cuda_check.h"
#include "harness.h"
#include "image_io.h"
#include "pipelines.h"
#include "safe_output.h"
#include "strips.h"
#include "streams_cli.h"
#include "timeline.h"
#include "transfers.h"
#include "tuner.h"

WB_EARLIER(conv2d_naive_launch);
WB_EARLIER(conv2d_naive_set_mask);
WB_EARLIER(conv2d_tiled_launch);
WB_EARLIER(conv2d_tiled_set_mask);
WB_SOLUTION_OF(strips_run);

enum { TIMELINE_COLUMNS = 72 };

/* ---- checks that need no GPU ---------------------------------------------------------------- */

static void check_output_dir(const char *dir, const char *input_dir) {
    struct stat st, in;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            wb_die(WB_EXIT_USAGE, "--output-dir '%s' is a file, not a folder", dir);
        if (input_dir && stat(input_dir, &in) == 0 && in.st_dev == st.st_dev &&
            in.st_ino == st.st_ino)
            wb_die(WB_EXIT_USAGE, "--output-dir '%s' is --input-dir: the results would replace "
                   "the images", dir);
        return;
    }
    /* Made when the results are written (batch.cu), so a run that stops first leaves nothing:
     * here only its folder must exist and take a new entry. */
    char parent[4096];
    const size_t length = strlen(dir);
    if (errno != ENOENT || length >= sizeof parent)
        wb_die(WB_EXIT_USAGE, "--output-dir '%s': cannot use it: %s", dir,
               length >= sizeof parent ? "too long a path" : strerror(errno));
    memcpy(parent, dir, length + 1);
    char *slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, sizeof parent, ".");
    else if (slash == parent) parent[1] = '\0';
    else *slash = '\0';
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode) || access(parent, W_OK | X_OK) != 0)
        wb_die(WB_EXIT_USAGE, "--output-dir '%s': its folder '%s' does not exist or cannot be "
               "written", dir, parent);
}

/* The budget must hold one strip of each image and mask (and each forced strip height). */
static void check_budget(const struct chapter_options *o, int width, int height,
                         const struct mask *masks, int mask_count) {
    /* an input of no image's shape: loading it says why, still before the GPU */
    if (o->budget_mib <= 0.0 || width < 1 || height < 1) return;
    const size_t budget = (size_t)(o->budget_mib * 1048576.0);
    for (int m = 0; m < mask_count; ++m) {
        size_t minimum;
        if (strips_rows_for(budget, width, height, masks[m].height, o->buffers, &minimum) < 1)
            wb_die(WB_EXIT_USAGE,
                   "--gpu-memory-budget %g MiB is too small for a %dx%d image and a mask %d rows "
                   "tall: %d buffer%s of one row and its halo need at least %.3f MiB",
                   o->budget_mib, width, height, masks[m].height, o->buffers,
                   o->buffers == 1 ? "" : "s", minimum / 1048576.0);
        for (int k = 0; k < o->strip_row_count; ++k) {
            int rows = o->strip_rows[k] < height ? o->strip_rows[k] : height;
            size_t needed = strips_bytes(width, rows, masks[m].height, o->buffers);
            if (needed > budget)
                wb_die(WB_EXIT_USAGE,
                       "--strip-rows %d needs %.3f MiB for a %d-wide image and a mask %d rows "
                       "tall, over the budget of %g MiB",
                       o->strip_rows[k], needed / 1048576.0, width, masks[m].height,
                       o->budget_mib);
        }
    }
}

static void input_size(const char *path, int *width, int *height) {
    char err[WB_ERR_LEN];
    if (cli_has_extension(path, ".npy")) {
        float *data;
        int ndim;
        size_t shape[NPY_MAX_DIMS];
        if (npy_load_f32(path, &data, &ndim, shape, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        free(data);
        int fits =
            ndim >= 2 && shape[ndim - 1] <= IMAGE_MAX_DIM && shape[ndim - 2] <= IMAGE_MAX_DIM;
        *width = fits ? (int)shape[ndim - 1] : 0;
        *height = fits ? (int)shape[ndim - 2] : 0;
        return;
    }
    struct image img;
    if (image_load_png(path, &img, err)) wb_die(WB_EXIT_USAGE, "%s", err);
    *width = img.width;
    *height = img.height;
    image_free(&img);
}

/* ---- the report after each image and mask (run and bench modes) ---------------------------- */

struct report {
    FILE *out;
    int bench;
    int one_pass; /* record the one pass too: the whole image was on the GPU, so it fits */
    const int *slots;
    int slot_count;
    struct stage_marks *marks;
    struct timeline_run runs[4 * CLI_MAX_VALUES];
    int run_count;
    float *h_in, *h_out; /* pinned, for the recorded runs */
    size_t bytes;
    int block;
};

/* The median the harness timed for the variant that runs `launch` (no marks), or 0. */
static double timed_ms(conv2d_host_launch_fn launch, const struct conv2d_variant *list,
                       int count, const struct variant_result *results) {
    for (int k = 0; k < count; ++k)
        if (list[k].host_launch == launch && results[k].passed) return results[k].time.median_ms;
    return 0.0;
}

static void record_one(struct report *r, int slot, const char *label, int width, int height,
                       const struct mask *mask, const struct link_rates *link, double measured_ms,
                       struct pipeline_summary *summary) {
    pipelines_record(slot, r->marks, r->h_in, r->h_out, (size_t)width * sizeof(float), width,
                     height, mask->width, mask->height, r->block);
    const struct span *spans;
    int count = marks_read(r->marks, &spans);
    pipeline_model(spans, count, link, measured_ms, summary);
    fprintf(r->out, "  %-22s %10.3f %10.3f %10.3f %10.3f %10.3f %5.1f%%\n", label,
            summary->measured_ms, summary->busy_ms[STAGE_UPLOAD],
            summary->busy_ms[STAGE_COMPUTE], summary->busy_ms[STAGE_DOWNLOAD],
            summary->ideal_ms, 100.0 * summary->efficiency);
    if (r->run_count < (int)(sizeof r->runs / sizeof *r->runs)) {
        struct span *copy = host_malloc(sizeof *spans * (count ? count : 1), "spans");
        memcpy(copy, spans, sizeof *spans * count);
        char *name = host_malloc(strlen(label) + 48, "a label");
        sprintf(name, "%s, %dx%d, mask %dx%d", label, width, height, mask->width, mask->height);
        r->runs[r->run_count++] =
            (struct timeline_run){name, copy, count, summary->measured_ms, summary->ideal_ms};
    }
    if (slot == r->slots[0]) timeline_print(r->out, spans, count, TIMELINE_COLUMNS);
}

static void report_results(void *context, int width, int height, int planes,
                           const struct mask *mask, const struct conv2d_variant *list, int count,
                           const struct variant_result *results, double copy_gbps) {
    (void)copy_gbps, (void)planes;
    struct report *r = context;
    if (!r->bench) return;
    const size_t bytes = (size_t)width * height * sizeof(float);
    if (bytes > r->bytes) {
        if (r->h_in) CUDA_CHECK(cudaFreeHost(r->h_in));
        if (r->h_out) CUDA_CHECK(cudaFreeHost(r->h_out));
        CUDA_CHECK(cudaHostAlloc((void **)&r->h_in, bytes, cudaHostAllocDefault));
        CUDA_CHECK(cudaHostAlloc((void **)&r->h_out, bytes, cudaHostAllocDefault));
        r->bytes = bytes;
    }
    memset(r->h_in, 0x3f, bytes); /* timing does not depend on the values */
    if (!r->marks) r->marks = marks_create(); /* the GPU is open by now */
    struct transfer_rates rates; /* at most 256 MiB: the image need not fit on the GPU */
    transfer_rates_measure(bytes < ((size_t)256 << 20) ? bytes : (size_t)256 << 20, 10, &rates);
    const struct link_rates link = transfer_link(&rates);
    double bound_ms = bytes / (rates.pinned_h2d * 1e6) + bytes / (rates.pinned_d2h * 1e6);
    fprintf(r->out, "  one plane in host memory, %.1f MiB; copies of %.1f MiB: pinned up %.1f "
                    "GB/s, down %.1f GB/s, both ways at once %.1f GB/s each (pageable %.1f, %.1f), "
                    "pinning them %.2f ms; the plane's round trip alone takes %.3f ms\n",
            bytes / 1048576.0, rates.bytes / 1048576.0, rates.pinned_h2d, rates.pinned_d2h,
            rates.pinned_both, rates.pageable_h2d, rates.pageable_d2h, rates.pin_ms, bound_ms);
    fprintf(r->out, "  %-22s %10s %10s %10s %10s %10s %6s\n", "mode", "total ms", "upload",
            "compute", "download", "ideal ms", "eff.");
    struct pipeline_summary one_pass, summary;
    if (r->one_pass)
        record_one(r, PIPELINES_ONE_PASS, "ch08 one pass", width, height, mask, &link,
                   timed_ms(pipelines_one_pass, list, count, results), &one_pass);
    for (int k = 0; k < r->slot_count; ++k) {
        char label[48];
        snprintf(label, sizeof label, "strips %d rows, %d str.",
                 pipelines_rows(r->slots[k], width, height, mask->height),
                 pipelines_streams(r->slots[k]));
        record_one(r, r->slots[k], label, width, height, mask, &link,
                   timed_ms(pipelines_strips_launch(r->slots[k]), list, count, results),
                   &summary);
    }
    fprintf(r->out, "  (total: the median in the table above; stage columns: busy ms of one run "
                    "with marks around every step, drawn above; ideal: the slowest stage's total "
                    "plus one strip's time in the others, copies at each direction's pinned "
                    "rate alone, which copies both ways at once do not reach)\n");
}

/* ---- the program ---------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    struct chapter_options o;
    struct cli_spec spec = streams_cli_spec(&o); /* the 2D options and chapter 08's own */
    struct cli_options opt;
    if (harness_start(argc, argv, &spec, BLOCK_ANY, &opt) == 1) return WB_EXIT_PASS;
    if (!o.stream_count) o.streams[o.stream_count++] = 3;
    char err[WB_ERR_LEN];
    long delay_us[3];
    if (o.timeline && safe_output_check(o.timeline, err))
        wb_die(WB_EXIT_USAGE, "--timeline %s", err);
    if (strips_delay_us(delay_us, err)) wb_die(WB_EXIT_USAGE, "%s", err);

    const struct compute_step ch06 = {"ch06 tuned", tuned_set_mask, tuned_launch, BLOCK_ANY};
    const struct compute_step ch05 = {"ch05 tiled", conv2d_tiled_set_mask, conv2d_tiled_launch,
                                      BLOCK_COVERS_MASK};
    if (o.use_ch05 && !ch05.launch) /* absent only in a student's copy (WB_EARLIER) */
        wb_die(WB_EXIT_USAGE, "--kernel ch05: chapter 05's tiled kernel is not linked here");
    const struct compute_step *compute = o.use_ch05 ? &ch05 : &ch06;
    char path[1024];
    tuned_file_path(argv[0], path, sizeof path);
    FILE *human = opt.json ? stderr : stdout;

    /* Batch mode: its own checks, then batch.c. */
    const int batch = o.batch || o.input_dir;
    if (batch) {
        if (o.input_dir && (o.batch || opt.input_count || opt.size_count > 1))
            wb_die(WB_EXIT_USAGE, "--input-dir brings its own images: drop --batch, --input and "
                   "--size");
        if (opt.input_count) wb_die(WB_EXIT_USAGE, "--batch makes random images: drop --input");
        if (opt.output) wb_die(WB_EXIT_USAGE, "batch mode writes to --output-dir, not --output");
        if (o.strip_row_count || o.budget_mib > 0.0)
            wb_die(WB_EXIT_USAGE, "--strip-rows and --gpu-memory-budget are for one image in "
                   "strips, not for a batch");
        if (opt.size_count > 1) wb_die(WB_EXIT_USAGE, "--batch takes one --size");
        if (opt.block_count > 1) wb_die(WB_EXIT_USAGE, "batch mode takes one --block");
        struct batch *images = host_malloc(sizeof *images, "the batch");
        batch_load(images, o.input_dir, o.batch, (int)opt.sizes[0].width,
                   (int)opt.sizes[0].height, opt.seed);
        if (o.output_dir) check_output_dir(o.output_dir, o.input_dir); /* inputs are fine */
        if (o.timeline && safe_output_check(o.timeline, err)) /* now against the folder too */
            wb_die(WB_EXIT_USAGE, "--timeline %s", err);
        if (!o.use_ch05) tuned_configure(path, human);
        struct batch_settings settings = {compute,      o.streams,  o.stream_count,
                                          o.output_dir, o.timeline, opt.block,
                                          TIMELINE_COLUMNS};
        int rc = batch_run(images, &settings, &spec, &opt);
        batch_free(images);
        free(images);
        return rc;
    }
    if (o.output_dir) wb_die(WB_EXIT_USAGE, "--output-dir goes with --batch or --input-dir");

    /* Strips: the budget must hold a strip of every image with every mask, checked now. */
    struct cli_options one = opt;
    for (int k = 0; k < opt.mask_kind_count; ++k) {
        int mask_count;
        one.mask_kind = opt.mask_kinds[k];
        struct mask *masks = harness_make_masks(&spec, &one, &mask_count);
        for (int s = 0; s < opt.size_count; ++s)
            check_budget(&o, (int)opt.sizes[s].width, (int)opt.sizes[s].height, masks,
                         mask_count);
        for (int i = 0; i < opt.input_count; ++i) {
            int width, height;
            input_size(opt.inputs[i], &width, &height);
            check_budget(&o, width, height, masks, mask_count);
        }
        for (int m = 0; m < mask_count; ++m)
            mask_free(&masks[m]);
        free(masks);
    }
    /* one slot per set-up, and one for the reference loop when it is linked (grading) */
    const int setups = (o.strip_row_count ? o.strip_row_count : 1) * o.stream_count;
    if (setups > PIPELINES_MAX_SLOTS - 1)
        wb_die(WB_EXIT_USAGE, "--strip-rows x --streams: %d set-ups, at most %d in one run",
               setups, PIPELINES_MAX_SLOTS - 1);
    pipelines_configure(compute, (size_t)(o.budget_mib * 1048576.0), o.buffers);

    /* The kernels: a strips variant per set-up (yours), the reference's, the one pass, the
     * kernel alone and the naive baseline. */
    struct conv2d_variant kernels[PIPELINES_MAX_SLOTS + 4];
    int slots[PIPELINES_MAX_SLOTS], slot_count = 0, count = 0;
    const int row_choices = o.strip_row_count ? o.strip_row_count : 1;
    for (int r = 0; r < row_choices; ++r)
        for (int s = 0; s < o.stream_count; ++s) {
            int slot = pipelines_add_strips(strips_run, o.strip_row_count ? o.strip_rows[r] : 0,
                                            o.streams[s]);
            char *label = host_malloc(32, "a label");
            if (o.strip_row_count)
                snprintf(label, 32, "strips r=%d s=%d", o.strip_rows[r], o.streams[s]);
            else
                snprintf(label, 32, "ch08 strips s=%d", o.streams[s]);
            slots[slot_count++] = slot;
            kernels[count++] = (struct conv2d_variant){.label = label,
                                                       .set_mask = pipelines_strips_set_mask(slot),
                                                       .host_launch = pipelines_strips_launch(slot),
                                                       .block_rule = compute->block_rule};
        }
    if (wb_solution_strips_run) {
        int slot = pipelines_add_strips(wb_solution_strips_run,
                                        o.strip_row_count ? o.strip_rows[0] : 0, o.streams[0]);
        kernels[count++] = (struct conv2d_variant){.label = "solution",
                                                   .set_mask = pipelines_strips_set_mask(slot),
                                                   .host_launch = pipelines_strips_launch(slot),
                                                   .block_rule = compute->block_rule,
                                                   .solution = 1};
    }
    kernels[count++] = (struct conv2d_variant){.label = "ch08 one pass",
                                               .set_mask = pipelines_set_mask,
                                               .host_launch = pipelines_one_pass,
                                               .block_rule = compute->block_rule,
                                               .comparison = 1};
    kernels[count++] = (struct conv2d_variant){.label = compute->label,
                                               .set_mask = compute->set_mask,
                                               .launch = compute->launch,
                                               .block_rule = compute->block_rule,
                                               .comparison = 1};
    kernels[count++] = (struct conv2d_variant){.label = "naive global",
                                               .set_mask = conv2d_naive_set_mask,
                                               .launch = conv2d_naive_launch,
                                               .comparison = 1};
    if (!o.use_ch05) tuned_configure(path, human);
    struct report report = {.out = human,
                            .bench = opt.mode != CLI_MODE_CHECK, /* on stderr with --json */
                            .one_pass = !opt.own_kernels,
                            .slots = slots,
                            .slot_count = slot_count,
                            .block = opt.block};
    struct conv2d_observer observer = {.results = report_results, .context = &report};
    int rc = conv2d_run(&spec, &opt, kernels, count, &observer);
    if (o.timeline && report.run_count) {
        if (timeline_write_csv(o.timeline, report.runs, report.run_count, err))
            wb_die(WB_EXIT_USAGE, "%s", err);
        fprintf(human, "wrote the timeline to %s\n", wb_shown(o.timeline));
    }
    for (int k = 0; k < report.run_count; ++k) {
        free((void *)report.runs[k].spans);
        free((void *)report.runs[k].mode);
    }
    if (report.h_in) CUDA_CHECK(cudaFreeHost(report.h_in));
    if (report.h_out) CUDA_CHECK(cudaFreeHost(report.h_out));
    marks_free(report.marks);
    pipelines_close();
    return rc;
}
