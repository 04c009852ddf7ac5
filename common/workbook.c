/* workbook.c: program name, fatal errors and error-buffer formatting (see workbook.h). */
#include "workbook.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program_name = "workbook";

void wb_set_program_name(const char *name) {
    if (name && *name) program_name = name;
}

const char *wb_program_name(void) {
    return program_name;
}

/* The length of the valid UTF-8 sequence at c that is no control character (C1 included: a
 * terminal acts on U+0080 to U+009F as on ESC sequences), or 0. */
static size_t safe_utf8(const unsigned char *c) {
    if (*c >= 0x20 && *c < 0x7f) return 1;
    size_t length = *c >= 0xc2 && *c <= 0xdf ? 2 : *c >= 0xe0 && *c <= 0xef ? 3
                  : *c >= 0xf0 && *c <= 0xf4 ? 4 : 0;
    if (length == 0) return 0; /* ASCII controls, continuation bytes, overlong leads */
    unsigned point = *c & (0x7f >> length);
    for (size_t k = 1; k < length; ++k) {
        if ((c[k] & 0xc0) != 0x80) return 0; /* the end of the string stops here too */
        point = point << 6 | (c[k] & 0x3f);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < least[length] || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff))
        return 0; /* overlong, beyond Unicode, or a surrogate */
    return point >= 0x80 && point <= 0x9f ? 0 : length;
}

size_t wb_printable(char *out, size_t cap, const char *in) {
    size_t used = 0;
    if (cap == 0) return 0;
    for (const unsigned char *c = (const unsigned char *)in; *c;) {
        size_t take = safe_utf8(c);
        size_t need = take ? take : 4;
        if (used + need >= cap) break; /* never half an escape or half a character */
        if (take)
            memcpy(out + used, c, take);
        else
            snprintf(out + used, 5, "\\x%02x", *c); /* one byte; the next is read afresh */
        used += need;
        c += take ? take : 1;
    }
    out[used] = '\0';
    return used;
}

/* The digits of text up to its end, at least one: 0 or -1. */
static int all_digits(const char *text, const char *end) {
    if (text == end) return -1;
    for (const char *c = text; c < end; ++c)
        if (*c < '0' || *c > '9') return -1;
    return 0;
}

int wb_parse_u64(const char *text, unsigned long long *value) {
    if (!text || all_digits(text, text + strlen(text))) return -1;
    unsigned long long v = 0;
    for (const char *c = text; *c; ++c) {
        const unsigned digit = (unsigned)(*c - '0');
        if (v > (~0ull - digit) / 10) return -2;
        v = v * 10 + digit;
    }
    *value = v;
    return 0;
}

int wb_parse_whole(const char *text, long long lo, long long hi, long long *value) {
    unsigned long long v;
    if (text && text[0] == '-' && wb_parse_u64(text + 1, &v) != -1)
        return -2; /* a negative number: a number, below every range the workbook takes */
    const int rc = wb_parse_u64(text, &v);
    if (rc) return rc;
    if (v > (unsigned long long)hi || (long long)v < lo) return -2;
    *value = (long long)v;
    return 0;
}

int wb_parse_decimal(const char *text, double lo, double hi, double *value) {
    if (!text) return -1;
    const char *dot = strchr(text, '.');
    const char *end = text + strlen(text);
    if (all_digits(text, dot ? dot : end) || (dot && all_digits(dot + 1, end))) return -1;
    const double v = strtod(text, NULL); /* digits and one dot: strtod reads exactly those */
    if (!(v >= lo && v <= hi)) return -2;
    *value = v;
    return 0;
}

const char *wb_shown(const char *in) {
    static char buffers[4][1024];
    static int next;
    char *out = buffers[next];
    next = (next + 1) % 4;
    wb_printable(out, sizeof buffers[0], in ? in : "(null)");
    return out;
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
