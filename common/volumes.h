/* volumes.h: volumes a person can look at (chapter 09; host code, no GPU).
 *
 *   volume_phantom   a synthetic volume: bright and dark spheres in a soft background, plus
 *                    noise, drawn from a seed (the same seed, the same volume everywhere)
 *   volume_montage   evenly spaced slices of a volume side by side in one grayscale PNG
 *   volume_load_npy, volume_save_npy   volumes in and out as 3-D .npy files
 *
 * Voxel (x, y, z) is v[((size_t)z * height + y) * width + x], as in masks3d.h and reference.h.
 */
#ifndef VOLUMES_H
#define VOLUMES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VOLUME_PHANTOM_SPHERES 12

/* A float32 (or float64) .npy of shape (depth, height, width) into a new array *v (free it);
 * -1 with a one-line message for any other number of dimensions, a side of 0 or over
 * VOLUME_MAX_SIDE, more than VOLUME_MAX_VOXELS, or a value that is not finite. */
#define VOLUME_MAX_SIDE 4096
#define VOLUME_MAX_VOXELS ((size_t)1 << 30)
int volume_load_npy(const char *path, float **v, int *width, int *height, int *depth, char *err);

/* The volume as a float32 .npy of shape (depth, height, width) (safe_output.h). */
int volume_save_npy(const char *path, const float *v, int width, int height, int depth, char *err);

/* Fills v (width x height x depth) with values in [0, 1]. */
void volume_phantom(float *v, int width, int height, int depth, uint64_t seed);

/* Writes `slices` slices (1 to 64, at most depth; evenly spaced from the first to the last) in a
 * grid of ceil(sqrt(slices)) columns, one grey pixel between tiles, mapped from the volume's
 * least value (black) to its largest (white). 0, or -1 with a message (safe_output.h: no input
 * is ever replaced). */
/* 0 if a montage of `slices` slices of width x height fits the image limits, else -1 with a
 * message (volume_montage checks it too; a program checks it before the work). */
int volume_montage_check(int width, int height, int slices, char *err);
int volume_montage(const char *path, const float *v, int width, int height, int depth, int slices,
                   char *err);

#ifdef __cplusplus
}
#endif
#endif
