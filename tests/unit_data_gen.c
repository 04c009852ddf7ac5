/* unit_data_gen.c: tests of common/data_gen.c, the workbook's random numbers and test patterns
 * (no GPU needed).
 *
 *   usage: unit_data_gen
 *
 *   rng_next        pinned splitmix64 outputs: "same seed, same numbers, on every machine"
 *   rng_uniform     stays in [lo, hi) and covers it, including the one draw in 16 million whose
 *                   float rounds to hi (asked for directly, by inverting splitmix64)
 *   fill_uniform    deterministic per seed, different across seeds, in range, mean near 0
 *   signal_pattern  the impulse and the step where the lessons say; random and sine seeded and
 *                   within their amplitude
 *   image_pattern   checkerboard cells and flips, the impulse grid, the zone plate's range and
 *                   symmetry
 *
 * Every seed here is fixed: the expected values are pinned or worked out beside them.
 */
#include "check.h"
#include "data_gen.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- splitmix64 inversion ------------------------------------------------------------------- */

/* Inverse of x ^= x >> s: each pass recovers s more of the top bits. */
static uint64_t unxorshift(uint64_t y, int s) {
    uint64_t x = y;
    for (int k = s; k < 64; k += s)
        x = y ^ (x >> s);
    return x;
}

/* Inverse of an odd number modulo 2^64 by Newton's iteration (3 correct bits, doubling). */
static uint64_t inverse_mod64(uint64_t c) {
    uint64_t inv = c;
    for (int k = 0; k < 5; ++k)
        inv *= 2 - c * inv;
    return inv;
}

/* The splitmix64 state whose next output is `output`: lets a test ask for the extreme draw
 * (all top 24 bits set) that random sampling would hit once in 16 million tries. */
static uint64_t splitmix_state_for(uint64_t output) {
    uint64_t z = unxorshift(output, 31) * inverse_mod64(0x94D049BB133111EBull);
    z = unxorshift(z, 27) * inverse_mod64(0xBF58476D1CE4E5B9ull);
    return unxorshift(z, 30) - 0x9E3779B97F4A7C15ull;
}

/* ---- rng ---------------------------------------------------------------------------------- */

static void test_rng(void) {
    /* Published splitmix64 outputs: "same seed, same numbers, on every machine" means these. */
    struct rng r;
    rng_init(&r, 0);
    CHECK(rng_next(&r) == 0xE220A8397B1DCDAFull);
    CHECK(rng_next(&r) == 0x6E789E6AA1B965F4ull);
    rng_init(&r, 1234567);
    CHECK(rng_next(&r) == 6457827717110365317ull);
    CHECK(rng_next(&r) == 3203168211198807973ull);
    CHECK(rng_next(&r) == 9817491932198370423ull);

    /* Same seed, same sequence; a neighbouring seed gives a different one. */
    struct rng a, b, c;
    rng_init(&a, 42);
    rng_init(&b, 42);
    rng_init(&c, 43);
    int same = 1, differ = 0;
    for (int i = 0; i < 1000; ++i) {
        uint64_t va = rng_next(&a), vb = rng_next(&b), vc = rng_next(&c);
        same &= va == vb;
        differ += va != vc;
    }
    CHECK(same);
    CHECK(differ == 1000);

    /* rng_uniform stays in [lo, hi) for ranges with and without exact float steps. In
     * [-1000, -999) the floats near hi are 2^-14 apart, so lo + (hi - lo) * unit rounds to hi
     * for the top 2^-15 of units unless rng_uniform guards its upper end (draw 9050 of seed 11
     * would be -999). */
    const float ranges[][2] = {
        {-1.0f, 1.0f}, {0.0f, 1.0f}, {-0.1f, 0.1f}, {2.5f, 7.0f}, {-1000.0f, -999.0f}};
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; ++k) {
        float lo = ranges[k][0], hi = ranges[k][1], min = INFINITY, max = -INFINITY;
        rng_init(&r, 7 + k);
        int inside = 1;
        for (int i = 0; i < 100000; ++i) {
            float v = rng_uniform(&r, lo, hi);
            inside &= v >= lo && v < hi;
            min = fminf(min, v);
            max = fmaxf(max, v);
        }
        CHECK(inside);
        /* and it covers the range: 100000 draws come within 0.1% of both ends */
        CHECK(min < lo + 0.001f * (hi - lo) && max > hi - 0.001f * (hi - lo));
    }

    /* The largest draw (top 24 bits all ones, unit = 1 - 2^-24): in [-1, 1) it is 1 - 2^-23.
     * In [1, 2) the exact value 2 - 2^-24 lies halfway between 2 - 2^-23 and 2, and float
     * rounding (to even) gives 2.0f = hi, outside [lo, hi). */
    uint64_t state = splitmix_state_for(0xFFFFFF0000000000ull);
    rng_init(&r, state);
    CHECK(rng_next(&r) >> 40 == 0xFFFFFF); /* the inversion above is right */
    rng_init(&r, state);
    CHECK(rng_uniform(&r, -1.0f, 1.0f) == 1.0f - 0x1p-23f);
    rng_init(&r, state);
    float top = rng_uniform(&r, 1.0f, 2.0f);
    CHECK(top < 2.0f);                   /* rng_uniform must step back below hi here */
    rng_init(&r, splitmix_state_for(0)); /* and the smallest draw is lo exactly */
    CHECK(rng_uniform(&r, 1.0f, 2.0f) == 1.0f);

    /* fill_uniform: deterministic per seed, different across seeds, in range. */
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    fill_uniform(x, N, 2024, -1.0f, 1.0f);
    fill_uniform(y, N, 2024, -1.0f, 1.0f);
    fill_uniform(z, N, 2025, -1.0f, 1.0f);
    CHECK(memcmp(x, y, N * sizeof *x) == 0);
    int equal = 0, inside = 1;
    double mean = 0.0;
    for (int i = 0; i < N; ++i) {
        equal += x[i] == z[i];
        inside &= x[i] >= -1.0f && x[i] < 1.0f;
        mean += x[i];
    }
    mean /= N;
    CHECK(equal < 10);
    CHECK(inside);
    /* The mean of 1e5 uniforms on [-1, 1) has standard deviation 0.0018: 0.01 is 5.5 sigma. */
    CHECK_NEAR(mean, 0.0, 0.01);
    free(z);
    free(y);
    free(x);

    /* signal_pattern: IMPULSE a single 1 at n/2, STEP 1 from n/2 on; odd and even n. */
    for (size_t n = 7; n <= 10; n += 3) {
        float s[10];
        signal_pattern(SIGNAL_IMPULSE, s, n, 1);
        int ok = 1;
        for (size_t i = 0; i < n; ++i)
            ok &= s[i] == (i == n / 2 ? 1.0f : 0.0f);
        CHECK(ok);
        signal_pattern(SIGNAL_STEP, s, n, 1);
        ok = 1;
        for (size_t i = 0; i < n; ++i)
            ok &= s[i] == (i >= n / 2 ? 1.0f : 0.0f);
        CHECK(ok);
    }
    float s7[7];
    signal_pattern(SIGNAL_IMPULSE, s7, 7, 1);
    CHECK(s7[3] == 1.0f && s7[2] == 0.0f && s7[4] == 0.0f); /* 7/2 = 3, spelled out */
    signal_pattern(SIGNAL_STEP, s7, 7, 1);
    CHECK(s7[2] == 0.0f && s7[3] == 1.0f && s7[6] == 1.0f);
    /* RANDOM and SINE: seeded, so repeatable, and within their stated amplitude. */
    float r1[256], r2[256];
    signal_pattern(SIGNAL_RANDOM, r1, 256, 5);
    signal_pattern(SIGNAL_RANDOM, r2, 256, 5);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    int in_range = 1;
    for (int i = 0; i < 256; ++i)
        in_range &= r1[i] >= -1.0f && r1[i] < 1.0f;
    CHECK(in_range);
    signal_pattern(SIGNAL_SINE, r1, 256, 5);
    signal_pattern(SIGNAL_SINE, r2, 256, 5);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    in_range = 1;
    for (int i = 0; i < 256; ++i)
        in_range &= fabsf(r1[i]) <= 1.1f;
    CHECK(in_range);
    CHECK(fabsf(r1[16] - 1.0f) <= 0.1f && fabsf(r1[48] + 1.0f) <= 0.1f); /* peak, trough */

    /* image_pattern CHECKERBOARD (cell 3 on 12x9): constant inside a cell, flips across every
     * cell edge, starts with 0 at the top-left. */
    enum { W = 12, H = 9 };
    float plane[W * H];
    image_pattern(PATTERN_CHECKERBOARD, plane, W, H, 3);
    int cells_ok = 1, flips_ok = 1, ones = 0;
    for (int yy = 0; yy < H; ++yy)
        for (int xx = 0; xx < W; ++xx) {
            float v = plane[yy * W + xx];
            ones += v == 1.0f;
            cells_ok &= v == plane[(yy / 3 * 3) * W + xx / 3 * 3] && (v == 0.0f || v == 1.0f);
            if (xx % 3 == 0 && xx > 0) flips_ok &= v != plane[yy * W + xx - 1];
            if (yy % 3 == 0 && yy > 0) flips_ok &= v != plane[(yy - 1) * W + xx];
        }
    CHECK(cells_ok);
    CHECK(flips_ok);
    CHECK(plane[0] == 0.0f && plane[3] == 1.0f && plane[3 * W] == 1.0f);
    CHECK(ones == 6 * 9); /* 4x3 cells, 6 of them white, 9 pixels each */

    /* IMPULSE: with a cell larger than the image, the single 1 sits at (w/2, h/2) = (6, 4). */
    image_pattern(PATTERN_IMPULSE, plane, W, H, 100);
    ones = 0;
    for (int i = 0; i < W * H; ++i)
        ones += plane[i] != 0.0f;
    CHECK(ones == 1 && plane[4 * W + 6] == 1.0f);
    /* Every 4 pixels from the centre: x in {2, 6, 10}, y in {0, 4, 8}, so 9 ones. */
    image_pattern(PATTERN_IMPULSE, plane, W, H, 4);
    ones = 0;
    for (int i = 0; i < W * H; ++i)
        ones += plane[i] != 0.0f;
    CHECK(ones == 9 && plane[0 * W + 2] == 1.0f && plane[8 * W + 10] == 1.0f &&
          plane[4 * W + 6] == 1.0f && plane[4 * W + 7] == 0.0f);

    /* ZONE_PLATE: in [0, 1], 1 at the centre, mirror-symmetric about it. */
    enum { ZW = 64, ZH = 48 };
    float zone[ZW * ZH];
    image_pattern(PATTERN_ZONE_PLATE, zone, ZW, ZH, 1);
    int bounded = 1, symmetric = 1;
    float lowest = 1.0f;
    for (int yy = 0; yy < ZH; ++yy)
        for (int xx = 0; xx < ZW; ++xx) {
            float v = zone[yy * ZW + xx];
            bounded &= v >= 0.0f && v <= 1.0f;
            lowest = fminf(lowest, v);
            if (xx > 0) symmetric &= v == zone[yy * ZW + (ZW - xx)]; /* x - 32 vs 32 - x */
        }
    CHECK(bounded);
    CHECK(symmetric);
    CHECK(zone[(ZH / 2) * ZW + ZW / 2] == 1.0f);
    CHECK(lowest < 0.01f); /* the chirp really swings down to black somewhere */
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: unit_data_gen\n");
        return 2;
    }
    test_rng();
    return check_summary("unit_data_gen");
}
