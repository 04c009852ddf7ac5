/* check.h: the unit tests' whole framework.
 *
 *   CHECK(cond)            records a failure with file:line and the condition's text
 *   CHECK_NEAR(a, b, tol)  |a - b| <= tol, printing both values on failure
 *   check_summary(name)    prints "<name>: N checks, M failed" and returns the exit code
 *
 * and the helpers that several tests of common/ share (each test keeps its own others):
 *
 *   scratch_from_args(argc, argv, program)   a program's one optional argument, the folder for
 *                                            its scratch files (made if missing; default
 *                                            /tmp/PROGRAM_scratch); 0, or 2 to exit with
 *   scratch_path(out, name)                  that folder's file `name`, in out[512]
 *   scratch_write(out, name, text)           writes text there (exits 2 if it cannot); the path
 *   text_contains(text, needle)              whether needle occurs in text
 *   text_read_back(f, buffer, size)          what was written to f (a tmpfile()), as a string
 *   make_mask(kind, w, h, seed, m)           mask_make, a failure recorded as a failed check;
 *                                            0 on success
 *
 * Everything is static (inline for the functions), so a test that uses none of it builds
 * without warnings; the names are chosen not to clash with the helpers tests define for
 * themselves.
 */
#ifndef CHECK_H
#define CHECK_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "masks.h"

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

/* ---- scratch files -------------------------------------------------------------------------- */

static const char *scratch_dir;

/* mkdir -p: CTest passes a folder under build/ that may not exist yet. */
static inline int scratch_make_dirs(const char *path) {
    char buffer[512];
    if (snprintf(buffer, sizeof buffer, "%s", path) >= (int)sizeof buffer) return -1;
    for (char *p = buffer + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buffer, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buffer, 0755) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buffer, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The default is /tmp/PROGRAM_scratch, not /tmp/PROGRAM: that is where a build by hand may put
 * the program itself. */
static inline int scratch_from_args(int argc, char **argv, const char *program) {
    static char fallback[256];
    if (argc > 2) {
        fprintf(stderr, "usage: %s [SCRATCH_DIR]\n", program);
        return 2;
    }
    snprintf(fallback, sizeof fallback, "/tmp/%s_scratch", program);
    scratch_dir = argc > 1 ? argv[1] : fallback;
    if (scratch_make_dirs(scratch_dir) != 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", program, scratch_dir, strerror(errno));
        return 2;
    }
    return 0;
}

/* The path of a scratch file; each call site owns its buffer. */
static inline char *scratch_path(char out[512], const char *name) {
    snprintf(out, 512, "%s/%s", scratch_dir, name);
    return out;
}

/* Writes text to a scratch file and returns its path (in out). */
static inline char *scratch_write(char out[512], const char *name, const char *text) {
    scratch_path(out, name);
    FILE *f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", out, strerror(errno));
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return out;
}

/* ---- text ----------------------------------------------------------------------------------- */

static inline int text_contains(const char *text, const char *needle) {
    return strstr(text, needle) != NULL;
}

/* Reads what was written to a tmpfile() back into a string (for listing checks). */
static inline void text_read_back(FILE *f, char *buffer, size_t size) {
    fflush(f);
    rewind(f);
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
}

/* ---- masks ---------------------------------------------------------------------------------- */

/* Makes a mask or records a failure; returns 0 on success. */
static inline int make_mask(enum mask_kind kind, int w, int h, uint64_t seed, struct mask *m) {
    char err[WB_ERR_LEN] = "";
    int status = mask_make(kind, w, h, seed, m, err);
    CHECK(status == 0);
    if (status) fprintf(stderr, "  mask_make(%d, %d, %d): %s\n", (int)kind, w, h, err);
    return status;
}

#endif
