/* safe_output.h: writing an output file so that no input is ever lost.
 *
 *   safe_output_protect(path)   remember a file this run reads (--input, --mask-file): no
 *                               writer of the process may replace it
 *   safe_output_open            refuse a path that is (the same file as) a protected input, then
 *                               create a new temporary file beside it with mkstemp
 *   safe_output_commit          flush, close and rename the temporary over the path
 *   safe_output_abandon         close and remove the temporary (the path is untouched)
 *
 * Why: a fixed temporary name ("out.png.tmp") can already exist as the input itself, as a hard
 * link to it, or as a symbolic link to any file, and opening it for writing would destroy that
 * file. mkstemp makes a fresh name and opens it with O_CREAT | O_EXCL, so it never opens or
 * follows an existing path. Inputs are compared by device and inode, not by name, so "a/../x",
 * hard links and symbolic links to an input are all caught. rename() replaces the path itself
 * (a symbolic link at the path is replaced, never followed) and does so only after a complete
 * write: the path holds either the old file or the whole new one.
 */
#ifndef SAFE_OUTPUT_H
#define SAFE_OUTPUT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Inputs one run may read: a --mask-file, --input repeated up to CLI_MAX_VALUES times, or a
 * folder of up to 1024 images (chapter 08). */
#define SAFE_OUTPUT_MAX_PROTECTED 1160

struct safe_output {
    FILE *fp;         /* write the contents here */
    char *temp_path;  /* the temporary file, malloc'ed */
    const char *path; /* where it goes on commit */
};

/* Records `path` (if it exists) as an input of this run. Returns 0, or -1 with a message when
 * more than SAFE_OUTPUT_MAX_PROTECTED files are given. */
int safe_output_protect(const char *path, char *err);

/* 0 when `path` can be written, else -1 with a one-line message: it names a file (not a folder),
 * in a folder that exists and can be written, with a name the file system takes; what is there
 * now is nothing, a regular file or a link (never a device, a FIFO or a folder); and it is no
 * protected input. Called when the options are read, so that a bad output stops the run before
 * any GPU work, and again by safe_output_open and before the rename. */
int safe_output_check(const char *path, char *err);

/* safe_output_check, then a new temporary file in path's directory, open for binary writing
 * with the mode of the file it replaces, or a new file's (0666 less the umask). 0 or -1 with a
 * message. */
int safe_output_open(struct safe_output *out, const char *path, char *err);

/* Completes the file: rc != 0 (the writer failed) or a failed flush, close or rename removes the
 * temporary instead and keeps the first message. Returns the final rc. Frees temp_path. */
int safe_output_commit(struct safe_output *out, int rc, char *err);

void safe_output_abandon(struct safe_output *out);

#ifdef __cplusplus
}
#endif
#endif
