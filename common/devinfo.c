/* devinfo.c: the GPU's numbers that the report's roofline needs, as one JSON line.
 *
 *   devinfo            {"device":..., "sm":"90", "sms":132, "sm_clock_mhz":1980, ...}
 *
 * The FP32 roof is SMs x FP32 lanes per SM x SM clock x 2 (an FMA is two floating-point
 * operations). The SM count and the peak SM clock come from the CUDA runtime
 * (cudaDevAttrMultiProcessorCount, cudaDevAttrClockRate); the lanes per SM come from the table
 * in cuda_check.c (fp32_lanes_per_sm: no API reports them).
 * The DRAM figure, memory clock x bus width x 2 (double data rate), is the datasheet roof; the
 * report draws the measured copy bandwidth instead and shows this one beside it.
 * Exit 77 without a usable GPU, like every program of the workbook.
 */
#include <stdio.h>

#include "cuda_check.h"

static int attribute(enum cudaDeviceAttr which, int device) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, which, device));
    return value;
}

int main(int argc, char **argv) {
    (void)argv;
    wb_set_program_name("devinfo");
    if (argc != 1) wb_die(WB_EXIT_USAGE, "takes no arguments");
    struct device_info info;
    device_one_queue();
    device_probe(&info);
    int sm_clock_khz = 0;
    double fma_per_s = device_fma_peak(&info, &sm_clock_khz);
    int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, 0);
    int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, 0);
    int lanes = fp32_lanes_per_sm(info.sm_major, info.sm_minor);
    if (!lanes)
        wb_die(WB_EXIT_FAIL, "no FP32 lane count for sm_%d%d: add it to fp32_lanes_per_sm()",
               info.sm_major, info.sm_minor);
    double dram_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    printf("{");
    wb_json_string("device", info.name);
    printf(",\"sm\":\"%d%d\",\"sms\":%d,\"sm_clock_mhz\":%.0f,\"fp32_lanes_per_sm\":%d,"
           "\"fma_peak_per_s\":%.6g,\"fp32_peak_tflops\":%.3f,\"memory_clock_mhz\":%.0f,"
           "\"bus_bits\":%d,\"dram_datasheet_gbps\":%.1f,\"l2_bytes\":%d,\"global_bytes\":%zu}\n",
           info.sm_major, info.sm_minor, info.multiprocessors, sm_clock_khz / 1e3, lanes, fma_per_s,
           2.0 * fma_per_s / 1e12, memory_clock_khz / 1e3, bus_bits, dram_gbps, info.l2_cache_bytes,
           info.global_memory);
    return WB_EXIT_PASS;
}
