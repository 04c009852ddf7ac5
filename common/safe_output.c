/* safe_output.c: temporary file beside the output, renamed into place (see safe_output.h). */
#define _POSIX_C_SOURCE 200809L
#include "safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_input.h"
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

/* The folder a path names its file in ("." for a bare name), into out[cap]. */
static void folder_of(const char *path, char *out, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, cap, ".");
    else if (slash == path) snprintf(out, cap, "/");
    else snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

/* What can be known before any work: a file name, in a folder that exists and can be written,
 * short enough for the file system (with the temporary's 8 more bytes), and no existing thing
 * there but a regular file or a link (which the rename replaces, never follows). */
static int writable_target(const char *path, char *err) {
    if (!*path || path[strlen(path) - 1] == '/')
        return wb_error(err, "'%.120s' names no file to write", path);
    char folder[4096];
    if (strlen(path) >= sizeof folder)
        return wb_error(err, "'%.80s...' is a longer path than the system takes", path);
    folder_of(path, folder, sizeof folder);
    struct stat st;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return wb_error(err, "cannot write '%.120s': there is no folder '%.80s'", path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        return wb_error(err, "cannot write '%.120s': the folder '%.80s' cannot be written (%s)",
                        path, folder, strerror(errno));
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const long name_max = pathconf(folder, _PC_NAME_MAX);
    if (name_max > 0 && (long)strlen(name) + 8 > name_max)
        return wb_error(err, "cannot write '%.120s': a name longer than the file system takes "
                        "(%ld bytes, with room for a temporary name)", path, name_max - 8);
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return wb_error(err, "'%.120s' is %s, not a regular file: refusing to replace it", path,
                        safe_input_kind(st.st_mode));
    return 0;
}

int safe_output_check(const char *path, char *err) {
    if (writable_target(path, err)) return -1;
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
    if (safe_output_check(path, err)) return -1;
    struct stat old;
    const int replacing = lstat(path, &old) == 0 && S_ISREG(old.st_mode);
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
    mode_t mask = umask(0); /* mkstemp makes 0600: give the mode the file had, or a new file's */
    umask(mask);
    fchmod(fd, replacing ? old.st_mode & 07777 : 0666 & ~mask);
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
