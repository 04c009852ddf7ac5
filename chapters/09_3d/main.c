/* main.c: chapter 09's driver, convolution of volumes.
 *
 *   run      build/ch09_3d                              256^3 random volume, random 3x3x3 mask
 *   yours    build/ch09_3d_exercise --check (or: make check CH=09)
 *   bench    build/ch09_3d --bench --size 512 --mask-width 3,5,7
 *   look     build/ch09_3d --data phantom --size 128 --mask gaussian --mask-width 5
 *            --output build/out/phantom.png         (slices of the result; the input's beside)
 *   debug    build/ch09_3d --check --size 17x33x31,1x1x300 --mask-width 1:7,7x1x3
 *
 * Kernels, in the order they run: the 2.5D kernel (your exercise file, conv3d_stream.cu), the
 * tiled kernel (an input cube of --block^3 threads, shared memory), the naive kernel (the "vs
 * naive" baseline); --own-kernels runs the 2.5D kernel alone. --data phantom fills generated
 * volumes with spheres in a soft background (volumes.h) instead of noise. WB_CONV3D_Z_CHUNK=N
 * (tests) sets the slices each 2.5D block marches through; WB_CONV3D_NO_TMA=1 (tests) makes it
 * fetch planes with cp.async where it would use the Tensor Memory Accelerator.
 */
#include <stdlib.h>
#include <string.h>

#include "conv3d.h"
#include "conv3d_harness.h"
#include "harness.h"

WB_SOLUTION_OF(conv3d_stream_launch);
WB_SOLUTION_OF(conv3d_stream_set_mask);

static const struct cli_extra_option extras[] = {
    {"--data", 1, "KIND  generated volumes: random (uniform noise, default) or phantom (spheres)"},
    {NULL, 0, NULL}};

static int take_option(void *context, const char *name, const char *value, char *err) {
    (void)context;
    if (strcmp(name, "--data")) return wb_error(err, "%s: not an option of this chapter", name);
    if (!strcmp(value, "random") || !strcmp(value, "phantom")) {
        conv3d_use_phantom(!strcmp(value, "phantom"));
        return 0;
    }
    return wb_error(err, "--data: '%s' is neither random nor phantom", value);
}

static const char *tiled_refuses(int mask_w, int mask_h, int mask_d, int block) {
    static char reason[96];
    if (block < mask_w || block < mask_h || block < mask_d) {
        snprintf(reason, sizeof reason, "needs --block >= every side of the %dx%dx%d mask",
                 mask_w, mask_h, mask_d);
        return reason;
    }
    return NULL;
}

/* WB_CONV3D_Z_CHUNK and WB_CONV3D_NO_TMA (tests, conv3d.h) are checked before any work, as the
 * command line is; the launcher reads them again. */
static void check_environment(void) {
    const char *no_tma = getenv("WB_CONV3D_NO_TMA");
    if (no_tma && *no_tma && strcmp(no_tma, "0") && strcmp(no_tma, "1"))
        wb_die(WB_EXIT_USAGE, "WB_CONV3D_NO_TMA='%s' is neither 0 nor 1", no_tma);
    const char *forced = getenv("WB_CONV3D_Z_CHUNK");
    if (!forced || !*forced) return;
    long long n;
    if (wb_parse_whole(forced, 1, 65535, &n))
        wb_die(WB_EXIT_USAGE, "WB_CONV3D_Z_CHUNK='%s' is not a whole number 1 to 65535", forced);
}

int main(int argc, char **argv) {
    wb_set_program_name("ch09_3d");
    check_environment();
    struct cli_spec spec = conv3d_standard_spec(
        "ch09_3d", "convolution of volumes: naive, tiled and 2.5D streaming kernels", 1,
        CONV3D_TILED_MAX_BLOCK, 8);
    spec.extras = extras;
    spec.parse_extra = take_option;
    const struct conv3d_variant kernels[] = {
        {.label = "ch09 2.5D",
         .set_mask = conv3d_stream_set_mask,
         .launch = conv3d_stream_launch},
        {.label = "solution",
         .set_mask = wb_solution_conv3d_stream_set_mask,
         .launch = wb_solution_conv3d_stream_launch,
         .solution = 1},
        {.label = "ch09 tiled",
         .set_mask = conv3d_tiled_set_mask,
         .launch = conv3d_tiled_launch,
         .refuses = tiled_refuses,
         .comparison = 1},
        {.label = "naive 3D",
         .set_mask = conv3d_naive_set_mask,
         .launch = conv3d_naive_launch,
         .comparison = 1},
    };
    return conv3d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
