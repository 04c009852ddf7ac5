/* harness.h: what the chapter programs' harnesses (conv1d_, conv2d_, conv3d_harness.c) share:
 * start-up, the masks, the block rule, the loop that runs one configuration through every
 * kernel, how results are printed, and the final verdict.
 *
 *   host_malloc                  malloc that exits 2 with a message when the host is out of memory
 *   harness_buffer               one of the per-configuration host arrays (reference, bounds,
 *                                results), kept from one configuration to the next
 *   HARNESS_WARMUP_RUNS, HARNESS_MASK_SEED_OFFSET, HARNESS_MISMATCHES_LISTED
 *   struct variant_result        one kernel's outcome on one configuration
 *   harness_start                the grader's token (verdict.h), program name, command line with
 *                                the chapter kernel's block rule (help, spec: returns 1; errors: 2)
 *   harness_make_masks           the masks to run: --mask-file, or the kind at each --mask-width
 *   harness_require_block        exit 2 when --block is too small for the chapter's own kernel
 *   harness_open_device          probe the GPU (exit 77 without one), print the header line,
 *                                start the watchdog (WB_TIME_LIMIT_S)
 *   harness_same_twice           a second launch must give the same bits (else: a race)
 *   harness_run_configuration    one data set and mask through every kernel: block rule and
 *                                refusals (skipped, with the reason), check, --output, timing,
 *                                the check again after timing (and the grader's time line)
 *   harness_print_variant        a kernel's PASS/FAIL line (with its time in run mode)
 *   harness_print_row            a kernel's row of the --bench table, up to "vs <baseline>"
 *   harness_json_result          a kernel's result fields for --json
 *   harness_finish               "<program>: PASS (N configurations)" or FAIL, after the most
 *                                likely cause of the failures (diagnose.h), and the exit code;
 *                                a pass where the chapter's own kernel (the first) ran in no
 *                                configuration says "... ran in none of them: not checked";
 *                                under the grader, the verdict's token line too
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "cuda_check.h"
#include "diagnose.h"
#include "masks.h"
#include "timing.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HARNESS_WARMUP_RUNS = 3,      /* untimed launches before the timed ones */
    HARNESS_MISMATCHES_LISTED = 8 /* mismatches printed per failing kernel */
};
/* Added to the seed for the masks, so the mask's random stream differs from the data's. */
#define HARNESS_MASK_SEED_OFFSET UINT64_C(0x6d61736b) /* "mask" */

void *host_malloc(size_t bytes, const char *what);

/* The host arrays every configuration needs, reused while they are large enough: a run over
 * many masks then touches fresh memory once, not once per mask (a 2^26-value array is 64 Ki
 * pages the kernel must fault in and clear each time). harness_finish frees them. */
enum harness_buffer_slot {
    BUFFER_REFERENCE,
    BUFFER_MAGNITUDE,
    BUFFER_BOUND, /* a kernel's own error bounds (conv2d_variant.error_bound) */
    BUFFER_GOT,
    BUFFER_AGAIN,
    BUFFERS
};
float *harness_buffer(enum harness_buffer_slot slot, size_t bytes, const char *what);

struct variant_result {
    int skipped; /* the kernel's block rule or its own refusal excludes this mask */
    int passed;
    struct verify_summary summary;
    struct diagnosis hint; /* failed: the likely cause (diagnose.h) */
    struct timing time;    /* run and bench modes, when passed */
    double gbps;
};

/* What the loop needs to know of a kernel before it launches it. */
struct kernel_rules {
    const char *label;
    int absent;     /* a weak kernel that is not linked (workbook.h): skipped without a word */
    int comparison; /* shown beside the chapter's own: --own-kernels skips it without a word */
    int solution;   /* the chapter's reference, linked in only by the grader */
    const char *name; /* which of the chapter's own kernels it is, where it has several (--kernel;
                         the solution takes its kernel's name); NULL: the only one, or shown
                         beside them */
    enum block_rule block_rule;
    const char *(*refuses)(int mask_w, int mask_h); /* NULL, or returns NULL when it runs */
};

int harness_start(int argc, char **argv, const struct cli_spec *spec, enum block_rule own_rule,
                  struct cli_options *opt);
/* *count masks, host_malloc'ed (mask_free each, then free). Checks a mask file against the
 * chapter's limits and against --mask-width; exit 2 on any problem. */
struct mask *harness_make_masks(const struct cli_spec *spec, const struct cli_options *opt,
                                int *count);
void harness_require_block(const struct kernel_rules *own, const struct cli_options *opt,
                           const struct mask *masks, int mask_count);
/* Returns where human-readable output goes: stdout, or stderr with --json. With WB_TIME_LIMIT_S
 * set (the tests set it), a program still running after that many seconds prints why it was
 * stopped (a kernel that never returns, usually) and exits 1; the GPU is freed with the process. */
FILE *harness_open_device(const struct cli_options *opt, struct device_info *device);
/* How many GPUs the chapter's own kernel spreads its work over (1 unless a chapter says more):
 * the grader's floor for a time is the work over all of them (verdict.h). */
void harness_set_work_gpus(int count);

/* first and again: `count` floats from two launches on the same input. Different bits mean the
 * kernel's result depends on timing: marks r failed with the race hint and prints it. */
void harness_same_twice(FILE *human, const float *first, const float *again, size_t count,
                        struct variant_result *r);

/* One configuration: the dimension-specific work is done by the hooks, on `context`. */
struct configuration {
    const struct cli_options *opt;
    FILE *human;
    int variant_count;
    int mask_w, mask_h;
    double bytes_moved; /* bytes read once and written once per launch: effective bandwidth */
    double fmas;        /* the fewest multiply-adds a launch can do: one pass per mask axis */
    double copy_gbps;   /* the device-to-device copy, measured in run and bench modes */
    void *context;
    struct kernel_rules (*rules)(void *context, int v);
    void (*select)(void *context, int v);          /* the kernel the next hooks act on */
    struct variant_result (*check)(void *context); /* poison, set mask, launch once, verify */
    void (*launch)(void *context);                 /* launch again (timing; no sync) */
    void (*poison)(void *context);                 /* enqueue poisoning the output (timing) */
    void (*write_output)(void *context);           /* --output, after the first kernel that ran */
};
/* Fills results[0 .. variant_count - 1]; returns the number of kernels that failed. */
int harness_run_configuration(const struct configuration *c, struct variant_result *results);

void harness_print_variant(FILE *out, const char *label, const struct variant_result *r,
                           const struct cli_options *opt, double copy_gbps);
void harness_print_row(FILE *out, const char *config, const char *label,
                       const struct variant_result *r, const struct variant_result *baseline,
                       double copy_gbps);
void harness_json_result(const struct cli_options *opt, const struct variant_result *r,
                         double copy_gbps);
int harness_finish(FILE *out, int failed, int configurations, const struct cli_options *opt);

#ifdef __cplusplus
}
#endif
#endif
