/* cuda_check.c: error reporting, device probe and checked allocation (see cuda_check.h). */
#include "cuda_check.h"

#include <stdio.h>
#include <string.h>

void cuda_check_failed(cudaError_t status, const char *expression, const char *file, int line) {
    wb_die(WB_EXIT_FAIL, "CUDA error at %s:%d in %s: %s (%s)", file, line, expression,
           cudaGetErrorString(status), cudaGetErrorName(status));
}

static void no_device(const char *reason, cudaError_t status) {
    wb_die(WB_EXIT_NO_DEVICE, "no usable CUDA device (%s: %s): skipping", reason,
           cudaGetErrorString(status));
}

void device_probe(struct device_info *info) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) no_device("cudaGetDeviceCount", status);
    if (count < 1) no_device("device count", cudaErrorNoDevice);
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

void *device_malloc(size_t bytes, const char *what) {
    void *ptr = NULL;
    cudaError_t status = cudaMalloc(&ptr, bytes ? bytes : 1);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* clear it, so the next launch check does not report it again */
        size_t free_bytes = 0, total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        wb_die(WB_EXIT_USAGE,
               "the %s needs %.1f MiB of GPU memory but only %.1f MiB of %.1f MiB "
               "is free: use a smaller input",
               what, bytes / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0);
    }
    if (status != cudaSuccess) cuda_check_failed(status, "cudaMalloc", __FILE__, __LINE__);
    return ptr;
}
