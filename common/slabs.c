/* slabs.c: the slab plan of slabs.h. */
#include "slabs.h"

#include <stdio.h>

static int larger(int a, int b) {
    return a > b ? a : b;
}

int slabs_min_rows(int mask_h) {
    return larger(1, larger(mask_h / 2, mask_h - 1 - mask_h / 2));
}

int slabs_plan(int height, int count, int mask_h, struct slab *slabs, char *err) {
    if (height < 1 || mask_h < 1) {
        snprintf(err, 256, "slabs: an image of %d rows and a mask of height %d (both must be 1 "
                 "or more)", height, mask_h);
        return -1;
    }
    if (count < 1 || count > SLABS_MAX) {
        snprintf(err, 256, "slabs: %d slabs, outside 1..%d", count, SLABS_MAX);
        return -1;
    }
    const int above = mask_h / 2, below = mask_h - 1 - mask_h / 2, least = slabs_min_rows(mask_h);
    /* the smallest slab owns height / count rows; one slab alone has no neighbour to wait for */
    if (count > 1 && height / count < least) {
        const int most = height / least > 1 ? height / least : 1;
        snprintf(err, 256, "%d GPUs would give slabs of %d rows, fewer than the %d a mask %d "
                 "high needs from one neighbour: use at most %d GPU%s for %d rows",
                 count, height / count, least, mask_h, most, most == 1 ? "" : "s", height);
        return -1;
    }
    int first = 0;
    for (int s = 0; s < count; ++s) {
        struct slab *b = &slabs[s];
        b->first = first;
        b->rows = height / count + (s < height % count);
        first += b->rows;
        b->halo_above = s > 0 ? above : 0;
        b->halo_below = s < count - 1 ? below : 0;
        /* a row y reads rows y - above .. y + below: inside the slab, or outside the image */
        const int start = b->first + b->halo_above, end = b->first + b->rows - b->halo_below;
        if (end > start) {
            b->interior_first = start;
            b->interior_rows = end - start;
            b->edge_top_rows = b->halo_above;
            b->edge_bottom_rows = b->halo_below;
        } else { /* every row waits: the whole slab counts as its top edge */
            b->interior_first = b->first + b->rows;
            b->interior_rows = 0;
            b->edge_top_rows = b->rows;
            b->edge_bottom_rows = 0;
        }
    }
    return 0;
}
