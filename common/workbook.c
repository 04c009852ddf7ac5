/* workbook.c: program name, fatal errors and error-buffer formatting (see workbook.h). */
#include "workbook.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *program_name = "workbook";

void wb_set_program_name(const char *name) {
    if (name && *name) program_name = name;
}

const char *wb_program_name(void) {
    return program_name;
}

void wb_die(int code, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fflush(stdout);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    exit(code);
}

int wb_error(char *err, const char *fmt, ...) {
    if (err) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, WB_ERR_LEN, fmt, args);
        va_end(args);
    }
    return -1;
}

void wb_json_string(const char *key, const char *value) {
    printf("\"%s\":\"", key);
    for (const unsigned char *c = (const unsigned char *)value; *c; ++c) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}
