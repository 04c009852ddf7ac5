/* strips.h: chapter 08's exercise interface: one image plane that lives in host memory,
 * convolved in horizontal strips small enough for a GPU memory budget, the copies of one strip
 * overlapping the arithmetic of another.
 *
 *   strips_run      the strip loop, yours (exercises/08_streams/strips.cu) or ours (solutions/)
 *   strip_upload    the steps it calls, the driver's (strips_gpu.cu): each one queues its work,
 *   strip_compute   records its event (uploaded, computed, downloaded: one per buffer) and the
 *   strip_download  timeline's marks, and returns at once
 *
 * Rows: the formula reads rows y - mask_h / 2 .. y + (mask_h - 1 - mask_h / 2) for output row y
 * (zero outside the image), so a strip of outputs [first, first + rows) needs the input rows
 * from first - mask_h / 2 to first + rows - 1 + (mask_h - 1 - mask_h / 2), cut to the image.
 * Its buffer holds exactly those; the kernel runs on them as on a small image and the strip's
 * outputs sit at row (first - the first input row) of its output buffer.
 */
#ifndef STRIPS_H
#define STRIPS_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRIPS_MAX_BUFFERS 3  /* strips in flight: double or triple buffering */
#define STRIPS_MAX_STREAMS 16 /* copy streams */

struct strip_gpu {
    int width, height;  /* the image plane */
    int mask_w, mask_h; /* the mask set for the kernel */
    int strip_rows;     /* outputs per strip (the last strip may have fewer) */
    int buffers;        /* 1 to STRIPS_MAX_BUFFERS */
    int streams;        /* 1 to STRIPS_MAX_STREAMS */
    cudaStream_t copy[STRIPS_MAX_STREAMS]; /* where uploads and downloads queue */
    cudaStream_t compute;                  /* where the kernels queue, in strip order */
    /* Recorded by the steps, per buffer, for the strip that last used it: */
    cudaEvent_t uploaded[STRIPS_MAX_BUFFERS];   /* its input rows are on the GPU */
    cudaEvent_t computed[STRIPS_MAX_BUFFERS];   /* the kernel has read them and written outputs */
    cudaEvent_t downloaded[STRIPS_MAX_BUFFERS]; /* the outputs are back in host memory */
    struct strips_private *driver;              /* buffers, kernel, timeline: the driver's */
};

/* Copies image rows [first_row, first_row + rows) of h_in (rows host_pitch bytes apart) into
 * buffer's input on `stream` (one of gpu->copy[0 .. streams - 1]), then records
 * uploaded[buffer] there. */
void strip_upload(struct strip_gpu *gpu, int strip, int buffer, cudaStream_t stream,
                  const float *h_in, size_t host_pitch, int first_row, int rows);

/* Runs the kernel on the first `rows` rows of buffer's input, on gpu->compute, writing as many
 * rows of its output, then records computed[buffer] there. */
void strip_compute(struct strip_gpu *gpu, int strip, int buffer, int rows);

/* Copies `rows` rows of buffer's output, from its row `offset`, to image rows
 * [first_row, first_row + rows) of h_out on `stream` (one of gpu->copy[0 .. streams - 1]),
 * then records downloaded[buffer] there. */
void strip_download(struct strip_gpu *gpu, int strip, int buffer, cudaStream_t stream,
                    float *h_out, size_t host_pitch, int first_row, int offset, int rows);

/* The whole plane, strip after strip: every output row of h_out is written once. Returns when
 * the work is queued; the caller waits for it. */
void strips_run(struct strip_gpu *gpu, const float *h_in, float *h_out, size_t host_pitch);

#ifdef __cplusplus
}
#endif
#endif
