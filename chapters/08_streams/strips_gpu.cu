/* strips_gpu.cu: chapter 08's side of the strip loop (strips.h): the buffers, streams and
 * events a run needs, the three steps the loop calls, and the marks they leave for the
 * timeline (strips_gpu.h).
 *
 *   strips_open/close  make and free one run's buffers, streams and events
 *   strip_upload / strip_compute / strip_download   (strips.h)
 *
 * Copy streams are created non-blocking: the kernels go to the legacy default stream (chapter
 * 06's launchers use it), and a blocking stream would wait for every kernel there and every
 * kernel for it, so no copy could overlap any kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "hold_stream.cuh"
#include "strips_gpu.h"

struct strips_private {
    float *d_in[STRIPS_MAX_BUFFERS], *d_out[STRIPS_MAX_BUFFERS];
    size_t pitch;
    conv2d_launch_fn launch;
    int block;
    struct stage_marks *marks; /* NULL: no timeline */
    cudaEvent_t gate;          /* strips_begin: the copy streams start after it */
    unsigned long long delay_ns[STAGE_COUNT]; /* WB_STRIPS_DELAY_US: a wait before each step */
};

static void delay(const struct strips_private *p, enum stage stage, cudaStream_t stream) {
    if (!p->delay_ns[stage]) return;
    hold_stream<<<1, 1, 0, stream>>>(p->delay_ns[stage]);
    CUDA_CHECK(cudaGetLastError());
}

/* WB_STRIPS_DELAY_US in nanoseconds, per stage (main has refused a bad value before any GPU
 * work). */
static void delays_from_environment(unsigned long long ns[STAGE_COUNT]) {
    long us[3];
    char err[WB_ERR_LEN];
    if (strips_delay_us(us, err)) wb_die(WB_EXIT_USAGE, "%s", err);
    for (int g = 0; g < STAGE_COUNT; ++g)
        ns[g] = 1000ull * (unsigned long long)us[g];
}

void strips_open(struct strip_gpu *gpu, const struct strips_config *config) {
    memset(gpu, 0, sizeof *gpu);
    gpu->width = config->width;
    gpu->height = config->height;
    gpu->mask_w = config->mask_w;
    gpu->mask_h = config->mask_h;
    gpu->strip_rows = config->strip_rows;
    gpu->buffers = config->buffers;
    gpu->streams = config->streams;
    gpu->compute = cudaStreamLegacy;
    struct strips_private *p = (struct strips_private *)calloc(1, sizeof *p);
    if (!p) wb_die(WB_EXIT_FAIL, "out of host memory for the strips");
    gpu->driver = p;
    p->launch = config->launch;
    p->block = config->block;
    p->marks = config->marks;
    /* rows padded by hand to strips_pitch, so that the budget's arithmetic is exact */
    const size_t rows = (size_t)(config->strip_rows + config->mask_h - 1);
    p->pitch = strips_pitch(config->width);
    for (int b = 0; b < config->buffers; ++b) {
        p->d_in[b] = (float *)device_malloc(rows * p->pitch, "a strip's input buffer");
        p->d_out[b] = (float *)device_malloc(rows * p->pitch, "a strip's output buffer");
        CUDA_CHECK(cudaEventCreateWithFlags(&gpu->uploaded[b], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&gpu->computed[b], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&gpu->downloaded[b], cudaEventDisableTiming));
    }
    for (int k = 0; k < config->streams; ++k)
        CUDA_CHECK(cudaStreamCreateWithFlags(&gpu->copy[k], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->gate, cudaEventDisableTiming));
    delays_from_environment(p->delay_ns);
    /* poisoned: a kernel that reads a buffer before its upload landed reads NaN */
    for (int b = 0; b < config->buffers; ++b) {
        CUDA_CHECK(cudaMemset(p->d_in[b], 0xff, rows * p->pitch));
        CUDA_CHECK(cudaMemset(p->d_out[b], 0xff, rows * p->pitch));
    }
}

void strips_begin(struct strip_gpu *gpu) {
    /* Work queued on the legacy stream so far (a timer's start event) comes first: the copy
     * streams are non-blocking and would not wait for it otherwise. */
    CUDA_CHECK(cudaEventRecord(gpu->driver->gate, cudaStreamLegacy));
    for (int k = 0; k < gpu->streams; ++k)
        CUDA_CHECK(cudaStreamWaitEvent(gpu->copy[k], gpu->driver->gate, 0));
}

void strips_retarget(struct strip_gpu *gpu, conv2d_launch_fn launch, int block,
                     struct stage_marks *marks) {
    gpu->driver->launch = launch;
    gpu->driver->block = block;
    gpu->driver->marks = marks;
}

void strips_close(struct strip_gpu *gpu) {
    struct strips_private *p = gpu->driver;
    if (!p) return;
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int b = 0; b < gpu->buffers; ++b) {
        CUDA_CHECK(cudaFree(p->d_in[b]));
        CUDA_CHECK(cudaFree(p->d_out[b]));
        CUDA_CHECK(cudaEventDestroy(gpu->uploaded[b]));
        CUDA_CHECK(cudaEventDestroy(gpu->computed[b]));
        CUDA_CHECK(cudaEventDestroy(gpu->downloaded[b]));
    }
    for (int k = 0; k < gpu->streams; ++k)
        CUDA_CHECK(cudaStreamDestroy(gpu->copy[k]));
    CUDA_CHECK(cudaEventDestroy(p->gate));
    free(p);
    gpu->driver = NULL;
}

/* The step's stream as an index for the timeline: a copy stream's number, or -1 for compute. */
static int stream_index(const struct strip_gpu *gpu, cudaStream_t stream) {
    for (int k = 0; k < gpu->streams; ++k)
        if (gpu->copy[k] == stream) return k;
    return -1;
}

/* A copy on any other stream (the compute stream, the default one) would queue behind the
 * kernels and undo the overlap this chapter is about: refused, as a bad buffer or row is. */
static void check_copy_stream(const struct strip_gpu *gpu, const char *step, cudaStream_t stream) {
    if (stream_index(gpu, stream) < 0)
        wb_die(WB_EXIT_FAIL,
               "%s: its stream is not one of gpu->copy[0] to gpu->copy[%d] (strips_run asked "
               "for it)",
               step, gpu->streams - 1);
}

static void check_step(const struct strip_gpu *gpu, const char *step, int buffer, int first_row,
                       int rows) {
    if (buffer < 0 || buffer >= gpu->buffers || rows < 1 ||
        rows > gpu->strip_rows + gpu->mask_h - 1 || first_row < 0 ||
        first_row + rows > gpu->height)
        wb_die(WB_EXIT_FAIL,
               "%s: buffer %d, rows %d to %d: outside the image's %d rows or the buffer's %d "
               "(strips_run asked for it)",
               step, buffer, first_row, first_row + rows - 1, gpu->height,
               gpu->strip_rows + gpu->mask_h - 1);
}

void strip_upload(struct strip_gpu *gpu, int strip, int buffer, cudaStream_t stream,
                  const float *h_in, size_t host_pitch, int first_row, int rows) {
    check_step(gpu, "strip_upload", buffer, first_row, rows);
    check_copy_stream(gpu, "strip_upload", stream);
    struct strips_private *p = gpu->driver;
    delay(p, STAGE_UPLOAD, stream);
    marks_begin(p->marks, strip, STAGE_UPLOAD, stream_index(gpu, stream),
                (double)rows * gpu->width * sizeof(float), stream);
    CUDA_CHECK(cudaMemcpy2DAsync(p->d_in[buffer], p->pitch,
                                 (const char *)h_in + (size_t)first_row * host_pitch, host_pitch,
                                 (size_t)gpu->width * sizeof(float), (size_t)rows,
                                 cudaMemcpyHostToDevice, stream));
    marks_end(p->marks, stream);
    CUDA_CHECK(cudaEventRecord(gpu->uploaded[buffer], stream));
}

void strip_compute(struct strip_gpu *gpu, int strip, int buffer, int rows) {
    check_step(gpu, "strip_compute", buffer, 0, rows);
    struct strips_private *p = gpu->driver;
    delay(p, STAGE_COMPUTE, gpu->compute);
    marks_begin(p->marks, strip, STAGE_COMPUTE, -1, 0.0, gpu->compute);
    p->launch(p->d_in[buffer], p->d_out[buffer], p->pitch, gpu->width, rows, gpu->mask_w,
              gpu->mask_h, p->block);
    marks_end(p->marks, gpu->compute);
    CUDA_CHECK(cudaEventRecord(gpu->computed[buffer], gpu->compute));
}

void strip_download(struct strip_gpu *gpu, int strip, int buffer, cudaStream_t stream,
                    float *h_out, size_t host_pitch, int first_row, int offset, int rows) {
    check_step(gpu, "strip_download", buffer, first_row, rows);
    check_copy_stream(gpu, "strip_download", stream);
    if (offset < 0 || offset + rows > gpu->strip_rows + gpu->mask_h - 1)
        wb_die(WB_EXIT_FAIL, "strip_download: rows %d to %d of a buffer of %d rows", offset,
               offset + rows - 1, gpu->strip_rows + gpu->mask_h - 1);
    struct strips_private *p = gpu->driver;
    delay(p, STAGE_DOWNLOAD, stream);
    marks_begin(p->marks, strip, STAGE_DOWNLOAD, stream_index(gpu, stream),
                (double)rows * gpu->width * sizeof(float), stream);
    CUDA_CHECK(cudaMemcpy2DAsync((char *)h_out + (size_t)first_row * host_pitch, host_pitch,
                                 (const char *)p->d_out[buffer] + (size_t)offset * p->pitch,
                                 p->pitch, (size_t)gpu->width * sizeof(float), (size_t)rows,
                                 cudaMemcpyDeviceToHost, stream));
    marks_end(p->marks, stream);
    CUDA_CHECK(cudaEventRecord(gpu->downloaded[buffer], stream));
}

/* ---- the timeline's marks ------------------------------------------------------------------ */

struct stage_marks {
    int count, capacity;
    cudaEvent_t origin;
    cudaEvent_t *begin, *end; /* one pair per step, kept for the next recording */
    struct span *spans;
};

struct stage_marks *marks_create(void) {
    struct stage_marks *m = (struct stage_marks *)calloc(1, sizeof *m);
    if (!m) wb_die(WB_EXIT_FAIL, "out of host memory for the timeline");
    CUDA_CHECK(cudaEventCreate(&m->origin));
    return m;
}

void marks_free(struct stage_marks *m) {
    if (!m) return;
    for (int k = 0; k < m->capacity; ++k) {
        CUDA_CHECK(cudaEventDestroy(m->begin[k]));
        CUDA_CHECK(cudaEventDestroy(m->end[k]));
    }
    CUDA_CHECK(cudaEventDestroy(m->origin));
    free(m->begin);
    free(m->end);
    free(m->spans);
    free(m);
}

void marks_reset(struct stage_marks *m) {
    if (!m) return;
    m->count = 0;
    CUDA_CHECK(cudaEventRecord(m->origin, cudaStreamLegacy));
}

void marks_begin(struct stage_marks *m, int item, enum stage stage, int stream_index,
                 double bytes, cudaStream_t stream) {
    if (!m) return;
    if (m->count == m->capacity) {
        int grown = m->capacity ? 2 * m->capacity : 64;
        m->begin = (cudaEvent_t *)realloc(m->begin, sizeof *m->begin * grown);
        m->end = (cudaEvent_t *)realloc(m->end, sizeof *m->end * grown);
        m->spans = (struct span *)realloc(m->spans, sizeof *m->spans * grown);
        if (!m->begin || !m->end || !m->spans)
            wb_die(WB_EXIT_FAIL, "out of host memory for the timeline");
        for (int k = m->capacity; k < grown; ++k) {
            CUDA_CHECK(cudaEventCreate(&m->begin[k]));
            CUDA_CHECK(cudaEventCreate(&m->end[k]));
        }
        m->capacity = grown;
    }
    struct span *s = &m->spans[m->count];
    s->item = item;
    s->stage = stage;
    s->stream = stream_index;
    s->bytes = bytes;
    CUDA_CHECK(cudaEventRecord(m->begin[m->count], stream));
}

void marks_end(struct stage_marks *m, cudaStream_t stream) {
    if (!m) return;
    CUDA_CHECK(cudaEventRecord(m->end[m->count], stream));
    ++m->count;
}

int marks_read(struct stage_marks *m, const struct span **spans) {
    for (int k = 0; k < m->count; ++k) {
        float begin_ms, end_ms;
        CUDA_CHECK(cudaEventSynchronize(m->end[k]));
        CUDA_CHECK(cudaEventElapsedTime(&begin_ms, m->origin, m->begin[k]));
        CUDA_CHECK(cudaEventElapsedTime(&end_ms, m->origin, m->end[k]));
        m->spans[k].start_ms = begin_ms;
        m->spans[k].end_ms = end_ms;
    }
    *spans = m->spans;
    return m->count;
}
