/* main.c: chapter 03's driver, tiled 1D convolution with halo cells (PMPP 7.4).
 *
 *   run      build/ch03_tiled_halo                      2^26 random floats, random mask of 5
 *   check    build/ch03_tiled_halo --check --size 31,4097 --mask-width 1:63 --block 32
 *   bench    build/ch03_tiled_halo --bench --mask-width 5,31     (chapters 02 and 01 beside it)
 *   yours    build/ch03_tiled_halo_exercise --check              (or: make check CH=03)
 *
 * --block is the tile width: any size from 1 to 1024 threads, as long as it is at least
 * mask_width/2, because each thread loads at most one halo cell (the kernel's BLOCK_COVERS_HALO
 * rule: the program refuses a smaller block for this kernel with exit 2, and skips the other
 * chapters' kernels that cannot take it). Powers of two are not needed: the tile is indexed,
 * never halved. The host program is common/conv1d_harness.c.
 */
#include "conv1d_basic.h"
#include "conv1d_constant.h"
#include "conv1d_harness.h"
#include "conv1d_tiled.h"

/* Weak (workbook.h): earlier chapters' kernels are absent from a student's copy, the chapter's
 * own solution is linked only when grading. */
WB_EARLIER(conv1d_basic_launch);
WB_EARLIER(conv1d_constant_launch);
WB_EARLIER(conv1d_constant_set_mask);
WB_SOLUTION_OF(conv1d_tiled_launch);
WB_SOLUTION_OF(conv1d_tiled_set_mask);

int main(int argc, char **argv) {
    struct cli_spec spec = conv1d_standard_spec(
        "ch03_tiled_halo",
        "tiled 1D convolution, input tile and halo cells in shared memory (PMPP 7.4)");
    const struct conv1d_variant kernels[] = {
        {.label = "ch03 tiled",
         .set_mask = conv1d_tiled_set_mask,
         .launch = conv1d_tiled_launch,
         .block_rule = BLOCK_COVERS_HALO},
        {.label = "solution",
         .set_mask = wb_solution_conv1d_tiled_set_mask,
         .launch = wb_solution_conv1d_tiled_launch,
         .solution = 1},
        {.label = "ch02 constant",
         .set_mask = conv1d_constant_set_mask,
         .launch = conv1d_constant_launch,
         .comparison = 1},
        {.label = "ch01 basic", .launch = conv1d_basic_launch, .comparison = 1},
    };
    return conv1d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
