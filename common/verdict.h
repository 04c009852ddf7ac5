/* verdict.h: the lines the grader believes, which the program under test cannot forge.
 *
 * `make grade` hands each run a fresh random token in WB_GRADE_TOKEN. The harness takes it at
 * start-up, before any student code runs, and erases it from the environment; afterwards only
 * these functions print it, on lines of the form
 *
 *   wb-grade <token> verdict pass|fail|na           (harness_finish: the program's verdict)
 *   wb-grade <token> time own|solution <median_ms> <min_ms> <bytes> <copy_gbps> <gpus>
 *                                      <fmas> <fma_peak_per_s>
 *                                                   (bench mode: a timed kernel, re-checked)
 *
 * A submission's code cannot call the functions that print (grading/RULES.md: the gate), and it
 * never learns the token, so a line it prints counts as no verdict at all: a failure.
 *
 *   verdict_take_token    read and erase WB_GRADE_TOKEN (a bad token: exit 2)
 *   verdict_active        a token was given: the program runs under the grader
 *   verdict_print         one wb-grade line on stdout (nothing without a token)
 */
#ifndef VERDICT_H
#define VERDICT_H

#ifdef __cplusplus
extern "C" {
#endif

void verdict_take_token(void);
int verdict_active(void);
void verdict_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif
#endif
