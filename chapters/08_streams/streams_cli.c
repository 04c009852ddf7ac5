/* streams_cli.c: chapter 08's own options (streams_cli.h). */
#include "streams_cli.h"

#include <string.h>

#include "batch.h"
#include "conv2d_harness.h"
#include "conv2d_tiled.h" /* CONV2D_MAX_MASK_SIDE */
#include "image_io.h"

static const struct cli_extra_option extras[] = {
    {"--strip-rows", 1, "LIST  outputs per strip, 1 to 65536, cut to the image's height "
                        "(default: what the budget holds); a list runs each"},
    {"--gpu-memory-budget", 1, "MiB  GPU memory the strips may take (default: 90% of what is "
                               "free)"},
    {"--buffers", 1, "N  strips in flight, 1 to 3 (default 2: double buffering)"},
    {"--streams", 1, "LIST  copy streams, 1 to 16 (default 3); a list runs each"},
    {"--kernel", 1, "NAME  the kernel each step runs: ch06 (tuned, default) or ch05 (tiled)"},
    {"--batch", 1, "N  batch mode: N random images of --size through every mode"},
    {"--input-dir", 1, "DIR  batch mode: the PNG files of DIR"},
    {"--output-dir", 1, "DIR  batch mode: write each result there as PNG (made if missing)"},
    {"--timeline", 1, "PATH  write every recorded step as CSV (make report draws it)"},
    {NULL, 0, NULL}};

static int parse_int_list(const char *option, const char *text, long lo, long hi, int *values,
                          int max_values, int *count, char *err) {
    char buffer[512];
    if (strlen(text) >= sizeof buffer) return wb_error(err, "%s: the list is too long", option);
    strcpy(buffer, text);
    *count = 0;
    for (char *item = buffer, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        long long v;
        const int rc = wb_parse_whole(item, lo, hi, &v);
        if (rc == -1)
            return wb_error(err, "%s: '%s' is not a whole number (%s)", option, item,
                            WB_NUMBER_RULE);
        if (rc) return wb_error(err, "%s: %s is out of range (%ld to %ld)", option, item, lo, hi);
        if (*count == max_values)
            return wb_error(err, "%s: more than %d values", option, max_values);
        values[(*count)++] = (int)v;
    }
    return 0;
}

static int take_option(void *context, const char *name, const char *value, char *err) {
    struct chapter_options *o = context;
    int one, count;
    if (!strcmp(name, "--strip-rows"))
        return parse_int_list(name, value, 1, IMAGE_MAX_DIM, o->strip_rows, PIPELINES_MAX_SLOTS,
                              &o->strip_row_count, err);
    if (!strcmp(name, "--streams"))
        return parse_int_list(name, value, 1, STRIPS_MAX_STREAMS, o->streams, STRIPS_MAX_STREAMS,
                              &o->stream_count, err);
    if (!strcmp(name, "--buffers")) {
        if (parse_int_list(name, value, 1, STRIPS_MAX_BUFFERS, &one, 1, &count, err)) return -1;
        o->buffers = one;
        return 0;
    }
    if (!strcmp(name, "--batch")) {
        if (parse_int_list(name, value, 1, BATCH_MAX_IMAGES, &one, 1, &count, err)) return -1;
        o->batch = one;
        return 0;
    }
    if (!strcmp(name, "--gpu-memory-budget")) {
        double mib;
        if (wb_parse_decimal(value, 1e-6, 1048576.0, &mib))
            return wb_error(err, "--gpu-memory-budget: '%s' is not a size in MiB (above 0, at "
                            "most 1048576; digits and one decimal point)", value);
        o->budget_mib = mib;
        return 0;
    }
    if (!strcmp(name, "--kernel")) {
        if (strcmp(value, "ch06") && strcmp(value, "ch05"))
            return wb_error(err, "--kernel: '%s' is not one of ch06, ch05", value);
        o->use_ch05 = !strcmp(value, "ch05");
        return 0;
    }
    if (!strcmp(name, "--input-dir")) o->input_dir = value;
    if (!strcmp(name, "--output-dir")) o->output_dir = value;
    if (!strcmp(name, "--timeline")) o->timeline = value; /* checked once the inputs are known */
    return 0;
}

struct cli_spec streams_cli_spec(struct chapter_options *o) {
    memset(o, 0, sizeof *o);
    o->buffers = 2;
    struct cli_spec spec = conv2d_standard_spec(
        "ch08_streams", "images in host memory: copies, pinned memory, streams and strips",
        CONV2D_MAX_MASK_SIDE);
    spec.extras = extras;
    spec.parse_extra = take_option;
    spec.extra_context = o;
    spec.several_streams = 1; /* streams overlap where each has a hardware queue */
    return spec;
}
