/* fuzz_load.c: libFuzzer targets for everything the workbook reads (make fuzz).
 *
 * One source, six targets, chosen at compile time (-DFUZZ_PNG and so on; the Makefile does it):
 *   FUZZ_PNG          image_load_png on the bytes as a file
 *   FUZZ_NPY          npy_load_f32 on the bytes as a file
 *   FUZZ_MASK_FILE    mask_load_file on the bytes as a file
 *   FUZZ_MASK3D_FILE  mask3d_load_file (chapter 09's slices) on the bytes as a file
 *   FUZZ_VOLUME_NPY   volume_load_npy (chapter 09's volumes) on the bytes as a file
 *   FUZZ_CLI          cli_parse on the bytes split at NUL into arguments, against the 1D, 2D
 *                     or 3D spec (the first byte chooses)
 * Each loader must either succeed or fail with a one-line message (no newline or control
 * character in it); anything else (a crash, a leak, undefined behaviour under the sanitizers,
 * a message that breaks the promise) stops the fuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "image_io.h"
#include "masks.h"
#include "masks3d.h"
#include "volumes.h"

/* A message must be one printable line: wb_error escapes control characters (workbook.h). */
static void require_clean(const char *err) {
    for (const unsigned char *c = (const unsigned char *)err; *c; ++c)
        if (*c < 0x20 || *c == 0x7f) abort();
}

/* The bytes as a file of this process's own, so the loaders read a real path. */
static const char *as_file(const uint8_t *data, size_t size, const char *extension) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/wb_fuzz_%d%s", (int)getpid(), extension);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[WB_ERR_LEN] = "";
#if defined(FUZZ_PNG)
    struct image img;
    if (image_load_png(as_file(data, size, ".png"), &img, err) == 0)
        image_free(&img);
    else
        require_clean(err);
#elif defined(FUZZ_NPY)
    float *values;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    if (npy_load_f32(as_file(data, size, ".npy"), &values, &ndim, shape, err) == 0)
        free(values);
    else
        require_clean(err);
#elif defined(FUZZ_MASK_FILE)
    struct mask m;
    if (mask_load_file(as_file(data, size, ".txt"), &m, err) == 0)
        mask_free(&m);
    else
        require_clean(err);
#elif defined(FUZZ_MASK3D_FILE)
    struct mask3d m;
    if (mask3d_load_file(as_file(data, size, ".txt"), &m, err) == 0)
        mask3d_free(&m);
    else
        require_clean(err);
#elif defined(FUZZ_VOLUME_NPY)
    float *volume;
    int width, height, depth;
    if (volume_load_npy(as_file(data, size, ".npy"), &volume, &width, &height, &depth, err) == 0)
        free(volume);
    else
        require_clean(err);
#elif defined(FUZZ_CLI)
    enum { MAX_ARGS = 32 };
    static char text[4096];
    if (size < 1 || size >= sizeof text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 1] = {"fuzz_cli"};
    int argc = 1;
    for (char *p = text; p < text + size - 1 && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    struct cli_spec spec = {.program = "fuzz_cli", .summary = "fuzzing", .dims = 1 + data[0] % 3,
                            .default_size = {1000, 1}, .default_mask = {5, 1},
                            .max_mask = {63, 1}, .default_block = 256, .min_block = 1,
                            .max_block = 1024, .input_formats = "anything"};
    if (spec.dims == 2) {
        spec.default_size.height = 1000;
        spec.max_mask.width = spec.max_mask.height = 31;
        spec.default_mask.height = 5;
        spec.max_block = 32;
        spec.default_block = 32;
    } else if (spec.dims == 3) { /* chapter 09's limits (conv3d_standard_spec) */
        spec.default_size = (struct cli_size){64, 64, 64};
        spec.default_mask = (struct cli_size){3, 3, 3};
        spec.max_mask = (struct cli_size){MASK3D_MAX_SIDE, MASK3D_MAX_SIDE, MASK3D_MAX_SIDE};
        spec.max_block = 32;
        spec.default_block = 32;
    }
    static int quiet;
    if (!quiet++ && !freopen("/dev/null", "w", stdout)) abort(); /* --help and --spec print */
    struct cli_options opt;
    if (cli_parse(argc, argv, &spec, &opt, err) < 0) require_clean(err);
#else
#error "define one FUZZ_ target: PNG, NPY, MASK_FILE, MASK3D_FILE, VOLUME_NPY or CLI"
#endif
    return 0;
}
