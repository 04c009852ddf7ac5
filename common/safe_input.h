/* safe_input.h: opening a file the program reads, so that no input can hang it or flood it.
 *
 *   safe_input_open   a regular file, opened for reading, at most max_bytes long; anything else
 *                     (a FIFO, a device such as /dev/zero, a folder, a socket) is refused with a
 *                     one-line message before a single byte is read
 *
 * Why: opening a FIFO for reading blocks until a writer comes, and a device like /dev/zero never
 * ends. The file is opened without blocking (O_NONBLOCK: a FIFO returns at once), its type checked
 * on the open descriptor (so a path swapped after a check cannot slip through), and only then is
 * it read, in blocking mode. The size cap is the most a valid file of that kind can hold, checked
 * before any allocation that depends on the contents.
 */
#ifndef SAFE_INPUT_H
#define SAFE_INPUT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `what` names the file in messages ("mask file", "image"). max_bytes 0: no size cap. Returns
 * the stream (fclose it), or NULL with a message in err[WB_ERR_LEN] (errno as open left it, where
 * the open failed). *size gets the file's length when size is not NULL. */
FILE *safe_input_open(const char *path, const char *what, long long max_bytes, long long *size,
                      char *err);

/* "a folder", "a FIFO", "a character device", ...: what a stat mode names, for messages. */
const char *safe_input_kind(unsigned mode);

#ifdef __cplusplus
}
#endif
#endif
