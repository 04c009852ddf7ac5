/* baseline_fft.cu: 2D correlation through cuFFT (see baselines.h).
 *
 * With both signals zero-padded to FX x FY >= (width + mask_w - 1) x (height + mask_h - 1),
 * the cyclic convolution of the padded image with the padded mask has no wrap-around in the
 * part we keep. Correlation is convolution with the flipped mask, so tap (i, j) of the mask goes
 * to the padded mask's cell ((HY - i) mod FY, (HX - j) mod FX): then
 *   out(x, y) = sum over i, j of M[i][j] * in(x + j - HX, y + i - HY),
 * the workbook's formula, with zeros outside the image.
 *
 *   good_size              the next size made only of factors 2, 3, 5 and 7 (fast for cuFFT)
 *   pad / scatter / multiply / crop kernels
 *   struct fft_state       plans and buffers, rebuilt when the size changes
 *   fft_conv_launch        pad, R2C, multiply by the mask spectrum, C2R, crop
 */
#include <cufft.h>

#include "baselines.h"
#include "cuda_check.h"
#include "pitched.cuh"

namespace {

#define CUFFT_CHECK(expr)                                                                          \
    do {                                                                                           \
        cufftResult cufft_status_ = (expr);                                                        \
        if (cufft_status_ != CUFFT_SUCCESS)                                                        \
            wb_die(WB_EXIT_FAIL, "%s failed with cuFFT error %d (%s:%d)", #expr,                  \
                   (int)cufft_status_, __FILE__, __LINE__);                                        \
    } while (0)

int good_size(int n) {
    for (;; ++n) {
        int m = n;
        for (int f : {2, 3, 5, 7})
            while (m % f == 0) m /= f;
        if (m == 1) return n;
    }
}

__global__ void pad_kernel(const float *in, size_t pitch, int width, int height, float *padded,
                           int fx, int fy) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= fx || y >= fy) return;
    padded[(size_t)y * fx + x] =
        x < width && y < height ? row_of(in, pitch, y)[x] : 0.0f;
}

__global__ void scatter_mask_kernel(const float *mask, int mask_w, int mask_h, float *padded,
                                    int fx, int fy) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= mask_w * mask_h) return;
    const int i = k / mask_w, j = k % mask_w;
    const int y = (mask_h / 2 - i + fy) % fy, x = (mask_w / 2 - j + fx) % fx;
    padded[(size_t)y * fx + x] = mask[k];
}

__global__ void multiply_kernel(cufftComplex *spectrum, const cufftComplex *mask_spectrum,
                                size_t count, float scale) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const cufftComplex a = spectrum[k], b = mask_spectrum[k];
    spectrum[k] = make_cuComplex((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
}

__global__ void crop_kernel(const float *padded, int fx, float *out, size_t pitch, int width,
                            int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    row_of(out, pitch, y)[x] = padded[(size_t)y * fx + x];
}

struct fft_state {
    int fx, fy;                  // transform size (0: nothing built)
    cufftHandle forward, inverse;
    float *real;                 // fx * fy
    cufftComplex *spectrum, *mask_spectrum; // fy * (fx / 2 + 1)
    float mask[BASELINE_MAX_MASK_SIDE * BASELINE_MAX_MASK_SIDE];
    int mask_w, mask_h;
    int mask_ready; // mask_spectrum matches mask and size
} state;

void release() {
    if (!state.fx) return;
    CUFFT_CHECK(cufftDestroy(state.forward));
    CUFFT_CHECK(cufftDestroy(state.inverse));
    CUDA_CHECK(cudaFree(state.real));
    CUDA_CHECK(cudaFree(state.spectrum));
    CUDA_CHECK(cudaFree(state.mask_spectrum));
    state.fx = state.fy = 0;
}

void build(int fx, int fy) {
    release();
    const size_t complex_count = (size_t)fy * (fx / 2 + 1);
    state.real = (float *)device_malloc((size_t)fx * fy * sizeof(float), "cuFFT padded image");
    state.spectrum = (cufftComplex *)device_malloc(complex_count * sizeof(cufftComplex),
                                                   "cuFFT image spectrum");
    state.mask_spectrum = (cufftComplex *)device_malloc(complex_count * sizeof(cufftComplex),
                                                        "cuFFT mask spectrum");
    CUFFT_CHECK(cufftPlan2d(&state.forward, fy, fx, CUFFT_R2C));
    CUFFT_CHECK(cufftPlan2d(&state.inverse, fy, fx, CUFFT_C2R));
    state.fx = fx;
    state.fy = fy;
    state.mask_ready = 0;
}

// The mask's spectrum, once per mask and size: scatter the taps into the zeroed buffer, R2C.
void transform_mask() {
    float *d_mask = (float *)device_malloc(sizeof state.mask, "cuFFT mask");
    const int taps = state.mask_w * state.mask_h;
    CUDA_CHECK(cudaMemcpy(d_mask, state.mask, taps * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(state.real, 0, (size_t)state.fx * state.fy * sizeof(float)));
    scatter_mask_kernel<<<(taps + 255) / 256, 256>>>(d_mask, state.mask_w, state.mask_h,
                                                     state.real, state.fx, state.fy);
    CUDA_CHECK_LAUNCH();
    CUFFT_CHECK(cufftExecR2C(state.forward, state.real, state.mask_spectrum));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_mask));
    state.mask_ready = 1;
}

} // namespace

extern "C" {

size_t fft_conv_points(int width, int height, int mask_w, int mask_h) {
    return (size_t)good_size(width + mask_w - 1) * good_size(height + mask_h - 1);
}

void fft_conv_set_mask(const float *h_mask, int mask_w, int mask_h) {
    if (mask_w < 1 || mask_h < 1 || mask_w > BASELINE_MAX_MASK_SIDE ||
        mask_h > BASELINE_MAX_MASK_SIDE)
        wb_die(WB_EXIT_USAGE, "fft_conv_set_mask: mask %dx%d is outside 1..%d per side", mask_w,
               mask_h, BASELINE_MAX_MASK_SIDE);
    for (int k = 0; k < mask_w * mask_h; ++k) state.mask[k] = h_mask[k];
    state.mask_w = mask_w;
    state.mask_h = mask_h;
    state.mask_ready = 0;
}

void fft_conv_launch(const float *d_in, float *d_out, size_t pitch, int width, int height,
                     int mask_w, int mask_h, int block) {
    (void)block;
    if (mask_w != state.mask_w || mask_h != state.mask_h)
        wb_die(WB_EXIT_USAGE, "fft_conv_launch: mask %dx%d, but %dx%d was set", mask_w, mask_h,
               state.mask_w, state.mask_h);
    const int fx = good_size(width + mask_w - 1), fy = good_size(height + mask_h - 1);
    if (fx != state.fx || fy != state.fy) build(fx, fy);
    if (!state.mask_ready) transform_mask();
    const dim3 threads(32, 8);
    pad_kernel<<<dim3((fx + 31) / 32, (fy + 7) / 8), threads>>>(d_in, pitch, width, height,
                                                                state.real, fx, fy);
    CUDA_CHECK_LAUNCH();
    CUFFT_CHECK(cufftExecR2C(state.forward, state.real, state.spectrum));
    const size_t count = (size_t)fy * (fx / 2 + 1);
    multiply_kernel<<<(unsigned)((count + 255) / 256), 256>>>(state.spectrum, state.mask_spectrum,
                                                              count, 1.0f / ((float)fx * fy));
    CUDA_CHECK_LAUNCH();
    CUFFT_CHECK(cufftExecC2R(state.inverse, state.spectrum, state.real));
    crop_kernel<<<dim3((width + 31) / 32, (height + 7) / 8), threads>>>(state.real, fx, d_out,
                                                                         pitch, width, height);
    CUDA_CHECK_LAUNCH();
}
}
