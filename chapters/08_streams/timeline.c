/* timeline.c: the pipeline model, the text timeline and the CSV of a run's steps (timeline.h). */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "safe_output.h"
#include "workbook.h"

const char *const stage_names[STAGE_COUNT] = {"upload", "compute", "download"};

static int by_start(const void *a, const void *b) {
    const struct span *x = a, *y = b;
    return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

/* The time a stage was busy: the length of the union of its spans. Two copies queued on two
 * streams may both have begun (their streams reached them) while the engine moves only one, so
 * the spans of one stage can overlap; summing them would count that time twice. */
static double busy_ms(const struct span *spans, int count, int stage) {
    struct span *own = malloc(sizeof *own * (count ? count : 1));
    if (!own) wb_die(WB_EXIT_FAIL, "out of host memory for the pipeline model");
    int n = 0;
    for (int k = 0; k < count; ++k)
        if (spans[k].stage == stage) own[n++] = spans[k];
    qsort(own, (size_t)n, sizeof *own, by_start);
    double busy = 0.0, from = 0.0, to = -1.0;
    for (int k = 0; k < n; ++k) {
        if (own[k].start_ms > to) { /* a gap: close the run of overlapping spans */
            if (to > from) busy += to - from;
            from = own[k].start_ms;
            to = own[k].end_ms;
        } else if (own[k].end_ms > to) {
            to = own[k].end_ms;
        }
    }
    if (to > from) busy += to - from;
    free(own);
    return busy;
}

void pipeline_model(const struct span *spans, int count, const struct link_rates *rates,
                    double measured_ms, struct pipeline_summary *s) {
    memset(s, 0, sizeof *s);
    if (count < 1) return;
    double first = spans[0].start_ms, last = spans[0].end_ms;
    double bytes[STAGE_COUNT] = {0.0};
    for (int k = 0; k < count; ++k) {
        const struct span *p = &spans[k];
        if (p->item + 1 > s->items) s->items = p->item + 1;
        if (p->start_ms < first) first = p->start_ms;
        if (p->end_ms > last) last = p->end_ms;
        bytes[p->stage] += p->bytes;
    }
    s->measured_ms = measured_ms > 0.0 ? measured_ms : last - first;
    for (int g = 0; g < STAGE_COUNT; ++g) {
        s->busy_ms[g] = busy_ms(spans, count, g);
        s->stage_ms[g] = s->busy_ms[g];
        s->fill_ms[g] = s->busy_ms[g] / s->items;
    }
    if (rates) { /* GB/s is bytes per ns: bytes / (rate * 1e6) is ms */
        const double rate[STAGE_COUNT] = {rates->up, 0.0, rates->down};
        for (int g = 0; g < STAGE_COUNT; ++g)
            if (rate[g] > 0.0) {
                s->stage_ms[g] = bytes[g] / (rate[g] * 1e6);
                s->fill_ms[g] = s->stage_ms[g] / s->items;
            }
    }
    /* The slowest stage is busy from its first item to its last; before it, the first item
     * passes the stages ahead of it (fill), after it the last item the stages behind (drain). */
    int slowest = 0;
    for (int g = 1; g < STAGE_COUNT; ++g)
        if (s->stage_ms[g] > s->stage_ms[slowest]) slowest = g;
    s->ideal_ms = s->stage_ms[slowest];
    for (int g = 0; g < STAGE_COUNT; ++g)
        if (g != slowest) s->ideal_ms += s->fill_ms[g];
    s->efficiency = s->measured_ms > 0.0 ? s->ideal_ms / s->measured_ms : 0.0;
}

static char item_symbol(int item) {
    static const char symbols[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    return symbols[item % (int)(sizeof symbols - 1)];
}

void timeline_print(FILE *out, const struct span *spans, int count, int columns) {
    if (count < 1 || columns < 1) return;
    double first = spans[0].start_ms, last = spans[0].end_ms;
    for (int k = 0; k < count; ++k) {
        if (spans[k].start_ms < first) first = spans[k].start_ms;
        if (spans[k].end_ms > last) last = spans[k].end_ms;
    }
    double slice = (last - first) / columns;
    if (slice <= 0.0) slice = 1e-9;
    char *lane = malloc((size_t)columns + 1);
    double *busiest = malloc(sizeof *busiest * (size_t)columns);
    if (!lane || !busiest) wb_die(WB_EXIT_FAIL, "out of host memory for the timeline");
    fprintf(out, "  timeline: %.3f ms, one character per %.3f ms; each shows the %s\n",
            last - first, slice, "item (0-9, a-z, again) busy longest in it, '.' idle");
    for (int g = 0; g < STAGE_COUNT; ++g) {
        memset(lane, '.', (size_t)columns);
        lane[columns] = '\0';
        for (int c = 0; c < columns; ++c)
            busiest[c] = 0.0;
        for (int k = 0; k < count; ++k) {
            const struct span *p = &spans[k];
            if (p->stage != g) continue;
            int from = (int)((p->start_ms - first) / slice);
            int to = (int)((p->end_ms - first) / slice);
            if (to >= columns) to = columns - 1;
            for (int c = from < 0 ? 0 : from; c <= to; ++c) {
                double lo = first + c * slice, hi = lo + slice;
                double overlap = (p->end_ms < hi ? p->end_ms : hi) -
                                 (p->start_ms > lo ? p->start_ms : lo);
                if (overlap > busiest[c]) {
                    busiest[c] = overlap;
                    lane[c] = item_symbol(p->item);
                }
            }
        }
        fprintf(out, "  %-9s|%s|\n", stage_names[g], lane);
    }
    free(busiest);
    free(lane);
}

int timeline_write_csv(const char *path, const struct timeline_run *runs, int run_count,
                       char *err) {
    struct safe_output out;
    if (safe_output_open(&out, path, err)) return -1;
    const char *header = "mode,item,stage,stream,start_ms,end_ms,bytes,measured_ms,ideal_ms\n";
    int rc = fputs(header, out.fp) < 0;
    for (int r = 0; r < run_count && !rc; ++r)
        for (int k = 0; k < runs[r].count && !rc; ++k) {
            const struct span *p = &runs[r].spans[k];
            /* the mode is the driver's own text ("pipelined, 3 streams"): quoted for commas */
            rc = fprintf(out.fp, "\"%s\",%d,%s,%d,%.6f,%.6f,%.0f,%.6f,%.6f\n", runs[r].mode,
                         p->item, stage_names[p->stage], p->stream, p->start_ms, p->end_ms,
                         p->bytes, runs[r].measured_ms, runs[r].ideal_ms) < 0;
        }
    if (rc) wb_error(err, "%s: could not write the timeline", path);
    return safe_output_commit(&out, rc, err);
}
