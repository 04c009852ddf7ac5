/* multi_gpu_cli.c: chapter 10's own options (multi_gpu_cli.h). */
#include "multi_gpu_cli.h"

#include <string.h>

#include "conv2d_harness.h"
#include "slab_engine.h" /* SLAB_MAX_SIDE, SLABS_MAX */

static const struct cli_extra_option extras[] = {
    {"--gpus", 1, "N  GPUs to split the image over, 1 to 64 (default: every visible one; with a "
                  "launcher, one per process)"},
    {"--slabs", 1, "N  slabs to cut the image into, 1 to 64 (default: one a GPU); slabs beyond "
                   "the GPUs share them, so one GPU can check the exchange"},
    {"--iterations", 1, "K  passes of the mask, 1 to 100000 (default 1)"},
    {"--scaling", 0, "the scaling study alone, on generated images: no table, no CPU reference "
                     "(each strong split is checked against one GPU, bit for bit)"},
    {NULL, 0, NULL}};

static int whole_number(const char *option, const char *value, long lo, long hi, int *out,
                        char *err) {
    long long v;
    const int rc = wb_parse_whole(value, lo, hi, &v);
    if (rc == -1)
        return wb_error(err, "%s: '%s' is not a whole number (%s)", option, value, WB_NUMBER_RULE);
    if (rc) return wb_error(err, "%s: %s is out of range (%ld to %ld)", option, value, lo, hi);
    *out = (int)v;
    return 0;
}

static int take_option(void *context, const char *name, const char *value, char *err) {
    struct chapter_options *o = context;
    if (!strcmp(name, "--scaling")) return o->scaling = 1, 0;
    if (!strcmp(name, "--gpus")) return whole_number(name, value, 1, SLABS_MAX, &o->gpus, err);
    if (!strcmp(name, "--slabs")) return whole_number(name, value, 1, SLABS_MAX, &o->slabs, err);
    return whole_number(name, value, 1, MULTI_GPU_MAX_ITERATIONS, &o->iterations, err);
}

struct cli_spec multi_gpu_cli_spec(struct chapter_options *o) {
    *o = (struct chapter_options){.gpus = 0, .slabs = 0, .iterations = 1, .scaling = 0};
    struct cli_spec spec = conv2d_standard_spec(
        "ch10_multi_gpu", "a mask applied K times to one image in slabs over several GPUs",
        SLAB_MAX_SIDE);
    spec.block_usage = "ignored by the slab kernel (its blocks are 32 x 8 threads); accepted";
    spec.extras = extras;
    spec.parse_extra = take_option;
    spec.extra_context = o;
    spec.several_streams = 1; /* the trade beside the interior pass: a queue each */
    return spec;
}
