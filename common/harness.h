/* harness.h: the pieces the 1D and 2D chapter programs (conv1d_harness.c, conv2d_harness.c)
 * share: start-up, per-kernel results and how they are printed, and the final verdict.
 *
 *   host_malloc              malloc that exits 2 with a message when the host is out of memory
 *   struct variant_result    one kernel's outcome on one configuration
 *   harness_start            program name, command line (help: returns 1; errors: exit 2)
 *   harness_print_device     the header line: program, GPU, seed, CPU threads
 *   harness_print_variant    a kernel's PASS/FAIL line (with its time in run mode)
 *   harness_print_row        a kernel's row of the --bench table, up to the "vs <baseline>" column
 *   harness_json_result      a kernel's result fields for --json
 *   harness_finish           "<program>: PASS (N configurations)" or FAIL, and the exit code
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "cuda_check.h"
#include "timing.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

void *host_malloc(size_t bytes, const char *what);

struct variant_result {
    int skipped; /* a comparison kernel whose block-size rule this run breaks */
    int passed;
    struct verify_summary summary;
    struct timing time; /* run and bench modes, when passed */
    double gbps;
};

int harness_start(int argc, char **argv, const struct cli_spec *spec, struct cli_options *opt);
void harness_print_device(FILE *out, const struct device_info *device,
                          const struct cli_options *opt);
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
