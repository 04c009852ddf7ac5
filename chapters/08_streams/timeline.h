/* timeline.h: what a pipelined run did, step by step, and what it could have done (chapter 08;
 * host code only, no GPU).
 *
 *   struct span        one step of one item (an image or a strip): its stage, its stream, the
 *                      bytes it copied and when it ran, in ms from the run's start
 *   pipeline_model     each stage's total, the ideal pipelined time (the slowest stage's total,
 *                      plus one item's time in the other stages: the pipeline's fill and drain)
 *                      and the efficiency ideal / measured
 *   timeline_print     the run as text: one lane per stage, one character per time slice
 *   timeline_write_csv the spans of several runs as CSV, for the Gantt chart of `make report`
 *
 * Why the model takes the copies' bytes and the link's rates, not the recorded copy times: a
 * timing event around every copy changes what it times (on an H100, 32 images over 4 streams
 * took 57 ms with them and 47 ms without), so the recorded run draws the timeline, a run without
 * marks gives the measured time, and the copies' share of the ideal comes from their bytes at
 * the rates each direction reaches alone, measured in the same run. Copies both ways at once
 * share the link and go slower than that (about 10% on an H100's PCIe 5 link), so no pipeline
 * reaches 100% of this ideal: the programs print that rate beside it.
 */
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum stage { STAGE_UPLOAD, STAGE_COMPUTE, STAGE_DOWNLOAD, STAGE_COUNT };

extern const char *const stage_names[STAGE_COUNT]; /* "upload", "compute", "download" */

struct span {
    int item;     /* the image or strip, from 0 */
    int stage;    /* an enum stage */
    int stream;   /* the copy stream's number, -1 for the compute stream */
    double bytes; /* what a copy moved; 0 for a kernel */
    double start_ms, end_ms;
};

/* The host link, GB/s (1e9 bytes/s): each direction alone, measured in the same run. */
struct link_rates {
    double up, down;
};

struct pipeline_summary {
    int items;                     /* distinct items seen */
    double busy_ms[STAGE_COUNT];   /* the recorded run: each stage's busy time (union of spans) */
    double stage_ms[STAGE_COUNT];  /* the model's stage totals (below) */
    double fill_ms[STAGE_COUNT];   /* one item's mean time in each stage */
    double measured_ms;            /* the run's time */
    double ideal_ms;               /* max stage_ms + the other stages' fill_ms */
    double efficiency;             /* ideal / measured */
};

/* Fills *s from count spans (items numbered from 0). With rates, a copy stage's total is its
 * bytes at its direction's rate; the kernels' total is their recorded busy time. Without
 * (NULL), every stage's total is its recorded busy time. measured_ms > 0 is the run's time (a
 * run without marks); otherwise the record's first start to last end. */
void pipeline_model(const struct span *spans, int count, const struct link_rates *rates,
                    double measured_ms, struct pipeline_summary *s);

/* Three lanes, `columns` characters for the run's length: each character shows the item that
 * ran longest in that slice (0-9, then a-z, then again), '.' where the stage was idle. */
void timeline_print(FILE *out, const struct span *spans, int count, int columns);

/* One recorded run of a mode ("pipelined, 3 streams"), for the CSV, with its model's verdict. */
struct timeline_run {
    const char *mode;
    const struct span *spans;
    int count;
    double measured_ms, ideal_ms;
};

/* A header, then one line per span of every run:
 * mode,item,stage,stream,start_ms,end_ms,bytes,measured_ms,ideal_ms (the last two the run's,
 * on each of its lines; safe_output.h: an input is never replaced). 0, or -1 with a message in
 * err. */
int timeline_write_csv(const char *path, const struct timeline_run *runs, int run_count,
                       char *err);

#ifdef __cplusplus
}
#endif
#endif
