/* slabs.h: one image cut into horizontal slabs, one per GPU, and what each slab needs from its
 * neighbours when a mask of height mask_h is applied (chapter 10's plan; host arithmetic only).
 *
 *   slabs_plan        the slabs: rows owned, halo rows received, rows computable without them
 *   slabs_min_rows    the fewest rows a slab may own so that its halo comes from one neighbour
 *
 * A mask of height h reaches `above = h / 2` rows up and `below = h - 1 - h / 2` rows down (the
 * workbook's formula, rows y + i - h/2). A slab keeps its rows with `halo_above` rows of the slab
 * above it on top and `halo_below` of the slab below underneath (zero at the image's edge, where
 * the ghost cells are zeros, not a neighbour's rows). Its interior rows read only its own rows
 * and can be computed before the halo arrives; the edge rows, at most `above` at the top and
 * `below` at the bottom, wait for it.
 */
#ifndef SLABS_H
#define SLABS_H

#ifdef __cplusplus
extern "C" {
#endif

#define SLABS_MAX 64 /* GPUs, that is slabs; NCCL's own limit is far higher */

struct slab {
    int first, rows;                   /* the image rows it owns: [first, first + rows) */
    int halo_above, halo_below;        /* rows it receives from the slab above and below */
    int interior_first, interior_rows; /* owned rows computable from owned rows alone */
    int edge_top_rows;    /* owned rows from `first` on that wait for the halo... */
    int edge_bottom_rows; /* ...and those that end the slab; together with the interior: rows */
};

/* The fewest rows a slab with neighbours may own: max(above, below), at least 1. */
int slabs_min_rows(int mask_h);

/* Cuts `height` rows into `count` slabs as evenly as possible (the first height % count slabs
 * own one row more) and fills slabs[0..count-1]. Returns 0, or -1 with a one-line reason in err
 * (256 bytes) when height or mask_h is below 1, count is outside 1..SLABS_MAX, or a slab would
 * own fewer rows than slabs_min_rows (the reason names that minimum and the most GPUs). */
int slabs_plan(int height, int count, int mask_h, struct slab *slabs, char *err);

#ifdef __cplusplus
}
#endif
#endif
