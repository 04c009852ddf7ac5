/* batch.h: chapter 08's batch mode: many images through host -> GPU -> host, first one step
 * after the other from pageable memory, then from pinned memory, then pipelined over K copy
 * streams, every output checked against the CPU reference.
 *
 *   batch_load     the images: a folder of PNGs, or `count` random ones of one size; every file
 *                  read and checked before the GPU is touched
 *   batch_run      every mode on every mask; the table, the timelines; the exit code
 *   batch_free
 */
#ifndef BATCH_H
#define BATCH_H

#include <stdio.h>

#include "cli.h"
#include "image_io.h"
#include "pipelines.h"
#include "timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BATCH_MAX_IMAGES 1024
#define BATCH_ROUNDS 7 /* every mode once a round, after a round to warm up (batch.cu) */

struct batch {
    int count;
    struct image images[BATCH_MAX_IMAGES];
    int convolved[BATCH_MAX_IMAGES]; /* planes filtered; the rest (alpha) copied through */
    char *names[BATCH_MAX_IMAGES];   /* file names (no folder), or image_NNNN.png */
};

/* From the PNGs in `folder` (sorted by name; other files are left alone) or, with folder NULL,
 * `count` random width x height images from `seed`. Exits 2 with a line naming the problem. */
void batch_load(struct batch *b, const char *folder, int count, int width, int height,
                uint64_t seed);
void batch_free(struct batch *b);

struct batch_settings {
    const struct compute_step *compute;
    const int *streams; /* the pipelined runs' copy-stream counts, each 1 to STRIPS_MAX_STREAMS */
    int stream_count;   /* 1 to STRIPS_MAX_STREAMS of them (the command line's limits) */
    const char *output_folder; /* NULL: write nothing */
    const char *timeline_csv;  /* NULL: write none */
    int block;
    int columns; /* of the text timelines */
};

/* Runs every mode for every mask (opt's --mask and --mask-width); returns the exit code. */
int batch_run(const struct batch *b, const struct batch_settings *s, const struct cli_spec *spec,
              const struct cli_options *opt);

#ifdef __cplusplus
}
#endif
#endif
