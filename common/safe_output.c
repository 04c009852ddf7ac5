/* safe_output.c: temporary file beside the output, renamed into place (see safe_output.h). */
#define _POSIX_C_SOURCE 200809L
#include "safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workbook.h"

static struct {
    dev_t dev;
    ino_t ino;
    char name[WB_ERR_LEN / 2];
} protected_files[SAFE_OUTPUT_MAX_PROTECTED];
static int protected_count;

int safe_output_protect(const char *path, char *err) {
    struct stat st;
    if (!path || stat(path, &st) != 0) return 0; /* nothing there to lose */
    for (int k = 0; k < protected_count; ++k)
        if (protected_files[k].dev == st.st_dev && protected_files[k].ino == st.st_ino) return 0;
    if (protected_count == SAFE_OUTPUT_MAX_PROTECTED)
        return wb_error(err, "more than %d input files", SAFE_OUTPUT_MAX_PROTECTED);
    protected_files[protected_count].dev = st.st_dev;
    protected_files[protected_count].ino = st.st_ino;
    snprintf(protected_files[protected_count].name, sizeof protected_files[0].name, "%s", path);
    ++protected_count;
    return 0;
}

int safe_output_check(const char *path, char *err) {
    struct stat st;
    if (stat(path, &st) != 0) return 0; /* a new file, or a dangling link: replaced, not followed */
    for (int k = 0; k < protected_count; ++k)
        if (protected_files[k].dev == st.st_dev && protected_files[k].ino == st.st_ino)
            return wb_error(err,
                            "'%.80s' is the same file as input '%.80s': refusing to overwrite "
                            "an input",
                            path, protected_files[k].name);
    return 0;
}

/* "<dir>/.<name>.XXXXXX" for mkstemp, malloc'ed. */
static char *temp_template(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    const char *name = path + dir_len;
    size_t size = dir_len + 1 + strlen(name) + 8;
    char *t = malloc(size);
    if (t) snprintf(t, size, "%.*s.%s.XXXXXX", (int)dir_len, path, name);
    return t;
}

int safe_output_open(struct safe_output *out, const char *path, char *err) {
    memset(out, 0, sizeof *out);
    if (!*path || path[strlen(path) - 1] == '/')
        return wb_error(err, "'%.120s' names no file to write", path);
    if (safe_output_check(path, err)) return -1;
    out->path = path;
    out->temp_path = temp_template(path);
    if (!out->temp_path) return wb_error(err, "cannot write '%.120s': out of memory", path);
    int fd = mkstemp(out->temp_path); /* O_CREAT | O_EXCL: a fresh file, never a link */
    if (fd < 0) {
        int rc = wb_error(err, "cannot write '%.120s': %s", path, strerror(errno));
        free(out->temp_path);
        out->temp_path = NULL;
        return rc;
    }
    mode_t mask = umask(0); /* mkstemp makes 0600; give what a new file would get */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    out->fp = fdopen(fd, "wb");
    if (!out->fp) {
        int rc = wb_error(err, "cannot write '%.120s': %s", path, strerror(errno));
        close(fd);
        unlink(out->temp_path);
        free(out->temp_path);
        out->temp_path = NULL;
        return rc;
    }
    return 0;
}

int safe_output_commit(struct safe_output *out, int rc, char *err) {
    if (!out->fp) return rc ? rc : wb_error(err, "cannot write '%.120s'", out->path);
    if (rc == 0 && (fflush(out->fp) != 0 || ferror(out->fp)))
        rc = wb_error(err, "cannot write '%.120s': %s", out->path, strerror(errno));
    if (fclose(out->fp) != 0 && rc == 0)
        rc = wb_error(err, "cannot write '%.120s': %s", out->path, strerror(errno));
    out->fp = NULL;
    /* Checked again just before the rename: the path may have changed since the open. */
    if (rc == 0) rc = safe_output_check(out->path, err);
    if (rc == 0 && rename(out->temp_path, out->path) != 0)
        rc = wb_error(err, "cannot write '%.120s': %s", out->path, strerror(errno));
    if (rc != 0) unlink(out->temp_path);
    free(out->temp_path);
    out->temp_path = NULL;
    return rc;
}

void safe_output_abandon(struct safe_output *out) {
    safe_output_commit(out, -1, (char[WB_ERR_LEN]){0});
}
