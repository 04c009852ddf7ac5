/* cuda_check.c: error reporting, device probe and checked allocation (see cuda_check.h). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cuda_check.h"
#include "diagnose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lessons the hints below cite, one a line (tests/hint_sections.sh checks each exists). */
#define SEE_GHOSTS "chapters/01_basic_1d/README.md, 'Ghost cells'"
#define SEE_MAPPING "chapters/01_basic_1d/README.md, 'The mapping: one thread per output'"
#define SEE_FORMULA_2D "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'"
#define SEE_TILES_2D                                                                               \
    "chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"
#define SEE_STRIPS "chapters/08_streams/README.md, 'Strips: an image larger than the GPU'"
#define SEE_MARCH "chapters/09_3d/README.md, 'Marching along z'"
#define SEE_EXCHANGE "chapters/10_multi_gpu/README.md, 'Your exercise: the exchange'"

/* The out-of-bounds hint in the words of the program's data: a signal (i, n), an image (x, y,
 * width, height), a volume (x, y, z); chapters 08 and 10, whose kernels are given, by what the
 * student's code hands them (a strip's rows, a slab's trade). */
static const char *fault_hint(int chapter) {
    switch (chapter) {
    case 8:
        return "a strip's rows reach past its buffer or the image: a strip uploads the input "
               "rows from max(first - mask_h/2, 0) to min(first + rows + mask_h - 1 - mask_h/2, "
               "height), its buffer holds no more, and the kernel and the download use exactly "
               "those (see " SEE_STRIPS ")";
    case 10:
        return "the trade reaches past a slab's buffer: it holds halo_above + rows + halo_below "
               "whole rows, and each send or receive starts at rows_at(row) and moves whole rows "
               "inside it (see " SEE_EXCHANGE ")";
    }
    switch (hint_dims(chapter)) {
    case 1:
        return "a thread past the end (i >= n) must neither read nor write, every input index "
               "must lie in 0 .. n-1, and every shared-memory index inside the tile "
               "(see " SEE_GHOSTS ")";
    case 2:
        return "a thread outside the image (x >= width or y >= height) must neither read nor "
               "write, every input it reads must lie inside the image (x in 0 .. width-1, y in "
               "0 .. height-1, rows pitch bytes apart), and every shared-memory index inside the "
               "tile (see " SEE_FORMULA_2D ")";
    case 3:
        return "a thread outside the volume must neither read nor write: an output is stored only "
               "for x < width, y < height and a slice z of the chunk and of the volume, a plane "
               "is read only for 0 <= z < depth (zeros elsewhere), and every shared-memory index "
               "lies inside its stage (see " SEE_MARCH ")";
    default:
        return "a thread outside the data must neither read nor write, every input index must "
               "lie inside it, and every shared-memory index inside the tile";
    }
}

/* The launch-config hint: the grid and block of the program's data. */
static const char *launch_hint(int chapter) {
    switch (hint_dims(chapter)) {
    case 1:
        return "a grid of zero blocks (the number of blocks rounded down: round it up, so a "
               "signal shorter than one block still gets one), a block of more than 1024 threads, "
               "or more shared memory than a block may have (see " SEE_MAPPING ")";
    case 2:
        return "a grid with no block along x or y (the blocks rounded down: round up, so an image "
               "narrower or shorter than one tile still gets one), a block of more than 1024 "
               "threads, or more shared memory than a block may have (see " SEE_TILES_2D ")";
    case 3:
        return "a grid with no block along x, y or z (round up: (depth + z_chunk - 1) / z_chunk "
               "chunks), more than 65535 blocks along y or z, a block of more than 1024 threads, "
               "or more shared memory than a block may have (see " SEE_MARCH ")";
    default:
        return "a grid with no block along some axis (the blocks rounded down), a block of more "
               "than 1024 threads, or more shared memory than a block may have";
    }
}

void cuda_check_failed(cudaError_t status, const char *expression, const char *file, int line) {
    char err[WB_ERR_LEN];
    wb_error(err, "CUDA error at %s:%d in %s: %s (%s)", file, line, expression,
             cudaGetErrorString(status), cudaGetErrorName(status));
    fprintf(stderr, "%s: %s\n", wb_program_name(), err);
    int fault = status == cudaErrorIllegalAddress || status == cudaErrorMisalignedAddress ||
                status == cudaErrorLaunchFailure;
    /* Any other error that cudaGetLastError() reports right after a launch (CUDA_CHECK_LAUNCH)
     * means the launch itself was refused: its grid, block or shared memory. */
    int refused_launch = status == cudaErrorInvalidConfiguration ||
                         (!fault && strcmp(expression, "cudaGetLastError()") == 0);
    const int chapter = hint_chapter(wb_program_name());
    if (fault)
        fprintf(stderr,
                "  hint [out-of-bounds]: a kernel read or wrote memory outside its arrays: %s; the "
                "memcheck test (compute-sanitizer) names the line\n",
                fault_hint(chapter));
    if (refused_launch)
        fprintf(stderr, "  hint [launch-config]: the GPU refused the launch: %s\n",
                launch_hint(chapter));
    exit(WB_EXIT_FAIL);
}

/* Exit 77 with one line that says which of the usual causes it is: no driver, a driver older
 * than the toolkit the program was built with, or a driver that sees no GPU. */
static void no_device(const char *reason, cudaError_t status) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver); /* 0 where no driver is installed */
    cudaRuntimeGetVersion(&runtime);
    if (status == cudaErrorInsufficientDriver && driver == 0)
        wb_die(WB_EXIT_NO_DEVICE, "no usable CUDA device: no NVIDIA driver is installed (skipping)");
    if (status == cudaErrorInsufficientDriver)
        wb_die(WB_EXIT_NO_DEVICE,
               "no usable CUDA device: the NVIDIA driver supports CUDA %d.%d, older than the "
               "CUDA %d.%d this program was built with; update the driver (skipping)",
               driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    if (status == cudaErrorNoDevice)
        wb_die(WB_EXIT_NO_DEVICE, "no usable CUDA device: the NVIDIA driver sees no GPU (skipping)");
    wb_die(WB_EXIT_NO_DEVICE, "no usable CUDA device (%s: %s): skipping", reason,
           cudaGetErrorString(status));
}

void device_one_queue(void) { setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0); }

int device_count(void) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) no_device("cudaGetDeviceCount", status);
    if (count < 1) no_device("device count", cudaErrorNoDevice);
    return count;
}

void device_probe(struct device_info *info) {
    device_count();
    cudaError_t status;
    struct cudaDeviceProp prop;
    if ((status = cudaSetDevice(0)) != cudaSuccess) no_device("cudaSetDevice", status);
    /* The first real call creates the context; a broken driver shows up here. */
    if ((status = cudaFree(NULL)) != cudaSuccess) no_device("context creation", status);
    if ((status = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        no_device("cudaGetDeviceProperties", status);
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->sm_major = prop.major;
    info->sm_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->global_memory = prop.totalGlobalMem;
    info->l2_cache_bytes = prop.l2CacheSize;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
}

/* Bytes this process has taken through device_malloc*, for WB_GPU_MEMORY_LIMIT_MIB. */
static size_t bytes_taken;

/* WB_GPU_MEMORY_LIMIT_MIB in bytes, 0 when unset; exit 2 when it is no number of MiB. */
static size_t memory_limit(void) {
    const char *text = getenv("WB_GPU_MEMORY_LIMIT_MIB");
    long long mib;
    if (!text || !*text) return 0;
    if (wb_parse_whole(text, 1, 1 << 24, &mib))
        wb_die(WB_EXIT_USAGE, "WB_GPU_MEMORY_LIMIT_MIB='%s' is not a whole number of MiB (1 to "
               "16777216; %s)", text, WB_NUMBER_RULE);
    return (size_t)mib << 20;
}

void device_check_environment(void) {
    memory_limit();
}

static void too_big(size_t bytes, const char *what) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    const size_t limit = memory_limit();
    if (limit) {
        total_bytes = limit;
        free_bytes = total_bytes > bytes_taken ? total_bytes - bytes_taken : 0;
    }
    wb_die(WB_EXIT_USAGE,
           "the %s needs %.1f MiB of GPU memory but only %.1f MiB of %.1f MiB is free%s: use a "
           "smaller input",
           what, bytes / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0,
           limit ? " (WB_GPU_MEMORY_LIMIT_MIB)" : "");
}

/* Applies WB_GPU_MEMORY_LIMIT_MIB before asking the driver. */
static void check_limit(size_t bytes, const char *what) {
    const size_t limit = memory_limit();
    if (limit && bytes_taken + bytes > limit) too_big(bytes, what);
}

void *device_malloc(size_t bytes, const char *what) {
    void *ptr = NULL;
    check_limit(bytes, what);
    cudaError_t status = cudaMalloc(&ptr, bytes ? bytes : 1);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* clear it, so the next launch check does not report it again */
        too_big(bytes, what);
    }
    if (status != cudaSuccess) cuda_check_failed(status, "cudaMalloc", __FILE__, __LINE__);
    bytes_taken += bytes;
    return ptr;
}

void *device_malloc_pitch(size_t row_bytes, size_t rows, size_t *pitch, const char *what) {
    void *ptr = NULL;
    check_limit(row_bytes * rows, what);
    cudaError_t status = cudaMallocPitch(&ptr, pitch, row_bytes ? row_bytes : 1, rows ? rows : 1);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        too_big(row_bytes * rows, what);
    }
    if (status != cudaSuccess) cuda_check_failed(status, "cudaMallocPitch", __FILE__, __LINE__);
    bytes_taken += *pitch * rows;
    return ptr;
}

/* FP32 lanes per SM by compute capability, from NVIDIA's CUDA C++ Programming Guide, "Arithmetic
 * Instructions" (no API reports them). */
int fp32_lanes_per_sm(int major, int minor) {
    switch (major) {
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
        return 64; /* Volta, Turing */
    case 8:
        return minor == 0 ? 64 : 128; /* A100: 64; GA10x and Ada: 128 */
    case 9:
        return 128; /* Hopper */
    case 10:
    case 11:
    case 12:
        return 128; /* Blackwell */
    default:
        return 0;
    }
}

double device_fma_peak(const struct device_info *info, int *sm_clock_khz) {
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info->id));
    if (sm_clock_khz) *sm_clock_khz = clock_khz;
    return (double)info->multiprocessors * fp32_lanes_per_sm(info->sm_major, info->sm_minor) *
           clock_khz * 1e3;
}
