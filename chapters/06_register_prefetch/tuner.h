/* tuner.h: chapter 06's autotuner and the dispatch that uses its choices.
 *
 *   tuner_mask_list the mask sizes --tune can sweep, as a --mask-width list ("2:7,9,11"),
 *                   read off prefetch_variants[]
 *   tuner_run       --tune: for each mask size, the 2D harness verifies every compiled variant
 *                   and the baselines against the CPU reference and times the ones that pass
 *                   (unless --check); the tuner prints the table of winners and saves the
 *                   fastest per mask size for this GPU
 *   tuned_load      read the saved choices for this GPU (if any)
 *   tuned_configure where the "ch06 tuned" kernel finds its choices: it loads them for the
 *                   current GPU at its first set_mask (after the harness has probed the GPU) and
 *                   reports what it loaded on `report`
 *   tuned_set_mask / tuned_launch
 *                   the "ch06 tuned" kernel: the saved (or default) variant for the mask size,
 *                   or the naive kernel for sizes no variant covers
 */
#ifndef TUNER_H
#define TUNER_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "conv2d_harness.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *tuner_mask_list(void);

/* Validates the options (exit 2), then runs the sweep through conv2d_run (exit 77 without a
 * GPU). Without --mask-width it tunes every size in tuner_mask_list(). The baselines (at most
 * TUNER_MAX_BASELINES) run beside the variants on the same image and mask, each a column of the
 * table. save_path NULL: save nothing. Returns the exit code. */
#define TUNER_MAX_BASELINES 4
int tuner_run(const struct cli_spec *spec, const struct cli_options *opt, const char *save_path,
              const struct conv2d_variant *baselines, int baseline_count);
/* Where the tuning results live: $WB_TUNED_FILE, else ch06_tuned.csv beside the program argv0
 * (chapter 07's direct path reads the same file). */
void tuned_file_path(const char *argv0, char *path, size_t size);

/* Returns the number of choices read (0 when the file is missing or is for another GPU). */
int tuned_load(const char *path, const char *gpu_name);
void tuned_configure(const char *path, FILE *report);
void tuned_set_mask(const float *h_mask, int mask_w, int mask_h);
void tuned_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                  int mask_w, int mask_h, int block);

#ifdef __cplusplus
}
#endif
#endif
