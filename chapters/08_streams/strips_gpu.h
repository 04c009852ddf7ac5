/* strips_gpu.h: chapter 08's driver side of the strip loop (strips_gpu.cu): the GPU memory a
 * run of strips needs, opening and closing one, and the timeline's marks.
 *
 *   strips_open, strips_close, strips_retarget    one run's buffers, streams and events
 *   strips_begin                                  order a run after the legacy stream's work
 * WB_STRIPS_DELAY_US (tests): each step first holds its stream that long (one stage late at a
 * time), so that a wait the strip loop forgot shows as a wrong result every time.
 *   marks_*                                       begin and end events around each step, read
 *                                                 back as intervals (timeline.h) after a run
 */
#ifndef STRIPS_GPU_H
#define STRIPS_GPU_H

#include <stddef.h>

#include "conv2d_harness.h"
#include "budget.h"
#include "strips.h"
#include "timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

struct strips_config {
    int width, height, mask_w, mask_h;
    int strip_rows, buffers, streams;
    conv2d_launch_fn launch; /* the kernel each strip runs (on the legacy default stream) */
    int block;
    struct stage_marks *marks; /* NULL: no timeline */
};

void strips_open(struct strip_gpu *gpu, const struct strips_config *config);
void strips_close(struct strip_gpu *gpu); /* waits for the GPU first */
/* Before a run's strips: the copy streams wait for what the legacy stream holds (a timer's
 * start event), as the kernels do. */
void strips_begin(struct strip_gpu *gpu);
/* An open run's kernel, block and marks, for its next strips. */
void strips_retarget(struct strip_gpu *gpu, conv2d_launch_fn launch, int block,
                     struct stage_marks *marks);

/* ---- the timeline's marks ------------------------------------------------------------------ */

struct stage_marks;

struct stage_marks *marks_create(void);
void marks_free(struct stage_marks *marks);
/* Starts a new recording: its time zero is an event recorded now on the legacy stream. */
void marks_reset(struct stage_marks *marks);
/* Around one step (a copy of `bytes`, or a kernel: 0): begin records an event on `stream`
 * before it, end one after it. NULL marks: nothing. */
void marks_begin(struct stage_marks *marks, int item, enum stage stage, int stream_index,
                 double bytes, cudaStream_t stream);
void marks_end(struct stage_marks *marks, cudaStream_t stream);
/* After the GPU has finished: the steps' intervals in ms from time zero, in the order they were
 * marked. Returns how many; *spans points into marks (valid until the next reset). */
int marks_read(struct stage_marks *marks, const struct span **spans);

#ifdef __cplusplus
}
#endif
#endif
