/* image_io.h: images and arrays on disk.
 *
 *   struct image        planar float image: `channels` planes of width*height floats in [0, 1]
 *   image_alloc/free    allocate (uninitialised) and release the planes
 *   image_load_png      any PNG (gray, gray+alpha, RGB, RGBA, palette; 1..16 bit) -> float planes
 *   image_save_png      8-bit PNG, values clamped to [0, 1] and rounded
 *   npy_save_f32        float32 array in NumPy's .npy format (C order, little-endian)
 *   npy_load_f32        float32 .npy (or float64, converted), any shape up to NPY_MAX_DIMS
 *
 * Loaders check everything they read (signature, header, declared sizes against the limits below,
 * truncation) before they allocate, so a hostile file gets a one-line error, never a crash; a
 * failed load leaves nothing to free (*img zeroed, *data NULL). Savers write through
 * safe_output.h: a fresh temporary file beside PATH, renamed to PATH at the end, refused when
 * PATH is an input of the run; a failed write never leaves a half-written file behind.
 * All functions return 0 on success and -1 on failure with a message in err[WB_ERR_LEN].
 */
#ifndef IMAGE_IO_H
#define IMAGE_IO_H

#include <stddef.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Memory policy of the PNG loader: it allocates the float planes (width x height x channels x 4
 * bytes) and its row buffer before decoding, so it first checks that the file can hold the image
 * at all: the rows it declares (a filter byte and the packed samples each) must fit in
 * PNG_DEFLATE_MAX_RATIO times the file's size, deflate's largest possible expansion. A tiny file
 * that claims a huge image is refused before any large allocation; what a file that passes can
 * make the loader commit is bounded by a fixed multiple of its size (at most 4 float bytes per
 * decoded sample, 8 samples per byte at 1 bit). */
#define PNG_DEFLATE_MAX_RATIO 1032

/* Refuse images wider or taller than this, or with more pixels than IMAGE_MAX_PIXELS. */
#define IMAGE_MAX_DIM 65536
#define IMAGE_MAX_PIXELS ((size_t)1 << 28)

struct image {
    int width, height;
    int channels;  /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int has_alpha; /* the last channel is alpha (channels 2 and 4) */
    float *data;   /* plane c, row y, column x at data[(c * height + y) * width + x] */
};

/* Allocates data for a width x height x channels image (contents undefined). has_alpha is set
 * for 2 and 4 channels. Returns -1 with a message if the size is out of range or malloc fails. */
int image_alloc(struct image *img, int width, int height, int channels, char *err);

/* Frees img->data and zeroes the struct; safe on a zeroed struct. */
void image_free(struct image *img);

/* Loads a PNG of any colour type and bit depth. Palette images expand to RGB (RGBA when the
 * palette has transparency); a tRNS chunk turns gray into gray+alpha and RGB into RGBA. 8-bit
 * samples map to v/255, 16-bit to v/65535, low bit depths to v/(2^depth - 1). No gamma or
 * colour-space conversion. */
int image_load_png(const char *path, struct image *img, char *err);

/* Saves an 8-bit PNG whose colour type follows the channel count. Each value is clamped to
 * [0, 1], scaled by 255 and rounded to nearest; NaN is written as 0. */
int image_save_png(const char *path, const struct image *img, char *err);

#define NPY_MAX_DIMS 4

/* Writes a float32 .npy (format version 1.0, '<f4', C order) with the given shape. */
int npy_save_f32(const char *path, const float *data, int ndim, const size_t *shape, char *err);

/* Reads a .npy holding '<f4' or '<f8' data in C order; float64 is converted to float32. On
 * success *data is malloc'ed (caller frees; at least one float even for a zero-sized shape),
 * *ndim and shape[0..ndim-1] describe it. A shape of more than 2^30 elements (more than any
 * program takes) is an error, and so is a payload shorter or longer than the shape's bytes; both
 * are found from the header and the file's size, before the array is allocated. */
int npy_load_f32(const char *path, float **data, int *ndim, size_t shape[NPY_MAX_DIMS], char *err);

#ifdef __cplusplus
}
#endif
#endif
