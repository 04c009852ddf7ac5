/* main.c: chapter 04's driver, tiling with the halo read through the caches (PMPP 7.5), and the
 * whole 1D progression: `make run` runs this program's --bench, which times chapters 04, 03, 02
 * and 01 on the same data.
 *
 *   run      build/ch04_cached_tiling                    2^26 random floats, random mask of 5
 *   check    build/ch04_cached_tiling --check --size 31,4097 --mask-width 1:63
 *   bench    build/ch04_cached_tiling --bench --mask-width 5,31    (the 1D progression table)
 *   yours    build/ch04_cached_tiling_exercise --check             (or: make check CH=04)
 *
 * --block is any size from 1 to 1024: with no halo to load, the tile has no lower limit.
 * "beyond: regs" is the register-tiled kernel of the chapter's second exercise
 * (conv1d_register.cu, chapter 06's technique in 1D, fixed block of 128 threads): it shows how
 * close to the copy bound a 1D convolution can get, against which the four book kernels are
 * measured. Both it and "ch04 cached" are this chapter's own kernels: `make check CH=04` checks
 * each (--kernel cached, --kernel register) and reports them apart.
 */
#include "conv1d_basic.h"
#include "conv1d_cached.h"
#include "conv1d_constant.h"
#include "conv1d_harness.h"
#include "conv1d_register.h"
#include "conv1d_tiled.h"

/* Weak (workbook.h): earlier chapters' kernels are absent from a student's copy, the chapter's
 * own solution is linked only when grading. */
WB_EARLIER(conv1d_basic_launch);
WB_EARLIER(conv1d_constant_launch);
WB_EARLIER(conv1d_constant_set_mask);
WB_EARLIER(conv1d_tiled_launch);
WB_EARLIER(conv1d_tiled_set_mask);
WB_SOLUTION_OF(conv1d_cached_launch);
WB_SOLUTION_OF(conv1d_cached_set_mask);

int main(int argc, char **argv) {
    struct cli_spec spec = conv1d_standard_spec(
        "ch04_cached_tiling", "1D tiling with the halo read through the L1/L2 caches (PMPP 7.5)");
    /* Two kernels of its own, two exercises: --kernel checks one alone, so the tests, make check
     * and the grader report each apart. */
    static const char *const own_kernels[] = {"cached", "register", NULL};
    spec.kernels = own_kernels;
    const struct conv1d_variant kernels[] = {
        {.label = "ch04 cached",
         .set_mask = conv1d_cached_set_mask,
         .launch = conv1d_cached_launch,
         .name = "cached"},
        {.label = "solution",
         .set_mask = wb_solution_conv1d_cached_set_mask,
         .launch = wb_solution_conv1d_cached_launch,
         .solution = 1,
         .name = "cached"},
        {.label = "beyond: regs",
         .set_mask = conv1d_register_set_mask,
         .launch = conv1d_register_launch,
         .name = "register"},
        {.label = "ch03 tiled",
         .set_mask = conv1d_tiled_set_mask,
         .launch = conv1d_tiled_launch,
         .block_rule = BLOCK_COVERS_HALO,
         .comparison = 1},
        {.label = "ch02 constant",
         .set_mask = conv1d_constant_set_mask,
         .launch = conv1d_constant_launch,
         .comparison = 1},
        {.label = "ch01 basic", .launch = conv1d_basic_launch, .comparison = 1},
    };
    return conv1d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
