/* conv1d_harness.c: the 1D chapters' host program (see conv1d_harness.h).
 * Sections in order: inputs (the signal), one configuration (the hooks harness.c's loop calls:
 * select, launch, check, output; the CPU reference), reporting (text and JSON), and
 * conv1d_chapter_main tying them together. */
#include "conv1d_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "harness.h"
#include "data_gen.h"
#include "image_io.h"
#include "reference.h"
#include "timing.h"
#include "verify.h"

enum { CPU_REPS_SINGLE = 3, CPU_REPS_OPENMP = 5 };

/* ---- inputs ------------------------------------------------------------------------------ */

struct signal {
    float *values;
    size_t length;
};

static void load_signal(const char *path, struct signal *s) {
    char err[WB_ERR_LEN];
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    if (!cli_has_extension(path, ".npy"))
        wb_die(WB_EXIT_USAGE, "--input '%s': the 1D chapters read signals from .npy files", path);
    if (npy_load_f32(path, &s->values, &ndim, shape, err)) wb_die(WB_EXIT_USAGE, "%s", err);
    if (ndim != 1)
        wb_die(WB_EXIT_USAGE, "--input '%s' is a %d-D array; a 1D chapter needs a 1-D signal", path,
               ndim);
    s->length = shape[0];
    if (s->length < 1 || s->length > (size_t)CLI_MAX_LENGTH_1D)
        wb_die(WB_EXIT_USAGE, "--input '%s' has %zu values; the length must be 1 to %ld", path,
               s->length, CLI_MAX_LENGTH_1D);
    for (size_t i = 0; i < s->length; ++i)
        if (!isfinite(s->values[i]))
            wb_die(WB_EXIT_USAGE, "--input '%s' holds a non-finite value at index %zu", path, i);
}

/* ---- one configuration ------------------------------------------------------------------- */

struct device_buffers {
    float *in, *mask, *out;
};

/* The signal's input and output arrays on the GPU, allocated and filled once for all its masks
 * (each configuration would otherwise pay for two allocations, a copy and two frees, and a free
 * waits for the GPU: slow when test processes share it). Both are exactly the signal's size, so
 * memcheck still sees a kernel that reads or writes one element past either end. */
static struct device_buffers upload_signal(const struct signal *signal) {
    size_t bytes = signal->length * sizeof(float);
    struct device_buffers d = {.in = device_malloc(bytes, "input signal"),
                               .mask = NULL,
                               .out = device_malloc(bytes, "output signal")};
    CUDA_CHECK(cudaMemcpy(d.in, signal->values, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* The hooks' context: one signal and mask on the GPU, and the kernel being run. */
struct run_1d {
    const struct conv1d_variant *variants, *variant;
    struct device_buffers d;
    const struct mask *mask;
    const float *input, *ref, *magnitude;
    float *got, *again; /* the result of the first launch, of the second */
    int n, block;
    const char *output;
    FILE *human;
};

static struct kernel_rules rules_1d(void *context, int v) {
    const struct conv1d_variant *k = &((struct run_1d *)context)->variants[v];
    struct kernel_rules rules = {.label = k->label,
                                 .absent = k->launch == NULL,
                                 .comparison = k->comparison,
                                 .solution = k->solution,
                                 .name = k->name,
                                 .block_rule = k->block_rule};
    return rules;
}

static void select_1d(void *context, int v) {
    struct run_1d *run = context;
    run->variant = &run->variants[v];
}

static void launch_1d(void *context) {
    struct run_1d *run = context;
    run->variant->launch(run->d.in, run->d.mask, run->d.out, run->n, run->mask->width, run->block);
}

/* Enqueues all-ones bytes over the output: a NaN, so an output the kernel never writes cannot
 * pass, and a timed launch cannot find the last one's result and skip its work. */
static void poison_1d(void *context) {
    struct run_1d *run = context;
    CUDA_CHECK(cudaMemsetAsync(run->d.out, 0xff, (size_t)run->n * sizeof(float), 0));
}

/* Poisons the output, sets the mask, launches once and copies the result to `into`. */
static void launch_poisoned(struct run_1d *run, float *into) {
    size_t bytes = (size_t)run->n * sizeof(float);
    poison_1d(run);
    if (run->variant->set_mask) run->variant->set_mask(run->mask->weights, run->mask->width);
    launch_1d(run);
    /* No cudaDeviceSynchronize first: the copy waits for the kernel and reports its fault, if
     * any. One wait instead of two matters when test processes share the GPU: each wait then
     * waits out the other processes' time slices (tests/ctest_list.sh). */
    CUDA_CHECK(cudaMemcpy(into, run->d.out, bytes, cudaMemcpyDeviceToHost));
}

/* Launch twice (the two must agree bit for bit), verify the first, name the likely cause. */
static struct variant_result check_1d(void *context) {
    struct run_1d *run = context;
    struct variant_result result;
    memset(&result, 0, sizeof result);
    launch_poisoned(run, run->got);
    launch_poisoned(run, run->again);
    struct verify_shape shape = {(size_t)run->n, 1, 1};
    result.passed = verify_outputs(run->got, run->ref, run->magnitude, shape, run->mask->width,
                                   HARNESS_MISMATCHES_LISTED, run->human, &result.summary) == 0;
    harness_same_twice(run->human, run->got, run->again, (size_t)run->n, &result);
    if (!result.passed && result.hint.hint == HINT_NONE) {
        struct failure f = {.got = run->got,
                            .ref = run->ref,
                            .magnitude = run->magnitude,
                            .terms = run->mask->width,
                            .input = run->input,
                            .mask = run->mask->weights,
                            .mask_w = run->mask->width,
                            .mask_h = 1,
                            .width = (size_t)run->n,
                            .height = 1,
                            .planes = 1,
                            .block = run->block};
        result.hint = diagnose_failure(&f);
        hint_print(run->human, result.hint, 1, run->mask->width);
    }
    return result;
}

static void write_output_1d(void *context) {
    struct run_1d *run = context;
    char err[WB_ERR_LEN];
    size_t shape[1] = {(size_t)run->n};
    if (npy_save_f32(run->output, run->got, 1, shape, err)) wb_die(WB_EXIT_USAGE, "%s", err);
}

struct cpu_job {
    const struct signal *signal;
    const struct mask *mask;
    float *out;
    int parallel;
};

static void run_cpu_reference(void *context) {
    struct cpu_job *job = context;
    cpu_correlate_1d(job->signal->values, job->signal->length, job->mask->weights, job->mask->width,
                     job->out, NULL, job->parallel);
}

/* ---- reporting --------------------------------------------------------------------------- */

static void print_json(const struct cli_spec *spec, const struct cli_options *opt,
                       const char *device, const struct conv1d_variant *variant,
                       const struct mask *mask, int n, const struct variant_result *r,
                       double copy_gbps, double cpu_single_ms, double cpu_openmp_ms) {
    putchar('{');
    wb_json_string("program", spec->program);
    putchar(',');
    wb_json_string("variant", variant->label);
    putchar(',');
    wb_json_string("device", device);
    putchar(',');
    wb_json_string("mask", mask->name);
    printf(",\"n\":%d,\"mask_width\":%d,\"block\":%d", n, mask->width, opt->block);
    harness_json_result(opt, r, copy_gbps);
    if (opt->mode == CLI_MODE_BENCH && r->passed)
        printf(",\"cpu_single_ms\":%.3f,\"cpu_openmp_ms\":%.3f,\"cpu_threads\":%d", cpu_single_ms,
               cpu_openmp_ms, cpu_thread_count());
    printf("}\n");
}

/* One table for the whole run: a row per kernel and configuration, then the CPU and copy rows.
 * "vs ch01" divides by the last variant's time: drivers list their kernels newest first, so the
 * last one is chapter 01's basic kernel. */
static void print_bench_rows(FILE *out, const struct conv1d_variant *variants, int count,
                             const struct variant_result *results, size_t n,
                             const struct mask *mask, int block, double copy_gbps,
                             double cpu_single_ms, double cpu_openmp_ms) {
    static int header_printed;
    int last = count - 1; /* the baseline: the last kernel that is not the graded solution */
    while (last > 0 && variants[last].solution) --last;
    const struct variant_result *basic = &results[last];
    if (!header_printed++)
        fprintf(out, "  %10s %-12s %5s %-15s %9s %9s %8s %7s %9s %10s %9s\n", "n", "mask", "block",
                "kernel", "median ms", "min ms", "GB/s", "% copy", "vs ch01", "vs CPU 1T",
                "vs CPU MT");
    char config[64];
    snprintf(config, sizeof config, "%10zu %-12s %5d", n, wb_shown(mask->name), block);
    for (int v = 0; v < count; ++v) {
        const struct variant_result *r = &results[v];
        if (r->skipped) continue;
        harness_print_row(out, config, variants[v].label, r, basic, copy_gbps);
        if (r->passed)
            fprintf(out, " %9.1fx %8.1fx\n", cpu_single_ms / r->time.median_ms,
                    cpu_openmp_ms / r->time.median_ms);
    }
    fprintf(out, "  %s %-15s %9.4f   (CPU reference, 1 thread, median of %d)\n", config,
            "CPU 1 thread", cpu_single_ms, CPU_REPS_SINGLE);
    fprintf(out, "  %s %-15s %9.4f   (CPU reference, %d OpenMP threads, median of %d)\n", config,
            "CPU OpenMP", cpu_openmp_ms, cpu_thread_count(), CPU_REPS_OPENMP);
    fprintf(out, "  %s %-15s %9s %9s %8.1f %6.1f%%\n", config, "copy d2d", "", "", copy_gbps,
            100.0);
}

/* Runs every variant on one signal and mask; returns the number of variants that failed. */
static int run_configuration(const struct cli_spec *spec, const struct cli_options *opt,
                             const struct device_info *device,
                             const struct conv1d_variant *variants, int variant_count,
                             const struct signal *signal, const struct device_buffers *on_gpu,
                             const struct mask *mask, FILE *human) {
    size_t n = signal->length, bytes = n * sizeof(float);
    float *ref = harness_buffer(BUFFER_REFERENCE, bytes, "reference");
    float *magnitude = harness_buffer(BUFFER_MAGNITUDE, bytes, "error bounds");
    float *got = harness_buffer(BUFFER_GOT, bytes, "GPU result");
    float *again = harness_buffer(BUFFER_AGAIN, bytes, "GPU result");
    cpu_correlate_1d(signal->values, n, mask->weights, mask->width, ref, magnitude, 1);

    /* The host side of every CUDA program: allocate, copy in, (launch), copy out, free. */
    struct run_1d run = {.variants = variants,
                         .mask = mask,
                         .input = signal->values,
                         .ref = ref,
                         .magnitude = magnitude,
                         .got = got,
                         .again = again,
                         .n = (int)n,
                         .block = opt->block,
                         .output = opt->output,
                         .human = human};
    /* The mask gets an array of exactly its width, so memcheck sees a read past its end. */
    run.d = *on_gpu;
    run.d.mask = device_malloc((size_t)mask->width * sizeof(float), "mask");
    CUDA_CHECK(cudaMemcpy(run.d.mask, mask->weights, (size_t)mask->width * sizeof(float),
                          cudaMemcpyHostToDevice));

    if (opt->mode != CLI_MODE_BENCH)
        fprintf(human, "n=%zu mask=%s block=%d\n", n, wb_shown(mask->name), opt->block);
    struct configuration c = {.opt = opt,
                              .human = human,
                              .variant_count = variant_count,
                              .mask_w = mask->width,
                              .mask_h = 1,
                              .bytes_moved = 2.0 * bytes + mask->width * sizeof(float),
                              .fmas = (double)n * mask->width,
                              .context = &run,
                              .rules = rules_1d,
                              .select = select_1d,
                              .check = check_1d,
                              .launch = launch_1d,
                              .poison = poison_1d,
                              .write_output = write_output_1d};
    if (opt->mode != CLI_MODE_CHECK) c.copy_gbps = copy_bandwidth_gbps(bytes, opt->reps);
    struct variant_result *results = host_malloc(sizeof *results * variant_count, "results");
    int failures = harness_run_configuration(&c, results);
    double cpu_single_ms = 0.0, cpu_openmp_ms = 0.0;
    if (opt->mode == CLI_MODE_BENCH) {
        struct cpu_job single = {signal, mask, ref, 0}, openmp = {signal, mask, ref, 1};
        cpu_single_ms = host_time(run_cpu_reference, &single, CPU_REPS_SINGLE).median_ms;
        cpu_openmp_ms = host_time(run_cpu_reference, &openmp, CPU_REPS_OPENMP).median_ms;
        print_bench_rows(human, variants, variant_count, results, n, mask, opt->block, c.copy_gbps,
                         cpu_single_ms, cpu_openmp_ms);
    }
    if (opt->json)
        for (int v = 0; v < variant_count; ++v)
            if (!results[v].skipped)
                print_json(spec, opt, device->name, &variants[v], mask, (int)n, &results[v],
                           c.copy_gbps, cpu_single_ms, cpu_openmp_ms);
    CUDA_CHECK(cudaFree(run.d.mask));
    free(results);
    return failures;
}

/* ---- the program ------------------------------------------------------------------------- */

struct cli_spec conv1d_standard_spec(const char *program, const char *summary) {
    struct cli_spec spec = {
        .program = program,
        .summary = summary,
        .dims = 1,
        .default_size = {1L << 26, 1},
        .default_mask = {5, 1},
        .max_mask = {WB_MAX_MASK_WIDTH_1D, 1},
        .default_block = 256,
        .min_block = 1,
        .max_block = 1024,
        .input_formats = "a 1-D float32 or float64 .npy signal",
    };
    return spec;
}

int conv1d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv1d_variant *variants, int variant_count) {
    if (variant_count < 1) wb_die(WB_EXIT_USAGE, "a chapter needs at least one kernel");
    struct cli_options opt;
    if (harness_start(argc, argv, spec, variants[0].block_rule, &opt) == 1) return WB_EXIT_PASS;
    if (opt.output && !cli_has_extension(opt.output, ".npy"))
        wb_die(WB_EXIT_USAGE, "--output '%s': the 1D chapters write .npy files", opt.output);

    /* Everything the user gave is read and validated before the GPU is touched: every input,
     * every mask of every --mask name, every --block against them. */
    const int inputs = opt.input_count, kinds = opt.mask_kind_count;
    struct signal *given = host_malloc(sizeof *given * (inputs ? inputs : 1), "inputs");
    for (int i = 0; i < inputs; ++i)
        load_signal(opt.inputs[i], &given[i]);
    struct cli_options one = opt; /* one input, mask name and block at a time */
    struct mask *masks[CLI_MAX_VALUES];
    int mask_count[CLI_MAX_VALUES];
    struct kernel_rules own = {.label = variants[0].label, .block_rule = variants[0].block_rule};
    for (int k = 0; k < kinds; ++k) {
        one.mask_kind = opt.mask_kinds[k];
        masks[k] = harness_make_masks(spec, &one, &mask_count[k]);
        harness_require_block(&own, &opt, masks[k], mask_count[k]);
    }

    struct device_info device;
    FILE *human = harness_open_device(&opt, &device);
    int configurations = 0, failed = 0;
    for (int s = 0; s < (inputs ? inputs : opt.size_count); ++s) {
        struct signal signal;
        if (inputs) {
            signal = given[s];
            one.input = opt.inputs[s];
            if (inputs > 1 && opt.mode != CLI_MODE_BENCH) fprintf(human, "input %s\n", wb_shown(one.input));
        } else {
            signal.length = (size_t)opt.sizes[s].width;
            signal.values = host_malloc(signal.length * sizeof(float), "input signal");
            fill_uniform(signal.values, signal.length, opt.seed, -1.0f, 1.0f);
        }
        struct device_buffers on_gpu = upload_signal(&signal);
        for (int k = 0; k < kinds; ++k) {
            one.mask_kind = opt.mask_kinds[k];
            for (int b = 0; b < opt.block_count; ++b) {
                one.block = opt.blocks[b];
                for (int m = 0; m < mask_count[k]; ++m, ++configurations)
                    failed += run_configuration(spec, &one, &device, variants, variant_count,
                                                &signal, &on_gpu, &masks[k][m], human) > 0;
            }
        }
        CUDA_CHECK(cudaFree(on_gpu.in));
        CUDA_CHECK(cudaFree(on_gpu.out));
        free(signal.values);
    }
    for (int k = 0; k < kinds; ++k) {
        for (int m = 0; m < mask_count[k]; ++m)
            mask_free(&masks[k][m]);
        free(masks[k]);
    }
    free(given);
    return harness_finish(human, failed, configurations, &opt);
}
