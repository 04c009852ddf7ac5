/* check.h: the unit tests' whole framework.
 *
 *   CHECK(cond)            records a failure with file:line and the condition's text
 *   CHECK_NEAR(a, b, tol)  |a - b| <= tol, printing both values on failure
 *   check_summary(name)    prints "<name>: N checks, M failed" and returns the exit code
 */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>

static int check_count, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            ++check_failed;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double check_a_ = (a), check_b_ = (b);                                                     \
        ++check_count;                                                                             \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                                               \
            ++check_failed;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s = %.9g, %s = %.9g (tolerance %g)\n",          \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_, (double)(tol));                \
        }                                                                                          \
    } while (0)

static inline int check_summary(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failed);
    return check_failed ? 1 : 0;
}

#endif
