/* conv3d_stream_launch.cuh: the host side of chapter 09's 2.5D kernel, conv3d.h's
 * conv3d_stream_set_mask and conv3d_stream_launch. It picks the kernel for the mask, the way
 * planes are fetched (TMA or cp.async) and the length of the z chunks, then launches.
 *
 *   fit_of               what this GPU makes of a kernel: blocks an SM, its resources
 *   chunk_length         the slices a block marches through
 *   launch               TMA or cp.async (choose_conv3d_fetch, fetch_choice.h, from the GPU's
 *                        limits), the chunk (WB_CONV3D_Z_CHUNK=N sets it), the grid
 *   conv3d_stream_set_mask, conv3d_stream_launch
 *                        the mask into constant memory; the instantiation for the mask's size
 *
 * Masks 3x3x3, 5x5x5 and 7x7x7 get kernels with every size known at compile time: every loop
 * unrolls and every weight's place in the constant bank is known, so the compiler keeps weights
 * in registers and reloads those that do not fit each plane, into uniform registers or ordinary
 * ones (the machine code shows it). Any other mask up to 7 on each side runs a kernel with its
 * depth compiled in and its width and height read at run time.
 *
 * It instantiates conv3d_stream_kernel, a template, so it belongs to the translation unit that
 * defines the template: conv3d_stream.cu includes it once, at its end, and no other file may
 * (it defines conv3d.h's functions).
 */
#ifndef CONV3D_STREAM_LAUNCH_CUH
#define CONV3D_STREAM_LAUNCH_CUH

#include <stdlib.h>

#include "constant_mask.cuh"
#include "conv3d.h"

namespace {

constexpr int TARGET_BLOCKS = 2048; // enough blocks for a few waves on a large GPU

using kernel_fn = void (*)(const float *, float *, const CUtensorMap, int, int, int, int, int,
                          int);

// What this GPU makes of one of the march's kernels, asked once: blocks of it an SM holds at
// once, and its resources (registers, shared memory, whether its code is sm_90's or later).
struct kernel_fit {
    int blocks_per_sm;
    kernel_resources resources;
};
static kernel_fit fit_of(kernel_fn kernel) {
    kernel_fit fit;
    fit.resources = kernel_resources_of((const void *)kernel);
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.blocks_per_sm, kernel, THREADS, 0));
    return fit;
}

// The slices a block marches through. Each chunk rereads mask_d - 1 planes, and blocks at many
// depths at once scatter their reads over many planes: chunks are as long as the GPU allows.
// With TMA, just enough chunks for a block on every SM. With cp.async, a mask of fewer than 64
// weights (bound by bandwidth) wants many blocks in flight, about TARGET_BLOCKS, each issuing
// its copies; a larger one (bound by arithmetic) one block in every slot of the GPU. On an
// H100 at 512^3 (256 blocks in x-y) the wrong choice costs 5 to 8 % either way: TMA's 3x3x3 in
// 8 chunks instead of one, cp.async's 3x3x3 in one instead of 8, cp.async's 7x7x7 in 8.
static int chunk_length(long xy_blocks, int depth, int mask_weights, bool tma, int sms,
                        long slots) {
    const long wanted = tma ? sms : mask_weights < 64 ? TARGET_BLOCKS : slots;
    long chunks = (wanted + xy_blocks - 1) / xy_blocks;
    if (chunks > depth) chunks = depth;
    return (int)((depth + chunks - 1) / chunks);
}

template <int MW, int MH, int MD, int RX = 1, int RY = 4>
void launch(const float *d_in, float *d_out, int width, int height, int depth, int mask_w,
            int mask_h) {
    constexpr int TY = THREADS_Y * RY, COLS = TX * RX;
    const int blocks_x = (width + COLS - 1) / COLS, blocks_y = (height + TY - 1) / TY;
    if (blocks_y > 65535)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: height %d needs more than 65535 blocks",
               height);
    // TMA where the GPU has it, the code runs as sm_90 or later and the volume suits it
    // (choose_conv3d_fetch; tensor_copy.cuh says what TMA asks), cp.async elsewhere.
    static const kernel_fit with_tma = fit_of(conv3d_stream_kernel<MW, MH, MD, RY, RX, true>);
    static const kernel_fit without = fit_of(conv3d_stream_kernel<MW, MH, MD, RY, RX, false>);
    static const char *no_tma = getenv("WB_CONV3D_NO_TMA");
    const bool tma_off = no_tma && *no_tma == '1';
    using T = tile_shape<MW, MH, RY, RX, true>;
    char why[256];
    conv3d_fetch fetch = choose_conv3d_fetch(gpu_limits_of_device(), &with_tma.resources,
                                             &without.resources, width, tma_off, why, sizeof why);
    CUtensorMap map = {};
    // a driver without the encoder, or a volume it refuses: cp.async, as chosen without TMA
    if (fetch == CONV3D_FETCH_TMA && !tensor_map_3d(&map, d_in, width, height, depth, T::W, T::H))
        fetch = choose_conv3d_fetch(gpu_limits_of_device(), &with_tma.resources,
                                    &without.resources, width, 1, why, sizeof why);
    if (fetch == CONV3D_FETCH_NONE) wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: %s", why);
    const bool tma = fetch == CONV3D_FETCH_TMA;
    const kernel_fn kernel = tma ? conv3d_stream_kernel<MW, MH, MD, RY, RX, true>
                                 : conv3d_stream_kernel<MW, MH, MD, RY, RX, false>;
    int device, sms;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const long slots = (long)sms * (tma ? with_tma : without).blocks_per_sm;
    const long xy = (long)blocks_x * blocks_y;
    int z_chunk = chunk_length(xy, depth, mask_w * mask_h * MD, tma, sms, slots);
    // Tests: small volumes get chunks of a slice or two, so WB_CONV3D_Z_CHUNK=N sets the length
    // (cut to the depth) to march blocks through many planes there too.
    const char *forced = getenv("WB_CONV3D_Z_CHUNK");
    if (forced && *forced) {
        char *end;
        const long n = strtol(forced, &end, 10);
        if (*end || n < 1 || n > 65535)
            wb_die(WB_EXIT_USAGE, "WB_CONV3D_Z_CHUNK='%s' is not a whole number 1 to 65535",
                   forced);
        z_chunk = n < depth ? (int)n : depth;
    }
    dim3 grid(blocks_x, blocks_y, (depth + z_chunk - 1) / z_chunk), threads(TX, THREADS_Y);
    kernel<<<grid, threads>>>(d_in, d_out, map, width, height, depth, mask_w, mask_h, z_chunk);
    CUDA_CHECK_LAUNCH();
}

} // namespace

void conv3d_stream_set_mask(const float *h_mask, int mask_w, int mask_h, int mask_d) {
    if (mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_set_mask: mask depth %d is outside 1..%d", mask_d,
               MAX_SIDE);
    upload_constant_mask("conv3d_stream_set_mask", c_mask, h_mask, mask_w, mask_h * mask_d,
                         MAX_SIDE, MAX_SIDE * MAX_SIDE);
}

void conv3d_stream_launch(const float *d_in, float *d_out, int width, int height, int depth,
                          int mask_w, int mask_h, int mask_d, int block) {
    (void)block; /* the block's shape is compiled in */
    if (width < 1 || height < 1 || depth < 1 || mask_w < 1 || mask_w > MAX_SIDE || mask_h < 1 ||
        mask_h > MAX_SIDE || mask_d < 1 || mask_d > MAX_SIDE)
        wb_die(WB_EXIT_USAGE, "conv3d_stream_launch: volume %dx%dx%d, mask %dx%dx%d (1..%d a side)",
               width, height, depth, mask_w, mask_h, mask_d, MAX_SIDE);
    const int cube = mask_w == mask_h && mask_h == mask_d ? mask_w : 0;
    // Outputs a thread, each the fastest of its neighbours on an H100 at 512^3: 3x3x3 four
    // along y (eight: 7 % slower); 5x5x5 four along y and two along x (one along x: 15 %
    // slower); 7x7x7 two along y and two along x, two blocks an SM (four along y needs 254
    // registers, one block an SM, and is no faster and less steady).
    switch (cube) {
    case 3: return launch<3, 3, 3>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 5: return launch<5, 5, 5, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 7: return launch<7, 7, 7, 2, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    default: break;
    }
    switch (mask_d) {
    case 1: return launch<0, 0, 1>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 2: return launch<0, 0, 2>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 3: return launch<0, 0, 3>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 4: return launch<0, 0, 4>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 5: return launch<0, 0, 5>(d_in, d_out, width, height, depth, mask_w, mask_h);
    case 6: return launch<0, 0, 6>(d_in, d_out, width, height, depth, mask_w, mask_h);
    default: return launch<0, 0, 7>(d_in, d_out, width, height, depth, mask_w, mask_h);
    }
}

#endif
