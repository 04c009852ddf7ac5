/* main.c: chapter 01's driver, 1D basic convolution (PMPP 7.2).
 *
 *   build    make                      (builds build/ch01_basic_1d and ch01_basic_1d_exercise)
 *   run      build/ch01_basic_1d                       2^26 random floats, random mask of 5
 *   check    build/ch01_basic_1d --check --size 31,4097 --mask-width 1:63
 *   bench    build/ch01_basic_1d --bench --mask-width 5,31
 *   yours    build/ch01_basic_1d_exercise --check     (or: make check CH=01)
 *
 * The host program is shared by the 1D chapters (common/conv1d_harness.c: make data, CPU
 * reference, copy in, launch, copy out, verify, time); this file only says which kernel runs and
 * what the chapter accepts. The mask is an ordinary kernel argument in global memory here;
 * chapter 02 moves it to constant memory.
 */
#include "conv1d_basic.h"
#include "conv1d_harness.h"

/* Weak (workbook.h): the chapter's own solution, linked only when grading. */
WB_SOLUTION_OF(conv1d_basic_launch);

int main(int argc, char **argv) {
    struct cli_spec spec = conv1d_standard_spec(
        "ch01_basic_1d", "1D convolution, one thread per output, mask in global memory (PMPP 7.2)");
    const struct conv1d_variant kernels[] = {
        {.label = "ch01 basic", .launch = conv1d_basic_launch},
        {.label = "solution", .launch = wb_solution_conv1d_basic_launch, .solution = 1},
    };
    return conv1d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
