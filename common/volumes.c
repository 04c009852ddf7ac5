/* volumes.c: the phantom and the montage (see volumes.h). */
#include "volumes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_gen.h"
#include "image_io.h"
#include "workbook.h"

int volume_load_npy(const char *path, float **v, int *width, int *height, int *depth, char *err) {
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    *v = NULL;
    if (npy_load_f32(path, v, &ndim, shape, err)) return -1;
    int status = 0;
    if (ndim != 3)
        status = wb_error(err, "'%s' is a %d-D array: a volume is 3-D, of shape (depth, height, "
                          "width)", path, ndim);
    else if (!shape[0] || !shape[1] || !shape[2] || shape[0] > VOLUME_MAX_SIDE ||
             shape[1] > VOLUME_MAX_SIDE || shape[2] > VOLUME_MAX_SIDE ||
             shape[0] * shape[1] * shape[2] > VOLUME_MAX_VOXELS)
        status = wb_error(err, "'%s' is %zux%zux%zu (width x height x depth): each side must be 1 "
                          "to %d and the volume at most %zu voxels", path, shape[2], shape[1],
                          shape[0], VOLUME_MAX_SIDE, (size_t)VOLUME_MAX_VOXELS);
    for (size_t n = 0; !status && n < shape[0] * shape[1] * shape[2]; ++n)
        if (!isfinite((*v)[n]))
            status = wb_error(err, "'%s' holds a value that is not a finite float32 (voxel "
                              "%zu)", path, n);
    if (status) {
        free(*v);
        *v = NULL;
        return -1;
    }
    *depth = (int)shape[0];
    *height = (int)shape[1];
    *width = (int)shape[2];
    return 0;
}

int volume_save_npy(const char *path, const float *v, int width, int height, int depth, char *err) {
    const size_t shape[3] = {(size_t)depth, (size_t)height, (size_t)width};
    return npy_save_f32(path, v, 3, shape, err);
}

void volume_phantom(float *v, int width, int height, int depth, uint64_t seed) {
    struct rng r;
    rng_init(&r, seed);
    struct {
        float x, y, z, radius, level;
    } spheres[VOLUME_PHANTOM_SPHERES];
    const float smallest = (float)(width < height ? (width < depth ? width : depth)
                                                  : (height < depth ? height : depth));
    for (int s = 0; s < VOLUME_PHANTOM_SPHERES; ++s) {
        spheres[s].x = rng_uniform(&r, 0.15f, 0.85f) * width;
        spheres[s].y = rng_uniform(&r, 0.15f, 0.85f) * height;
        spheres[s].z = rng_uniform(&r, 0.15f, 0.85f) * depth;
        spheres[s].radius = rng_uniform(&r, 0.06f, 0.2f) * smallest + 0.5f;
        spheres[s].level = s % 3 == 2 ? 0.05f : rng_uniform(&r, 0.6f, 1.0f); /* some dark */
    }
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                /* a soft background: brighter towards the middle of the volume */
                float dx = (x + 0.5f) / width - 0.5f, dy = (y + 0.5f) / height - 0.5f,
                      dz = (z + 0.5f) / depth - 0.5f;
                float value = 0.3f * expf(-4.0f * (dx * dx + dy * dy + dz * dz));
                for (int s = 0; s < VOLUME_PHANTOM_SPHERES; ++s) {
                    float ex = x + 0.5f - spheres[s].x, ey = y + 0.5f - spheres[s].y,
                          ez = z + 0.5f - spheres[s].z;
                    if (ex * ex + ey * ey + ez * ez <= spheres[s].radius * spheres[s].radius)
                        value = spheres[s].level; /* later spheres lie on top */
                }
                value += rng_uniform(&r, -0.05f, 0.05f);
                v[((size_t)z * height + y) * width + x] =
                    value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
            }
}

int volume_montage_check(int width, int height, int slices, char *err) {
    int columns = 1;
    while (columns * columns < slices)
        ++columns;
    const int rows = (slices + columns - 1) / columns;
    const long out_w = (long)columns * (width + 1) - 1, out_h = (long)rows * (height + 1) - 1;
    if (out_w > IMAGE_MAX_DIM || out_h > IMAGE_MAX_DIM || out_w * out_h > (long)IMAGE_MAX_PIXELS)
        return wb_error(err, "a montage of %d slices of %dx%d is %ldx%ld pixels, over the image "
                        "limit (%d a side, %zu pixels): write a .npy", slices, width, height,
                        out_w, out_h, IMAGE_MAX_DIM, (size_t)IMAGE_MAX_PIXELS);
    return 0;
}

int volume_montage(const char *path, const float *v, int width, int height, int depth, int slices,
                   char *err) {
    if (width < 1 || height < 1 || depth < 1)
        return wb_error(err, "montage of a %dx%dx%d volume: nothing to show", width, height, depth);
    if (slices < 1 || slices > 64 || slices > depth)
        return wb_error(err, "montage: %d slices of a volume %d deep (1 to %d)", slices, depth,
                        depth < 64 ? depth : 64);
    if (volume_montage_check(width, height, slices, err)) return -1;
    int columns = 1;
    while (columns * columns < slices)
        ++columns;
    const int rows = (slices + columns - 1) / columns;
    const long out_w = (long)columns * (width + 1) - 1, out_h = (long)rows * (height + 1) - 1;
    const size_t count = (size_t)width * height * depth;
    float least = v[0], most = v[0];
    for (size_t n = 1; n < count; ++n) {
        if (v[n] < least) least = v[n];
        if (v[n] > most) most = v[n];
    }
    const float span = most > least ? most - least : 1.0f;
    struct image img;
    if (image_alloc(&img, (int)out_w, (int)out_h, 1, err)) return -1;
    for (size_t n = 0; n < (size_t)out_w * out_h; ++n)
        img.data[n] = 0.5f; /* the grey between tiles and in empty ones */
    for (int t = 0; t < slices; ++t) {
        const int z = slices == 1 ? depth / 2 : (int)((long)t * (depth - 1) / (slices - 1));
        const int x0 = (t % columns) * (width + 1), y0 = (t / columns) * (height + 1);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                img.data[(size_t)(y0 + y) * out_w + x0 + x] =
                    (v[((size_t)z * height + y) * width + x] - least) / span;
    }
    int status = image_save_png(path, &img, err);
    image_free(&img);
    return status;
}
