/* imginfo.c: the image loader from the command line.
 *
 *   build/imginfo photo.png               size, channels, and min / mean / max per channel
 *   build/imginfo photo.png --npy out.npy also write the float planes, shape (channels, h, w)
 *   build/imginfo result.npy              the shape and range of a float32 .npy
 *
 * It shows exactly what the chapters see after loading (floats in [0, 1], one plane per
 * channel), and converts PNGs for NumPy users. Exit codes as every workbook program: 0 ok,
 * 2 bad usage or input.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image_io.h"
#include "safe_output.h"

static void print_range(const char *label, const float *values, size_t count) {
    double lo = DBL_MAX, hi = -DBL_MAX, sum = 0.0;
    for (size_t i = 0; i < count; ++i) {
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
        sum += values[i];
    }
    printf("  %-8s min %.6f  mean %.6f  max %.6f\n", label, lo, count ? sum / count : 0.0, hi);
}

int main(int argc, char **argv) {
    char err[WB_ERR_LEN];
    wb_set_program_name("imginfo");
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: imginfo FILE.png [--npy OUT.npy] | imginfo FILE.npy\n");
        return WB_EXIT_PASS;
    }
    int convert = argc == 4 && !strcmp(argv[2], "--npy");
    if (argc != 2 && !convert)
        wb_die(WB_EXIT_USAGE, "usage: imginfo FILE.png [--npy OUT.npy] | imginfo FILE.npy");
    const char *path = argv[1];
    if (cli_has_extension(path, ".npy")) {
        if (convert) wb_die(WB_EXIT_USAGE, "'%s' is already a .npy", path);
        float *data;
        int ndim;
        size_t shape[NPY_MAX_DIMS], count = 1;
        if (npy_load_f32(path, &data, &ndim, shape, err)) wb_die(WB_EXIT_USAGE, "%s", err);
        printf("%s: float32 array, shape (", wb_shown(path));
        for (int d = 0; d < ndim; ++d) {
            printf(d ? ", %zu" : "%zu", shape[d]);
            count *= shape[d];
        }
        printf(ndim == 1 ? ",)\n" : ")\n");
        print_range("values", data, count);
        free(data);
        return WB_EXIT_PASS;
    }
    struct image img;
    if (image_load_png(path, &img, err)) wb_die(WB_EXIT_USAGE, "%s", err);
    static const char *const names[4][4] = {
        {"gray"}, {"gray", "alpha"}, {"red", "green", "blue"}, {"red", "green", "blue", "alpha"}};
    printf("%s: %d x %d, %d channel%s\n", wb_shown(path), img.width, img.height, img.channels,
           img.channels == 1 ? "" : "s");
    size_t plane = (size_t)img.width * img.height;
    for (int c = 0; c < img.channels; ++c)
        print_range(names[img.channels - 1][c], img.data + c * plane, plane);
    if (convert) {
        size_t shape[3] = {(size_t)img.channels, (size_t)img.height, (size_t)img.width};
        if (safe_output_protect(path, err) || npy_save_f32(argv[3], img.data, 3, shape, err))
            wb_die(WB_EXIT_USAGE, "%s", err);
        printf("wrote %s\n", argv[3]);
    }
    image_free(&img);
    return WB_EXIT_PASS;
}
