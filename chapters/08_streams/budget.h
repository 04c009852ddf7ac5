/* budget.h: how many rows a strip may have under a GPU memory budget (chapter 08; host
 * arithmetic only, no GPU: a budget too small is refused before any GPU work).
 *
 *   strips_pitch      the bytes of one padded row of a strip buffer
 *   strips_bytes      the GPU memory of `buffers` strips in flight
 *   strips_rows_for   the most output rows per strip a budget holds, or the least it needs
 *   strips_delay_us   the tests' delay before every step, from the environment
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The strip buffers' rows are padded to a multiple of this many bytes (what cudaMallocPitch
 * gives on the GPUs the workbook targets), by hand: the budget's arithmetic is then exact. */
#define STRIPS_PITCH_ALIGN 512

size_t strips_pitch(int width);

/* An input and an output buffer of strip_rows + mask_h - 1 rows for each of `buffers` strips. */
size_t strips_bytes(int width, int strip_rows, int mask_h, int buffers);

/* The most output rows per strip (at most height) that `budget` bytes hold; 0 when not even one
 * row fits. *minimum: the bytes one row needs. */
int strips_rows_for(size_t budget, int width, int height, int mask_h, int buffers,
                    size_t *minimum);

/* WB_STRIPS_DELAY_US (tests): how long each strip step first holds its stream, per stage:
 * "N" for all three, or "U,C,D" for upload, compute and download, each 0 to 100000; all 0 when
 * unset. Returns 0, or -1 with a one-line message. */
int strips_delay_us(long us[3], char *err);

#ifdef __cplusplus
}
#endif
#endif
