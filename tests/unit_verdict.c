/* unit_verdict.c: tests of common/verdict.c, the line the grader trusts (no GPU needed).
 *
 *   usage: unit_verdict [SCRATCH_DIR]   the captured standard output goes to SCRATCH_DIR
 *                                       (default /tmp/unit_verdict_scratch, made if missing)
 *
 * The grader's token is taken once, erased from the environment, refused unless it is 32
 * lowercase hex digits (exit 2, in a child process), and printed on its own line after whatever
 * the program left unfinished on standard output.
 */
#define _POSIX_C_SOURCE 200809L /* fork, dup, setenv under -std=c11 */

#include "check.h"
#include "verdict.h"
#include "workbook.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_verdict(void) {
    const char *token = "0123456789abcdef0123456789abcdef";
    static const char *const bad[] = {"0123456789ABCDEF0123456789ABCDEF", "0123", "x", ""};
    for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); ++k) {
        pid_t child = fork();
        if (child == 0) {
            if (!freopen("/dev/null", "w", stderr)) _exit(3);
            setenv("WB_GRADE_TOKEN", bad[k], 1);
            verdict_take_token();
            _exit(0);
        }
        int status = 0;
        CHECK(child > 0 && waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == WB_EXIT_USAGE);
    }
    unsetenv("WB_GRADE_TOKEN");
    verdict_take_token();
    CHECK(!verdict_active());
    setenv("WB_GRADE_TOKEN", token, 1);
    verdict_take_token();
    CHECK(verdict_active());
    CHECK(getenv("WB_GRADE_TOKEN") == NULL);
    char path[512];
    scratch_path(path, "verdict.txt");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(saved >= 0 && file >= 0 && dup2(file, STDOUT_FILENO) == STDOUT_FILENO);
    printf("partial line, no newline");
    verdict_print("verdict %s", "pass");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved), close(file);
    char text[256] = {0};
    FILE *f = fopen(path, "r");
    CHECK(f && fread(text, 1, sizeof text - 1, f) > 0);
    if (f) fclose(f);
    CHECK(strcmp(text, "partial line, no newline\nwb-grade 0123456789abcdef0123456789abcdef "
                       "verdict pass\n") == 0);
}

int main(int argc, char **argv) {
    int status = scratch_from_args(argc, argv, "unit_verdict");
    if (status) return status;
    test_verdict();
    return check_summary("unit_verdict");
}
