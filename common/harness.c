/* harness.c: what the 1D and 2D chapter programs share (see harness.h).
 * Sections: start-up, masks and the block rule, one configuration through every kernel,
 * results. */
#define _POSIX_C_SOURCE 200809L /* sigaction, alarm */
#include "harness.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reference.h"
#include "verdict.h"

void *host_malloc(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        wb_die(WB_EXIT_USAGE, "out of host memory for the %s (%.1f MiB)", what, bytes / 1048576.0);
    return p;
}

static struct {
    float *data;
    size_t bytes;
} buffers[BUFFERS];

float *harness_buffer(enum harness_buffer_slot slot, size_t bytes, const char *what) {
    if (buffers[slot].bytes < bytes || !buffers[slot].data) {
        free(buffers[slot].data);
        buffers[slot].data = host_malloc(bytes, what);
        buffers[slot].bytes = bytes;
    }
    return buffers[slot].data;
}

static void free_buffers(void) {
    for (int slot = 0; slot < BUFFERS; ++slot) {
        free(buffers[slot].data);
        buffers[slot].data = NULL;
        buffers[slot].bytes = 0;
    }
}

static int program_dims; /* for the summary hint's lesson pointer */

int harness_start(int argc, char **argv, const struct cli_spec *spec, enum block_rule own_rule,
                  struct cli_options *opt) {
    char err[WB_ERR_LEN];
    verdict_take_token(); /* before any of the student's code can run */
    const char *slash = strrchr(argv[0], '/');
    wb_set_program_name(slash ? slash + 1 : argv[0]); /* chNN_name or chNN_name_exercise */
    struct cli_spec stated = *spec; /* --help and --spec state the chapter kernel's rule */
    stated.block_rule = own_rule;
    program_dims = spec->dims;
    if (!spec->several_streams) device_one_queue(); /* before any CUDA call */
    device_check_environment();
    int parsed = cli_parse(argc, argv, &stated, opt, err);
    if (parsed < 0) wb_die(WB_EXIT_USAGE, "%s", err);
    return parsed;
}

/* ---- masks and the block rule ------------------------------------------------------------ */

static void check_mask_file(const struct cli_spec *spec, const struct cli_options *opt,
                            const struct mask *m) {
    const char *path = opt->mask_file;
    long max_w = spec->max_mask.width, max_h = spec->max_mask.height;
    if (spec->dims == 1) {
        if (m->height != 1)
            wb_die(WB_EXIT_USAGE, "mask file '%s' has %d rows; a 1D chapter needs one row", path,
                   m->height);
        if (m->width > max_w)
            wb_die(WB_EXIT_USAGE, "mask file '%s' has %d values; this chapter allows at most %ld",
                   path, m->width, max_w);
        if (opt->mask_size_count == 1 && opt->mask_sizes[0].width != m->width)
            wb_die(WB_EXIT_USAGE, "mask file '%s' has %d values but --mask-width is %ld", path,
                   m->width, opt->mask_sizes[0].width);
        return;
    }
    if (m->width > max_w || m->height > max_h)
        wb_die(WB_EXIT_USAGE, "mask file '%s' is %dx%d; this chapter allows at most %ldx%ld", path,
               m->width, m->height, max_w, max_h);
    if (opt->mask_size_count == 1 &&
        (opt->mask_sizes[0].width != m->width || opt->mask_sizes[0].height != m->height))
        wb_die(WB_EXIT_USAGE, "mask file '%s' is %dx%d but --mask-width is %ldx%ld", path, m->width,
               m->height, opt->mask_sizes[0].width, opt->mask_sizes[0].height);
}

struct mask *harness_make_masks(const struct cli_spec *spec, const struct cli_options *opt,
                                int *count) {
    char err[WB_ERR_LEN];
    struct mask *masks = host_malloc(sizeof *masks * CLI_MAX_VALUES, "masks");
    if (opt->mask_file) {
        if (mask_load_file(opt->mask_file, &masks[0], err)) wb_die(WB_EXIT_USAGE, "%s", err);
        check_mask_file(spec, opt, &masks[0]);
        *count = 1;
        return masks;
    }
    for (int k = 0; k < opt->mask_size_count; ++k)
        if (mask_make(opt->mask_kind, (int)opt->mask_sizes[k].width, (int)opt->mask_sizes[k].height,
                      opt->seed + HARNESS_MASK_SEED_OFFSET + (uint64_t)k, &masks[k], err))
            wb_die(WB_EXIT_USAGE, "%s", err);
    *count = opt->mask_size_count;
    return masks;
}

void harness_require_block(const struct kernel_rules *own, const struct cli_options *opt,
                           const struct mask *masks, int mask_count) {
    for (int b = 0; b < opt->block_count; ++b)
        for (int m = 0; m < mask_count; ++m) {
            int w = masks[m].width, h = masks[m].height, block = opt->blocks[b];
            if (block >= block_rule_minimum(own->block_rule, w, h)) continue;
            if (own->block_rule == BLOCK_COVERS_HALO)
                wb_die(WB_EXIT_USAGE,
                       "--block %d is smaller than the %d-element left halo of a %d-wide mask: "
                       "each thread loads at most one halo cell, so the block needs >= "
                       "mask_width/2 threads",
                       block, w / 2, w);
            wb_die(WB_EXIT_USAGE,
                   "--block %d is smaller than the %dx%d mask: the input tile (block x block "
                   "threads) must hold at least one output's whole window",
                   block, w, h);
        }
}

/* ---- the watchdog --------------------------------------------------------------------------- */

static char watchdog_message[512];

static void watchdog_fired(int signal_number) {
    (void)signal_number;
    /* Only async-signal-safe calls here: write and _exit. */
    ssize_t ignored = write(STDERR_FILENO, watchdog_message, strlen(watchdog_message));
    (void)ignored;
    _exit(WB_EXIT_FAIL);
}

static void start_watchdog(void) {
    const char *text = getenv("WB_TIME_LIMIT_S");
    if (!text || !*text) return;
    long long seconds;
    if (wb_parse_whole(text, 1, 86400, &seconds))
        wb_die(WB_EXIT_USAGE, "WB_TIME_LIMIT_S='%s' is not a number of seconds (1 to 86400)", text);
    snprintf(
        watchdog_message, sizeof watchdog_message,
        "%s: stopped after %lld s (WB_TIME_LIMIT_S) without a verdict\n"
        "  hint [hang]: a kernel that never returns: a loop whose end a thread never reaches, "
        "or a __syncthreads() that some threads of a block skip (see "
        "chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early')\n",
        wb_program_name(), seconds);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = watchdog_fired;
    sigaction(SIGALRM, &action, NULL);
    alarm((unsigned)seconds);
}

static double fma_peak; /* the FP32 FMA roof of the device the kernels run on, per second */
static int work_gpus = 1;

void harness_set_work_gpus(int count) {
    work_gpus = count > 1 ? count : 1;
}

FILE *harness_open_device(const struct cli_options *opt, struct device_info *device) {
    start_watchdog();
    device_probe(device);
    fma_peak = device_fma_peak(device, NULL);
    FILE *human = opt->json ? stderr : stdout;
    fprintf(human, "%s on %s (sm_%d%d, %d SMs), seed %llu, CPU reference on %d threads\n",
            wb_program_name(), device->name, device->sm_major, device->sm_minor,
            device->multiprocessors, (unsigned long long)opt->seed, cpu_thread_count());
    return human;
}

/* ---- one configuration through every kernel ---------------------------------------------- */

/* NULL when kernel v runs on this configuration, else why not. */
static const char *skip_reason(const struct configuration *c, const struct kernel_rules *rules,
                               char *buffer, size_t size) {
    int needed = block_rule_minimum(rules->block_rule, c->mask_w, c->mask_h);
    if (c->opt->block < needed) {
        snprintf(buffer, size, "needs --block >= %d for this mask", needed);
        return buffer;
    }
    return rules->refuses ? rules->refuses(c->mask_w, c->mask_h) : NULL;
}

/* The chapter's own kernel (variant 0, the one a student writes; not a comparison kernel, as
 * the tuner's first candidate is): its label, and in how many configurations it ran. A run where
 * it took none of them checked nothing of it (a kernel built for one mask size, say), and
 * harness_finish says so: the grader does not count that test. */
static const char *first_kernel_label;
static int first_kernel_runs;

/* After the timed launches, the kernel runs once more on a poisoned output and is checked again
 * (returns 0 when that fails): a launcher that skips work on repeated calls, or leaves it
 * unfinished, fails here, its time is not reported, and the program's verdict is a failure.
 * Under the grader (verdict.h) the time goes out on a token line, with what the grader needs to
 * refuse a time below the workload's floor: the bytes moved and the copy bandwidth measured in
 * this run, the fewest multiply-adds and the FP32 FMA peak, and how many GPUs share the work. */
static int checked_after_timing(const struct configuration *c, const struct kernel_rules *rules,
                                struct variant_result *r, int chapter_kernel) {
    struct timing timed = r->time;
    double gbps = r->gbps;
    *r = c->check(c->context);
    if (!r->passed) {
        fprintf(c->human, "  %s failed its check after the timed runs: its time is not reported\n",
                rules->label);
        return 0;
    }
    r->time = timed;
    r->gbps = gbps;
    if (c->opt->mode == CLI_MODE_BENCH && verdict_active() && (chapter_kernel || rules->solution))
        verdict_print("time %s %.6f %.6f %.0f %.3f %d %.0f %.6g",
                      chapter_kernel ? "own" : "solution", timed.median_ms, timed.min_ms,
                      c->bytes_moved, c->copy_gbps, work_gpus, c->fmas, fma_peak);
    return 1;
}

int harness_run_configuration(const struct configuration *c, struct variant_result *results) {
    const struct cli_options *opt = c->opt;
    int failures = 0, wrote_output = 0;
    for (int v = 0; v < c->variant_count; ++v) {
        struct kernel_rules rules = c->rules(c->context, v);
        struct variant_result *r = &results[v];
        memset(r, 0, sizeof *r);
        /* --kernel NAME: that one kernel (and its solution) alone, the others left out as the
         * comparison kernels are; it is then the chapter's kernel of this run. */
        int other_kernel = opt->kernel && (!rules.name || strcmp(rules.name, opt->kernel));
        int chapter_kernel = !rules.comparison && (opt->kernel ? !other_kernel && !rules.solution
                                                               : v == 0);
        if (chapter_kernel) first_kernel_label = rules.label;
        if (rules.absent || other_kernel || (rules.comparison && opt->own_kernels)) {
            r->skipped = 1;
            continue;
        }
        char buffer[96];
        const char *reason = skip_reason(c, &rules, buffer, sizeof buffer);
        if (reason) {
            r->skipped = 1;
            fprintf(c->human, "  %-22s skipped: %s\n", rules.label, reason);
            continue;
        }
        if (chapter_kernel) ++first_kernel_runs;
        c->select(c->context, v);
        *r = c->check(c->context);
        hint_tally(r->hint, c->mask_w, c->mask_h, !r->passed, c->bytes_moved);
        if (opt->output && !wrote_output++) { /* the first kernel that ran: the chapter's */
            c->write_output(c->context);
            fprintf(c->human, "  wrote the GPU result to %s\n", wb_shown(opt->output));
        }
        if (!r->passed) ++failures;
        if (opt->mode != CLI_MODE_CHECK && r->passed) {
            r->time = gpu_time_prepared(c->launch, c->poison, c->context, HARNESS_WARMUP_RUNS,
                                        opt->reps);
            r->gbps = effective_gbps(c->bytes_moved, r->time.median_ms);
            if (!checked_after_timing(c, &rules, r, chapter_kernel)) ++failures;
        }
        harness_print_variant(c->human, rules.label, r, opt, c->copy_gbps);
        fflush(c->human); /* long sweeps (the tuner) show progress as they go */
    }
    return failures;
}

/* ---- results ------------------------------------------------------------------------------ */

void harness_print_variant(FILE *out, const char *label, const struct variant_result *r,
                           const struct cli_options *opt, double copy_gbps) {
    if (opt->mode == CLI_MODE_BENCH && r->passed) return; /* the bench table says it */
    fprintf(out, "  %-22s %s", label, r->passed ? "PASS" : "FAIL");
    if (opt->mode == CLI_MODE_RUN && r->passed)
        fprintf(out, "  %.4f ms  %.1f GB/s  %.1f%% of copy (%.0f GB/s)", r->time.median_ms, r->gbps,
                100.0 * r->gbps / copy_gbps, copy_gbps);
    fputc('\n', out);
    if (opt->mode == CLI_MODE_CHECK || !r->passed) verify_print_summary(out, label, &r->summary);
}

void harness_print_row(FILE *out, const char *config, const char *label,
                       const struct variant_result *r, const struct variant_result *baseline,
                       double copy_gbps) {
    if (!r->passed) {
        fprintf(out, "  %s %-15s failed verification: not timed\n", config, label);
        return;
    }
    fprintf(out, "  %s %-15s %9.4f %9.4f %8.1f %6.1f%% ", config, label, r->time.median_ms,
            r->time.min_ms, r->gbps, 100.0 * r->gbps / copy_gbps);
    if (baseline->passed)
        fprintf(out, "%8.2fx", baseline->time.median_ms / r->time.median_ms);
    else
        fprintf(out, "%9s", "-");
}

void harness_json_result(const struct cli_options *opt, const struct variant_result *r,
                         double copy_gbps) {
    printf(",\"seed\":%llu,\"pass\":%s,\"mismatches\":%zu,\"max_error\":%.9g,"
           "\"rel_l2_error\":%.9g",
           (unsigned long long)opt->seed, r->passed ? "true" : "false", r->summary.mismatches,
           isnan(r->summary.max_abs_error) ? -1.0 : r->summary.max_abs_error,
           isnan(r->summary.rel_l2_error) ? -1.0 : r->summary.rel_l2_error);
    if (opt->mode != CLI_MODE_CHECK && r->passed)
        printf(",\"median_ms\":%.6f,\"min_ms\":%.6f,\"reps\":%d,\"gbps\":%.3f,\"copy_gbps\":%.3f,"
               "\"pct_of_copy\":%.3f",
               r->time.median_ms, r->time.min_ms, r->time.reps, r->gbps, copy_gbps,
               100.0 * r->gbps / copy_gbps);
}

void harness_same_twice(FILE *human, const float *first, const float *again, size_t count,
                        struct variant_result *r) {
    if (memcmp(first, again, count * sizeof *first) == 0) return;
    r->passed = 0;
    r->hint = (struct diagnosis){HINT_RACE, 0};
    fprintf(human, "  a second launch on the same input gave different results\n");
    hint_print(human, r->hint, program_dims, 0);
}

int harness_finish(FILE *out, int failed, int configurations, const struct cli_options *opt) {
    free_buffers();
    if (failed) hint_tally_print(out, program_dims);
    if (failed)
        fprintf(out, "%s: FAIL (%d of %d configurations failed; rerun one with --seed %llu)\n",
                wb_program_name(), failed, configurations, (unsigned long long)opt->seed);
    else if (first_kernel_label && first_kernel_runs == 0)
        fprintf(out, "%s: PASS (%d configuration%s; %s ran in none of them: not checked)\n",
                wb_program_name(), configurations, configurations == 1 ? "" : "s",
                first_kernel_label);
    else
        fprintf(out, "%s: PASS (%d configuration%s)\n", wb_program_name(), configurations,
                configurations == 1 ? "" : "s");
    verdict_print("verdict %s", failed                                          ? "fail"
                                : first_kernel_label && first_kernel_runs == 0 ? "na"
                                                                               : "pass");
    first_kernel_label = NULL; /* the run is over: a next one (a test) starts afresh */
    first_kernel_runs = 0;
    return failed ? WB_EXIT_FAIL : WB_EXIT_PASS;
}
