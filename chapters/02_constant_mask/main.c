/* main.c: chapter 02's driver, the mask in constant memory (PMPP 7.3).
 *
 *   run      build/ch02_constant_mask                     2^26 random floats, random mask of 5
 *   check    build/ch02_constant_mask --check --size 31,4097 --mask-width 1:63
 *   bench    build/ch02_constant_mask --bench --mask-width 5,31     (chapter 01 beside it)
 *   yours    build/ch02_constant_mask_exercise --check               (or: make check CH=02)
 *
 * Runs this chapter's kernel and, for comparison on the same data, chapter 01's reference
 * kernel. The host program is common/conv1d_harness.c. The chapter's maximum mask width is
 * WB_MAX_MASK_WIDTH_1D (63 floats, 252 bytes of the 64 KB constant space): wider masks are
 * refused with exit 2 before anything runs.
 */
#include "conv1d_basic.h"
#include "conv1d_constant.h"
#include "conv1d_harness.h"

/* Weak (workbook.h): earlier chapters' kernels are absent from a student's copy, the chapter's
 * own solution is linked only when grading. */
WB_EARLIER(conv1d_basic_launch);
WB_SOLUTION_OF(conv1d_constant_launch);
WB_SOLUTION_OF(conv1d_constant_set_mask);

int main(int argc, char **argv) {
    struct cli_spec spec = conv1d_standard_spec(
        "ch02_constant_mask", "1D convolution with the mask in __constant__ memory (PMPP 7.3)");
    const struct conv1d_variant kernels[] = {
        {.label = "ch02 constant",
         .set_mask = conv1d_constant_set_mask,
         .launch = conv1d_constant_launch},
        {.label = "solution",
         .set_mask = wb_solution_conv1d_constant_set_mask,
         .launch = wb_solution_conv1d_constant_launch,
         .solution = 1},
        {.label = "ch01 basic", .launch = conv1d_basic_launch, .comparison = 1},
    };
    return conv1d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
