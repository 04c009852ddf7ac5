/* conv2d_harness.c: the 2D chapters' host program (see conv2d_harness.h).
 * Sections in order: inputs (the image), the pitched device image, one configuration (the hooks
 * harness.c's loop calls: select, launch on every plane, check with the error map, output; the
 * CPU reference), reporting, conv2d_run and conv2d_chapter_main. */
#include "conv2d_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "harness.h"
#include "data_gen.h"
#include "image_io.h"
#include "iterated.h"
#include "reference.h"
#include "timing.h"
#include "verify.h"

enum { CPU_REPS = 3 };

struct cli_spec conv2d_standard_spec(const char *program, const char *summary, int max_side) {
    struct cli_spec spec = {
        .program = program,
        .summary = summary,
        .dims = 2,
        .default_size = {8192, 8192},
        .default_mask = {5, 5},
        .max_mask = {max_side, max_side},
        .default_block = 32,
        .min_block = 1,
        .max_block = 32,
        .input_formats = "a PNG image (any colour type) or a float32 .npy of shape (H, W) or "
                         "(C, H, W)",
    };
    return spec;
}

/* ---- inputs ------------------------------------------------------------------------------ */

/* The image to convolve: planes 0..convolved-1 are filtered, any further plane (alpha) is
 * copied through. */
struct input_image {
    struct image img;
    int convolved;
};

static void load_input(const char *path, struct input_image *in) {
    char err[WB_ERR_LEN];
    memset(in, 0, sizeof *in);
    if (cli_has_extension(path, ".npy")) {
        float *data;
        int ndim;
        size_t shape[NPY_MAX_DIMS];
        if (npy_load_f32(path, &data, &ndim, shape, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        size_t channels = ndim == 3 ? shape[0] : 1;
        size_t height = ndim >= 2 ? shape[ndim - 2] : 0, width = ndim >= 2 ? shape[ndim - 1] : 0;
        if ((ndim != 2 && ndim != 3) || channels < 1 || channels > 4)
            wb_die(WB_EXIT_USAGE, "--input '%s': expected shape (H, W) or (C, H, W) with C 1..4",
                   path);
        if (width < 1 || height < 1 || width > IMAGE_MAX_DIM || height > IMAGE_MAX_DIM ||
            width * height > IMAGE_MAX_PIXELS)
            wb_die(WB_EXIT_USAGE,
                   "--input '%s' is %zux%zu: each side must be 1..%d and the "
                   "image at most %zu pixels",
                   path, width, height, IMAGE_MAX_DIM, (size_t)IMAGE_MAX_PIXELS);
        in->img.width = (int)width;
        in->img.height = (int)height;
        in->img.channels = (int)channels;
        in->img.data = data;
        in->convolved = (int)channels; /* a .npy has no alpha: every plane is filtered */
    } else {
        if (image_load_png(path, &in->img, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        in->convolved = in->img.has_alpha ? in->img.channels - 1 : in->img.channels;
    }
    size_t count = (size_t)in->img.width * in->img.height * in->img.channels;
    for (size_t i = 0; i < count; ++i)
        if (!isfinite(in->img.data[i]))
            wb_die(WB_EXIT_USAGE, "--input '%s' holds a non-finite value", path);
}

/* ---- the pitched device image ------------------------------------------------------------- */

/* `planes` planes of width x height floats stacked in one pitched allocation: plane p's row y
 * starts at byte (p * height + y) * pitch. Rows are padded to `pitch` bytes so that every row
 * starts on an aligned boundary and a warp's row reads map onto whole DRAM bursts. */
struct device_image {
    float *data;
    size_t pitch;
    int width, height, planes;
    float *allocation; /* what cudaFree takes: data, or the guard row above it */
};

/* guard: one more row above the planes and one below them, for the input (upload_image) */
static struct device_image device_image_alloc(int width, int height, int planes, int guard,
                                              const char *what) {
    struct device_image d = {NULL, 0, width, height, planes, NULL};
    d.allocation = device_malloc_pitch((size_t)width * sizeof(float),
                                       (size_t)height * planes + (guard ? 2 : 0), &d.pitch, what);
    d.data = guard ? (float *)((char *)d.allocation + d.pitch) : d.allocation;
    return d;
}

/* The image's input and output on the GPU, allocated and filled once for all its masks (as in
 * conv1d_harness.c: fewer allocations, copies and frees, each of which waits its turn when test
 * processes share the GPU). Pitched: rows padded to the driver's alignment, copied row by row.
 * Around the input's pixels lies NaN, as around the output's before each launch
 * (padding_untouched): its rows' padding, and a guard row above the first row and one below
 * the last. A kernel that reads outside the image instead of taking a ghost cell's zero (x =
 * width, x = -1 on the row below, y = -1 or y = height) takes a NaN into its sum and fails,
 * where zeros or whatever memory lay there could pass it. */
struct image_on_gpu {
    struct device_image in, out;
};

static struct image_on_gpu upload_image(const struct input_image *image) {
    int width = image->img.width, height = image->img.height, planes = image->convolved;
    struct image_on_gpu d = {device_image_alloc(width, height, planes, 1, "input image"),
                             device_image_alloc(width, height, planes, 0, "output image")};
    size_t row_bytes = (size_t)width * sizeof(float);
    CUDA_CHECK(cudaMemset2D(d.in.allocation, d.in.pitch, 0xff, d.in.pitch,
                            (size_t)height * planes + 2));
    CUDA_CHECK(cudaMemcpy2D(d.in.data, d.in.pitch, image->img.data, row_bytes, row_bytes,
                            (size_t)height * planes, cudaMemcpyHostToDevice));
    return d;
}

static float *device_plane(const struct device_image *d, int plane) {
    return (float *)((char *)d->data + (size_t)plane * d->height * d->pitch);
}

/* ---- one configuration ------------------------------------------------------------------- */

/* The hooks' context: one image and mask on the GPU, and the kernel being run. */
struct run_2d {
    const struct conv2d_variant *variants, *variant;
    struct device_image in, out;
    int planes, block;
    const struct mask *mask;
    const float *ref, *magnitude;
    float *got, *again; /* the result of the first launch, of the second */
    const float *host_in; /* host variants: the filtered planes, page-locked (a copy) */
    float *host_out;      /* and where they write, page-locked */
    float fft_floor;    /* sum |mask| * max |input|: the FFT rule's least scale */
    conv2d_error_bound_fn bound_of; /* whose bounds BUFFER_BOUND holds for this configuration */
    int bound_terms;
    const struct input_image *image;
    const char *output, *error_map;
    FILE *human;
};

static struct kernel_rules rules_2d(void *context, int v) {
    const struct conv2d_variant *k = &((struct run_2d *)context)->variants[v];
    struct kernel_rules rules = {.label = k->label,
                                 .absent = k->launch == NULL && k->host_launch == NULL,
                                 .comparison = k->comparison,
                                 .solution = k->solution,
                                 .block_rule = k->block_rule,
                                 .refuses = k->refuses};
    return rules;
}

static void select_2d(void *context, int v) {
    struct run_2d *run = context;
    run->variant = &run->variants[v];
}

static void launch_all_planes(void *context) {
    struct run_2d *run = context;
    if (run->variant->host_launch) {
        size_t plane = (size_t)run->in.width * run->in.height;
        for (int p = 0; p < run->planes; ++p)
            run->variant->host_launch(run->host_in + p * plane, run->host_out + p * plane,
                                      (size_t)run->in.width * sizeof(float), run->in.width,
                                      run->in.height, run->mask->width, run->mask->height,
                                      run->block);
        return;
    }
    for (int p = 0; p < run->planes; ++p)
        run->variant->launch(device_plane(&run->in, p), device_plane(&run->out, p), run->in.pitch,
                             run->in.width, run->in.height, run->mask->width, run->mask->height,
                             run->block);
}

static int passes = 1; /* conv2d_set_passes */

void conv2d_set_passes(int count) {
    if (count < 1) wb_die(WB_EXIT_USAGE, "conv2d_set_passes: %d passes", count);
    passes = count;
}

struct cpu_job {
    const struct image *img;
    int planes;
    const struct mask *mask;
    float *out;
    float *scratch; /* passes > 1: a plane for the passes between */
};

/* The OpenMP baseline: each pass one correlation of the last pass's float result. */
static void run_cpu_reference(void *context) {
    struct cpu_job *job = context;
    const int w = job->img->width, h = job->img->height;
    size_t plane = (size_t)w * h;
    for (int p = 0; p < job->planes; ++p) {
        const float *source = job->img->data + p * plane;
        for (int k = 0; k < passes; ++k) {
            /* the last pass lands in out; the ones before alternate so that it does */
            float *target = (passes - 1 - k) % 2 ? job->scratch : job->out + p * plane;
            cpu_correlate_2d(source, w, h, job->mask->weights, job->mask->width,
                             job->mask->height, target, NULL, 1);
            source = target;
        }
    }
}

/* Writes the GPU result (filtered planes, then the input's alpha unchanged) to --output. */
static void write_output(const char *path, const struct input_image *in, const float *got) {
    char err[WB_ERR_LEN];
    struct image out = in->img;
    size_t plane = (size_t)out.width * out.height;
    out.data = host_malloc(plane * out.channels * sizeof(float), "output image");
    memcpy(out.data, got, plane * in->convolved * sizeof(float));
    memcpy(out.data + plane * in->convolved, in->img.data + plane * in->convolved,
           plane * (out.channels - in->convolved) * sizeof(float));
    int status;
    if (cli_has_extension(path, ".npy")) {
        size_t shape[3] = {(size_t)out.channels, (size_t)out.height, (size_t)out.width};
        status = npy_save_f32(path, out.data, 3, shape, err);
    } else {
        status = image_save_png(path, &out, err);
    }
    free(out.data);
    if (status) wb_die(WB_EXIT_USAGE, "%s", err);
}

/* All-ones bytes (a NaN) over the output a host launcher writes, in page-locked memory. */
static void CUDART_CB poison_host_output(void *context) {
    struct run_2d *run = context;
    const size_t bytes = (size_t)run->in.width * sizeof(float) * run->in.height * run->planes;
    memset(run->host_out, 0xff, bytes);
}

/* Enqueues all-ones bytes over the output: a NaN, so an output the kernel never writes cannot
 * pass, and a timed launch cannot find the last one's result and skip its work. A host
 * launcher's output is poisoned by the CPU, in stream order (after the last launch's copies). */
static void poison_2d(void *context) {
    struct run_2d *run = context;
    if (run->variant->host_launch) {
        CUDA_CHECK(cudaLaunchHostFunc(0, poison_host_output, run));
        return;
    }
    /* whole pitched rows: the padding past each row's last pixel too (padding_untouched) */
    CUDA_CHECK(cudaMemset2DAsync(run->out.data, run->out.pitch, 0xff, run->out.pitch,
                                 (size_t)run->out.height * run->planes, 0));
}

/* The padding past each row's last pixel, poisoned with the output, must come back untouched. A
 * store at x = width lands there where the pitch is wider than the row, and on the next row's
 * first pixel where it is not (a race with that pixel's own store, which a comparison of the
 * outputs sees only sometimes): a missing or loose x < width guard. Prints where it was hit. */
static int padding_untouched(const struct run_2d *run) {
    const size_t row_bytes = (size_t)run->in.width * sizeof(float);
    const size_t pad = run->out.pitch - row_bytes, rows = (size_t)run->out.height * run->planes;
    if (pad == 0 || run->variant->host_launch) return 1;
    unsigned char *bytes = host_malloc(pad * rows, "the output's row padding");
    CUDA_CHECK(cudaMemcpy2D(bytes, pad, (const char *)run->out.data + row_bytes, run->out.pitch,
                            pad, rows, cudaMemcpyDeviceToHost));
    size_t hit = 0;
    while (hit < pad * rows && bytes[hit] == 0xff)
        ++hit;
    free(bytes);
    if (hit == pad * rows) return 1;
    fprintf(run->human,
            "  wrote past the end of a row: row %zu of plane %zu, column %zu (the image is %d "
            "wide; a store needs x < width)\n",
            hit / pad % run->out.height, hit / pad / run->out.height,
            (size_t)run->in.width + hit % pad / sizeof(float), run->in.width);
    return 0;
}

/* Poisons the output, sets the mask, launches on every plane and copies the result to `into`. */
static void launch_poisoned(struct run_2d *run, float *into) {
    const struct mask *mask = run->mask;
    size_t row_bytes = (size_t)run->in.width * sizeof(float);
    if (run->variant->host_launch) { /* it writes page-locked memory itself */
        const size_t bytes = row_bytes * run->in.height * run->planes;
        poison_host_output(run);
        if (run->variant->set_mask)
            run->variant->set_mask(mask->weights, mask->width, mask->height);
        launch_all_planes(run);
        memcpy(into, run->host_out, bytes);
        return;
    }
    poison_2d(run);
    if (run->variant->set_mask) run->variant->set_mask(mask->weights, mask->width, mask->height);
    launch_all_planes(run);
    /* No cudaDeviceSynchronize first: the copy waits for the kernel and reports its fault, if
     * any. One wait instead of two matters when test processes share the GPU: each wait then
     * waits out the other processes' time slices (tests/ctest_list.sh). */
    CUDA_CHECK(cudaMemcpy2D(into, row_bytes, run->out.data, run->out.pitch, row_bytes,
                            (size_t)run->out.height * run->planes, cudaMemcpyDeviceToHost));
}

/* Launch twice (the two must agree bit for bit, except through FFTs), verify the first, name the
 * likely cause, draw the error map. */
static struct variant_result check_2d(void *context) {
    struct run_2d *run = context;
    const struct mask *mask = run->mask;
    struct variant_result r;
    memset(&r, 0, sizeof r);
    launch_poisoned(run, run->got);
    struct verify_shape shape = {(size_t)run->in.width, (size_t)run->in.height, run->planes};
    int terms = mask->width * mask->height;
    const float *magnitude = run->magnitude;
    float *uniform = NULL; /* FFT rule: the largest magnitude everywhere */
    if (run->variant->error_bound) {
        /* Computed once per image and mask for all the kernels that share the function. */
        size_t plane = shape.width * shape.height;
        float *bound = harness_buffer(BUFFER_BOUND, plane * shape.channels * sizeof(float),
                                      "error bounds");
        if (run->bound_of != run->variant->error_bound) {
            for (int p = 0; p < run->planes; ++p)
                run->bound_terms = run->variant->error_bound(
                    run->image->img.data + p * plane, run->in.width, run->in.height,
                    mask->weights, mask->width, mask->height, bound + p * plane);
            run->bound_of = run->variant->error_bound;
        }
        terms = run->bound_terms;
        magnitude = bound;
    } else if (run->variant->fft_points) {
        size_t count = shape.width * shape.height * (size_t)shape.channels;
        uniform = host_malloc(count * sizeof(float), "FFT error bounds");
        terms = verify_fft_rule(
            magnitude, count,
            run->variant->fft_points(run->in.width, run->in.height, mask->width, mask->height),
            run->fft_floor, uniform);
        magnitude = uniform;
    }
    r.passed = verify_outputs(run->got, run->ref, magnitude, shape, terms,
                              HARNESS_MISMATCHES_LISTED, run->human, &r.summary) == 0;
    /* after the comparison: a kernel whose outputs are wrong gets its hint from them */
    const int inside_rows = padding_untouched(run);
    size_t count = shape.width * shape.height * (size_t)shape.channels;
    if (!run->variant->fft_points) {
        launch_poisoned(run, run->again);
        harness_same_twice(run->human, run->got, run->again, count, &r);
    }
    if (!r.passed && r.hint.hint == HINT_NONE) {
        struct failure f = {.got = run->got,
                            .ref = run->ref,
                            .magnitude = magnitude,
                            .terms = terms,
                            .input = run->image->img.data,
                            .mask = mask->weights,
                            .mask_w = mask->width,
                            .mask_h = mask->height,
                            .width = shape.width,
                            .height = shape.height,
                            .planes = run->planes,
                            .block = run->block,
                            /* host variants' rows are width apart: no pitch to mistake */
                            .pitch_floats = run->variant->host_launch
                                                ? 0 : run->in.pitch / sizeof(float),
                            .passes = passes,
                            /* the chapter says how its data is cut: strips, slabs, tiles */
                            .chapter = hint_chapter(wb_program_name())};
        r.hint = diagnose_failure(&f);
        hint_print(run->human, r.hint, 2, mask->width);
    }
    r.passed = r.passed && inside_rows;
    if (!r.passed && inside_rows) {
        char err[WB_ERR_LEN];
        if (verify_error_map_png(run->error_map, run->got, run->ref, magnitude, shape, terms,
                                 err) == 0)
            fprintf(run->human, "  error map (mismatches in red): %s\n", run->error_map);
        else
            fprintf(run->human, "  could not write the error map: %s\n", err);
    }
    free(uniform);
    return r;
}

static void write_output_2d(void *context) {
    struct run_2d *run = context;
    write_output(run->output, run->image, run->got);
}

/* ---- reporting --------------------------------------------------------------------------- */

static void print_json(const struct cli_spec *spec, const struct cli_options *opt,
                       const char *device, const char *label, const struct input_image *in,
                       const struct mask *mask, const struct variant_result *r, double copy_gbps,
                       double cpu_ms) {
    putchar('{');
    wb_json_string("program", spec->program);
    putchar(',');
    wb_json_string("variant", label);
    putchar(',');
    wb_json_string("device", device);
    putchar(',');
    wb_json_string("mask", mask->name);
    printf(",\"width\":%d,\"height\":%d,\"planes\":%d,\"mask_width\":%d,\"mask_height\":%d,"
           "\"block\":%d",
           in->img.width, in->img.height, in->convolved, mask->width, mask->height, opt->block);
    harness_json_result(opt, r, copy_gbps);
    if (opt->mode == CLI_MODE_BENCH && r->passed) printf(",\"cpu_openmp_ms\":%.3f", cpu_ms);
    printf("}\n");
}

/* One table for the run; "vs naive" divides the last variant's time (the naive kernel). */
static void print_bench_rows(FILE *out, const struct conv2d_variant *variants, int count,
                             const struct variant_result *results, const struct input_image *in,
                             const struct mask *mask, int block, double copy_gbps, double cpu_ms) {
    static int header_printed;
    int last = count - 1; /* the baseline: the last kernel that is not the graded solution */
    while (last > 0 && variants[last].solution) --last;
    const struct variant_result *naive = &results[last];
    if (!header_printed++)
        fprintf(out, "  %11s %-16s %5s %-15s %9s %9s %8s %7s %9s %10s\n", "image", "mask", "block",
                "kernel", "median ms", "min ms", "GB/s", "% copy", "vs naive", "vs CPU MT");
    char config[64], size[24];
    snprintf(size, sizeof size, "%dx%dx%d", in->img.width, in->img.height, in->convolved);
    snprintf(config, sizeof config, "%11s %-16s %5d", size, wb_shown(mask->name), block);
    for (int v = 0; v < count; ++v) {
        const struct variant_result *r = &results[v];
        if (r->skipped) continue;
        harness_print_row(out, config, variants[v].label, r, naive, copy_gbps);
        if (r->passed) fprintf(out, " %9.1fx\n", cpu_ms / r->time.median_ms);
    }
    fprintf(out, "  %s %-15s %9.4f   (CPU reference, %d OpenMP threads, median of %d)\n", config,
            "CPU OpenMP", cpu_ms, cpu_thread_count(), CPU_REPS);
    fprintf(out, "  %s %-15s %9s %9s %8.1f %6.1f%%\n", config, "copy d2d", "", "", copy_gbps,
            100.0);
}

/* Runs every variant on one image and mask; returns the number of variants that failed. */
static int run_configuration(const struct cli_spec *spec, const struct cli_options *opt,
                             const struct device_info *device,
                             const struct conv2d_variant *variants, int variant_count,
                             const struct input_image *in, const struct image_on_gpu *on_gpu,
                             const struct mask *mask, const struct conv2d_observer *observer,
                             FILE *human) {
    int width = in->img.width, height = in->img.height, planes = in->convolved;
    size_t plane = (size_t)width * height, bytes = plane * planes * sizeof(float);
    float *ref = harness_buffer(BUFFER_REFERENCE, bytes, "reference");
    float *magnitude = harness_buffer(BUFFER_MAGNITUDE, bytes, "error bounds");
    float *got = harness_buffer(BUFFER_GOT, bytes, "GPU result");
    float *again = harness_buffer(BUFFER_AGAIN, bytes, "GPU result");
    for (int p = 0; p < planes; ++p) {
        if (passes == 1) {
            cpu_correlate_2d(in->img.data + p * plane, width, height, mask->weights, mask->width,
                             mask->height, ref + p * plane, magnitude + p * plane, 1);
        } else if (iterated_reference(in->img.data + p * plane, width, height, mask->weights,
                                      mask->width, mask->height, passes, ref + p * plane,
                                      magnitude + p * plane, 1)) {
            wb_die(1, "out of host memory for the reference of %d passes over %dx%d", passes,
                   width, height);
        }
    }

    char error_map[512];
    snprintf(error_map, sizeof error_map, "%s_errors_%dx%d_mask%dx%d.png", wb_program_name(), width,
             height, mask->width, mask->height);
    struct run_2d run = {
        .variants = variants,
        .in = on_gpu->in,
        .out = on_gpu->out,
        .planes = planes,
        .block = opt->block,
        .mask = mask,
        .ref = ref,
        .magnitude = magnitude,
        .got = got,
        .again = again,

        .fft_floor = verify_fft_floor(in->img.data, plane * planes, mask->weights,
                                      mask->width * mask->height),
        .image = in,
        .output = opt->output,
        .error_map = error_map,
        .human = human,
    };
    size_t row_bytes = (size_t)width * sizeof(float);
    if (opt->mode != CLI_MODE_BENCH && run.in.data)
        fprintf(human,
                "image %dx%d, %d plane%s (pitch %zu bytes for rows of %zu), mask %s, "
                "block %d\n",
                width, height, planes, planes == 1 ? "" : "s", run.in.pitch, row_bytes, mask->name,
                opt->block);
    else if (opt->mode != CLI_MODE_BENCH)
        fprintf(human, "image %dx%d, %d plane%s (in host memory only), mask %s, block %d\n", width,
                height, planes, planes == 1 ? "" : "s", mask->name, opt->block);
    struct configuration c = {.opt = opt,
                              .human = human,
                              .variant_count = variant_count,
                              .mask_w = mask->width,
                              .mask_h = mask->height,
                              .bytes_moved = 2.0 * bytes * passes,
                              .fmas = (double)plane * planes * passes *
                                      (mask->width + mask->height),
                              .context = &run,
                              .rules = rules_2d,
                              .select = select_2d,
                              .check = check_2d,
                              .launch = launch_all_planes,
                              .poison = poison_2d,
                              .write_output = write_output_2d};
    /* The copy roof: the image's bytes, or 256 MiB where the image stays in host memory (it may
     * not fit on the GPU; copies that large run at the same rate) */
    const size_t roof_bytes = run.in.data || bytes < ((size_t)256 << 20) ? bytes : (size_t)256 << 20;
    if (opt->mode != CLI_MODE_CHECK) c.copy_gbps = copy_bandwidth_gbps(roof_bytes, opt->reps);
    /* Host variants copy the image in and out themselves, asynchronously: what they copy from
     * and to must be page-locked. Copies in memory of its own (cudaHostAlloc), not the image's
     * malloc'ed pages registered in place: two small arrays may share a page. */
    int hosted = 0;
    for (int v = 0; v < variant_count; ++v)
        hosted |= variants[v].host_launch != NULL;
    if (hosted) {
        CUDA_CHECK(cudaHostAlloc((void **)&run.host_in, bytes, cudaHostAllocDefault));
        CUDA_CHECK(cudaHostAlloc((void **)&run.host_out, bytes, cudaHostAllocDefault));
        memcpy((float *)run.host_in, in->img.data, bytes);
    }
    struct variant_result *results = host_malloc(sizeof *results * variant_count, "results");
    int failures = harness_run_configuration(&c, results);
    if (hosted) {
        CUDA_CHECK(cudaFreeHost((void *)run.host_in));
        CUDA_CHECK(cudaFreeHost(run.host_out));
    }
    double cpu_ms = 0.0;
    if (opt->mode == CLI_MODE_BENCH) {
        struct cpu_job cpu = {&in->img, planes, mask, ref, NULL};
        if (passes > 1) cpu.scratch = host_malloc(plane * sizeof(float), "CPU passes");
        cpu_ms = host_time(run_cpu_reference, &cpu, CPU_REPS).median_ms;
        free(cpu.scratch);
        print_bench_rows(human, variants, variant_count, results, in, mask, opt->block, c.copy_gbps,
                         cpu_ms);
    }
    if (opt->json)
        for (int v = 0; v < variant_count; ++v)
            if (!results[v].skipped)
                print_json(spec, opt, device->name, variants[v].label, in, mask, &results[v],
                           c.copy_gbps, cpu_ms);
    if (observer && observer->results)
        observer->results(observer->context, width, height, planes, mask, variants,
                          variant_count, results, c.copy_gbps);
    free(results);
    return failures;
}

/* ---- the program ------------------------------------------------------------------------- */

int conv2d_run(const struct cli_spec *spec, const struct cli_options *opt,
               const struct conv2d_variant *variants, int variant_count,
               const struct conv2d_observer *observer) {
    int chooses = observer && observer->kernels_for;
    if (!chooses && variant_count < 1) wb_die(WB_EXIT_USAGE, "a chapter needs at least one kernel");
    if (opt->output && !cli_has_extension(opt->output, ".png") &&
        !cli_has_extension(opt->output, ".npy"))
        wb_die(WB_EXIT_USAGE, "--output '%s': write a .png or a .npy file", opt->output);

    /* Everything the user gave is read and validated before the GPU is touched: every input,
     * every mask of every --mask name, every --block against them. */
    const int inputs = opt->input_count, kinds = opt->mask_kind_count;
    struct input_image *given = host_malloc(sizeof *given * (inputs ? inputs : 1), "inputs");
    memset(given, 0, sizeof *given * (inputs ? inputs : 1));
    for (int i = 0; i < inputs; ++i)
        load_input(opt->inputs[i], &given[i]);
    struct cli_options one = *opt; /* one input, mask name and block at a time */
    struct mask *masks[CLI_MAX_VALUES];
    int mask_count[CLI_MAX_VALUES];
    for (int k = 0; k < kinds; ++k) {
        one.mask_kind = opt->mask_kinds[k];
        masks[k] = harness_make_masks(spec, &one, &mask_count[k]);
        if (!chooses) {
            struct kernel_rules own = {.label = variants[0].label,
                                       .block_rule = variants[0].block_rule,
                                       .refuses = variants[0].refuses};
            harness_require_block(&own, opt, masks[k], mask_count[k]);
        }
    }

    /* Only host variants to run (chapter 08 with --own-kernels): the image never goes to the
     * GPU whole, so it may be larger than the GPU's memory. */
    int on_device = chooses;
    for (int v = 0; v < variant_count; ++v)
        on_device |= variants[v].launch && !(variants[v].comparison && opt->own_kernels);

    struct device_info device;
    FILE *human = harness_open_device(opt, &device);
    int configurations = 0, failed = 0;
    for (int s = 0; s < (inputs ? inputs : opt->size_count); ++s) {
        struct input_image image;
        if (inputs) {
            image = given[s];
            one.input = opt->inputs[s];
            if (inputs > 1 && opt->mode != CLI_MODE_BENCH) fprintf(human, "input %s\n", wb_shown(one.input));
        } else {
            char err[WB_ERR_LEN];
            memset(&image, 0, sizeof image);
            if (image_alloc(&image.img, (int)opt->sizes[s].width, (int)opt->sizes[s].height, 1,
                            err))
                wb_die(WB_EXIT_USAGE, "%s", err);
            fill_uniform(image.img.data, (size_t)image.img.width * image.img.height, opt->seed,
                         0.0f, 1.0f);
            image.convolved = 1;
        }
        struct image_on_gpu on_gpu = {
            {NULL, 0, image.img.width, image.img.height, image.convolved, NULL},
            {NULL, 0, image.img.width, image.img.height, image.convolved, NULL}};
        if (on_device) on_gpu = upload_image(&image);
        for (int k = 0; k < kinds; ++k) {
            one.mask_kind = opt->mask_kinds[k];
            for (int b = 0; b < opt->block_count; ++b) {
                one.block = opt->blocks[b];
                for (int m = 0; m < mask_count[k]; ++m, ++configurations) {
                    const struct conv2d_variant *list = variants;
                    int count = variant_count;
                    if (chooses)
                        count = observer->kernels_for(observer->context, &masks[k][m], &list);
                    failed += run_configuration(spec, &one, &device, list, count, &image, &on_gpu,
                                                &masks[k][m], observer, human) > 0;
                }
            }
        }
        CUDA_CHECK(cudaFree(on_gpu.in.allocation));
        CUDA_CHECK(cudaFree(on_gpu.out.allocation));
        image_free(&image.img);
    }
    for (int k = 0; k < kinds; ++k) {
        for (int m = 0; m < mask_count[k]; ++m)
            mask_free(&masks[k][m]);
        free(masks[k]);
    }
    free(given);
    return harness_finish(human, failed, configurations, opt);
}

int conv2d_chapter_main(int argc, char **argv, const struct cli_spec *spec,
                        const struct conv2d_variant *variants, int variant_count) {
    if (variant_count < 1) wb_die(WB_EXIT_USAGE, "a chapter needs at least one kernel");
    struct cli_options opt;
    if (harness_start(argc, argv, spec, variants[0].block_rule, &opt) == 1) return WB_EXIT_PASS;
    return conv2d_run(spec, &opt, variants, variant_count, NULL);
}
