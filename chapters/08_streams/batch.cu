/* batch.cu: chapter 08's batch mode (batch.h).
 *
 * Each image goes up (host to GPU), through the kernel (one launch per colour plane) and back
 * down. The modes differ only in where the host copies live and which stream each step uses:
 *
 *   serial, pageable   the images as loaded; every step on the legacy stream, one after another
 *   serial, pinned     page-locked copies; still one stream, so still one step at a time
 *   pipelined, K       pinned; image i's copies on copy stream i % K with that stream's two GPU
 *                      buffers, its kernel on the compute stream behind an event that says its
 *                      upload landed, its download behind an event that says its kernel ended.
 *                      Image i + K reuses the buffers: its upload queues behind image i's
 *                      download on the same stream, so it cannot overwrite them too early.
 *                      Copies of one direction go one at a time, in the images' order: each
 *                      upload waits for the one before (another stream's), each download too.
 *                      Two uploads at once share the link's direction and both land late; the
 *                      ideal assumes one copy a direction at a time (measured: the lesson's
 *                      "Copies in order", a small gain inside the run-to-run spread).
 *
 * The modes are timed without marks, in rounds with the link's rates sampled between them
 * (time_modes), then each is run once more with marks around every step, for the timeline
 * (timeline.h): timing events around the copies slow them (an event pair per copy cost 21% at 4
 * streams on an H100). That last run's outputs, poisoned first, are checked against the CPU
 * reference, every image of every mode.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"
#include "cuda_check.h"
#include "data_gen.h"
#include "harness.h"
#include "reference.h"
#include "safe_output.h"
#include "transfers.h"

/* ---- the images ---------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *copy_text(const char *text) {
    char *copy = (char *)host_malloc(strlen(text) + 1, "a file name");
    strcpy(copy, text);
    return copy;
}

void batch_load(struct batch *b, const char *folder, int count, int width, int height,
                uint64_t seed) {
    char err[WB_ERR_LEN];
    memset(b, 0, sizeof *b);
    if (!folder) {
        for (int i = 0; i < count; ++i) {
            if (image_alloc(&b->images[i], width, height, 1, err)) wb_die(WB_EXIT_USAGE, "%s", err);
            fill_uniform(b->images[i].data, (size_t)width * height, seed + (uint64_t)i, 0.0f, 1.0f);
            b->convolved[i] = 1;
            char name[32];
            snprintf(name, sizeof name, "image_%04d.png", i);
            b->names[i] = copy_text(name);
        }
        b->count = count;
        return;
    }
    DIR *dir = opendir(folder);
    if (!dir)
        wb_die(WB_EXIT_USAGE, "--input-dir '%s': cannot open it: %s", folder, strerror(errno));
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (!cli_has_extension(entry->d_name, ".png")) continue;
        if (b->count == BATCH_MAX_IMAGES)
            wb_die(WB_EXIT_USAGE, "--input-dir '%s' holds more than %d PNG files", folder,
                   BATCH_MAX_IMAGES);
        b->names[b->count++] = copy_text(entry->d_name);
    }
    closedir(dir);
    if (b->count == 0) wb_die(WB_EXIT_USAGE, "--input-dir '%s' holds no .png file", folder);
    qsort(b->names, (size_t)b->count, sizeof *b->names, by_name);
    for (int i = 0; i < b->count; ++i) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, b->names[i]) >= sizeof path)
            wb_die(WB_EXIT_USAGE, "--input-dir: the path of '%s' is too long", b->names[i]);
        if (image_load_png(path, &b->images[i], err) || safe_output_protect(path, err))
            wb_die(WB_EXIT_USAGE, "%s", err);
        const struct image *img = &b->images[i];
        b->convolved[i] = img->has_alpha ? img->channels - 1 : img->channels;
    }
}

void batch_free(struct batch *b) {
    for (int i = 0; i < b->count; ++i) {
        image_free(&b->images[i]);
        free(b->names[i]);
    }
    b->count = 0;
}

/* ---- one mode ------------------------------------------------------------------------------- */

enum mode { SERIAL_PAGEABLE, SERIAL_PINNED, PIPELINED };

struct lane { /* one copy stream's GPU buffers and events */
    cudaStream_t stream;
    float *d_in, *d_out;
    cudaEvent_t uploaded, computed, downloaded;
};

struct run {
    const struct batch *b;
    const struct batch_settings *s;
    const struct mask *mask;
    struct lane lanes[STRIPS_MAX_STREAMS];
    const float **h_in[2];  /* per image: the pageable and the pinned inputs */
    float **h_out[2];       /* and outputs */
    struct stage_marks *marks;
    cudaEvent_t start, stop; /* around one run */
};

/* One run of a mode, with marks around every step where `marks` is given. Returns its time in
 * ms: events on the legacy stream, which the copy streams wait for at the start and the legacy
 * stream waits for at the end. */
static double run_mode(struct run *r, enum mode mode, int streams, struct stage_marks *marks) {
    const struct batch *b = r->b;
    const int pinned = mode != SERIAL_PAGEABLE;
    cudaStream_t legacy = cudaStreamLegacy;
    if (marks) marks_reset(marks);
    CUDA_CHECK(cudaEventRecord(r->start, legacy));
    for (int k = 0; k < streams && mode == PIPELINED; ++k)
        CUDA_CHECK(cudaStreamWaitEvent(r->lanes[k].stream, r->start, 0));
    for (int i = 0; i < b->count; ++i) {
        const struct image *img = &b->images[i];
        struct lane *lane = &r->lanes[mode == PIPELINED ? i % streams : 0];
        cudaStream_t copy = mode == PIPELINED ? lane->stream : legacy;
        const int index = mode == PIPELINED ? i % streams : 0, planes = b->convolved[i];
        const size_t row = (size_t)img->width * sizeof(float), pitch = strips_pitch(img->width);
        const size_t rows = (size_t)img->height * planes;
        /* the copy of this direction before this one: another stream's, to wait for */
        const struct lane *before = &r->lanes[(i + streams - 1) % streams];
        const int in_order = mode == PIPELINED && streams > 1 && i > 0;
        if (in_order) CUDA_CHECK(cudaStreamWaitEvent(copy, before->uploaded, 0));
        marks_begin(marks, i, STAGE_UPLOAD, index, (double)(row * rows), copy);
        CUDA_CHECK(cudaMemcpy2DAsync(lane->d_in, pitch, r->h_in[pinned][i], row, row, rows,
                                     cudaMemcpyHostToDevice, copy));
        marks_end(marks, copy);
        if (mode == PIPELINED) {
            CUDA_CHECK(cudaEventRecord(lane->uploaded, copy));
            CUDA_CHECK(cudaStreamWaitEvent(legacy, lane->uploaded, 0));
        }
        marks_begin(marks, i, STAGE_COMPUTE, -1, 0.0, legacy);
        for (int p = 0; p < planes; ++p) {
            const size_t plane = (size_t)p * img->height * pitch;
            r->s->compute->launch((const float *)((const char *)lane->d_in + plane),
                                  (float *)((char *)lane->d_out + plane), pitch, img->width,
                                  img->height, r->mask->width, r->mask->height, r->s->block);
        }
        marks_end(marks, legacy);
        if (mode == PIPELINED) {
            CUDA_CHECK(cudaEventRecord(lane->computed, legacy));
            CUDA_CHECK(cudaStreamWaitEvent(copy, lane->computed, 0));
            if (in_order) CUDA_CHECK(cudaStreamWaitEvent(copy, before->downloaded, 0));
        }
        marks_begin(marks, i, STAGE_DOWNLOAD, index, (double)(row * rows), copy);
        CUDA_CHECK(cudaMemcpy2DAsync(r->h_out[pinned][i], row, lane->d_out, pitch, row, rows,
                                     cudaMemcpyDeviceToHost, copy));
        marks_end(marks, copy);
        if (mode == PIPELINED) CUDA_CHECK(cudaEventRecord(lane->downloaded, copy));
    }
    for (int k = 0; k < streams && mode == PIPELINED; ++k) {
        CUDA_CHECK(cudaEventRecord(r->lanes[k].computed, r->lanes[k].stream));
        CUDA_CHECK(cudaStreamWaitEvent(legacy, r->lanes[k].computed, 0));
    }
    CUDA_CHECK(cudaEventRecord(r->stop, legacy));
    CUDA_CHECK(cudaEventSynchronize(r->stop));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, r->start, r->stop));
    return ms;
}

/* Every mode's time and the link's rates, in rounds: after a round to warm up, each of
 * BATCH_ROUNDS rounds runs every mode once without marks, then times one pinned copy each way
 * alone and one pair both ways at once (the probe). A mode's time and the rates are medians over
 * the rounds. Taken in turn so, a link that speeds up or slows down for a while (a host shared
 * with other machines: one H100 host's downloads once measured 38 GB/s alone, then ran at 55 in
 * the pipelines) moves the modes and their ideal together; measured apart, pipelines once ran at
 * 123% of an ideal that was meant to bound them. */
static struct link_sample time_modes(struct run *r, const enum mode *modes, const int *streams,
                                     int count, struct link_probe *probe, double *ms) {
    double(*runs)[BATCH_ROUNDS] =
        (double(*)[BATCH_ROUNDS])host_malloc(sizeof *runs * count, "the rounds' times");
    double up[BATCH_ROUNDS], down[BATCH_ROUNDS], both[BATCH_ROUNDS];
    for (int round = -1; round < BATCH_ROUNDS; ++round) {
        for (int k = 0; k < count; ++k) {
            const double t = run_mode(r, modes[k], streams[k], NULL);
            if (round >= 0) runs[k][round] = t;
        }
        const struct link_sample sample = link_probe_sample(probe);
        if (round >= 0)
            up[round] = sample.alone.up, down[round] = sample.alone.down, both[round] = sample.both;
    }
    for (int k = 0; k < count; ++k)
        ms[k] = timing_summary(runs[k], BATCH_ROUNDS).median_ms;
    free(runs);
    struct link_sample link = {{timing_summary(up, BATCH_ROUNDS).median_ms,
                                timing_summary(down, BATCH_ROUNDS).median_ms},
                               timing_summary(both, BATCH_ROUNDS).median_ms};
    return link;
}

/* Every image's output against its reference; the first mismatches of the first failing image
 * are listed. Returns the number of images that failed. */
static int verify_mode(const struct run *r, int pinned, float *const *refs,
                       float *const *magnitudes, const char *label, FILE *human) {
    int failed = 0;
    for (int i = 0; i < r->b->count; ++i) {
        const struct image *img = &r->b->images[i];
        struct verify_shape shape = {(size_t)img->width, (size_t)img->height, r->b->convolved[i]};
        struct verify_summary summary;
        if (verify_outputs(r->h_out[pinned][i], refs[i], magnitudes[i], shape,
                           r->mask->width * r->mask->height, failed ? 0 : HARNESS_MISMATCHES_LISTED,
                           failed ? NULL : human, &summary)) {
            if (!failed) fprintf(human, "  %s: %s does not match the CPU reference\n", label,
                                 r->b->names[i]);
            ++failed;
        }
    }
    return failed;
}

/* ---- the run --------------------------------------------------------------------------------- */

/* Image i's filtered planes in host memory, unpadded: what its copies move. */
static size_t plane_bytes(const struct batch *b, int i) {
    return (size_t)b->images[i].width * b->images[i].height * b->convolved[i] * sizeof(float);
}

static void write_outputs(const struct run *r, const char *folder) {
    char err[WB_ERR_LEN], path[4096];
    if (mkdir(folder, 0777) != 0 && errno != EEXIST) /* made now: main.c checked its folder */
        wb_die(WB_EXIT_USAGE, "--output-dir '%s': cannot make it: %s", folder, strerror(errno));
    for (int i = 0; i < r->b->count; ++i) {
        struct image out = r->b->images[i];
        const size_t plane = (size_t)out.width * out.height;
        const int planes = r->b->convolved[i];
        out.data = (float *)host_malloc(plane * out.channels * sizeof(float), "an output image");
        memcpy(out.data, r->h_out[1][i], plane * planes * sizeof(float));
        memcpy(out.data + plane * planes, r->b->images[i].data + plane * planes,
               plane * (out.channels - planes) * sizeof(float));
        snprintf(path, sizeof path, "%s/%s", folder, r->b->names[i]);
        int rc = image_save_png(path, &out, err);
        free(out.data);
        if (rc) wb_die(WB_EXIT_USAGE, "%s", err);
    }
}

struct row {
    char mode[40];
    struct pipeline_summary summary;
    struct span *spans;
    int count, failed;
};

static void record(struct row *row, struct stage_marks *marks, const struct link_rates *link,
                   double measured_ms) {
    const struct span *spans;
    row->count = marks_read(marks, &spans);
    row->spans = (struct span *)host_malloc(sizeof *spans * (row->count ? row->count : 1), "spans");
    memcpy(row->spans, spans, sizeof *spans * row->count);
    pipeline_model(row->spans, row->count, link, measured_ms, &row->summary);
}

static void print_table(FILE *out, const struct row *rows, int count) {
    const struct pipeline_summary *pinned = &rows[1].summary;
    fprintf(out, "  %-22s %10s %10s %10s %10s %10s %6s %9s\n", "mode", "total ms", "upload",
            "compute", "download", "ideal ms", "eff.", "vs serial");
    for (int k = 0; k < count; ++k) {
        const struct pipeline_summary *s = &rows[k].summary;
        fprintf(out, "  %-22s %10.3f %10.3f %10.3f %10.3f %10.3f %5.1f%% %8.2fx%s\n",
                rows[k].mode, s->measured_ms, s->busy_ms[STAGE_UPLOAD],
                s->busy_ms[STAGE_COMPUTE], s->busy_ms[STAGE_DOWNLOAD], s->ideal_ms,
                100.0 * s->efficiency, pinned->measured_ms / s->measured_ms,
                rows[k].failed ? "  FAILED" : "");
    }
    /* what overlap could give the serial pinned run at most: its stages' sum over its slowest */
    double sum = 0.0, slowest = 0.0;
    for (int g = 0; g < STAGE_COUNT; ++g) {
        sum += pinned->busy_ms[g];
        if (pinned->busy_ms[g] > slowest) slowest = pinned->busy_ms[g];
    }
    fprintf(out, "  (total: median of %d rounds without marks, every mode once a round; stage "
                 "columns: busy ms of a run with marks, summed over the images; ideal: the "
                 "slowest stage's total plus one image's time in the others, copies at each "
                 "direction's pinned rate alone between the rounds, which copies both ways at "
                 "once do not reach; vs serial: serial pinned's total over this one, where "
                 "overlap allows at most %.2fx: its stages' sum over the slowest)\n",
            BATCH_ROUNDS, slowest > 0.0 ? sum / slowest : 0.0);
    for (int k = 0; k < count; ++k)
        if (rows[k].summary.efficiency > 1.0) {
            fprintf(out, "  (%s beat its ideal: the link ran faster in it than between the "
                         "rounds; its speed drifts on this host, so run again)\n", rows[k].mode);
            break;
        }
}

/* The ideal again, with every copy but the first of its direction at the rate both ways at once:
 * about what a pipeline whose uploads and downloads always overlap can take on this link (an
 * estimate, not a bound: the sampled rate is a median, and a pipeline's copies do not overlap
 * all the time). The slowed direction's total, plus one item's time in each other stage. */
static double overlapped_estimate(const struct pipeline_summary *s,
                                  const struct link_rates *alone, double both) {
    const double rates[STAGE_COUNT] = {alone->up, 0.0, alone->down};
    double fills = 0.0;
    for (int g = 0; g < STAGE_COUNT; ++g)
        fills += s->fill_ms[g];
    double estimate = s->ideal_ms;
    for (int g = 0; g < STAGE_COUNT; ++g) {
        if (rates[g] <= 0.0 || both <= 0.0 || s->items < 1) continue;
        const double slowed = s->stage_ms[g] * ((s->items - 1.0) / s->items * rates[g] / both +
                                                1.0 / s->items);
        const double candidate = slowed + fills - s->fill_ms[g];
        if (candidate > estimate) estimate = candidate;
    }
    return estimate;
}

int batch_run(const struct batch *b, const struct batch_settings *s, const struct cli_spec *spec,
              const struct cli_options *opt) {
    if (s->stream_count < 1 || s->stream_count > STRIPS_MAX_STREAMS)
        wb_die(WB_EXIT_USAGE, "%d stream counts: the batch takes 1 to %d", s->stream_count,
               STRIPS_MAX_STREAMS);
    struct mask *masks[CLI_MAX_VALUES];
    int mask_count[CLI_MAX_VALUES], configurations = 0, failed = 0;
    struct cli_options one = *opt;
    struct kernel_rules own;
    memset(&own, 0, sizeof own);
    own.label = s->compute->label;
    own.block_rule = s->compute->block_rule;
    for (int k = 0; k < opt->mask_kind_count; ++k) {
        one.mask_kind = opt->mask_kinds[k];
        masks[k] = harness_make_masks(spec, &one, &mask_count[k]);
        harness_require_block(&own, opt, masks[k], mask_count[k]); /* before the GPU */
    }
    size_t largest = 0, pixels = 0;
    for (int i = 0; i < b->count; ++i) {
        size_t bytes = strips_pitch(b->images[i].width) * b->images[i].height * b->convolved[i];
        if (bytes > largest) largest = bytes;
        pixels += (size_t)b->images[i].width * b->images[i].height * b->convolved[i];
    }

    struct device_info device;
    FILE *human = harness_open_device(opt, &device);
    struct transfer_rates rates;
    transfer_rates_measure(largest < ((size_t)256 << 20) ? largest : (size_t)256 << 20, 10,
                           &rates);
    fprintf(human, "batch of %d image%s (%.1f MiB of filtered planes); copies of %.1f MiB: pinned "
                   "up %.1f GB/s, down %.1f GB/s, both ways at once %.1f GB/s each; pageable up "
                   "%.1f GB/s, down %.1f GB/s; pinning them took %.2f ms\n",
            b->count, b->count == 1 ? "" : "s", pixels * sizeof(float) / 1048576.0,
            rates.bytes / 1048576.0, rates.pinned_h2d, rates.pinned_d2h, rates.pinned_both,
            rates.pageable_h2d, rates.pageable_d2h, rates.pin_ms);

    struct run r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.s = s;
    r.marks = marks_create();
    CUDA_CHECK(cudaEventCreate(&r.start));
    CUDA_CHECK(cudaEventCreate(&r.stop));
    int lanes = 1;
    for (int k = 0; k < s->stream_count; ++k)
        if (s->streams[k] > lanes) lanes = s->streams[k];
    for (int k = 0; k < lanes; ++k) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&r.lanes[k].stream, cudaStreamNonBlocking));
        r.lanes[k].d_in = (float *)device_malloc(largest, "a batch input buffer");
        r.lanes[k].d_out = (float *)device_malloc(largest, "a batch output buffer");
        CUDA_CHECK(cudaEventCreateWithFlags(&r.lanes[k].uploaded, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.lanes[k].computed, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.lanes[k].downloaded, cudaEventDisableTiming));
    }
    for (int h = 0; h < 2; ++h) {
        r.h_in[h] = (const float **)host_malloc(sizeof(float *) * b->count, "image pointers");
        r.h_out[h] = (float **)host_malloc(sizeof(float *) * b->count, "image pointers");
    }
    float **refs = (float **)host_malloc(sizeof(float *) * b->count, "references");
    float **magnitudes = (float **)host_malloc(sizeof(float *) * b->count, "references");
    for (int i = 0; i < b->count; ++i) {
        const size_t bytes = plane_bytes(b, i);
        float *pinned_in, *pinned_out;
        CUDA_CHECK(cudaHostAlloc((void **)&pinned_in, bytes, cudaHostAllocDefault));
        CUDA_CHECK(cudaHostAlloc((void **)&pinned_out, bytes, cudaHostAllocDefault));
        memcpy(pinned_in, b->images[i].data, bytes);
        r.h_in[0][i] = b->images[i].data;
        r.h_in[1][i] = pinned_in;
        r.h_out[0][i] = (float *)host_malloc(bytes, "an output image");
        r.h_out[1][i] = pinned_out;
        refs[i] = (float *)host_malloc(bytes, "a reference image");
        magnitudes[i] = (float *)host_malloc(bytes, "a reference image");
    }

    /* the link's samples between the rounds: the largest image's pinned buffers and the first
     * lane's, which every run overwrites anyway (at most 256 MiB, to keep a sample short) */
    int biggest = 0;
    for (int i = 1; i < b->count; ++i)
        if (plane_bytes(b, i) > plane_bytes(b, biggest)) biggest = i;
    const size_t probe_bytes = plane_bytes(b, biggest) < ((size_t)256 << 20)
                                   ? plane_bytes(b, biggest) : (size_t)256 << 20;
    struct link_probe probe;
    link_probe_open(&probe, r.lanes[0].d_in, r.lanes[0].d_out, (void *)r.h_in[1][biggest],
                    r.h_out[1][biggest], probe_bytes);
    const int modes = 2 + s->stream_count;
    struct row *rows = (struct row *)host_malloc(sizeof *rows * modes, "the table");
    enum mode mode_at[2 + STRIPS_MAX_STREAMS];
    int streams_at[2 + STRIPS_MAX_STREAMS];
    double measured[2 + STRIPS_MAX_STREAMS];
    for (int row = 0; row < modes; ++row) {
        mode_at[row] = row == 0 ? SERIAL_PAGEABLE : row == 1 ? SERIAL_PINNED : PIPELINED;
        streams_at[row] = mode_at[row] == PIPELINED ? s->streams[row - 2] : 1;
        if (mode_at[row] == PIPELINED)
            snprintf(rows[row].mode, sizeof rows[row].mode, "pipelined, %d stream%s",
                     streams_at[row], streams_at[row] == 1 ? "" : "s");
        else
            snprintf(rows[row].mode, sizeof rows[row].mode, "serial, %s",
                     mode_at[row] == SERIAL_PAGEABLE ? "pageable" : "pinned");
    }
    int all_masks = 0;
    for (int k = 0; k < opt->mask_kind_count; ++k)
        all_masks += mask_count[k];
    struct timeline_run *csv =
        (struct timeline_run *)host_malloc(sizeof *csv * modes * all_masks, "the timeline");
    int csv_count = 0;
    for (int k = 0; k < opt->mask_kind_count; ++k)
        for (int m = 0; m < mask_count[k]; ++m) {
            r.mask = &masks[k][m];
            s->compute->set_mask(r.mask->weights, r.mask->width, r.mask->height);
            for (int i = 0; i < b->count; ++i) {
                const struct image *img = &b->images[i];
                const size_t plane = (size_t)img->width * img->height;
                for (int p = 0; p < b->convolved[i]; ++p)
                    cpu_correlate_2d(img->data + p * plane, img->width, img->height,
                                     r.mask->weights, r.mask->width, r.mask->height,
                                     refs[i] + p * plane, magnitudes[i] + p * plane, 1);
            }
            fprintf(human, "mask %s, kernel %s, block %d\n", wb_shown(r.mask->name), s->compute->label,
                    s->block);
            const struct link_sample sampled =
                time_modes(&r, mode_at, streams_at, modes, &probe, measured);
            const struct link_rates link = sampled.alone;
            const double slower = link.up < link.down ? link.up : link.down;
            fprintf(human, "  the link between the rounds (medians): pinned up %.1f GB/s, down "
                           "%.1f GB/s, both ways at once %.1f GB/s each (%.0f%% of the slower "
                           "alone)\n",
                    link.up, link.down, sampled.both, 100.0 * sampled.both / slower);
            for (int row = 0; row < modes; ++row, ++configurations) {
                const enum mode mode = mode_at[row];
                const int streams = streams_at[row];
                for (int i = 0; i < b->count; ++i) /* poisoned: an image never copied back fails */
                    memset(r.h_out[mode != SERIAL_PAGEABLE][i], 0xff, plane_bytes(b, i));
                run_mode(&r, mode, streams, r.marks);
                record(&rows[row], r.marks, &link, measured[row]);
                rows[row].failed = verify_mode(&r, mode != SERIAL_PAGEABLE, refs, magnitudes,
                                               rows[row].mode, human);
                failed += rows[row].failed > 0;
                /* the timeline keeps the spans and a copy of the label (the row is reused) */
                csv[csv_count++] = (struct timeline_run){
                    copy_text(rows[row].mode), rows[row].spans, rows[row].count,
                    rows[row].summary.measured_ms, rows[row].summary.ideal_ms};
            }
            print_table(human, rows, modes);
            int deepest = 2; /* the pipelined mode with the most streams */
            for (int row = 3; row < modes; ++row)
                if (streams_at[row] > streams_at[deepest]) deepest = row;
            const struct pipeline_summary *model = &rows[deepest].summary;
            const double overlapped = overlapped_estimate(model, &link, sampled.both);
            fprintf(human, "  copies both ways at once ran at %.1f GB/s each: a pipeline whose "
                           "copies always overlap would take about %.3f ms, an efficiency of about "
                           "%.1f%%\n",
                    sampled.both, overlapped, 100.0 * model->ideal_ms / overlapped);
            fprintf(human, "  serial, pinned:\n");
            timeline_print(human, rows[1].spans, rows[1].count, s->columns);
            fprintf(human, "  %s:\n", rows[modes - 1].mode);
            timeline_print(human, rows[modes - 1].spans, rows[modes - 1].count, s->columns);
            if (s->output_folder && k == 0 && m == 0) {
                if (rows[modes - 1].failed) {
                    fprintf(human, "  wrote nothing to %s: the results failed their check\n",
                            s->output_folder);
                } else {
                    write_outputs(&r, s->output_folder);
                    fprintf(human, "  wrote %d image%s to %s\n", b->count,
                            b->count == 1 ? "" : "s", s->output_folder);
                }
            }
        }
    if (s->timeline_csv) {
        char err[WB_ERR_LEN];
        if (timeline_write_csv(s->timeline_csv, csv, csv_count, err))
            wb_die(WB_EXIT_USAGE, "%s", err);
        fprintf(human, "wrote the timeline to %s\n", wb_shown(s->timeline_csv));
    }
    for (int c = 0; c < csv_count; ++c) {
        free((void *)csv[c].spans);
        free((void *)csv[c].mode);
    }
    free(csv);
    free(rows);
    for (int i = 0; i < b->count; ++i) {
        CUDA_CHECK(cudaFreeHost((void *)r.h_in[1][i]));
        CUDA_CHECK(cudaFreeHost(r.h_out[1][i]));
        free(r.h_out[0][i]);
        free(refs[i]);
        free(magnitudes[i]);
    }
    for (int h = 0; h < 2; ++h) {
        free(r.h_in[h]);
        free(r.h_out[h]);
    }
    free(refs);
    free(magnitudes);
    for (int k = 0; k < lanes; ++k) {
        CUDA_CHECK(cudaStreamDestroy(r.lanes[k].stream));
        CUDA_CHECK(cudaFree(r.lanes[k].d_in));
        CUDA_CHECK(cudaFree(r.lanes[k].d_out));
        CUDA_CHECK(cudaEventDestroy(r.lanes[k].uploaded));
        CUDA_CHECK(cudaEventDestroy(r.lanes[k].computed));
        CUDA_CHECK(cudaEventDestroy(r.lanes[k].downloaded));
    }
    link_probe_close(&probe);
    marks_free(r.marks);
    CUDA_CHECK(cudaEventDestroy(r.start));
    CUDA_CHECK(cudaEventDestroy(r.stop));
    for (int k = 0; k < opt->mask_kind_count; ++k) {
        for (int m = 0; m < mask_count[k]; ++m)
            mask_free(&masks[k][m]);
        free(masks[k]);
    }
    return harness_finish(human, failed, configurations, opt);
}
