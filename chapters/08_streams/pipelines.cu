/* pipelines.cu: chapter 08's host-to-host paths (pipelines.h): strips through a few buffers,
 * and the whole image in one pass.
 *
 * A strip slot keeps its GPU buffers, streams and events from one launch to the next (the
 * harness launches it many times to time it), and makes them anew when the image, the mask or
 * the set-up changes. The harness's set_mask hook tells which slot runs next: each slot has its
 * own pair of functions (the STRIP_SLOT trampolines below), since the hooks carry no context.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "pipelines.h"

static struct {
    struct compute_step compute;
    size_t budget; /* 0: from what is free, found at the first strips */
    int buffers;
    int mask_w, mask_h;
} config;

struct slot {
    strips_fn run;
    int rows, streams; /* rows 0: from the budget */
    struct strip_gpu gpu;
    int open;
};
static struct slot slots[PIPELINES_MAX_SLOTS];
static int slot_count;

void pipelines_configure(const struct compute_step *compute, size_t budget, int buffers) {
    config.compute = *compute;
    config.budget = budget;
    config.buffers = buffers;
}

int pipelines_add_strips(strips_fn run, int rows, int streams) {
    if (slot_count == PIPELINES_MAX_SLOTS) return -1;
    struct slot *s = &slots[slot_count];
    memset(s, 0, sizeof *s);
    s->run = run;
    s->rows = rows;
    s->streams = streams;
    return slot_count++;
}

int pipelines_streams(int slot) {
    return slots[slot].streams;
}

static size_t budget_now(void) {
    if (!config.budget) {
        size_t free_bytes = 0, total_bytes = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        config.budget = free_bytes / 10 * 9;
    }
    return config.budget;
}

int pipelines_rows(int slot, int width, int height, int mask_h) {
    const struct slot *s = &slots[slot];
    if (s->rows) return s->rows < height ? s->rows : height;
    size_t minimum;
    int rows = strips_rows_for(budget_now(), width, height, mask_h, config.buffers, &minimum);
    if (rows < 1)
        wb_die(WB_EXIT_USAGE,
               "a GPU memory budget of %.3f MiB is too small for a %d-wide image and a mask %d "
               "rows tall: %d buffers of one row and its halo need %.3f MiB",
               budget_now() / 1048576.0, width, mask_h, config.buffers, minimum / 1048576.0);
    return rows;
}

void pipelines_set_mask(const float *h_mask, int mask_w, int mask_h) {
    config.compute.set_mask(h_mask, mask_w, mask_h);
    config.mask_w = mask_w;
    config.mask_h = mask_h;
}

static struct {
    float *d_in, *d_out;
    size_t pitch;
    int width, height;
} whole; /* the one pass's image on the GPU */

static void free_whole(void) {
    if (whole.d_in) CUDA_CHECK(cudaFree(whole.d_in));
    if (whole.d_out) CUDA_CHECK(cudaFree(whole.d_out));
    memset(&whole, 0, sizeof whole);
}

/* The slot's GPU side, for this image and mask: kept, or made anew. */
static struct strip_gpu *slot_gpu(struct slot *s, int width, int height, int mask_w, int mask_h,
                                  int block, struct stage_marks *marks) {
    const int rows = pipelines_rows((int)(s - slots), width, height, mask_h);
    struct strip_gpu *gpu = &s->gpu;
    for (int k = 0; k < slot_count; ++k) /* one slot's buffers at a time: the budget holds */
        if (&slots[k] != s && slots[k].open) {
            strips_close(&slots[k].gpu);
            slots[k].open = 0;
        }
    free_whole(); /* and not the one pass's beside them */
    if (s->open && (gpu->width != width || gpu->height != height || gpu->mask_w != mask_w ||
                    gpu->mask_h != mask_h || gpu->strip_rows != rows)) {
        strips_close(gpu);
        s->open = 0;
    }
    struct strips_config c = {width,  height,          mask_w,   mask_h, rows, config.buffers,
                              s->streams, config.compute.launch, block, marks};
    if (!s->open) {
        strips_open(gpu, &c);
        s->open = 1;
    }
    strips_retarget(gpu, config.compute.launch, block, marks);
    return gpu;
}

static void run_slot(int slot, struct stage_marks *marks, const float *h_in, float *h_out,
                     size_t host_pitch, int width, int height, int mask_w, int mask_h, int block) {
    struct slot *s = &slots[slot];
    struct strip_gpu *gpu = slot_gpu(s, width, height, mask_w, mask_h, block, marks);
    strips_begin(gpu);
    s->run(gpu, h_in, h_out, host_pitch);
    /* the compute stream and every copy stream: non-blocking ones are not waited for with it */
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    for (int k = 0; k < gpu->streams; ++k)
        CUDA_CHECK(cudaStreamSynchronize(gpu->copy[k]));
}

#define STRIP_SLOT(k)                                                                              \
    static void strips_launch_##k(const float *h_in, float *h_out, size_t host_pitch, int width, \
                                  int height, int mask_w, int mask_h, int block) {               \
        run_slot(k, NULL, h_in, h_out, host_pitch, width, height, mask_w, mask_h, block);        \
    }                                                                                              \
    static void strips_set_mask_##k(const float *h_mask, int mask_w, int mask_h) {               \
        pipelines_set_mask(h_mask, mask_w, mask_h);                                              \
    }
STRIP_SLOT(0) STRIP_SLOT(1) STRIP_SLOT(2) STRIP_SLOT(3) STRIP_SLOT(4) STRIP_SLOT(5)
STRIP_SLOT(6) STRIP_SLOT(7) STRIP_SLOT(8) STRIP_SLOT(9) STRIP_SLOT(10) STRIP_SLOT(11)
STRIP_SLOT(12) STRIP_SLOT(13) STRIP_SLOT(14) STRIP_SLOT(15)
#undef STRIP_SLOT

static const conv2d_host_launch_fn slot_launches[PIPELINES_MAX_SLOTS] = {
    strips_launch_0,  strips_launch_1,  strips_launch_2,  strips_launch_3,
    strips_launch_4,  strips_launch_5,  strips_launch_6,  strips_launch_7,
    strips_launch_8,  strips_launch_9,  strips_launch_10, strips_launch_11,
    strips_launch_12, strips_launch_13, strips_launch_14, strips_launch_15};
static const conv2d_set_mask_fn slot_set_masks[PIPELINES_MAX_SLOTS] = {
    strips_set_mask_0,  strips_set_mask_1,  strips_set_mask_2,  strips_set_mask_3,
    strips_set_mask_4,  strips_set_mask_5,  strips_set_mask_6,  strips_set_mask_7,
    strips_set_mask_8,  strips_set_mask_9,  strips_set_mask_10, strips_set_mask_11,
    strips_set_mask_12, strips_set_mask_13, strips_set_mask_14, strips_set_mask_15};

conv2d_host_launch_fn pipelines_strips_launch(int slot) {
    return slot_launches[slot];
}

conv2d_set_mask_fn pipelines_strips_set_mask(int slot) {
    return slot_set_masks[slot];
}

/* ---- the one pass ---------------------------------------------------------------------------- */

/* Frees every strip slot's GPU buffers (the one pass needs the room). */
static void close_slots(void) {
    for (int k = 0; k < slot_count; ++k)
        if (slots[k].open) {
            strips_close(&slots[k].gpu);
            slots[k].open = 0;
        }
}

static void run_one_pass(struct stage_marks *marks, const float *h_in, float *h_out,
                         size_t host_pitch, int width, int height, int mask_w, int mask_h,
                         int block) {
    close_slots();
    if (whole.width != width || whole.height != height) {
        free_whole();
        whole.d_in = (float *)device_malloc_pitch((size_t)width * sizeof(float), (size_t)height,
                                                  &whole.pitch, "the one pass's input");
        whole.d_out = (float *)device_malloc_pitch((size_t)width * sizeof(float), (size_t)height,
                                                   &whole.pitch, "the one pass's output");
        whole.width = width;
        whole.height = height;
    }
    const size_t row = (size_t)width * sizeof(float);
    cudaStream_t legacy = cudaStreamLegacy;
    const double bytes = (double)row * height;
    marks_begin(marks, 0, STAGE_UPLOAD, 0, bytes, legacy);
    CUDA_CHECK(cudaMemcpy2DAsync(whole.d_in, whole.pitch, h_in, host_pitch, row, (size_t)height,
                                 cudaMemcpyHostToDevice, legacy));
    marks_end(marks, legacy);
    marks_begin(marks, 0, STAGE_COMPUTE, -1, 0.0, legacy);
    config.compute.launch(whole.d_in, whole.d_out, whole.pitch, width, height, mask_w, mask_h,
                          block);
    marks_end(marks, legacy);
    marks_begin(marks, 0, STAGE_DOWNLOAD, 0, bytes, legacy);
    CUDA_CHECK(cudaMemcpy2DAsync(h_out, host_pitch, whole.d_out, whole.pitch, row, (size_t)height,
                                 cudaMemcpyDeviceToHost, legacy));
    marks_end(marks, legacy);
    CUDA_CHECK(cudaStreamSynchronize(legacy));
}

void pipelines_one_pass(const float *h_in, float *h_out, size_t host_pitch, int width,
                        int height, int mask_w, int mask_h, int block) {
    run_one_pass(NULL, h_in, h_out, host_pitch, width, height, mask_w, mask_h, block);
}

void pipelines_record(int slot, struct stage_marks *marks, const float *h_in, float *h_out,
                      size_t host_pitch, int width, int height, int mask_w, int mask_h,
                      int block) {
    marks_reset(marks);
    if (slot == PIPELINES_ONE_PASS)
        run_one_pass(marks, h_in, h_out, host_pitch, width, height, mask_w, mask_h, block);
    else
        run_slot(slot, marks, h_in, h_out, host_pitch, width, height, mask_w, mask_h, block);
}

void pipelines_close(void) {
    close_slots();
    free_whole();
}
