/* pipelines.h: chapter 08's ways of convolving an image that lives in host memory, as the
 * harness runs them (conv2d_variant.host_launch), and as the report records them.
 *
 *   struct compute_step       the kernel every path runs: chapter 06's tuned one (default) or
 *                             chapter 05's tiled one (--kernel)
 *   pipelines_configure       the kernel, the GPU memory budget and the buffers
 *   pipelines_add_strips      one strip set-up (rows per strip, copy streams): a slot with its
 *                             own host_launch and set_mask, so that several run in one process
 *   pipelines_one_pass        the whole image up, computed, down, one step after the other
 *   pipelines_record          one more run of a slot (or the one pass) with the timeline's marks
 *   pipelines_rows            the rows per strip a slot uses for an image
 *   pipelines_close           free what the paths keep between launches
 */
#ifndef PIPELINES_H
#define PIPELINES_H

#include <stddef.h>

#include "cli.h"
#include "conv2d_harness.h"
#include "strips.h"
#include "strips_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PIPELINES_MAX_SLOTS 16
#define PIPELINES_ONE_PASS (-1) /* pipelines_record's slot for the one pass */

typedef void (*strips_fn)(struct strip_gpu *gpu, const float *h_in, float *h_out,
                          size_t host_pitch);

struct compute_step {
    const char *label;
    conv2d_set_mask_fn set_mask;
    conv2d_launch_fn launch;
    enum block_rule block_rule;
};

/* budget: bytes of GPU memory the strips may take; 0 for 90% of what is free when they start. */
void pipelines_configure(const struct compute_step *compute, size_t budget, int buffers);

/* rows: outputs per strip, 0 for as many as the budget holds. Returns the slot (its variant's
 * functions below), or -1 when all PIPELINES_MAX_SLOTS are taken. */
int pipelines_add_strips(strips_fn run, int rows, int streams);
conv2d_host_launch_fn pipelines_strips_launch(int slot);
conv2d_set_mask_fn pipelines_strips_set_mask(int slot);
int pipelines_rows(int slot, int width, int height, int mask_h);
int pipelines_streams(int slot);

void pipelines_set_mask(const float *h_mask, int mask_w, int mask_h);
void pipelines_one_pass(const float *h_in, float *h_out, size_t host_pitch, int width,
                        int height, int mask_w, int mask_h, int block);

/* Runs slot (or PIPELINES_ONE_PASS) once more on one plane, its steps marked in `marks`, and
 * waits for it. */
void pipelines_record(int slot, struct stage_marks *marks, const float *h_in, float *h_out,
                      size_t host_pitch, int width, int height, int mask_w, int mask_h,
                      int block);

void pipelines_close(void);

#ifdef __cplusplus
}
#endif
#endif
