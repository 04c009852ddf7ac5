/* budget.c: the strips' GPU memory arithmetic (budget.h). */
#include "budget.h"

#include <stdlib.h>
#include <string.h>

#include "workbook.h"

size_t strips_pitch(int width) {
    const size_t row = (size_t)width * sizeof(float);
    return (row + STRIPS_PITCH_ALIGN - 1) / STRIPS_PITCH_ALIGN * STRIPS_PITCH_ALIGN;
}

size_t strips_bytes(int width, int strip_rows, int mask_h, int buffers) {
    return (size_t)2 * buffers * (size_t)(strip_rows + mask_h - 1) * strips_pitch(width);
}

int strips_rows_for(size_t budget, int width, int height, int mask_h, int buffers,
                    size_t *minimum) {
    *minimum = strips_bytes(width, 1, mask_h, buffers);
    if (budget < *minimum) return 0;
    const size_t rows = budget / ((size_t)2 * buffers * strips_pitch(width)) - (size_t)(mask_h - 1);
    return rows > (size_t)height ? height : (int)rows;
}

int strips_delay_us(long us[3], char *err) {
    const char *text = getenv("WB_STRIPS_DELAY_US");
    us[0] = us[1] = us[2] = 0;
    if (!text || !*text) return 0;
    const char *p = text;
    int count = 0;
    while (count < 3) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        char item[16];
        long long value;
        if ((size_t)(end - p) >= sizeof item) break;
        memcpy(item, p, (size_t)(end - p));
        item[end - p] = '\0';
        if (wb_parse_whole(item, 0, 100000, &value)) break;
        us[count++] = (long)value;
        if (*end == '\0') {
            if (count == 1) us[1] = us[2] = us[0];
            if (count == 1 || count == 3) return 0;
            break;
        }
        if (*end != ',') break;
        p = end + 1;
    }
    us[0] = us[1] = us[2] = 0;
    return wb_error(err, "WB_STRIPS_DELAY_US='%s' is not N or U,C,D, each 0 to 100000 microseconds",
                    text);
}
