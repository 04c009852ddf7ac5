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

size_t wb_printable(char *out, size_t cap, const char *in) {
    size_t used = 0;
    if (cap == 0) return 0;
    for (const unsigned char *c = (const unsigned char *)in; *c; ++c) {
        int control = *c < 0x20 || *c == 0x7f;
        size_t need = control ? 4 : 1;
        if (used + need >= cap) break; /* never half an escape */
        if (control)
            snprintf(out + used, 5, "\\x%02x", *c);
        else
            out[used] = (char)*c;
        used += need;
    }
    out[used] = '\0';
    return used;
}

void wb_die(int code, const char *fmt, ...) {
    char message[1024], printable[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    wb_printable(printable, sizeof printable, message);
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", program_name, printable);
    exit(code);
}

int wb_error(char *err, const char *fmt, ...) {
    if (err) {
        char message[WB_ERR_LEN];
        va_list args;
        va_start(args, fmt);
        vsnprintf(message, sizeof message, fmt, args);
        va_end(args);
        wb_printable(err, WB_ERR_LEN, message);
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
