/* unit_harness.c: tests of common/harness.c's verdict line, with stand-in kernels (no GPU), and
 * of common/timing.c's summary of timed runs.
 *
 *   usage: unit_harness
 *
 *   verdict line  a plain pass; a pass in which the chapter's kernel took none of the masks says
 *                 that it checked nothing of it; a comparison kernel left out by --own-kernels
 *                 claims nothing, and one run does not leak into the next
 *   timing        timing_summary's median (odd and even counts) and least
 */
#include "check.h"
#include "cli.h"
#include "harness.h"
#include "timing.h"

#include <stdio.h>
#include <string.h>

/* ---- harness: the verdict line, with stand-in kernels (no GPU) ---------------------------- */

/* Stand-in kernels: kernel 0 is the chapter's (a comparison kernel when first_is_comparison,
 * as the tuner's first candidate is), refusing masks wider than it takes; kernel 1 runs always. */
struct stand_in {
    int first_is_comparison, first_takes_up_to;
    int ran[2];
    int current;
};

static const char *stand_in_refuses(int mask_w, int mask_h) {
    (void)mask_h;
    return mask_w > 3 ? "takes 3x3 at most" : NULL;
}

static struct kernel_rules stand_in_rules(void *context, int v) {
    struct stand_in *s = context;
    struct kernel_rules rules = {.label = v == 0 ? "chapter kernel" : "given kernel"};
    if (v == 0) {
        rules.comparison = s->first_is_comparison;
        rules.refuses = s->first_takes_up_to == 3 ? stand_in_refuses : NULL;
    }
    return rules;
}

static void stand_in_select(void *context, int v) {
    ((struct stand_in *)context)->current = v;
}

static struct variant_result stand_in_check(void *context) {
    struct stand_in *s = context;
    ++s->ran[s->current];
    struct variant_result r;
    memset(&r, 0, sizeof r);
    r.passed = 1;
    return r;
}

/* Runs the stand-ins on masks of the given widths; returns the verdict line in `verdict`. */
static void stand_in_run(struct stand_in *s, const int *widths, int count, int own_kernels,
                         char *verdict, size_t size) {
    struct cli_options opt;
    memset(&opt, 0, sizeof opt);
    opt.mode = CLI_MODE_CHECK;
    opt.block = 32;
    opt.own_kernels = own_kernels;
    FILE *log = tmpfile();
    CHECK(log != NULL);
    if (!log) return;
    struct variant_result results[2];
    for (int m = 0; m < count; ++m) {
        struct configuration c = {.opt = &opt, .human = log, .variant_count = 2,
                                  .mask_w = widths[m], .mask_h = widths[m], .context = s,
                                  .rules = stand_in_rules, .select = stand_in_select,
                                  .check = stand_in_check};
        CHECK(harness_run_configuration(&c, results) == 0);
    }
    CHECK(harness_finish(log, 0, count, &opt) == WB_EXIT_PASS);
    char text[4096];
    text_read_back(log, text, sizeof text);
    fclose(log);
    const char *line = strstr(text, ": PASS (");
    snprintf(verdict, size, "%.200s", line ? line : text);
}

static void test_harness(void) {
    char verdict[256];
    const int small[] = {3, 5}, large[] = {5, 7};
    /* The chapter's kernel ran in one configuration of two: a plain pass. */
    struct stand_in s = {0, 3, {0, 0}, 0};
    stand_in_run(&s, small, 2, 1, verdict, sizeof verdict);
    CHECK(s.ran[0] == 1 && s.ran[1] == 2);
    CHECK(strcmp(verdict, ": PASS (2 configurations)\n") == 0);
    /* It took none of the masks: the pass says that it checked nothing of it. */
    struct stand_in none = {0, 3, {0, 0}, 0};
    stand_in_run(&none, large, 2, 1, verdict, sizeof verdict);
    CHECK(none.ran[0] == 0 && none.ran[1] == 2);
    CHECK(strcmp(verdict, ": PASS (2 configurations; chapter kernel ran in none of them: not "
                          "checked)\n") == 0);
    /* A comparison kernel first (the tuner's baselines), left out by --own-kernels: no claim
     * about a chapter kernel, and the run before does not leak into this one. */
    struct stand_in tuner = {1, 0, {0, 0}, 0};
    stand_in_run(&tuner, large, 2, 1, verdict, sizeof verdict);
    CHECK(tuner.ran[0] == 0 && tuner.ran[1] == 2);
    CHECK(strcmp(verdict, ": PASS (2 configurations)\n") == 0);
    /* The timers' summary (gpu_time's, and chapter 08's batch runs'): median and least. */
    double odd[5] = {9.0, 1.0, 7.0, 3.0, 5.0}, even[4] = {4.0, 1.0, 3.0, 2.0};
    struct timing t = timing_summary(odd, 5);
    CHECK(t.median_ms == 5.0 && t.min_ms == 1.0 && t.reps == 5);
    t = timing_summary(even, 4);
    CHECK(t.median_ms == 2.5 && t.min_ms == 1.0);
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: unit_harness\n");
        return 2;
    }
    test_harness();
    return check_summary("unit_harness");
}
