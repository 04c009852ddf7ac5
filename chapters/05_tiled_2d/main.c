/* main.c: chapter 05's driver, tiled 2D convolution on pitched images (PMPP 7.6).
 *
 *   run      build/ch05_tiled_2d                     8192 x 8192 random image, random 5x5 mask
 *   photo    build/ch05_tiled_2d --input data/images/coffee.png --mask gaussian \
 *                --mask-width 9 --output build/out/coffee_blur.png
 *   check    build/ch05_tiled_2d --check --size 1000x777,1x1,1x300 --mask-width 1:15
 *   bench    build/ch05_tiled_2d --bench --mask-width 3,5,7      (the naive kernel beside it)
 *   yours    build/ch05_tiled_2d_exercise --check             (or: make check CH=05)
 *
 * --block T is the input tile edge: blocks of T x T threads (1 <= T <= 32), output tiles of
 * (T - mask_w + 1) x (T - mask_h + 1), so T must be at least the larger mask side. Masks may be
 * odd, even and non-square (--mask-width 5x3), up to 15 x 15. The host program is
 * common/conv2d_harness.c.
 */
#include "conv2d_harness.h"
#include "conv2d_naive.h"
#include "conv2d_tiled.h"

/* Weak (workbook.h): the chapter's own solution, linked only when grading. */
WB_SOLUTION_OF(conv2d_tiled_launch);
WB_SOLUTION_OF(conv2d_tiled_set_mask);

int main(int argc, char **argv) {
    struct cli_spec spec = conv2d_standard_spec(
        "ch05_tiled_2d", "tiled 2D convolution on pitched images, input tile with halo (PMPP 7.6)",
        CONV2D_MAX_MASK_SIDE);
    const struct conv2d_variant kernels[] = {
        {.label = "ch05 tiled",
         .set_mask = conv2d_tiled_set_mask,
         .launch = conv2d_tiled_launch,
         .block_rule = BLOCK_COVERS_MASK},
        {.label = "solution",
         .set_mask = wb_solution_conv2d_tiled_set_mask,
         .launch = wb_solution_conv2d_tiled_launch,
         .solution = 1},
        {.label = "naive, mask global",
         .set_mask = conv2d_naive_global_mask_set_mask,
         .launch = conv2d_naive_global_mask_launch,
         .comparison = 1},
        /* Last: the bench table's "vs naive" column divides by the last kernel's time. */
        {.label = "naive global",
         .set_mask = conv2d_naive_set_mask,
         .launch = conv2d_naive_launch,
         .comparison = 1},
    };
    return conv2d_chapter_main(argc, argv, &spec, kernels, WB_COUNT(kernels));
}
