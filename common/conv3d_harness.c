/* conv3d_harness.c: the volume chapter's host program (see conv3d_harness.h).
 * Sections in order: the spec and the data (volumes, masks), one configuration (the hooks
 * harness.c's loop calls), reporting (the bench table, JSON), conv3d_run and
 * conv3d_chapter_main. */
#include "conv3d_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_check.h"
#include "data_gen.h"
#include "harness.h"
#include "masks3d.h"
#include "reference.h"
#include "safe_output.h"
#include "timing.h"
#include "verify.h"
#include "volumes.h"

enum { CPU_REPS = 3, MONTAGE_SLICES = 16 };

static int use_phantom; /* conv3d_use_phantom: generated volumes are phantoms, not noise */

void conv3d_use_phantom(int phantom) {
    use_phantom = phantom;
}

struct cli_spec conv3d_standard_spec(const char *program, const char *summary, int min_block,
                                     int max_block, int default_block) {
    struct cli_spec spec = {
        .program = program,
        .summary = summary,
        .dims = 3,
        .default_size = {256, 256, 256},
        .default_mask = {3, 3, 3},
        .max_mask = {MASK3D_MAX_SIDE, MASK3D_MAX_SIDE, MASK3D_MAX_SIDE},
        .default_block = default_block,
        .min_block = min_block,
        .max_block = max_block,
        .input_formats = "a float32 .npy volume of shape (D, H, W)",
    };
    return spec;
}

/* ---- the data ----------------------------------------------------------------------------- */

struct volume {
    float *data;
    int width, height, depth;
};

static size_t voxels(const struct volume *v) {
    return (size_t)v->width * v->height * v->depth;
}

/* The masks of one --mask name: the file's, or the name at every --mask-width. */
static struct mask3d *make_masks(const struct cli_spec *spec, const struct cli_options *opt,
                                 enum mask3d_kind kind, int *count) {
    char err[WB_ERR_LEN];
    struct mask3d *masks = host_malloc(sizeof *masks * CLI_MAX_VALUES, "masks");
    if (opt->mask_file) {
        if (mask3d_load_file(opt->mask_file, &masks[0], err)) wb_die(WB_EXIT_USAGE, "%s", err);
        const struct mask3d *m = &masks[0];
        if (m->width > spec->max_mask.width || m->height > spec->max_mask.height ||
            m->depth > spec->max_mask.depth)
            wb_die(WB_EXIT_USAGE, "mask file '%s' is %dx%dx%d; this chapter allows at most "
                   "%ldx%ldx%ld", opt->mask_file, m->width, m->height, m->depth,
                   spec->max_mask.width, spec->max_mask.height, spec->max_mask.depth);
        const struct cli_size *given = &opt->mask_sizes[0];
        if (opt->mask_width_given && opt->mask_size_count == 1 &&
            (given->width != m->width || given->height != m->height || given->depth != m->depth))
            wb_die(WB_EXIT_USAGE, "mask file '%s' is %dx%dx%d but --mask-width is %ldx%ldx%ld",
                   opt->mask_file, m->width, m->height, m->depth, given->width, given->height,
                   given->depth);
        *count = 1;
        return masks;
    }
    for (int k = 0; k < opt->mask_size_count; ++k) {
        const struct cli_size *s = &opt->mask_sizes[k];
        if (mask3d_make(kind, (int)s->width, (int)s->height, (int)s->depth,
                        opt->seed + HARNESS_MASK_SEED_OFFSET + (uint64_t)k, &masks[k], err))
            wb_die(WB_EXIT_USAGE, "%s", err);
    }
    *count = opt->mask_size_count;
    return masks;
}

static struct volume load_volume(const char *path) {
    char err[WB_ERR_LEN];
    struct volume v;
    if (!cli_has_extension(path, ".npy"))
        wb_die(WB_EXIT_USAGE, "--input '%s': a volume is a .npy file of shape (D, H, W)", path);
    if (volume_load_npy(path, &v.data, &v.width, &v.height, &v.depth, err))
        wb_die(WB_EXIT_USAGE, "%s", err);
    return v;
}

static struct volume make_volume(const struct cli_size *size, uint64_t seed) {
    struct volume v = {NULL, (int)size->width, (int)size->height, (int)size->depth};
    v.data = host_malloc(voxels(&v) * sizeof(float), "the volume");
    if (use_phantom)
        volume_phantom(v.data, v.width, v.height, v.depth, seed);
    else
        fill_uniform(v.data, voxels(&v), seed, 0.0f, 1.0f);
    return v;
}

/* ---- one configuration --------------------------------------------------------------------- */

struct run_3d {
    const struct conv3d_variant *variants, *variant;
    const struct volume *volume;
    float *d_in, *d_out;
    const struct mask3d *mask;
    int block;
    const float *ref, *magnitude;
    float *got, *again;
    const char *output;
    FILE *human;
};

/* What the rules' refusal hook needs (it takes two mask sides): the configuration's mask and
 * block, and the kernel last asked about. harness_run_configuration asks for a kernel's rules,
 * then at once whether it refuses. */
static struct {
    const struct conv3d_variant *variant;
    const struct mask3d *mask;
    int block;
    char why[128];
} asked;

static const char *refuses_3d(int mask_w, int mask_h) {
    (void)mask_w, (void)mask_h;
    const struct conv3d_variant *k = asked.variant;
    const struct mask3d *m = asked.mask;
    if (k->block_covers_mask &&
        (asked.block < m->width || asked.block < m->height || asked.block < m->depth)) {
        snprintf(asked.why, sizeof asked.why, "needs --block >= every side of the %dx%dx%d mask",
                 m->width, m->height, m->depth);
        return asked.why;
    }
    return k->refuses ? k->refuses(m->width, m->height, m->depth, asked.block) : NULL;
}

static struct kernel_rules rules_3d(void *context, int v) {
    struct run_3d *run = context;
    const struct conv3d_variant *k = &run->variants[v];
    asked.variant = k;
    asked.mask = run->mask;
    asked.block = run->block;
    struct kernel_rules rules = {.label = k->label,
                                 .absent = k->launch == NULL,
                                 .comparison = k->comparison,
                                 .solution = k->solution,
                                 .block_rule = BLOCK_ANY,
                                 .refuses = refuses_3d};
    return rules;
}

static void select_3d(void *context, int v) {
    struct run_3d *run = context;
    run->variant = &run->variants[v];
}

static void launch_3d(void *context) {
    struct run_3d *run = context;
    const struct volume *v = run->volume;
    const struct mask3d *m = run->mask;
    run->variant->launch(run->d_in, run->d_out, v->width, v->height, v->depth, m->width,
                         m->height, m->depth, run->block);
}

/* Enqueues all-ones bytes (NaN) over the output: unwritten voxels fail, and a timed launch
 * cannot find the last one's result and skip its work. */
static void poison_3d(void *context) {
    struct run_3d *run = context;
    CUDA_CHECK(cudaMemsetAsync(run->d_out, 0xff, voxels(run->volume) * sizeof(float), 0));
}

/* Poisoned output, the mask, one launch, the result into `into`. */
static void launch_poisoned(struct run_3d *run, float *into) {
    const size_t bytes = voxels(run->volume) * sizeof(float);
    const struct mask3d *m = run->mask;
    poison_3d(run);
    if (run->variant->set_mask) run->variant->set_mask(m->weights, m->width, m->height, m->depth);
    launch_3d(run);
    CUDA_CHECK(cudaMemcpy(into, run->d_out, bytes, cudaMemcpyDeviceToHost)); /* waits, reports */
}

static struct variant_result check_3d(void *context) {
    struct run_3d *run = context;
    const struct volume *v = run->volume;
    const struct mask3d *m = run->mask;
    struct variant_result r;
    memset(&r, 0, sizeof r);
    launch_poisoned(run, run->got);
    /* depth planes of width x height; the first mismatches are listed here with their z */
    struct verify_shape shape = {(size_t)v->width, (size_t)v->height, v->depth};
    const int terms = m->width * m->height * m->depth;
    r.passed = verify_outputs(run->got, run->ref, run->magnitude, shape, terms, 0, NULL,
                              &r.summary) == 0;
    const size_t count = voxels(v), plane = (size_t)v->width * v->height;
    int listed = 0;
    for (size_t i = 0; !r.passed && i < count && listed < HARNESS_MISMATCHES_LISTED; ++i) {
        if (verify_output_ok(run->got[i], run->ref[i], run->magnitude[i], terms)) continue;
        fprintf(run->human, "  mismatch at x=%zu y=%zu z=%zu: expected %.9g, got %.9g%s\n",
                i % plane % v->width, i % plane / v->width, i / plane, run->ref[i],
                isnan(run->got[i]) ? NAN : run->got[i],
                isnan(run->got[i]) ? " (never written?)" : "");
        ++listed;
    }
    launch_poisoned(run, run->again);
    harness_same_twice(run->human, run->got, run->again, count, &r);
    if (!r.passed && r.hint.hint == HINT_NONE) {
        struct failure f = {.got = run->got,
                            .ref = run->ref,
                            .magnitude = run->magnitude,
                            .terms = terms,
                            .input = v->data,
                            .mask = m->weights,
                            .mask_w = m->width,
                            .mask_h = m->height,
                            .mask_d = m->depth,
                            .width = (size_t)v->width,
                            .height = (size_t)v->height,
                            .planes = v->depth,
                            .block = run->block,
                            .chapter = hint_chapter(wb_program_name())};
        r.hint = diagnose_failure(&f);
        hint_print(run->human, r.hint, 3, m->width);
    }
    return r;
}

/* The input's montage beside a .png --output: NAME.png -> NAME_input.png. */
static void input_montage_path(const char *output, char *path, size_t size) {
    const size_t stem = strlen(output) - 4; /* without ".png" */
    if ((size_t)snprintf(path, size, "%.*s_input.png", (int)stem, output) >= size)
        wb_die(WB_EXIT_USAGE, "--output '%s': the path is too long", output);
}

/* --output: the result as .npy, or a montage of its slices (and the input's beside it). */
static void write_output_3d(void *context) {
    struct run_3d *run = context;
    const struct volume *v = run->volume;
    char err[WB_ERR_LEN];
    const int slices = v->depth < MONTAGE_SLICES ? v->depth : MONTAGE_SLICES;
    if (cli_has_extension(run->output, ".npy")) {
        if (volume_save_npy(run->output, run->got, v->width, v->height, v->depth, err))
            wb_die(WB_EXIT_USAGE, "%s", err);
        return;
    }
    if (volume_montage(run->output, run->got, v->width, v->height, v->depth, slices, err))
        wb_die(WB_EXIT_USAGE, "%s", err);
    char input[4096];
    input_montage_path(run->output, input, sizeof input);
    if (volume_montage(input, v->data, v->width, v->height, v->depth, slices, err))
        wb_die(WB_EXIT_USAGE, "%s", err);
    fprintf(run->human, "  wrote the input's slices to %s\n", wb_shown(input));
}

/* ---- reporting ---------------------------------------------------------------------------- */

struct cpu_job {
    const struct volume *volume;
    const struct mask3d *mask;
    float *out;
};

static void run_cpu_reference(void *context) {
    struct cpu_job *job = context;
    const struct volume *v = job->volume;
    const struct mask3d *m = job->mask;
    cpu_correlate_3d(v->data, v->width, v->height, v->depth, m->weights, m->width, m->height,
                     m->depth, job->out, NULL, 1);
}

/* Multiply-adds per second over the device's FP32 FMA peak, as a percentage. */
static double pct_of_fma_peak(const struct volume *v, const struct mask3d *m, double ms,
                              double fma_peak) {
    double fmas = (double)voxels(v) * m->width * m->height * m->depth;
    return fma_peak > 0.0 ? 100.0 * fmas / (ms * 1e-3) / fma_peak : 0.0;
}

static void print_bench_rows(FILE *out, const struct conv3d_variant *variants, int count,
                             const struct variant_result *results, const struct volume *v,
                             const struct mask3d *m, int block, double copy_gbps, double cpu_ms,
                             double fma_peak) {
    static int header_printed;
    int last = count - 1; /* the baseline: the last kernel that is not the graded solution */
    while (last > 0 && (variants[last].solution || results[last].skipped)) --last;
    if (!header_printed++)
        fprintf(out, "  %13s %-18s %5s %-15s %9s %9s %8s %7s %9s %7s %10s\n", "volume", "mask",
                "block", "kernel", "median ms", "min ms", "GB/s", "% copy", "vs naive", "% FMA",
                "vs CPU MT");
    char config[64], size[32];
    snprintf(size, sizeof size, "%dx%dx%d", v->width, v->height, v->depth);
    snprintf(config, sizeof config, "%13s %-18s %5d", size, wb_shown(m->name), block);
    for (int k = 0; k < count; ++k) {
        const struct variant_result *r = &results[k];
        if (r->skipped) continue;
        harness_print_row(out, config, variants[k].label, r, &results[last], copy_gbps);
        if (r->passed)
            fprintf(out, " %6.1f%% %9.1fx\n", pct_of_fma_peak(v, m, r->time.median_ms, fma_peak),
                    cpu_ms / r->time.median_ms);
    }
    fprintf(out, "  %s %-15s %9.4f   (CPU reference, %d OpenMP threads, median of %d)\n", config,
            "CPU OpenMP", cpu_ms, cpu_thread_count(), CPU_REPS);
    fprintf(out, "  %s %-15s %9s %9s %8.1f %6.1f%%\n", config, "copy d2d", "", "", copy_gbps,
            100.0);
}

static void print_json(const struct cli_spec *spec, const struct cli_options *opt,
                       const char *device, const char *label, const struct volume *v,
                       const struct mask3d *m, const struct variant_result *r, double copy_gbps,
                       double cpu_ms, double fma_peak) {
    putchar('{');
    wb_json_string("program", spec->program);
    putchar(',');
    wb_json_string("variant", label);
    putchar(',');
    wb_json_string("device", device);
    putchar(',');
    wb_json_string("mask", m->name);
    printf(",\"width\":%d,\"height\":%d,\"depth\":%d,\"mask_width\":%d,\"mask_height\":%d,"
           "\"mask_depth\":%d,\"block\":%d",
           v->width, v->height, v->depth, m->width, m->height, m->depth, opt->block);
    harness_json_result(opt, r, copy_gbps);
    if (opt->mode != CLI_MODE_CHECK && r->passed)
        printf(",\"fma_peak_per_s\":%.6g,\"pct_of_fma_peak\":%.3f", fma_peak,
               pct_of_fma_peak(v, m, r->time.median_ms, fma_peak));
    if (opt->mode == CLI_MODE_BENCH && r->passed) printf(",\"cpu_openmp_ms\":%.3f", cpu_ms);
    printf("}\n");
}

/* Every kernel on one volume and mask; returns the number of kernels that failed. */
static int run_configuration(const struct cli_spec *spec, const struct cli_options *opt,
                             const struct device_info *device, double fma_peak,
                             const struct conv3d_variant *variants, int variant_count,
                             const struct volume *v, float *d_in, float *d_out,
                             const struct mask3d *m, FILE *human) {
    const size_t bytes = voxels(v) * sizeof(float);
    float *ref = harness_buffer(BUFFER_REFERENCE, bytes, "reference");
    float *magnitude = harness_buffer(BUFFER_MAGNITUDE, bytes, "error bounds");
    float *got = harness_buffer(BUFFER_GOT, bytes, "GPU result");
    float *again = harness_buffer(BUFFER_AGAIN, bytes, "GPU result");
    cpu_correlate_3d(v->data, v->width, v->height, v->depth, m->weights, m->width, m->height,
                     m->depth, ref, magnitude, 1);
    struct run_3d run = {.variants = variants,
                         .volume = v,
                         .d_in = d_in,
                         .d_out = d_out,
                         .mask = m,
                         .block = opt->block,
                         .ref = ref,
                         .magnitude = magnitude,
                         .got = got,
                         .again = again,
                         .output = opt->output,
                         .human = human};
    if (opt->mode != CLI_MODE_BENCH)
        fprintf(human, "volume %dx%dx%d, mask %s, block %d\n", v->width, v->height, v->depth,
                m->name, opt->block);
    struct configuration c = {.opt = opt,
                              .human = human,
                              .variant_count = variant_count,
                              .mask_w = m->width,
                              .mask_h = m->height,
                              .bytes_moved = 2.0 * bytes,
                              .fmas = (double)voxels(v) * (m->width + m->height + m->depth),
                              .context = &run,
                              .rules = rules_3d,
                              .select = select_3d,
                              .check = check_3d,
                              .launch = launch_3d,
                              .poison = poison_3d,
                              .write_output = write_output_3d};
    if (opt->mode != CLI_MODE_CHECK) c.copy_gbps = copy_bandwidth_gbps(bytes, opt->reps);
    struct variant_result *results = host_malloc(sizeof *results * variant_count, "results");
    int failures = harness_run_configuration(&c, results);
    double cpu_ms = 0.0;
    if (opt->mode == CLI_MODE_BENCH) {
        struct cpu_job cpu = {v, m, ref};
        cpu_ms = host_time(run_cpu_reference, &cpu, CPU_REPS).median_ms;
        print_bench_rows(human, variants, variant_count, results, v, m, opt->block, c.copy_gbps,
                         cpu_ms, fma_peak);
    }
    if (opt->json)
        for (int k = 0; k < variant_count; ++k)
            if (!results[k].skipped)
                print_json(spec, opt, device->name, variants[k].label, v, m, &results[k],
                           c.copy_gbps, cpu_ms, fma_peak);
    free(results);
    return failures;
}

/* ---- the program ---------------------------------------------------------------------------- */

/* Bytes the host can give without swapping: Linux's MemAvailable (free memory plus the caches
 * it can drop), else the free pages; 0 when neither can be read. */
static size_t host_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    if (f) fclose(f);
    if (kib) return (size_t)kib * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* What would fail late is refused before the work: a montage over the image limits, a montage
 * of the input that would replace an input, and volumes the host's memory cannot hold (each
 * takes its data, the GPU's result twice, the CPU reference and its bounds: five copies). */
static void check_before_work(const struct cli_options *opt, const struct volume *given,
                              int inputs) {
    char err[WB_ERR_LEN];
    size_t largest = 0;
    for (int s = 0; s < (inputs ? inputs : opt->size_count); ++s) {
        const struct volume v = inputs ? given[s]
                                       : (struct volume){NULL, (int)opt->sizes[s].width,
                                                         (int)opt->sizes[s].height,
                                                         (int)opt->sizes[s].depth};
        if (voxels(&v) > largest) largest = voxels(&v);
        const int slices = v.depth < MONTAGE_SLICES ? v.depth : MONTAGE_SLICES;
        if (opt->output && cli_has_extension(opt->output, ".png") &&
            volume_montage_check(v.width, v.height, slices, err))
            wb_die(WB_EXIT_USAGE, "--output '%s': %s", opt->output, err);
    }
    if (opt->output && cli_has_extension(opt->output, ".png")) {
        char input[4096];
        input_montage_path(opt->output, input, sizeof input);
        if (safe_output_check(input, err)) wb_die(WB_EXIT_USAGE, "--output's input montage %s", err);
    }
    size_t loaded = 0; /* the --input volumes, all read before the GPU */
    for (int i = 0; i < inputs; ++i)
        loaded += voxels(&given[i]) * sizeof(float);
    const size_t needed = 5 * largest * sizeof(float) + (inputs ? 0 : largest * sizeof(float));
    const size_t available = host_available_bytes();
    if (available && needed > available)
        wb_die(WB_EXIT_USAGE, "a %zu-voxel volume needs %.1f GiB of host memory (the data, the "
               "GPU's result twice, the CPU reference and its error bounds), but %.1f GiB is "
               "available (%.1f GiB of inputs already read): use a smaller volume", largest,
               needed / 1073741824.0, available / 1073741824.0, loaded / 1073741824.0);
}

static int conv3d_run(const struct cli_spec *spec, const struct cli_options *opt,
                      const struct conv3d_variant *variants, int variant_count) {
    if (opt->output && !cli_has_extension(opt->output, ".png") &&
        !cli_has_extension(opt->output, ".npy"))
        wb_die(WB_EXIT_USAGE, "--output '%s': write a .npy volume or a .png montage", opt->output);
    /* Everything given is read and validated before the GPU is touched. */
    const int inputs = opt->input_count, kinds = opt->mask_kind_count;
    struct volume *given = host_malloc(sizeof *given * (inputs ? inputs : 1), "inputs");
    for (int i = 0; i < inputs; ++i)
        given[i] = load_volume(opt->inputs[i]);
    struct mask3d *masks[CLI_MAX_VALUES];
    int mask_count[CLI_MAX_VALUES];
    for (int k = 0; k < kinds; ++k) {
        masks[k] = make_masks(spec, opt, opt->volume_mask_kinds[k], &mask_count[k]);
        for (int b = 0; b < opt->block_count && variants[0].block_covers_mask; ++b)
            for (int m = 0; m < mask_count[k]; ++m) {
                const struct mask3d *mk = &masks[k][m];
                int block = opt->blocks[b];
                if (block < mk->width || block < mk->height || block < mk->depth)
                    wb_die(WB_EXIT_USAGE,
                           "--block %d is smaller than the %dx%dx%d mask: the input tile (block "
                           "x block x block threads) must hold at least one output's window",
                           block, mk->width, mk->height, mk->depth);
            }
    }

    check_before_work(opt, given, inputs);

    struct device_info device;
    FILE *human = harness_open_device(opt, &device);
    const double fma_peak = device_fma_peak(&device, NULL);
    struct cli_options one = *opt; /* one input and block at a time */
    int configurations = 0, failed = 0;
    for (int s = 0; s < (inputs ? inputs : opt->size_count); ++s) {
        struct volume v = inputs ? given[s] : make_volume(&opt->sizes[s], opt->seed);
        if (inputs) one.input = opt->inputs[s];
        char what[96];
        const size_t bytes = voxels(&v) * sizeof(float);
        snprintf(what, sizeof what, "%dx%dx%d input volume", v.width, v.height, v.depth);
        float *d_in = device_malloc(bytes, what);
        snprintf(what, sizeof what, "%dx%dx%d output volume", v.width, v.height, v.depth);
        float *d_out = device_malloc(bytes, what);
        CUDA_CHECK(cudaMemcpy(d_in, v.data, bytes, cudaMemcpyHostToDevice));
        for (int k = 0; k < kinds; ++k)
            for (int b = 0; b < opt->block_count; ++b) {
                one.block = opt->blocks[b];
                for (int m = 0; m < mask_count[k]; ++m, ++configurations)
                    failed += run_configuration(spec, &one, &device, fma_peak, variants,
                                                variant_count, &v, d_in, d_out, &masks[k][m],
                                                human) > 0;
            }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(v.data);
    }
    for (int k = 0; k < kinds; ++k) {
        for (int m = 0; m < mask_count[k]; ++m)
            mask3d_free(&masks[k][m]);
        free(masks[k]);
    }
    free(given);
    return harness_finish(human, failed, configurations, opt);
}

int conv3d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv3d_variant *variants, int variant_count) {
    if (variant_count < 1) wb_die(WB_EXIT_USAGE, "a chapter needs at least one kernel");
    struct cli_options opt;
    enum block_rule rule = variants[0].block_covers_mask ? BLOCK_COVERS_MASK : BLOCK_ANY;
    if (harness_start(argc, argv, spec, rule, &opt) == 1) return WB_EXIT_PASS;
    return conv3d_run(spec, &opt, variants, variant_count);
}
