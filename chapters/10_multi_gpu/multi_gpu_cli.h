/* multi_gpu_cli.h: chapter 10's command line, apart from its driver so that it can be tested and
 * fuzzed without a GPU (make fuzz, target ch10_options).
 *
 *   struct chapter_options   what chapter 10's own options asked for
 *   multi_gpu_cli_spec       the spec main.c hands to harness_start: the 2D options, plus
 *                            chapter 10's, parsed into *o
 * take_option never exits: a refused value is -1 and one line in err (harness_start exits 2).
 */
#ifndef MULTI_GPU_CLI_H
#define MULTI_GPU_CLI_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MULTI_GPU_MAX_ITERATIONS 100000

struct chapter_options {
    int gpus;       /* 0: every visible GPU */
    int slabs;      /* 0: one a GPU */
    int iterations; /* 1 to MULTI_GPU_MAX_ITERATIONS */
    int scaling;    /* --scaling: the study alone */
};

/* Sets *o to the defaults and returns the spec whose parse_extra fills it. */
struct cli_spec multi_gpu_cli_spec(struct chapter_options *o);

#ifdef __cplusplus
}
#endif
#endif
