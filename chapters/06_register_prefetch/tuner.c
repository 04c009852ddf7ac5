/* tuner.c: the autotuner and the tuned dispatch (see tuner.h).
 * Sections: the compiled mask sizes, the choices (load, lookup, dispatch), the sweep (the 2D
 * harness runs it; an observer picks the candidates per mask and keeps the fastest), tuner_run. */
#define _POSIX_C_SOURCE 200809L
#include "tuner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "conv2d_naive.h"
#include "cuda_check.h"
#include "harness.h"
#include "masks.h"
#include "prefetch_variants.h"
#include "safe_input.h"
#include "safe_output.h"

enum { MIN_SIDE = PREFETCH_MIN_SIDE, MAX_SIDE = PREFETCH_MAX_SIDE };

/* ---- the compiled mask sizes ------------------------------------------------------------- */

/* "2:7,9,11,...": the square sizes prefetch_variants[] covers, runs of three or more as ranges. */
const char *tuner_mask_list(void) {
    static char list[256];
    if (list[0]) return list;
    size_t used = 0;
    for (int side = MIN_SIDE; side <= MAX_SIDE; ++side) {
        if (!prefetch_has_variants(side, side)) continue;
        int last = side;
        while (last < MAX_SIDE && prefetch_has_variants(last + 1, last + 1)) ++last;
        if (last - side < 2) last = side; /* two in a row read better as a list */
        const char *comma = used ? "," : "";
        if (last > side)
            used += snprintf(list + used, sizeof list - used, "%s%d:%d", comma, side, last);
        else
            used += snprintf(list + used, sizeof list - used, "%s%d", comma, side);
        side = last;
    }
    return list;
}

/* ---- the choices ------------------------------------------------------------------------- */

/* chosen[side] - 1 indexes prefetch_variants[]; 0: none saved for this side. */
static int chosen[MAX_SIDE + 1];

/* Untuned choice, 4 x 4 outputs per thread (compiled for every side that has variants): the
 * read-only-cache path up to 5x5, the shared-memory path above, as the H200's tuning chose. */
static int default_variant(int side) {
    enum prefetch_path path = side <= 5 ? PATH_GLOBAL_LDG : PATH_SHARED;
    for (int v = 0; v < prefetch_variant_count; ++v) {
        const struct prefetch_variant *p = &prefetch_variants[v];
        if (p->mask_w == side && p->path == path && p->out_x == 4 && p->out_y == 4)
            return v;
    }
    return -1;
}

static int variant_for(int mask_w, int mask_h) {
    if (mask_w != mask_h || !prefetch_has_variants(mask_w, mask_h)) return -1;
    return chosen[mask_w] ? chosen[mask_w] - 1 : default_variant(mask_w);
}

/* One line of the tuning file is skipped: say which and why, on one clean line. */
static void line_ignored(const char *path, int number, const char *why) {
    char message[512], shown[512];
    snprintf(message, sizeof message, "%s line %d ignored: %s", path, number, why);
    wb_printable(shown, sizeof shown, message); /* the path and the file's words, escaped */
    fprintf(stderr, "%s: %s\n", wb_program_name(), shown);
}

int tuned_load(const char *path, const char *gpu_name) {
    char err[WB_ERR_LEN];
    FILE *f = safe_input_open(path, "tuned file", (long long)1 << 20, NULL, err);
    if (!f) { /* none yet is the usual case; anything else there is worth a line */
        if (errno != ENOENT) fprintf(stderr, "%s: %s (the untuned defaults are used)\n",
                                     wb_program_name(), err);
        return 0;
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int loaded = 0, number = 0;
    while ((length = getline(&line, &capacity, f)) != -1) {
        ++number;
        if (strlen(line) != (size_t)length) {
            line_ignored(path, number, "holds a NUL byte");
            continue;
        }
        if (line[0] == '#' || line[0] == '\n') continue;
        char gpu[256], path_name[32];
        int side, out_x, out_y, found = 0;
        /* gpu,side,path,out_x,out_y,... ; the GPU name holds no commas */
        if (sscanf(line, "%255[^,],%d,%31[^,],%d,%d", gpu, &side, path_name, &out_x, &out_y) != 5) {
            line_ignored(path, number, "not gpu,side,path,x,y");
            continue;
        }
        if (strcmp(gpu, gpu_name) != 0) continue; /* tuned on another GPU */
        if (side < MIN_SIDE || side > MAX_SIDE) side = 0; /* matches no variant below */
        for (int v = 0; v < prefetch_variant_count && !found; ++v) {
            const struct prefetch_variant *p = &prefetch_variants[v];
            if (p->mask_w == side && p->out_x == out_x && p->out_y == out_y &&
                strcmp(prefetch_path_name(p->path), path_name) == 0) {
                chosen[side] = v + 1;
                ++loaded;
                found = 1;
            }
        }
        if (!found) {
            char why[96];
            snprintf(why, sizeof why, "no compiled variant %dx%d %.31s %dx%d", side, side,
                     path_name, out_x, out_y);
            line_ignored(path, number, why);
        }
    }
    free(line);
    fclose(f);
    return loaded;
}

static const char *configured_path;
static FILE *configured_report;

void tuned_configure(const char *path, FILE *report) {
    configured_path = path;
    configured_report = report;
}

/* The name of the GPU the harness probed: the key of the saved choices. */
static void current_gpu(struct cudaDeviceProp *prop) {
    int id;
    CUDA_CHECK(cudaGetDevice(&id));
    CUDA_CHECK(cudaGetDeviceProperties(prop, id));
}

/* Once, at the first use: the GPU is known by then. */
static void load_configured(void) {
    static int done;
    if (done++ || !configured_path) return;
    struct cudaDeviceProp prop;
    current_gpu(&prop);
    int loaded = tuned_load(configured_path, prop.name);
    fprintf(configured_report, "tuned variants for %s: %d loaded from %s%s\n", prop.name, loaded,
            wb_shown(configured_path), loaded ? "" : " (none: untuned defaults; run --tune)");
}

void tuned_set_mask(const float *h_mask, int mask_w, int mask_h) {
    load_configured();
    if (variant_for(mask_w, mask_h) >= 0)
        prefetch_set_mask(h_mask, mask_w, mask_h);
    else
        conv2d_naive_set_mask(h_mask, mask_w, mask_h);
}

void tuned_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block) {
    int v = variant_for(mask_w, mask_h);
    if (v >= 0)
        prefetch_variants[v].launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
    else
        conv2d_naive_launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
}

/* ---- the sweep --------------------------------------------------------------------------- */

struct best {
    int variant; /* index into prefetch_variants[]; -1: none timed */
    double ms, pct, ms_global_only;
    double ms_baseline[TUNER_MAX_BASELINES]; /* 0: skipped, failed or not timed */
};

struct sweep {
    const struct conv2d_variant *baselines;
    int baseline_count;
    struct conv2d_variant *candidates; /* this mask's: the baselines, then its variants */
    int *variant_of;                   /* candidate -> prefetch_variants[] index (-1: baseline) */
    int sides[CLI_MAX_VALUES], side_count, size_count;
    int configurations_done, failures, timing;
    const char *save_path;
    FILE *out; /* the table and progress: stdout, or stderr when stdout carries JSON */
    struct best best[CLI_MAX_VALUES]; /* per side, for the current image size */
};

static int kernels_for(void *context, const struct mask *mask,
                       const struct conv2d_variant **list) {
    struct sweep *sw = context;
    int count = 0, number = sw->configurations_done + 1;
    fprintf(sw->out, "tune: mask %dx%d, %d of %d\n", mask->width, mask->height, number,
            sw->size_count * sw->side_count);
    for (int b = 0; b < sw->baseline_count; ++b) {
        sw->variant_of[count] = -1;
        sw->candidates[count++] = sw->baselines[b];
    }
    for (int v = 0; v < prefetch_variant_count; ++v) {
        const struct prefetch_variant *p = &prefetch_variants[v];
        if (p->mask_w != mask->width || p->mask_h != mask->height) continue;
        struct conv2d_variant candidate = {
            .label = p->label, .set_mask = prefetch_set_mask, .launch = p->launch};
        sw->variant_of[count] = v;
        sw->candidates[count++] = candidate;
    }
    *list = sw->candidates;
    return count;
}

static void print_table(const struct sweep *sw, int width, int height, double copy_gbps) {
    FILE *out = sw->out;
    fprintf(out, "\n  %-5s %-11s %-8s %9s %7s %12s", "mask", "best path", "outputs", "median ms",
            "% copy", "vs glob only");
    for (int b = 0; b < sw->baseline_count; ++b) fprintf(out, " %10.10s", sw->baselines[b].label);
    fprintf(out, "   (%dx%d, copy %.0f GB/s; baseline columns: their time / ours)\n", width, height,
            copy_gbps);
    for (int k = 0; k < sw->side_count; ++k) {
        const struct best *r = &sw->best[k];
        if (r->variant < 0) continue;
        const struct prefetch_variant *p = &prefetch_variants[r->variant];
        fprintf(out, "  %2dx%-2d %-11s %dx%-6d %9.4f %6.1f%%", sw->sides[k], sw->sides[k],
                prefetch_path_name(p->path), p->out_x, p->out_y, r->ms, r->pct);
        if (r->ms_global_only > 0.0)
            fprintf(out, " %11.2fx", r->ms_global_only / r->ms);
        else
            fprintf(out, " %12s", "-");
        for (int b = 0; b < sw->baseline_count; ++b)
            if (r->ms_baseline[b] > 0.0)
                fprintf(out, " %9.2fx", r->ms_baseline[b] / r->ms);
            else
                fprintf(out, " %10s", "-");
        fprintf(out, "\n");
    }
}

static void save_winners(const struct sweep *sw, int width, int height) {
    struct cudaDeviceProp prop;
    current_gpu(&prop);
    char err[WB_ERR_LEN];
    struct safe_output out; /* a fresh temporary, renamed over the file when complete */
    if (safe_output_open(&out, sw->save_path, err))
        wb_die(WB_EXIT_USAGE, "cannot save the tuning results: %s", err);
    fprintf(out.fp, "# gpu,mask side,path,outputs x,outputs y,median ms,%% of copy,image\n");
    for (int k = 0; k < sw->side_count; ++k) {
        const struct best *r = &sw->best[k];
        if (r->variant < 0) continue;
        const struct prefetch_variant *p = &prefetch_variants[r->variant];
        fprintf(out.fp, "%s,%d,%s,%d,%d,%.6f,%.2f,%dx%d\n", prop.name, sw->sides[k],
                prefetch_path_name(p->path), p->out_x, p->out_y, r->ms, r->pct, width, height);
    }
    if (safe_output_commit(&out, 0, err))
        wb_die(WB_EXIT_USAGE, "cannot save the tuning results: %s", err);
    fprintf(sw->out, "saved the winners to %s; the normal run uses them on this GPU\n",
            sw->save_path);
}

/* After each image and mask: keep the fastest variant and the baselines' times; after the last
 * mask of an image size, print its table; after the last size, save (if nothing failed). */
static void collect(void *context, int width, int height, int planes, const struct mask *mask,
                    const struct conv2d_variant *list, int count,
                    const struct variant_result *results, double copy_gbps) {
    (void)planes;
    (void)mask;
    (void)list;
    struct sweep *sw = context;
    int side = sw->configurations_done++ % sw->side_count;
    struct best *best = &sw->best[side];
    memset(best, 0, sizeof *best);
    best->variant = -1;
    for (int i = 0; i < count; ++i) {
        const struct variant_result *r = &results[i];
        if (r->skipped) continue;
        if (!r->passed) ++sw->failures;
        if (!sw->timing || !r->passed) continue;
        int v = sw->variant_of[i];
        if (v < 0) {
            best->ms_baseline[i] = r->time.median_ms;
            continue;
        }
        if (prefetch_variants[v].path == PATH_GLOBAL_ONLY) best->ms_global_only = r->time.median_ms;
        if (best->variant < 0 || r->time.median_ms < best->ms) {
            best->variant = v;
            best->ms = r->time.median_ms;
            best->pct = 100.0 * r->gbps / copy_gbps;
        }
    }
    if (side != sw->side_count - 1 || !sw->timing) return;
    print_table(sw, width, height, copy_gbps);
    /* The winners of the last --size are saved: give the standard size last. */
    int last_size = sw->configurations_done == sw->size_count * sw->side_count;
    if (last_size && sw->save_path && !sw->failures) save_winners(sw, width, height);
}

/* ---- tuner_run --------------------------------------------------------------------------- */

int tuner_run(const struct cli_spec *spec, const struct cli_options *given, const char *save_path,
              const struct conv2d_variant *baselines, int baseline_count) {
    if (baseline_count > TUNER_MAX_BASELINES)
        wb_die(WB_EXIT_USAGE, "at most %d baselines", TUNER_MAX_BASELINES);
    if (given->input || given->output || given->mask_file || given->mask_kind != MASK_RANDOM ||
        given->mask_kind_count > 1)
        wb_die(WB_EXIT_USAGE, "--tune uses random images and masks: drop --input, --output, "
                              "--mask and --mask-file");
    if (given->block_count > 1) wb_die(WB_EXIT_USAGE, "--tune takes a single --block");
    struct cli_options opt = *given;
    if (!opt.mask_width_given) { /* every compiled size */
        opt.mask_size_count = 0;
        for (int side = MIN_SIDE; side <= MAX_SIDE; ++side)
            if (prefetch_has_variants(side, side)) {
                struct cli_size size = {side, side, 1};
                opt.mask_sizes[opt.mask_size_count++] = size;
            }
    }
    struct sweep sw;
    memset(&sw, 0, sizeof sw);
    for (int k = 0; k < opt.mask_size_count; ++k) {
        int w = (int)opt.mask_sizes[k].width, h = (int)opt.mask_sizes[k].height;
        if (w != h || !prefetch_has_variants(w, h))
            wb_die(WB_EXIT_USAGE, "--tune: mask %dx%d has no compiled variants; give square sizes "
                   "from %s (or no --mask-width: all of them)", w, h, tuner_mask_list());
        sw.sides[sw.side_count++] = w;
    }
    sw.baselines = baselines;
    sw.baseline_count = baseline_count;
    sw.size_count = opt.size_count;
    sw.timing = opt.mode != CLI_MODE_CHECK;
    sw.save_path = save_path;
    sw.out = opt.json ? stderr : stdout; /* --json: every candidate's result as a JSON line */
    int most = baseline_count + prefetch_variant_count;
    sw.candidates = host_malloc(sizeof *sw.candidates * most, "tuner candidates");
    sw.variant_of = host_malloc(sizeof *sw.variant_of * most, "tuner candidates");
    struct conv2d_observer observer = {kernels_for, collect, &sw};
    conv2d_run(spec, &opt, NULL, 0, &observer);
    if (sw.timing && sw.failures) fprintf(sw.out, "nothing saved: a run failed verification\n");
    fprintf(sw.out, "%s --tune: %s (%d runs failed verification)\n", wb_program_name(),
            sw.failures ? "FAIL" : "PASS", sw.failures);
    free(sw.variant_of);
    free(sw.candidates);
    return sw.failures ? WB_EXIT_FAIL : WB_EXIT_PASS;
}

void tuned_file_path(const char *argv0, char *path, size_t size) {
    const char *given = getenv("WB_TUNED_FILE");
    const char *slash = strrchr(argv0, '/');
    if (given && *given)
        snprintf(path, size, "%s", given);
    else
        snprintf(path, size, "%.*sch06_tuned.csv", slash ? (int)(slash - argv0 + 1) : 0, argv0);
}
