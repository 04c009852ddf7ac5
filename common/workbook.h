/* workbook.h: conventions every program of the workbook shares.
 *
 *   exit codes      WB_EXIT_*: 0 pass, 1 verification failed, 2 bad usage or input, 77 no device
 *   error messages  functions that can fail on bad input return 0 on success and -1 on failure,
 *                   writing one line (no trailing newline) into a caller's char[WB_ERR_LEN]
 *   wb_die()        print "<program>: <message>" on stderr and exit with the given code
 *   wb_printable()  a string with its control characters (C1 too) and invalid UTF-8 written as
 *                   \xNN: every message that wb_die and wb_error make passes through it, so a
 *                   file name, a token or a
 *                   header value from a hostile file can never break the one-line promise or
 *                   send escape sequences to a terminal
 *   WB_COUNT()      elements of an array
 */
#ifndef WORKBOOK_H
#define WORKBOOK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WB_EXIT_PASS = 0,
    WB_EXIT_FAIL = 1,      /* a result was wrong, or the GPU reported an error while running */
    WB_EXIT_USAGE = 2,     /* bad command line, bad input file, input too large for the GPU */
    WB_EXIT_NO_DEVICE = 77 /* CTest's SKIP_RETURN_CODE */
};

#define WB_ERR_LEN 256

/* The number of elements of an array (not a pointer): drivers count their kernel tables. */
#define WB_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Largest 1D mask width any chapter accepts (odd, so its halo of 31 fits the smallest block of
 * 32 threads used by the tiled chapters). */
#define WB_MAX_MASK_WIDTH_1D 63

/* Copies `in` into out[cap], every byte that is no printable character as "\xNN": controls
 * (below 0x20, 0x7f, and the C1 controls U+0080 to U+009F, which terminals also obey) and bytes
 * that are no valid UTF-8; truncated before an escape or a character would be cut; returns the
 * length written. */
size_t wb_printable(char *out, size_t cap, const char *in);

/* The one rule for a number on a command line or in an environment variable: decimal digits
 * only, the whole text (no sign, space, prefix or exponent); wb_parse_decimal also takes one
 * fraction ("0.5"). 0 when the text is such a number within [lo, hi]; -1 when it is no number
 * by that rule; -2 when it is out of range (or beyond what the type holds; "-5" is a number
 * out of range: no range the workbook takes holds a negative one). */
int wb_parse_whole(const char *text, long long lo, long long hi, long long *value);
int wb_parse_u64(const char *text, unsigned long long *value);
int wb_parse_decimal(const char *text, double lo, double hi, double *value);
#define WB_NUMBER_RULE "decimal digits only: no sign, space or prefix"

/* wb_printable into one of a few rotating buffers: for a user-given string (a path, a mask name)
 * printed outside an error message, up to four in one printf. */
const char *wb_shown(const char *in);

/* Name printed in front of error messages; set once by main() (defaults to "workbook"). */
void wb_set_program_name(const char *name);
const char *wb_program_name(void);

/* For chapter drivers (C only; GCC and Clang). WB_EARLIER(f): an earlier chapter's kernel
 * function, shown beside this chapter's: required where solutions/ is (the Makefile defines
 * WB_EARLIER_REQUIRED, so a chapter whose registry leaves it out fails to link, naming f);
 * absent (a null pointer, the kernel skipped without a word) in a student's copy.
 * WB_SOLUTION_OF(f): this chapter's reference solution of f, linked as wb_solution_f only by the
 * grader (Makefile WITH_SOLUTION=1), else a null pointer. */
#ifdef WB_EARLIER_REQUIRED
#define WB_EARLIER(name) extern __typeof__(name) name
#else
#define WB_EARLIER(name) extern __typeof__(name) name __attribute__((weak))
#endif
#define WB_SOLUTION_OF(name) extern __typeof__(name) wb_solution_##name __attribute__((weak))

/* Prints "<program>: <formatted message>\n" on stderr and exits with `code`. */
void wb_die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* snprintf into an error buffer of WB_ERR_LEN bytes and return -1, for one-line error returns. */
int wb_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "key":"value" on stdout, the value escaped for JSON (mask names can hold file paths). */
void wb_json_string(const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif
