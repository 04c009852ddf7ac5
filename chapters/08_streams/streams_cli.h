/* streams_cli.h: chapter 08's command line, apart from its driver so that it can be tested and
 * fuzzed without a GPU (make fuzz, target ch08_options).
 *
 *   struct chapter_options   what chapter 08's own options asked for
 *   streams_cli_spec         the spec main.c hands to harness_start: the 2D options, plus
 *                            chapter 08's, parsed into *o
 * take_option never exits: a refused value is -1 and one line in err (harness_start exits 2).
 */
#ifndef STREAMS_CLI_H
#define STREAMS_CLI_H

#include "cli.h"
#include "pipelines.h"
#include "strips.h"

#ifdef __cplusplus
extern "C" {
#endif

struct chapter_options {
    int strip_rows[PIPELINES_MAX_SLOTS], strip_row_count;
    int streams[STRIPS_MAX_STREAMS], stream_count;
    double budget_mib; /* 0: not given */
    int buffers;
    int use_ch05;
    int batch;
    const char *input_dir, *output_dir, *timeline;
};

/* Sets *o to the defaults and returns the spec whose parse_extra fills it. */
struct cli_spec streams_cli_spec(struct chapter_options *o);

#ifdef __cplusplus
}
#endif
#endif
