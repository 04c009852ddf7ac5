/* tuner.c: the autotuner and the tuned dispatch (see tuner.h).
 * Sections: the choices (load, lookup, dispatch), one sweep over a mask size, tuner_run. */
#define _POSIX_C_SOURCE 200809L
#include "tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_naive.h"
#include "data_gen.h"
#include "harness.h"
#include "masks.h"
#include "prefetch_variants.h"
#include "reference.h"
#include "timing.h"
#include <cuda_runtime_api.h>
#include "verify.h"

enum { MIN_SIDE = PREFETCH_MIN_SIDE, MAX_SIDE = PREFETCH_MAX_SIDE, WARMUP_RUNS = 3 };
static const uint64_t MASK_SEED_OFFSET = 0x6d61736bu;

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

int tuned_load(const char *path, const char *gpu_name) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int loaded = 0, number = 0;
    while (fgets(line, sizeof line, f)) {
        ++number;
        if (line[0] == '#' || line[0] == '\n') continue;
        char gpu[256], path_name[32];
        int side, out_x, out_y, found = 0;
        /* gpu,side,path,out_x,out_y,... ; the GPU name holds no commas */
        if (sscanf(line, "%255[^,],%d,%31[^,],%d,%d", gpu, &side, path_name, &out_x, &out_y) != 5) {
            fprintf(stderr, "%s: %s line %d ignored: not gpu,side,path,x,y\n", wb_program_name(),
                    path, number);
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
        if (!found)
            fprintf(stderr, "%s: %s line %d ignored: no compiled variant %dx%d %s %dx%d\n",
                    wb_program_name(), path, number, side, side, path_name, out_x, out_y);
    }
    fclose(f);
    return loaded;
}

static const char *configured_path;
static FILE *configured_report;

void tuned_configure(const char *path, FILE *report) {
    configured_path = path;
    configured_report = report;
}

/* Once, at the first use: the GPU is known by then. */
static void load_configured(void) {
    static int done;
    if (done++ || !configured_path) return;
    int id;
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&id));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
    int loaded = tuned_load(configured_path, prop.name);
    fprintf(configured_report, "tuned variants for %s: %d loaded from %s%s\n", prop.name, loaded,
            configured_path, loaded ? "" : " (none: untuned defaults; run --tune)");
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
        prefetch_variants[v].launch(d_in, d_out, pitch, width, height);
    else
        conv2d_naive_launch(d_in, d_out, pitch, width, height, mask_w, mask_h, block);
}

/* ---- one sweep --------------------------------------------------------------------------- */

struct sweep {
    const float *d_in;
    float *d_out;
    size_t pitch;
    int width, height, side;
    float fft_floor; /* sum |mask| * max |input| (verify_fft_rule) */
    const struct prefetch_variant *variant;  /* a compiled variant, or */
    const struct conv2d_variant *baseline;   /* a baseline (block 32) */
};

static void launch_sweep(void *context) {
    struct sweep *s = context;
    if (s->variant)
        s->variant->launch(s->d_in, s->d_out, s->pitch, s->width, s->height);
    else
        s->baseline->launch(s->d_in, s->d_out, s->pitch, s->width, s->height, s->side, s->side,
                            32);
}

/* Poisons the output, runs once, copies back and verifies (the FFT rule for FFT baselines). */
static int verify_one(struct sweep *s, const float *ref, const float *magnitude, float *got,
                      float *uniform, struct verify_summary *summary) {
    size_t row_bytes = (size_t)s->width * sizeof(float), count = (size_t)s->width * s->height;
    CUDA_CHECK(cudaMemset2D(s->d_out, s->pitch, 0xff, row_bytes, (size_t)s->height));
    launch_sweep(s);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy2D(got, row_bytes, s->d_out, s->pitch, row_bytes, (size_t)s->height,
                            cudaMemcpyDeviceToHost));
    struct verify_shape shape = {(size_t)s->width, (size_t)s->height, 1};
    int terms = s->side * s->side;
    if (s->baseline && s->baseline->fft_points) {
        terms = verify_fft_rule(magnitude, count,
                                s->baseline->fft_points(s->width, s->height, s->side, s->side),
                                s->fft_floor, uniform);
        magnitude = uniform;
    }
    return verify_outputs(got, ref, magnitude, shape, terms, 4, stdout, summary) == 0;
}

enum { MAX_BASELINES = 4 };

struct best {
    int variant;
    double ms, pct, ms_global_only;
    double ms_baseline[MAX_BASELINES]; /* 0: not run or failed */
};

struct images {
    const float *ref, *magnitude;
    float *got, *uniform;
};

/* Verifies (and unless --check times) one candidate; returns its median ms, 0 if not timed,
 * -1 if it failed. */
static double try_one(const struct cli_options *opt, struct sweep *s, const struct images *im,
                      const char *name, int number, int count, double copy_gbps) {
    struct verify_summary summary;
    int passed = verify_one(s, im->ref, im->magnitude, im->got, im->uniform, &summary);
    printf("  [%2d/%d] %dx%d %-22s %s", number, count, s->side, s->side, name,
           passed ? "PASS" : "FAIL");
    if (!passed) {
        printf("  (%zu mismatches)\n", summary.mismatches);
        return -1.0;
    }
    if (opt->mode == CLI_MODE_CHECK) {
        printf("\n");
        return 0.0;
    }
    double ms = gpu_time(launch_sweep, s, WARMUP_RUNS, opt->reps).median_ms;
    double bytes = 2.0 * s->width * s->height * sizeof(float);
    printf("  %.4f ms  %5.1f%% of copy\n", ms, 100.0 * effective_gbps(bytes, ms) / copy_gbps);
    fflush(stdout);
    return ms;
}

/* Every variant and baseline for one mask side on one image; returns the number that failed. */
static int sweep_side(const struct cli_options *opt, struct sweep *s, const struct mask *mask,
                      const struct images *im, const struct conv2d_variant *baselines,
                      int baseline_count, double copy_gbps, struct best *best) {
    int failures = 0, count = baseline_count, done = 0;
    memset(best, 0, sizeof *best);
    best->variant = -1;
    for (int v = 0; v < prefetch_variant_count; ++v) count += prefetch_variants[v].mask_w == s->side;
    prefetch_set_mask(mask->weights, mask->width, mask->height);
    for (int b = 0; b < baseline_count; ++b) {
        s->variant = NULL;
        s->baseline = &baselines[b];
        const char *reason = baselines[b].refuses ? baselines[b].refuses(s->side, s->side) : NULL;
        if (reason) {
            printf("  [%2d/%d] %dx%d %-22s skipped: %s\n", ++done, count, s->side, s->side,
                   baselines[b].label, reason);
            continue;
        }
        baselines[b].set_mask(mask->weights, mask->width, mask->height);
        double ms = try_one(opt, s, im, baselines[b].label, ++done, count, copy_gbps);
        failures += ms < 0.0;
        best->ms_baseline[b] = ms > 0.0 ? ms : 0.0;
    }
    for (int v = 0; v < prefetch_variant_count; ++v) {
        const struct prefetch_variant *p = &prefetch_variants[v];
        if (p->mask_w != s->side) continue;
        s->variant = p;
        s->baseline = NULL;
        char name[64];
        snprintf(name, sizeof name, "%-11s %dx%d", prefetch_path_name(p->path), p->out_x, p->out_y);
        double ms = try_one(opt, s, im, name, ++done, count, copy_gbps);
        failures += ms < 0.0;
        if (ms <= 0.0) continue;
        if (p->path == PATH_GLOBAL_ONLY) best->ms_global_only = ms;
        if (best->variant < 0 || ms < best->ms) {
            best->variant = v;
            best->ms = ms;
            best->pct = 100.0 * effective_gbps(2.0 * s->width * s->height * sizeof(float), ms) /
                        copy_gbps;
        }
    }
    return failures;
}

/* ---- tuner_run --------------------------------------------------------------------------- */

static void print_table(const int *sides, int side_count, const struct best *results,
                        const struct conv2d_variant *baselines, int baseline_count, int width,
                        int height, double copy_gbps) {
    printf("\n  %-5s %-11s %-8s %9s %7s %12s", "mask", "best path", "outputs", "median ms",
           "% copy", "vs glob only");
    for (int b = 0; b < baseline_count; ++b) printf(" %10.10s", baselines[b].label);
    printf("   (%dx%d, copy %.0f GB/s; baseline columns: their time / ours)\n", width, height,
           copy_gbps);
    for (int k = 0; k < side_count; ++k) {
        const struct best *r = &results[sides[k]];
        if (r->variant < 0) continue;
        const struct prefetch_variant *p = &prefetch_variants[r->variant];
        printf("  %2dx%-2d %-11s %dx%-6d %9.4f %6.1f%%", sides[k], sides[k],
               prefetch_path_name(p->path), p->out_x, p->out_y, r->ms, r->pct);
        if (r->ms_global_only > 0.0)
            printf(" %11.2fx", r->ms_global_only / r->ms);
        else
            printf(" %12s", "-");
        for (int b = 0; b < baseline_count; ++b)
            if (r->ms_baseline[b] > 0.0)
                printf(" %9.2fx", r->ms_baseline[b] / r->ms);
            else
                printf(" %10s", "-");
        printf("\n");
    }
}

static void save_winners(const char *path, const char *gpu, const int *sides, int side_count,
                         const struct best *results, int width, int height) {
    FILE *f = fopen(path, "w");
    if (!f) wb_die(WB_EXIT_USAGE, "cannot write the tuning results to '%s'", path);
    fprintf(f, "# gpu,mask side,path,outputs x,outputs y,median ms,%% of copy,image\n");
    for (int k = 0; k < side_count; ++k) {
        const struct best *r = &results[sides[k]];
        if (r->variant < 0) continue;
        const struct prefetch_variant *p = &prefetch_variants[r->variant];
        fprintf(f, "%s,%d,%s,%d,%d,%.6f,%.2f,%dx%d\n", gpu, sides[k], prefetch_path_name(p->path),
                p->out_x, p->out_y, r->ms, r->pct, width, height);
    }
    if (fclose(f)) wb_die(WB_EXIT_USAGE, "cannot write the tuning results to '%s'", path);
    printf("saved the winners to %s; the normal run uses them on this GPU\n", path);
}

int tuner_run(const struct cli_options *opt, const char *save_path,
              const struct conv2d_variant *baselines, int baseline_count) {
    char err[WB_ERR_LEN];
    int sides[CLI_MAX_VALUES], side_count = 0, failures = 0;
    int timing = opt->mode != CLI_MODE_CHECK;
    if (baseline_count > MAX_BASELINES) wb_die(WB_EXIT_USAGE, "at most %d baselines", MAX_BASELINES);
    if (opt->input || opt->output || opt->mask_file || opt->mask_kind != MASK_RANDOM)
        wb_die(WB_EXIT_USAGE, "--tune uses random images and masks: drop --input, --output, "
                              "--mask and --mask-file");
    if (opt->json) wb_die(WB_EXIT_USAGE, "--tune prints a table, not JSON: drop --json");
    for (int k = 0; k < opt->mask_size_count; ++k) {
        int w = (int)opt->mask_sizes[k].width, h = (int)opt->mask_sizes[k].height;
        if (w != h || !prefetch_has_variants(w, h))
            wb_die(WB_EXIT_USAGE, "--tune: mask %dx%d has no compiled variants; give square sizes "
                   "2 to 7, 9, 11, 13, 15, 21, 25 or 31 (e.g. --mask-width 2:7)", w, h);
        sides[side_count++] = w;
    }
    /* Everything given is valid: now the GPU. */
    struct device_info dev;
    device_probe(&dev);
    const struct device_info *device = &dev;
    struct best results[MAX_SIDE + 1];
    for (int s = 0; s < opt->size_count; ++s) {
        int width = (int)opt->sizes[s].width, height = (int)opt->sizes[s].height;
        size_t plane = (size_t)width * height, row_bytes = (size_t)width * sizeof(float);
        float *image = host_malloc(plane * sizeof(float), "image");
        float *ref = host_malloc(plane * sizeof(float), "reference");
        float *magnitude = host_malloc(plane * sizeof(float), "error bounds");
        struct images im = {ref, magnitude, host_malloc(plane * sizeof(float), "GPU result"),
                            host_malloc(plane * sizeof(float), "FFT error bounds")};
        fill_uniform(image, plane, opt->seed, 0.0f, 1.0f);
        struct sweep sw = {NULL, NULL, 0, width, height, 0, 0.0f, NULL, NULL};
        size_t pitch_out;
        sw.d_in = device_malloc_pitch(row_bytes, (size_t)height, &sw.pitch, "input image");
        sw.d_out = device_malloc_pitch(row_bytes, (size_t)height, &pitch_out, "output image");
        CUDA_CHECK(cudaMemcpy2D((void *)sw.d_in, sw.pitch, image, row_bytes, row_bytes,
                                (size_t)height, cudaMemcpyHostToDevice));
        double copy_gbps = timing ? copy_bandwidth_gbps(plane * sizeof(float), opt->reps) : 0.0;
        printf("%s --tune on %s: %dx%d image, seed %llu%s\n", wb_program_name(), device->name,
               width, height, (unsigned long long)opt->seed,
               timing ? "" : " (verification only)");
        for (int k = 0; k < side_count; ++k) {
            struct mask mask;
            if (mask_make(MASK_RANDOM, sides[k], sides[k], opt->seed + MASK_SEED_OFFSET + k, &mask,
                          err))
                wb_die(WB_EXIT_USAGE, "%s", err);
            cpu_correlate_2d(image, width, height, mask.weights, mask.width, mask.height, ref,
                             magnitude, 1);
            sw.side = sides[k];
            sw.fft_floor = verify_fft_floor(image, plane, mask.weights, mask.width * mask.height);
            failures += sweep_side(opt, &sw, &mask, &im, baselines, baseline_count, copy_gbps,
                                   &results[sides[k]]);
            mask_free(&mask);
        }
        if (timing) {
            print_table(sides, side_count, results, baselines, baseline_count, width, height,
                        copy_gbps);
            /* The winners of the last --size are saved: give the standard size last. */
            if (save_path && s == opt->size_count - 1 && !failures)
                save_winners(save_path, device->name, sides, side_count, results, width, height);
        }
        CUDA_CHECK(cudaFree((void *)sw.d_in));
        CUDA_CHECK(cudaFree(sw.d_out));
        free(im.uniform);
        free(im.got);
        free(magnitude);
        free(ref);
        free(image);
    }
    if (timing && failures) printf("nothing saved: a run failed verification\n");
    printf("%s --tune: %s (%d runs failed verification)\n", wb_program_name(),
           failures ? "FAIL" : "PASS", failures);
    return failures ? WB_EXIT_FAIL : WB_EXIT_PASS;
}
