/* harness.c: start-up, result lines and verdict shared by the chapter programs (see harness.h). */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

void *host_malloc(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        wb_die(WB_EXIT_USAGE, "out of host memory for the %s (%.1f MiB)", what, bytes / 1048576.0);
    return p;
}

int harness_start(int argc, char **argv, const struct cli_spec *spec, struct cli_options *opt) {
    char err[WB_ERR_LEN];
    const char *slash = strrchr(argv[0], '/');
    wb_set_program_name(slash ? slash + 1 : argv[0]); /* chNN_name or chNN_name_exercise */
    int parsed = cli_parse(argc, argv, spec, opt, err);
    if (parsed < 0) wb_die(WB_EXIT_USAGE, "%s", err);
    return parsed;
}

void harness_print_device(FILE *out, const struct device_info *device,
                          const struct cli_options *opt) {
    fprintf(out, "%s on %s (sm_%d%d, %d SMs), seed %llu, CPU reference on %d threads\n",
            wb_program_name(), device->name, device->sm_major, device->sm_minor,
            device->multiprocessors, (unsigned long long)opt->seed, cpu_thread_count());
}

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

int harness_finish(FILE *out, int failed, int configurations, const struct cli_options *opt) {
    if (failed)
        fprintf(out, "%s: FAIL (%d of %d configurations failed; rerun one with --seed %llu)\n",
                wb_program_name(), failed, configurations, (unsigned long long)opt->seed);
    else
        fprintf(out, "%s: PASS (%d configuration%s)\n", wb_program_name(), configurations,
                configurations == 1 ? "" : "s");
    return failed ? WB_EXIT_FAIL : WB_EXIT_PASS;
}
