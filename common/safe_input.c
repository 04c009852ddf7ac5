/* safe_input.c: a regular file, opened without blocking, then read (see safe_input.h). */
#define _POSIX_C_SOURCE 200809L
#include "safe_input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workbook.h"

const char *safe_input_kind(unsigned mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return S_ISREG(mode) ? "a regular file" : "a special file";
}

FILE *safe_input_open(const char *path, const char *what, long long max_bytes, long long *size,
                      char *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int why = errno; /* kept for the caller: ENOENT is often no error at all */
        wb_error(err, "cannot open %s '%s': %s", what, path, strerror(why));
        errno = why;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        wb_error(err, "cannot read %s '%s': %s", what, path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        wb_error(err, "%s '%s' is %s: give a regular file", what, path,
                 safe_input_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if (max_bytes > 0 && (long long)st.st_size > max_bytes) {
        wb_error(err, "%s '%s' is %lld bytes, more than a valid one can hold (%lld)", what, path,
                 (long long)st.st_size, max_bytes);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        wb_error(err, "cannot read %s '%s': %s", what, path, strerror(errno));
        close(fd);
        return NULL;
    }
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        wb_error(err, "cannot read %s '%s': %s", what, path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (size) *size = (long long)st.st_size;
    return fp;
}
