/* data_gen.c: seeded generator, test signals and test images (see data_gen.h). */
#define _POSIX_C_SOURCE 200809L
#include "data_gen.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

void rng_init(struct rng *r, uint64_t seed) {
    r->state = seed;
}

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and every seed gives a good sequence. */
uint64_t rng_next(struct rng *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_uniform(struct rng *r, float lo, float hi) {
    float unit = (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
    float v = lo + (hi - lo) * unit;
    return v < hi ? v : nextafterf(hi, lo); /* float rounding can land on hi itself */
}

uint64_t rng_fresh_seed(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct rng mix;
    rng_init(&mix, (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec ^
                       ((uint64_t)getpid() << 32));
    /* Keep seeds short enough to retype: 0 .. 2^32-1. */
    return rng_next(&mix) >> 32;
}

void fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi) {
    struct rng r;
    rng_init(&r, seed);
    for (size_t i = 0; i < n; ++i)
        x[i] = rng_uniform(&r, lo, hi);
}

void signal_pattern(enum signal_kind kind, float *x, size_t n, uint64_t seed) {
    struct rng r;
    rng_init(&r, seed);
    for (size_t i = 0; i < n; ++i) {
        switch (kind) {
        case SIGNAL_RANDOM:
            x[i] = rng_uniform(&r, -1.0f, 1.0f);
            break;
        case SIGNAL_IMPULSE:
            x[i] = (i == n / 2) ? 1.0f : 0.0f;
            break;
        case SIGNAL_STEP:
            x[i] = (i >= n / 2) ? 1.0f : 0.0f;
            break;
        case SIGNAL_SINE:
            x[i] = (float)sin(2.0 * PI * (double)(i % 64) / 64.0) + rng_uniform(&r, -0.1f, 0.1f);
            break;
        }
    }
}

void image_pattern(enum image_pattern_kind kind, float *plane, int width, int height, int cell) {
    if (cell < 1) cell = 1;
    double extent = width > height ? width : height;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float v = 0.0f;
            switch (kind) {
            case PATTERN_CHECKERBOARD:
                v = ((x / cell + y / cell) % 2) ? 1.0f : 0.0f;
                break;
            case PATTERN_ZONE_PLATE: {
                double dx = x - width / 2, dy = y - height / 2;
                v = (float)(0.5 + 0.5 * cos(PI * (dx * dx + dy * dy) / extent));
                break;
            }
            case PATTERN_IMPULSE:
                v = ((x - width / 2) % cell == 0 && (y - height / 2) % cell == 0) ? 1.0f : 0.0f;
                break;
            }
            plane[(size_t)y * width + x] = v;
        }
    }
}
