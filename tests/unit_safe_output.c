/* unit_safe_output.c: tests of common/safe_output.c, how the programs write a file without ever
 * destroying an input, and of wb_printable (common/workbook.c), how they quote untrusted text in
 * their messages (no GPU needed).
 *
 *   usage: unit_safe_output [SCRATCH_DIR]   the files and links go to SCRATCH_DIR (default
 *                                           /tmp/unit_safe_output_scratch, made if missing)
 *
 *   wb_printable  control characters (C1 too) and invalid UTF-8 escaped, valid characters kept,
 *                 truncated whole escapes and characters at a time
 *   protection    an input, a hard link to it, a path through "..", a symbolic link to it: all
 *                 refused as outputs; twenty inputs all protected
 *   replacement   no temporary at a fixed name, a link at the output replaced and not followed,
 *                 a failed write leaving the old file and no temporary, a missing folder named,
 *                 new files 0644 under umask 022
 */
#define _POSIX_C_SOURCE 200809L /* link, symlink, lstat under -std=c11 */

#include "check.h"
#include "safe_output.h"
#include "workbook.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file as a string (up to size - 1 bytes); "" when it cannot be read. */
static const char *file_text(const char *path, char *buffer, size_t size) {
    buffer[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) return buffer;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
    return buffer;
}

/* Writes text through safe_output; returns safe_output's result. */
static int safe_write(const char *path, const char *text, char *err) {
    struct safe_output out;
    if (safe_output_open(&out, path, err)) return -1;
    fputs(text, out.fp);
    return safe_output_commit(&out, 0, err);
}

/* Files in the scratch folder whose name starts with ".<name>." (leftover temporaries). */
static int leftover_temporaries(const char *name) {
    char prefix[256];
    snprintf(prefix, sizeof prefix, ".%s.", name);
    DIR *dir = opendir(scratch_dir);
    int count = 0;
    for (struct dirent *e; dir && (e = readdir(dir));)
        count += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (dir) closedir(dir);
    return count;
}

/* wb_printable: control characters (C1 included) and bytes of no valid UTF-8 become \xNN, valid
 * characters stay, and the result is truncated whole escapes and characters at a time. */
static void check_printable(void) {
    char out[32];
    CHECK(wb_printable(out, sizeof out, "plain text, UTF-8 \xc3\xa9") == 20 &&
          strcmp(out, "plain text, UTF-8 \xc3\xa9") == 0);
    wb_printable(out, sizeof out, "a\rb\nc\x1b[2J\x7f");
    CHECK(strcmp(out, "a\\x0db\\x0ac\\x1b[2J\\x7f") == 0);
    CHECK(wb_printable(out, 6, "ab\x1b") == 2 && strcmp(out, "ab") == 0); /* no half escape */
    CHECK(wb_printable(out, 7, "ab\x1b") == 6 && strcmp(out, "ab\\x1b") == 0);
    /* C1 controls (a CSI, U+009B), invalid and overlong UTF-8, a surrogate: escaped per byte */
    wb_printable(out, sizeof out, "a\xc2\x9b" "2J");
    CHECK(strcmp(out, "a\\xc2\\x9b2J") == 0);
    wb_printable(out, sizeof out, "\xff\xc0\xaf\xed\xa0\x80");
    CHECK(strcmp(out, "\\xff\\xc0\\xaf\\xed\\xa0\\x80") == 0);
    wb_printable(out, sizeof out, "\xe2\x82\xac \xf0\x9f\x98\x80 \xc3"); /* a cut sequence */
    CHECK(strcmp(out, "\xe2\x82\xac \xf0\x9f\x98\x80 \\xc3") == 0);
    CHECK(wb_printable(out, 4, "ab\xe2\x82\xac") == 2); /* no half character */
    char err[WB_ERR_LEN];
    wb_error(err, "token '%s'", "x\r\x1b");
    CHECK(strcmp(err, "token 'x\\x0d\\x1b'") == 0);
}

static void test_safe_output(void) {
    check_printable();
    char err[WB_ERR_LEN], text[256];
    char input[512], victim[512], out[512], link_path[512], dotted[512], tmp_named[512];
    /* A fresh start: an earlier run leaves links that write_text would follow. */
    static const char *const names[] = {"safe_input.png", "safe_victim.txt", "safe_out.png",
                                         "safe_out.png.tmp", "safe_out_link.png",
                                         "safe_input_hardlink.png", "safe_input_symlink.png"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
        remove(scratch_path(link_path, names[k]));
    scratch_write(input, "safe_input.png", "the input");
    scratch_write(victim, "safe_victim.txt", "the victim");
    CHECK(safe_output_protect(input, err) == 0);
    CHECK(safe_output_protect(input, err) == 0); /* the same file twice: one entry */
    CHECK(safe_output_protect(NULL, err) == 0);
    /* --input may be repeated: twenty inputs are all protected, the last as well as the first */
    char many[512];
    for (int k = 0; k < 20; ++k) {
        char name[32];
        snprintf(name, sizeof name, "safe_many_%02d.png", k);
        scratch_write(many, name, "one of many inputs");
        CHECK(safe_output_protect(many, err) == 0);
    }
    CHECK(safe_output_check(many, err) == -1 && text_contains(err, "refusing to overwrite"));

    /* The input itself, a hard link to it, a path through "..", a symbolic link to it. */
    CHECK(safe_write(input, "x", err) == -1 && text_contains(err, "refusing to overwrite an input"));
    scratch_path(link_path, "safe_input_hardlink.png");
    remove(link_path);
    CHECK(link(input, link_path) == 0);
    CHECK(safe_write(link_path, "x", err) == -1 && text_contains(err, "same file as input"));
    const char *last = strrchr(scratch_dir, '/');
    snprintf(dotted, sizeof dotted, "%s/../%s/safe_input.png", scratch_dir,
             last ? last + 1 : scratch_dir);
    CHECK(safe_write(dotted, "x", err) == -1);
    scratch_path(link_path, "safe_input_symlink.png");
    remove(link_path);
    CHECK(symlink("safe_input.png", link_path) == 0); /* relative to its folder */
    CHECK(safe_write(link_path, "x", err) == -1);
    CHECK(strcmp(file_text(input, text, sizeof text), "the input") == 0);

    /* The old fixed temporary names are harmless now: an input called OUT.tmp, and OUT.tmp as a
     * symbolic link to another file, are both left alone. */
    scratch_path(out, "safe_out.png");
    scratch_write(tmp_named, "safe_out.png.tmp", "input named like a temporary");
    CHECK(safe_output_protect(tmp_named, err) == 0);
    CHECK(safe_write(out, "new contents", err) == 0);
    CHECK(strcmp(file_text(tmp_named, text, sizeof text), "input named like a temporary") == 0);
    remove(tmp_named);
    CHECK(symlink("safe_victim.txt", tmp_named) == 0);
    CHECK(safe_write(out, "newer contents", err) == 0);
    CHECK(strcmp(file_text(victim, text, sizeof text), "the victim") == 0);
    CHECK(strcmp(file_text(out, text, sizeof text), "newer contents") == 0);

    /* A symbolic link at the output path is replaced, never followed. */
    scratch_path(link_path, "safe_out_link.png");
    remove(link_path);
    CHECK(symlink("safe_victim.txt", link_path) == 0);
    CHECK(safe_write(link_path, "through no link", err) == 0);
    CHECK(strcmp(file_text(victim, text, sizeof text), "the victim") == 0);
    struct stat st;
    CHECK(lstat(link_path, &st) == 0 && S_ISREG(st.st_mode));

    /* A failed write leaves the old file and no temporary; so does a directory that does not
     * exist (with a message naming the path). */
    struct safe_output o;
    CHECK(safe_output_open(&o, out, err) == 0);
    fputs("half", o.fp);
    CHECK(safe_output_commit(&o, -1, err) == -1);
    CHECK(strcmp(file_text(out, text, sizeof text), "newer contents") == 0);
    CHECK(leftover_temporaries("safe_out.png") == 0);
    char missing[512];
    scratch_path(missing, "no_such_dir/out.png");
    CHECK(safe_write(missing, "x", err) == -1 && text_contains(err, "no_such_dir/out.png"));
    CHECK(safe_write("", "x", err) == -1 && safe_write("dir/", "x", err) == -1);
    /* The permissions a new file gets, not mkstemp's 0600. */
    mode_t mask = umask(022);
    CHECK(safe_write(out, "mode", err) == 0 && stat(out, &st) == 0 && (st.st_mode & 0777) == 0644);
    umask(mask);
}

int main(int argc, char **argv) {
    int status = scratch_from_args(argc, argv, "unit_safe_output");
    if (status) return status;
    test_safe_output();
    return check_summary("unit_safe_output");
}
