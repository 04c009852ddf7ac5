/* data_gen.h: deterministic inputs.
 *
 *   struct rng            splitmix64 generator: same seed, same numbers, on every machine
 *   rng_fresh_seed        a new seed per run (time and process id), for "random inputs drawn fresh"
 *   rng_uniform           float in [lo, hi)
 *   fill_uniform          n floats in [lo, hi) from a seed
 *   signal_pattern        1D test signals that make a mask's effect easy to see
 *   image_pattern         2D test images (checkerboard, zone plate, impulse) for one plane
 */
#ifndef DATA_GEN_H
#define DATA_GEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rng {
    uint64_t state;
};

void rng_init(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [lo, hi), from the top 24 bits of the next number (exactly representable steps). */
float rng_uniform(struct rng *r, float lo, float hi);
/* A seed that differs between runs; print it so a failing run can be repeated with --seed. */
uint64_t rng_fresh_seed(void);

/* x[0..n-1] uniform in [lo, hi), the sequence fixed by seed. */
void fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi);

enum signal_kind { SIGNAL_RANDOM, SIGNAL_IMPULSE, SIGNAL_STEP, SIGNAL_SINE };
/* Fills x[0..n-1]: RANDOM uniform in [-1, 1) from seed; IMPULSE a single 1 at n/2; STEP 0 then
 * 1 from n/2 on; SINE a sine of period 64 samples plus seeded noise of amplitude 0.1. */
void signal_pattern(enum signal_kind kind, float *x, size_t n, uint64_t seed);

enum image_pattern_kind { PATTERN_CHECKERBOARD, PATTERN_ZONE_PLATE, PATTERN_IMPULSE };
/* Fills one width x height plane with values in [0, 1]: CHECKERBOARD squares of `cell` pixels;
 * ZONE_PLATE the cosine chirp 0.5 + 0.5 cos(pi r^2 / max(width, height)) centred in the image,
 * which sweeps every spatial frequency up to Nyquist at its edge; IMPULSE zeros with a 1 at
 * (width/2, height/2) every `cell` pixels, so each impulse draws the mask itself. */
void image_pattern(enum image_pattern_kind kind, float *plane, int width, int height, int cell);

#ifdef __cplusplus
}
#endif
#endif
