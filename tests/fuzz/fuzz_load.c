/* fuzz_load.c: libFuzzer targets for everything the workbook reads (make fuzz).
 *
 * One source, eight targets, chosen at compile time (-DFUZZ_PNG and so on; the Makefile does it):
 *   FUZZ_PNG           image_load_png on the bytes as a file (built with -DWB_FUZZ_BUILD, which
 *                      turns libpng's CRC checks off in image_io.c, so mutated chunks get decoded)
 *   FUZZ_NPY           npy_load_f32 on the bytes as a file
 *   FUZZ_MASK_FILE     mask_load_file on the bytes as a file
 *   FUZZ_MASK3D_FILE   mask3d_load_file (chapter 09's slices) on the bytes as a file
 *   FUZZ_VOLUME_NPY    volume_load_npy (chapter 09's volumes) on the bytes as a file
 *   FUZZ_CLI           cli_parse on the bytes split at NUL into arguments, against the 1D, 2D
 *                      or 3D spec (the first byte chooses)
 *   FUZZ_CH08_OPTIONS  cli_parse with chapter 08's own spec and options (streams_cli.h), the
 *                      bytes split at NUL into arguments
 *   FUZZ_CH10_OPTIONS  the same with chapter 10's (multi_gpu_cli.h)
 * Each loader or parser must either succeed or fail with a one-line message (no newline or
 * control character in it); anything else (a crash, a leak, undefined behaviour under the
 * sanitizers, a message that breaks the promise) stops the fuzzer.
 *
 * The bytes reach the loaders as a real path that names a file in memory (memfd_create, opened
 * again through /proc/self/fd), so the same opener runs as for a user's file and nothing is
 * written to any file system.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "image_io.h"
#include "masks.h"
#include "masks3d.h"
#include "volumes.h"
#if defined(FUZZ_CH08_OPTIONS)
#include "streams_cli.h"
#elif defined(FUZZ_CH10_OPTIONS)
#include "multi_gpu_cli.h"
#endif

/* A message must be one printable line: wb_error escapes control characters (workbook.h). */
static void require_clean(const char *err) {
    for (const unsigned char *c = (const unsigned char *)err; *c; ++c)
        if (*c < 0x20 || *c == 0x7f) abort();
}

/* The bytes as the one file in memory this process keeps, rewritten for each input. */
static __attribute__((unused)) const char *as_file(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("wb_fuzz_input", MFD_CLOEXEC);
        if (fd < 0) abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) abort();
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) abort();
        done += (size_t)n;
    }
    return path;
}

/* The bytes split at NUL into argv[1..] (at most 32 arguments): argv[0] is the program. */
enum { MAX_ARGS = 32, MAX_ARG_BYTES = 4096 };
static __attribute__((unused)) int as_argv(const uint8_t *data, size_t size, char *program,
                                           char *argv[MAX_ARGS + 1]) {
    static char text[MAX_ARG_BYTES];
    if (size >= sizeof text) return -1;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[0] = program;
    int argc = 1;
    for (char *p = text; p < text + size && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    return argc;
}

/* --help and --spec print: to /dev/null, once for the whole run. */
static __attribute__((unused)) void quiet_stdout(void) {
    static int quiet;
    if (!quiet++ && !freopen("/dev/null", "w", stdout)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[WB_ERR_LEN] = "";
#if defined(FUZZ_PNG)
    struct image img;
    if (image_load_png(as_file(data, size), &img, err) == 0)
        image_free(&img);
    else
        require_clean(err);
#elif defined(FUZZ_NPY)
    float *values;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    if (npy_load_f32(as_file(data, size), &values, &ndim, shape, err) == 0)
        free(values);
    else
        require_clean(err);
#elif defined(FUZZ_MASK_FILE)
    struct mask m;
    if (mask_load_file(as_file(data, size), &m, err) == 0)
        mask_free(&m);
    else
        require_clean(err);
#elif defined(FUZZ_MASK3D_FILE)
    struct mask3d m;
    if (mask3d_load_file(as_file(data, size), &m, err) == 0)
        mask3d_free(&m);
    else
        require_clean(err);
#elif defined(FUZZ_VOLUME_NPY)
    float *volume;
    int width, height, depth;
    if (volume_load_npy(as_file(data, size), &volume, &width, &height, &depth, err) == 0)
        free(volume);
    else
        require_clean(err);
#elif defined(FUZZ_CLI)
    char *argv[MAX_ARGS + 1];
    if (size < 1) return 0;
    const int argc = as_argv(data + 1, size - 1, "fuzz_cli", argv);
    if (argc < 0) return 0;
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
    quiet_stdout();
    struct cli_options opt;
    if (cli_parse(argc, argv, &spec, &opt, err) < 0) require_clean(err);
#elif defined(FUZZ_CH08_OPTIONS) || defined(FUZZ_CH10_OPTIONS)
    char *argv[MAX_ARGS + 1];
    const int argc = as_argv(data, size, "fuzz_options", argv);
    if (argc < 0) return 0;
    /* What main() hands harness_start, which parses with the chapter kernel's block rule (both
     * chapters declare BLOCK_ANY) and exits 2 on -1; here -1 must come with a clean line. */
    struct chapter_options o;
#if defined(FUZZ_CH08_OPTIONS)
    struct cli_spec spec = streams_cli_spec(&o);
#else
    struct cli_spec spec = multi_gpu_cli_spec(&o);
#endif
    spec.block_rule = BLOCK_ANY;
    quiet_stdout();
    struct cli_options opt;
    if (cli_parse(argc, argv, &spec, &opt, err) < 0) require_clean(err);
#else
#error "define one FUZZ_ target: PNG, NPY, MASK_FILE, MASK3D_FILE, VOLUME_NPY, CLI, CH08_OPTIONS or CH10_OPTIONS"
#endif
    return 0;
}
