/* timeline.h: what a pipelined run did, step by step, and what it could have done (chapter 08;
 * host code only, no GPU).
 *
 *   struct span        one step of one item (an image or a strip): its stage, its stream and
 *                      when it ran, in ms from the run's start
 *   pipeline_model     each stage's total and mean, the ideal pipelined time (the slowest
 *                      stage's total, plus one item's time in the other stages: the pipeline's
 *                      fill and drain) and the efficiency ideal / measured
 *   timeline_print     the run as text: one lane per stage, one character per time slice
 *   timeline_write_csv the spans of several runs as CSV, for the Gantt chart of `make report`
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
    int item;    /* the image or strip, from 0 */
    int stage;   /* an enum stage */
    int stream;  /* the copy stream's number, -1 for the compute stream */
    double start_ms, end_ms;
};

struct pipeline_summary {
    int items;                     /* distinct items seen */
    double total_ms[STAGE_COUNT];  /* each stage's busy time: the union of its spans */
    double mean_ms[STAGE_COUNT];   /* per item */
    double measured_ms;            /* the run, first start to last end */
    double ideal_ms;               /* max total + the other stages' means */
    double efficiency;             /* ideal / measured */
};

/* Fills *s from count spans (items numbered from 0). */
void pipeline_model(const struct span *spans, int count, struct pipeline_summary *s);

/* Three lanes, `columns` characters for the run's length: each character shows the item that
 * ran longest in that slice (0-9, then a-z, then again), '.' where the stage was idle. */
void timeline_print(FILE *out, const struct span *spans, int count, int columns);

/* One recorded run of a mode ("pipelined, 3 streams"), for the CSV. */
struct timeline_run {
    const char *mode;
    const struct span *spans;
    int count;
};

/* A header, then one line per span of every run: mode,item,stage,stream,start_ms,end_ms
 * (safe_output.h: an input is never replaced). 0, or -1 with a message in err. */
int timeline_write_csv(const char *path, const struct timeline_run *runs, int run_count,
                       char *err);

#ifdef __cplusplus
}
#endif
#endif
