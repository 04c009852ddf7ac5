/* unit_image_io.c: tests of common/image_io.c.
 *
 *   usage: unit_image_io [DIR [SEED]]   temporary files go to DIR (default /tmp/unit_image_io),
 *                                       random samples come from SEED (default: the time)
 *
 *   helpers               paths, splitmix64, raw file bytes, a libpng writer for any colour type
 *                         and bit depth, a hand-made .npy writer, expected-failure checkers
 *   image_alloc           limits and has_alpha
 *   PNG formats           every colour type and bit depth, with and without tRNS, plain and Adam7,
 *                         odd sizes; full ramps prove the exact v / (2^depth - 1) mapping
 *   PNG save              1..4 channels: clamping, rounding, NaN, the colour type written, the
 *                         temporary file, overwriting, unwritable paths, a write failing half way
 *                         (a file-size rlimit) that must leave the previous file intact
 *   PNG bad input         missing, not a PNG, truncated, corrupt CRC, IHDR over the size limits
 *   npy round trips       0 to 4 dimensions, zero-sized dimensions, NumPy's exact header, refused
 *                         saves, a save failing half way
 *   npy hand-made files   float64, versions 2.0 and 3.0, free whitespace and key order
 *   npy bad input         magic, version, descr, Fortran order, shapes, sizes, header syntax
 */
#define _POSIX_C_SOURCE 200809L /* mkdir(), access() under -std=c11 */

#include "check.h"
#include "image_io.h"

#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- helpers ------------------------------------------------------------------------------ */

static const char *test_dir = "/tmp/unit_image_io";

/* Temporaries the savers left beside path (safe_output names them ".<name>.XXXXXX"). */
static int temporaries_left(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[512], prefix[256];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    snprintf(prefix, sizeof prefix, ".%s.", slash ? slash + 1 : path);
    DIR *d = opendir(dir);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        count += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d) closedir(d);
    return count;
}

/* The path of a test file; each call site owns its buffer. */
static char *path_of(char out[512], const char *name) {
    snprintf(out, 512, "%s/%s", test_dir, name);
    return out;
}

static uint64_t rng_state;

/* splitmix64: tiny, and good enough that every sample value shows up in the larger images. */
static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rng_below(unsigned n) {
    return (unsigned)(rng_next() % n);
}

static float rng_range(float lo, float hi) {
    return lo + (hi - lo) * (float)((double)(rng_next() >> 40) / (double)(1 << 24));
}

static int write_bytes(const char *path, const void *bytes, size_t len) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t n = fwrite(bytes, 1, len, fp);
    return fclose(fp) == 0 && n == len ? 0 : -1;
}

/* Whole file into a malloc'ed buffer; NULL on failure. */
static unsigned char *read_bytes(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            unsigned char *grown = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!grown) break;
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
    } while (got > 0);
    fclose(fp);
    *len = n;
    return buf;
}

static int file_exists(const char *path) {
    return access(path, F_OK) == 0;
}

/* A soft limit on the size of files written (SIGXFSZ is ignored, so write() fails with EFBIG):
 * the way to make a save fail half way through. */
static struct rlimit saved_fsize;

static int limit_file_size(rlim_t bytes) {
    if (getrlimit(RLIMIT_FSIZE, &saved_fsize) != 0) return -1;
    struct rlimit r = saved_fsize;
    r.rlim_cur = bytes;
    return setrlimit(RLIMIT_FSIZE, &r);
}

static void unlimit_file_size(void) {
    setrlimit(RLIMIT_FSIZE, &saved_fsize);
}

/* What the test PNG writer needs besides the samples. */
struct png_spec {
    int color_type, depth;
    int interlace; /* PNG_INTERLACE_NONE or PNG_INTERLACE_ADAM7 */
    int npalette;
    png_color palette[256];
    int ntrans; /* palette: tRNS entries; gray and RGB: 1 when trans_color is a key colour */
    png_byte trans_alpha[256];
    png_color_16 trans_color;
    int extra_chunks; /* gAMA and sBIT, which the loader must not apply */
};

static int samples_per_pixel(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY_ALPHA:
        return 2;
    case PNG_COLOR_TYPE_RGB:
        return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA:
        return 4;
    default:
        return 1; /* gray, palette */
    }
}

/* The libpng calls that may longjmp; everything they use was set up by the caller. */
static int write_png_body(png_structp png, png_infop info, FILE *fp, int w, int h,
                          const struct png_spec *s, png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return -1;
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, s->depth, s->color_type, s->interlace,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    int palette = s->color_type == PNG_COLOR_TYPE_PALETTE;
    if (palette) png_set_PLTE(png, info, s->palette, s->npalette);
    if (s->ntrans)
        png_set_tRNS(png, info, palette ? s->trans_alpha : NULL, palette ? s->ntrans : 0,
                     palette ? NULL : &s->trans_color);
    if (s->extra_chunks) {
        png_set_gAMA_fixed(png, info, 45455);
        png_byte bits = palette ? 7 : (png_byte)(s->depth > 1 ? s->depth - 1 : 1);
        png_color_8 sbit = {bits, bits, bits, bits, bits};
        png_set_sBIT(png, info, &sbit);
    }
    png_write_info(png, info);
    png_write_image(png, rows); /* does the Adam7 passes itself when interlaced */
    png_write_end(png, NULL);
    return 0;
}

/* Writes a w x h PNG of any colour type and bit depth from integer samples (interleaved, palette
 * indices for palette images), packing sub-byte samples most significant bits first and 16-bit
 * samples big-endian as the PNG format stores them. */
static int write_png(const char *path, int w, int h, const struct png_spec *s,
                     const unsigned *samples) {
    size_t spp = (size_t)samples_per_pixel(s->color_type), depth = (size_t)s->depth;
    size_t rowbytes = ((size_t)w * spp * depth + 7) / 8;
    png_bytep buf = calloc((size_t)h, rowbytes);
    png_bytepp rows = malloc((size_t)h * sizeof *rows);
    FILE *fp = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int rc = -1;
    if (buf && rows && fp && info) {
        for (size_t y = 0; y < (size_t)h; ++y) {
            rows[y] = buf + y * rowbytes;
            for (size_t i = 0; i < (size_t)w * spp; ++i) {
                unsigned v = samples[y * (size_t)w * spp + i];
                if (depth == 16) {
                    rows[y][2 * i] = (png_byte)(v >> 8);
                    rows[y][2 * i + 1] = (png_byte)v;
                } else {
                    size_t bit = i * depth;
                    rows[y][bit / 8] |= (png_byte)(v << (8 - depth - bit % 8));
                }
            }
        }
        rc = write_png_body(png, info, fp, w, h, s, rows);
    }
    png_destroy_write_struct(&png, &info);
    if (fp && fclose(fp) != 0) rc = -1;
    free(rows);
    free(buf);
    return rc;
}

/* A failed image_load_png: -1, a message naming the file and containing keyword, and nothing
 * left to free in the image (which is filled with garbage first to see that it is reset). */
static void expect_png_failure(const char *path, const char *keyword, int line) {
    int before = check_failed;
    static float dummy;
    struct image img = {7, 7, 3, 0, &dummy};
    char err[WB_ERR_LEN] = "";
    int rc = image_load_png(path, &img, err);
    CHECK(rc == -1);
    CHECK(err[0] != '\0');
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, keyword) != NULL);
    CHECK(img.data == NULL && img.width == 0 && img.height == 0 && img.channels == 0);
    printf("  refused as expected: %s\n", err);
    if (check_failed != before)
        fprintf(stderr, "  (line %d: expected a failure mentioning '%s', got \"%s\")\n", line,
                keyword, err);
    if (rc == 0) image_free(&img);
}

/* The same for npy_load_f32. */
static void expect_npy_failure(const char *path, const char *keyword, int line) {
    int before = check_failed;
    static float dummy;
    float *data = &dummy;
    int ndim = 99;
    size_t shape[NPY_MAX_DIMS] = {0};
    char err[WB_ERR_LEN] = "";
    int rc = npy_load_f32(path, &data, &ndim, shape, err);
    CHECK(rc == -1);
    CHECK(data == NULL);
    CHECK(err[0] != '\0');
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, keyword) != NULL);
    printf("  refused as expected: %s\n", err);
    if (check_failed != before)
        fprintf(stderr, "  (line %d: expected a failure mentioning '%s', got \"%s\")\n", line,
                keyword, err);
    if (rc == 0) free(data);
}

/* A hand-made .npy: magic, version major.0, the header length in 2 (1.0) or 4 bytes, the dict,
 * then (when pad) spaces and '\n' up to a multiple of 64 as NumPy writes it, then the payload. */
static int write_npy_raw(const char *path, int major, const char *dict, int pad,
                         const void *payload, size_t payload_len) {
    size_t len_bytes = major == 1 ? 2 : 4, preamble = 8 + len_bytes;
    size_t dict_len = strlen(dict), header_len = dict_len;
    if (pad) header_len = (preamble + dict_len + 1 + 63) / 64 * 64 - preamble;
    size_t total = preamble + header_len + payload_len;
    unsigned char *buf = malloc(total);
    if (!buf) return -1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < len_bytes; ++i)
        buf[8 + i] = (unsigned char)(header_len >> (8 * i));
    memcpy(buf + preamble, dict, dict_len);
    if (pad) {
        memset(buf + preamble + dict_len, ' ', header_len - dict_len - 1);
        buf[preamble + header_len - 1] = '\n';
    }
    if (payload_len) memcpy(buf + preamble + header_len, payload, payload_len);
    int rc = write_bytes(path, buf, total);
    free(buf);
    return rc;
}

/* ---- image_alloc -------------------------------------------------------------------------- */

static void test_image_alloc(void) {
    char err[WB_ERR_LEN];
    struct image img;
    for (int c = 1; c <= 4; ++c) {
        CHECK(image_alloc(&img, 3, 2, c, err) == 0);
        CHECK(img.data != NULL && img.width == 3 && img.height == 2 && img.channels == c);
        CHECK(img.has_alpha == (c == 2 || c == 4));
        image_free(&img);
        CHECK(img.data == NULL && img.width == 0 && img.channels == 0);
    }
    image_free(&img); /* a zeroed struct */
    CHECK(image_alloc(&img, IMAGE_MAX_DIM, 1, 1, err) == 0);
    image_free(&img);

    static const int bad[][3] = {{3, 2, 0},
                                 {3, 2, 5},
                                 {0, 2, 1},
                                 {3, 0, 1},
                                 {-1, 2, 1},
                                 {IMAGE_MAX_DIM + 1, 1, 1},
                                 {1, IMAGE_MAX_DIM + 1, 1},
                                 {20000, 20000, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = '\0';
        CHECK(image_alloc(&img, bad[i][0], bad[i][1], bad[i][2], err) == -1);
        CHECK(err[0] != '\0' && img.data == NULL);
    }
}

/* ---- PNG formats -------------------------------------------------------------------------- */

/* Writes one image of the given format with random samples, loads it and compares every value
 * with sample / (2^depth - 1), palette entries / 255 and the alpha that tRNS implies. */
static void check_png_format(int color_type, int depth, int with_trns, int w, int h, int adam7) {
    int before = check_failed;
    char name[128], path[512], err[WB_ERR_LEN] = "";
    snprintf(name, sizeof name, "fmt_t%d_d%d_trns%d_%dx%d_%s.png", color_type, depth, with_trns, w,
             h, adam7 ? "adam7" : "plain");
    path_of(path, name);

    struct png_spec s;
    memset(&s, 0, sizeof s);
    s.color_type = color_type;
    s.depth = depth;
    s.interlace = adam7 ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE;
    s.extra_chunks = adam7;
    int palette = color_type == PNG_COLOR_TYPE_PALETTE;
    unsigned maxv = (1u << depth) - 1;
    if (palette) {
        s.npalette = 1 << depth;
        for (int i = 0; i < s.npalette; ++i) {
            s.palette[i].red = (png_byte)rng_below(256);
            s.palette[i].green = (png_byte)rng_below(256);
            s.palette[i].blue = (png_byte)rng_below(256);
            s.trans_alpha[i] = (png_byte)rng_below(256);
        }
    }

    int spp = samples_per_pixel(color_type);
    size_t npix = (size_t)w * (size_t)h;
    unsigned *samples = malloc(npix * (size_t)spp * sizeof *samples);
    for (size_t i = 0; i < npix * (size_t)spp; ++i)
        samples[i] = rng_below(maxv + 1);

    if (with_trns) {
        /* Palette: only the first half of the entries get an alpha, the rest stay opaque.
         * Gray and RGB: the key is the first pixel's colour, so at least one pixel matches. */
        s.ntrans = palette ? (s.npalette + 1) / 2 : 1;
        s.trans_color.gray = (png_uint_16)samples[0];
        if (color_type == PNG_COLOR_TYPE_RGB) {
            s.trans_color.red = (png_uint_16)samples[0];
            s.trans_color.green = (png_uint_16)samples[1];
            s.trans_color.blue = (png_uint_16)samples[2];
        }
    }
    int want_channels = palette ? (with_trns ? 4 : 3) : spp + (with_trns ? 1 : 0);

    CHECK(write_png(path, w, h, &s, samples) == 0);
    struct image img;
    int rc = image_load_png(path, &img, err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(img.width == w && img.height == h);
        CHECK(img.channels == want_channels);
        CHECK(img.has_alpha == (want_channels == 2 || want_channels == 4));
        double max_err = 0;
        for (size_t p = 0; p < npix && img.channels == want_channels; ++p) {
            const unsigned *sp = samples + p * (size_t)spp;
            double want[4];
            if (palette) {
                const png_color *e = &s.palette[sp[0]];
                want[0] = e->red / 255.0;
                want[1] = e->green / 255.0;
                want[2] = e->blue / 255.0;
                want[3] = (int)sp[0] < s.ntrans ? s.trans_alpha[sp[0]] / 255.0 : 1.0;
            } else {
                int key = with_trns;
                for (int c = 0; c < spp; ++c) {
                    want[c] = (double)sp[c] / maxv;
                    key = key && sp[c] == samples[c]; /* the key is pixel 0's colour */
                }
                if (with_trns) want[spp] = key ? 0.0 : 1.0;
            }
            for (int c = 0; c < want_channels; ++c) {
                double d = fabs(img.data[(size_t)c * npix + p] - want[c]);
                if (!(d <= max_err)) max_err = d; /* NaN sticks */
            }
        }
        CHECK_NEAR(max_err, 0.0, 1e-6);
        image_free(&img);
    } else {
        fprintf(stderr, "  %s\n", err);
    }
    free(samples);
    if (check_failed != before) fprintf(stderr, "  (in %s)\n", name);
}

static void test_png_formats(void) {
    static const struct {
        int color_type, depth, trns_too;
    } formats[] = {
        {PNG_COLOR_TYPE_GRAY, 1, 1},        {PNG_COLOR_TYPE_GRAY, 2, 1},
        {PNG_COLOR_TYPE_GRAY, 4, 1},        {PNG_COLOR_TYPE_GRAY, 8, 1},
        {PNG_COLOR_TYPE_GRAY, 16, 1},       {PNG_COLOR_TYPE_GRAY_ALPHA, 8, 0},
        {PNG_COLOR_TYPE_GRAY_ALPHA, 16, 0}, {PNG_COLOR_TYPE_RGB, 8, 1},
        {PNG_COLOR_TYPE_RGB, 16, 1},        {PNG_COLOR_TYPE_RGB_ALPHA, 8, 0},
        {PNG_COLOR_TYPE_RGB_ALPHA, 16, 0},  {PNG_COLOR_TYPE_PALETTE, 1, 1},
        {PNG_COLOR_TYPE_PALETTE, 2, 1},     {PNG_COLOR_TYPE_PALETTE, 4, 1},
        {PNG_COLOR_TYPE_PALETTE, 8, 1},
    };
    static const int sizes[][2] = {{13, 7}, {1, 1}, {1, 23}, {23, 1}};
    int cases = 0;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; ++f)
        for (int trns = 0; trns <= formats[f].trns_too; ++trns)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
                for (int adam7 = 0; adam7 <= 1; ++adam7, ++cases)
                    check_png_format(formats[f].color_type, formats[f].depth, trns, sizes[z][0],
                                     sizes[z][1], adam7);
    printf("  %d PNG format cases\n", cases);
}

/* Gray ramps holding every level of each bit depth once (65536 wide for 16 bits, exactly
 * IMAGE_MAX_DIM): the loaded value must be the float nearest to level / (2^depth - 1), bit for
 * bit. For 1, 2 and 4 bits this proves libpng's expansion to 8 bits is level * 255 / (2^depth-1)
 * with nothing lost; for 16 bits it proves the byte order. */
static void test_png_ramps(void) {
    static const int depths[] = {1, 2, 4, 8, 16};
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; ++k) {
        int depth = depths[k], w = 1 << depth;
        char name[64], path[512], err[WB_ERR_LEN] = "";
        snprintf(name, sizeof name, "ramp_gray%d.png", depth);
        path_of(path, name);
        unsigned *samples = malloc((size_t)w * sizeof *samples);
        for (int i = 0; i < w; ++i)
            samples[i] = (unsigned)i;
        struct png_spec s;
        memset(&s, 0, sizeof s);
        s.color_type = PNG_COLOR_TYPE_GRAY;
        s.depth = depth;
        CHECK(write_png(path, w, 1, &s, samples) == 0);
        struct image img;
        int rc = image_load_png(path, &img, err);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(img.width == w && img.height == 1 && img.channels == 1 && !img.has_alpha);
            int mismatches = 0;
            for (int i = 0; i < w && img.width == w; ++i)
                mismatches += img.data[i] != (float)i / (float)(w - 1);
            CHECK(mismatches == 0);
            if (mismatches) fprintf(stderr, "  gray%d ramp: %d levels off\n", depth, mismatches);
            image_free(&img);
        }
        free(samples);
    }
}

/* ---- PNG save ----------------------------------------------------------------------------- */

static double expected_saved(float v) {
    if (v != v) return 0.0;
    double c = v < 0.0f ? 0.0 : v > 1.0f ? 1.0 : (double)v;
    return round(c * 255.0) / 255.0;
}

static void test_png_save(void) {
    char err[WB_ERR_LEN] = "";
    static const int color_type_byte[5] = {-1, 0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    for (int channels = 1; channels <= 4; ++channels) {
        int before = check_failed, w = 13, h = 7;
        char name[64], path[512];
        snprintf(name, sizeof name, "save_%dch.png", channels);
        path_of(path, name);
        struct image img, back;
        CHECK(image_alloc(&img, w, h, channels, err) == 0);
        size_t n = (size_t)w * h * channels;
        for (size_t i = 0; i < n; ++i)
            img.data[i] = rng_range(-0.25f, 1.25f);
        /* Specials spread over the planes: out of range, infinities, NaN, -0, the ends. */
        static const float specials[] = {-0.5f, 1.5f, NAN,  INFINITY,      -INFINITY,
                                         -0.0f, 0.0f, 1.0f, 0.5f / 255.0f, 254.49f / 255.0f,
                                         1e-30f};
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i)
            img.data[(i * 37) % n] = specials[i];

        CHECK(image_save_png(path, &img, err) == 0);
        CHECK(temporaries_left(path) == 0);
        size_t len = 0;
        unsigned char *bytes = read_bytes(path, &len);
        CHECK(bytes && len > 33);
        if (bytes && len > 33) {
            CHECK(bytes[24] == 8);                         /* IHDR bit depth */
            CHECK(bytes[25] == color_type_byte[channels]); /* IHDR colour type */
        }
        free(bytes);

        int rc = image_load_png(path, &back, err);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(back.width == w && back.height == h && back.channels == channels);
            CHECK(back.has_alpha == (channels == 2 || channels == 4));
            double max_err = 0;
            for (size_t i = 0; i < n && back.channels == channels; ++i) {
                double d = fabs(back.data[i] - expected_saved(img.data[i]));
                if (!(d <= max_err)) max_err = d;
            }
            CHECK_NEAR(max_err, 0.0, 1e-6);
            image_free(&back);
        }

        /* Saving again over the same path replaces the file. */
        for (size_t i = 0; i < n; ++i)
            img.data[i] = (float)(255 - i % 256) / 255.0f;
        CHECK(image_save_png(path, &img, err) == 0);
        CHECK(temporaries_left(path) == 0);
        rc = image_load_png(path, &back, err);
        CHECK(rc == 0);
        if (rc == 0) {
            int mismatches = 0;
            for (size_t i = 0; i < n; ++i)
                mismatches += back.data[i] != img.data[i];
            CHECK(mismatches == 0);
            image_free(&back);
        }
        image_free(&img);
        if (check_failed != before) fprintf(stderr, "  (in %s)\n", name);
    }

    /* Every 8-bit level survives a save and a load exactly. */
    {
        char path[512];
        struct image img, back;
        path_of(path, "save_levels.png");
        CHECK(image_alloc(&img, 256, 1, 1, err) == 0);
        for (int i = 0; i < 256; ++i)
            img.data[i] = (float)i / 255.0f;
        CHECK(image_save_png(path, &img, err) == 0);
        CHECK(image_load_png(path, &back, err) == 0);
        int mismatches = 0;
        for (int i = 0; i < 256 && back.data; ++i)
            mismatches += back.data[i] != img.data[i];
        CHECK(back.data && mismatches == 0);
        image_free(&back);
        image_free(&img);
    }

    /* An unwritable target: -1, the path in the message, no file and no temporary left. */
    {
        char path[512];
        struct image img;
        path_of(path, "no_such_dir/out.png");
        CHECK(image_alloc(&img, 2, 2, 1, err) == 0);
        for (int i = 0; i < 4; ++i)
            img.data[i] = 0.5f;
        err[0] = '\0';
        CHECK(image_save_png(path, &img, err) == -1);
        CHECK(err[0] != '\0' && strstr(err, path) != NULL);
        printf("  refused as expected: %s\n", err);
        CHECK(!file_exists(path) && temporaries_left(path) == 0);

        /* A directory as target: the temporary file is written, the rename fails and the
         * temporary file is removed again. */
        path_of(path, "a_directory.png");
        mkdir(path, 0777);
        err[0] = '\0';
        CHECK(image_save_png(path, &img, err) == -1);
        CHECK(err[0] != '\0' && strstr(err, path) != NULL);
        printf("  refused as expected: %s\n", err);
        CHECK(temporaries_left(path) == 0);

        /* An invalid image is refused before anything is created. */
        path_of(path, "invalid.png");
        img.channels = 5;
        err[0] = '\0';
        CHECK(image_save_png(path, &img, err) == -1);
        CHECK(err[0] != '\0' && strstr(err, path) != NULL && !file_exists(path));
        img.channels = 1;
        image_free(&img);
    }

    /* A save that fails half way leaves the previous file as it was and no temporary file. */
    {
        char path[512];
        struct image img, noise, back;
        path_of(path, "keep.png");
        CHECK(image_alloc(&img, 1, 1, 1, err) == 0);
        img.data[0] = 0.5f;
        CHECK(image_save_png(path, &img, err) == 0);
        image_free(&img);
        CHECK(image_alloc(&noise, 64, 64, 3, err) == 0);
        for (size_t i = 0; i < (size_t)64 * 64 * 3; ++i)
            noise.data[i] = rng_range(0.0f, 1.0f);

        CHECK(limit_file_size(4096) == 0);
        err[0] = '\0';
        int rc = image_save_png(path, &noise, err);
        unlimit_file_size();
        CHECK(rc == -1 && err[0] != '\0' && strstr(err, path) != NULL);
        printf("  refused as expected: %s\n", err);
        CHECK(temporaries_left(path) == 0);

        /* A directory squatting on the old fixed temporary name ("keep.png.tmp") is left
         * alone: the writer makes a fresh name of its own (safe_output.h). */
        char squat_path[512], squat_tmp[520];
        path_of(squat_path, "squat.png");
        snprintf(squat_tmp, sizeof squat_tmp, "%s.tmp", squat_path);
        CHECK(mkdir(squat_tmp, 0777) == 0);
        CHECK(image_save_png(squat_path, &noise, err) == 0 && file_exists(squat_path));
        CHECK(rmdir(squat_tmp) == 0 && temporaries_left(squat_path) == 0);
        image_free(&noise);

        rc = image_load_png(path, &back, err);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(back.width == 1 && back.height == 1 && back.channels == 1);
            CHECK_NEAR(back.data[0], 128.0 / 255.0, 1e-6);
            image_free(&back);
        }
    }
}

/* ---- PNG bad input ------------------------------------------------------------------------ */

/* Copies a valid 1x1 PNG with the IHDR's width and height replaced (and its CRC recomputed), so
 * only the declared size is wrong; the IDAT that follows is the 1x1 one. */
static void write_png_claiming(const char *src, const char *dst, uint32_t w, uint32_t h) {
    size_t len = 0;
    unsigned char *b = read_bytes(src, &len);
    CHECK(b && len > 33 && memcmp(b + 12, "IHDR", 4) == 0);
    if (!b || len <= 33) {
        free(b);
        return;
    }
    for (int i = 0; i < 4; ++i) {
        b[16 + i] = (unsigned char)(w >> (24 - 8 * i));
        b[20 + i] = (unsigned char)(h >> (24 - 8 * i));
    }
    uLong crc = crc32(0L, b + 12, 17); /* chunk type and the 13 data bytes */
    for (int i = 0; i < 4; ++i)
        b[29 + i] = (unsigned char)(crc >> (24 - 8 * i));
    CHECK(write_bytes(dst, b, len) == 0);
    free(b);
}

static void test_png_bad_input(void) {
    char path[512], good[512], err[WB_ERR_LEN];

    expect_png_failure(path_of(path, "does_not_exist.png"), "No such file", __LINE__);

    CHECK(write_bytes(path_of(path, "text.png"), "hello, this is not a PNG\n", 25) == 0);
    expect_png_failure(path, "not a PNG", __LINE__);
    CHECK(write_bytes(path_of(path, "empty.png"), "", 0) == 0);
    expect_png_failure(path, "not a PNG", __LINE__);

    /* Noise does not compress, so half the file ends inside the IDAT data. */
    struct image img;
    CHECK(image_alloc(&img, 64, 64, 3, err) == 0);
    for (size_t i = 0; i < (size_t)64 * 64 * 3; ++i)
        img.data[i] = rng_range(0.0f, 1.0f);
    CHECK(image_save_png(path_of(good, "noise.png"), &img, err) == 0);
    image_free(&img);
    size_t len = 0;
    unsigned char *bytes = read_bytes(good, &len);
    CHECK(bytes && len > 64 * 64 * 3);
    if (bytes && len > 64 * 64 * 3) {
        CHECK(write_bytes(path_of(path, "half.png"), bytes, len / 2) == 0);
        expect_png_failure(path, "truncated or corrupt", __LINE__);
        CHECK(write_bytes(path_of(path, "sig_only.png"), bytes, 8) == 0);
        expect_png_failure(path, "truncated or corrupt", __LINE__);
        CHECK(write_bytes(path_of(path, "mid_ihdr.png"), bytes, 20) == 0);
        expect_png_failure(path, "truncated or corrupt", __LINE__);
        /* All pixels present, IEND (the last 12 bytes) missing. */
        CHECK(write_bytes(path_of(path, "no_iend.png"), bytes, len - 12) == 0);
        expect_png_failure(path, "truncated or corrupt", __LINE__);
        /* One flipped bit inside the IDAT data: the chunk's CRC no longer matches. */
        bytes[len / 2] ^= 0x10;
        CHECK(write_bytes(path_of(path, "bad_crc.png"), bytes, len) == 0);
        expect_png_failure(path, "CRC", __LINE__);
    }
    free(bytes);

    /* Sizes over the limits, refused from the IHDR alone: the message names the limit, which
     * proves the check came before any attempt to allocate 100000 x 100000 pixels or to read
     * their rows. */
    CHECK(image_alloc(&img, 1, 1, 1, err) == 0);
    img.data[0] = 0.5f;
    CHECK(image_save_png(path_of(good, "one_pixel.png"), &img, err) == 0);
    image_free(&img);
    char limit_side[32], limit_pixels[32];
    snprintf(limit_side, sizeof limit_side, "%d", IMAGE_MAX_DIM);
    snprintf(limit_pixels, sizeof limit_pixels, "%zu", IMAGE_MAX_PIXELS);
    write_png_claiming(good, path_of(path, "huge_100000x100000.png"), 100000, 100000);
    expect_png_failure(path, limit_side, __LINE__);
    expect_png_failure(path, "100000x100000", __LINE__);
    write_png_claiming(good, path_of(path, "wide_65537x1.png"), IMAGE_MAX_DIM + 1, 1);
    expect_png_failure(path, limit_side, __LINE__);
    write_png_claiming(good, path_of(path, "tall_1x65537.png"), 1, IMAGE_MAX_DIM + 1);
    expect_png_failure(path, limit_side, __LINE__);
    write_png_claiming(good, path_of(path, "many_20000x20000.png"), 20000, 20000);
    expect_png_failure(path, limit_pixels, __LINE__);
    /* Over libpng's own default limit of 1000000 per side: still our message. */
    write_png_claiming(good, path_of(path, "huge_2000000x1.png"), 2000000, 1);
    expect_png_failure(path, limit_side, __LINE__);
    /* Invalid for PNG itself (zero width): libpng's IHDR check refuses it. */
    write_png_claiming(good, path_of(path, "zero_0x1.png"), 0, 1);
    expect_png_failure(path, "corrupt", __LINE__);
    /* Control: the same patch with the real size loads fine. */
    write_png_claiming(good, path_of(path, "patched_1x1.png"), 1, 1);
    CHECK(image_load_png(path, &img, err) == 0);
    CHECK(img.data && img.width == 1 && fabs(img.data[0] - 128.0 / 255.0) < 1e-6);
    image_free(&img);
}

/* ---- npy round trips ---------------------------------------------------------------------- */

static void test_npy_roundtrip(void) {
    static const struct {
        int ndim;
        size_t shape[NPY_MAX_DIMS];
        const char *text; /* the shape as NumPy writes it */
    } cases[] = {
        {0, {0}, "()"},
        {1, {7}, "(7,)"},
        {2, {3, 4}, "(3, 4)"},
        {3, {2, 3, 5}, "(2, 3, 5)"},
        {4, {2, 1, 3, 2}, "(2, 1, 3, 2)"},
        {1, {0}, "(0,)"},
        {3, {3, 0, 2}, "(3, 0, 2)"},
        {2, {1, 1000}, "(1, 1000)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        int before = check_failed;
        char name[64], path[512], err[WB_ERR_LEN] = "";
        snprintf(name, sizeof name, "round_%zu.npy", k);
        path_of(path, name);
        size_t count = 1;
        for (int i = 0; i < cases[k].ndim; ++i)
            count *= cases[k].shape[i];
        float *data = malloc((count ? count : 1) * sizeof *data);
        for (size_t i = 0; i < count; ++i)
            data[i] = rng_range(-1e3f, 1e3f);
        if (count > 3) {
            data[1] = NAN;
            data[2] = -INFINITY;
            data[3] = -0.0f;
        }
        CHECK(npy_save_f32(path, data, cases[k].ndim, cases[k].shape, err) == 0);
        CHECK(temporaries_left(path) == 0);

        /* The header must be NumPy's, byte for byte, padded to 64 with spaces and '\n'. */
        size_t len = 0;
        unsigned char *b = read_bytes(path, &len);
        CHECK(b && len >= 10);
        if (b && len >= 10) {
            size_t header_len = (size_t)b[8] | (size_t)b[9] << 8;
            char dict[128];
            snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                     cases[k].text);
            CHECK(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
            CHECK((10 + header_len) % 64 == 0);
            CHECK(len == 10 + header_len + count * sizeof(float));
            CHECK(header_len > strlen(dict) && memcmp(b + 10, dict, strlen(dict)) == 0);
            int pad_ok = b[10 + header_len - 1] == '\n';
            for (size_t i = 10 + strlen(dict); i + 1 < 10 + header_len; ++i)
                pad_ok = pad_ok && b[i] == ' ';
            CHECK(pad_ok);
        }
        free(b);

        float *back = NULL;
        int ndim = -1;
        size_t shape[NPY_MAX_DIMS] = {0};
        int rc = npy_load_f32(path, &back, &ndim, shape, err);
        CHECK(rc == 0);
        if (rc == 0) {
            /* Zero-sized arrays are allowed and still come back as a pointer to free. */
            CHECK(back != NULL);
            CHECK(ndim == cases[k].ndim);
            int same_shape = ndim == cases[k].ndim;
            for (int i = 0; i < ndim && same_shape; ++i)
                same_shape = shape[i] == cases[k].shape[i];
            CHECK(same_shape);
            CHECK(count == 0 || memcmp(back, data, count * sizeof(float)) == 0);
            free(back);
        } else {
            fprintf(stderr, "  %s\n", err);
        }
        free(data);
        if (check_failed != before) fprintf(stderr, "  (in %s, shape %s)\n", name, cases[k].text);
    }

    /* Refused on save: too many dimensions, too many elements, no data. */
    char path[512], err[WB_ERR_LEN] = "";
    size_t big[NPY_MAX_DIMS + 1] = {65536, 65536, 2, 1, 1};
    float one = 1.0f;
    path_of(path, "save_refused.npy");
    CHECK(npy_save_f32(path, &one, NPY_MAX_DIMS + 1, big, err) == -1 && strstr(err, path));
    CHECK(npy_save_f32(path, &one, 3, big, err) == -1 && strstr(err, "2^30"));
    CHECK(npy_save_f32(path, NULL, 1, big, err) == -1 && strstr(err, path));
    CHECK(!file_exists(path));
    path_of(path, "no_such_dir/x.npy");
    CHECK(npy_save_f32(path, &one, 0, NULL, err) == -1 && strstr(err, path));

    /* A save that fails half way leaves the previous file as it was and no temporary file. */
    path_of(path, "keep.npy");
    CHECK(npy_save_f32(path, &one, 0, NULL, err) == 0);
    enum { N = 4096 };
    static float many[N];
    size_t n = N;
    CHECK(limit_file_size(4096) == 0);
    err[0] = '\0';
    int rc = npy_save_f32(path, many, 1, &n, err);
    unlimit_file_size();
    CHECK(rc == -1 && err[0] != '\0' && strstr(err, path) != NULL);
    printf("  refused as expected: %s\n", err);
    CHECK(temporaries_left(path) == 0);
    float *back = NULL;
    int ndim = -1;
    size_t shape[NPY_MAX_DIMS];
    CHECK(npy_load_f32(path, &back, &ndim, shape, err) == 0);
    CHECK(back && ndim == 0 && back[0] == 1.0f);
    free(back);
}

/* ---- npy hand-made files ------------------------------------------------------------------ */

/* Loads path and compares with want[] exactly (NaN equal to NaN) and with the expected shape. */
static void expect_npy(const char *path, const float *want, int want_ndim, const size_t *want_shape,
                       int line) {
    int before = check_failed;
    float *data = NULL;
    int ndim = -1;
    size_t shape[NPY_MAX_DIMS] = {0};
    char err[WB_ERR_LEN] = "";
    int rc = npy_load_f32(path, &data, &ndim, shape, err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(ndim == want_ndim);
        size_t count = 1;
        int same_shape = ndim == want_ndim;
        for (int i = 0; i < want_ndim && same_shape; ++i) {
            same_shape = shape[i] == want_shape[i];
            count *= want_shape[i];
        }
        CHECK(same_shape);
        int mismatches = 0;
        for (size_t i = 0; i < count && same_shape; ++i)
            mismatches += !(data[i] == want[i] || (data[i] != data[i] && want[i] != want[i]));
        CHECK(mismatches == 0);
        free(data);
    }
    if (check_failed != before) fprintf(stderr, "  (line %d: %s: %s)\n", line, path, err);
}

static void test_npy_handmade(void) {
    char path[512];

    /* float64, keys in another order, no spaces, no trailing comma. */
    const double d[6] = {0.1, -2.5, 1.0 / 3.0, 1e300, -1e300, 1e-50};
    float want[6];
    for (int i = 0; i < 6; ++i)
        want[i] = (float)d[i];
    CHECK(isinf(want[3]) && want[3] > 0 && isinf(want[4]) && want[4] < 0 && want[5] == 0.0f);
    const size_t s23[2] = {2, 3};
    CHECK(write_npy_raw(path_of(path, "f8_v1.npy"), 1,
                        "{'shape':(2,3),'fortran_order':False,'descr':'<f8'}", 1, d,
                        sizeof d) == 0);
    expect_npy(path, want, 2, s23, __LINE__);

    /* float64 longer than the loader's conversion chunk. */
    enum { N = 3000 };
    static double big[N];
    static float big_want[N];
    for (int i = 0; i < N; ++i) {
        big[i] = (double)rng_range(-1.0f, 1.0f) / 3.0;
        big_want[i] = (float)big[i];
    }
    const size_t sN[1] = {N};
    CHECK(write_npy_raw(path_of(path, "f8_long.npy"), 1,
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (3000,), }", 1, big,
                        sizeof big) == 0);
    expect_npy(path, big_want, 1, sN, __LINE__);

    /* Version 2.0 (4-byte header length), double quotes, whitespace everywhere. */
    const float f4[4] = {1.5f, NAN, -0.0f, 3e38f};
    const size_t s4[1] = {4};
    CHECK(write_npy_raw(path_of(path, "f4_v2.npy"), 2,
                        "{ \"descr\" : \"<f4\" ,\n\t\"fortran_order\" : False ,\n"
                        "  \"shape\" : ( 4 , ) }",
                        1, f4, sizeof f4) == 0);
    expect_npy(path, f4, 1, s4, __LINE__);

    /* Version 3.0, not padded at all (NumPy pads, but nothing requires it). */
    const size_t s22[2] = {2, 2};
    CHECK(write_npy_raw(path_of(path, "f4_v3.npy"), 3,
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2,)}", 0, f4,
                        sizeof f4) == 0);
    expect_npy(path, f4, 2, s22, __LINE__);

    /* A 0-d array holds one element. */
    CHECK(write_npy_raw(path_of(path, "scalar.npy"), 1,
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 1, d,
                        sizeof d[0]) == 0);
    expect_npy(path, want, 0, NULL, __LINE__);
}

/* ---- npy bad input ------------------------------------------------------------------------ */

static void test_npy_bad_input(void) {
    char path[512];
    const float f[16] = {0};
#define NPY_DICT(descr, fortran, shape)                                                            \
    "{'descr': '" descr "', 'fortran_order': " fortran ", 'shape': " shape ", }"

    expect_npy_failure(path_of(path, "does_not_exist.npy"), "No such file", __LINE__);
    expect_npy_failure(test_dir, "is a folder: give a regular file", __LINE__);

    CHECK(write_bytes(path_of(path, "text.npy"), "just some text, long enough\n", 28) == 0);
    expect_npy_failure(path, "magic", __LINE__);
    CHECK(write_bytes(path_of(path, "empty.npy"), "", 0) == 0);
    expect_npy_failure(path, "magic", __LINE__);
    CHECK(write_bytes(path_of(path, "magic_only.npy"), "\x93NUMPY", 6) == 0);
    expect_npy_failure(path, "magic", __LINE__);
    CHECK(write_bytes(path_of(path, "cut_length.npy"), "\x93NUMPY\x02\x00\x10", 9) == 0);
    expect_npy_failure(path, "preamble", __LINE__);

    CHECK(write_npy_raw(path_of(path, "v4.npy"), 4, NPY_DICT("<f4", "False", "(2,)"), 1, f, 8) ==
          0);
    expect_npy_failure(path, "version 4.0", __LINE__);

    CHECK(write_npy_raw(path_of(path, "i4.npy"), 1, NPY_DICT("<i4", "False", "(2,)"), 1, f, 8) ==
          0);
    expect_npy_failure(path, "'<i4'", __LINE__);
    CHECK(write_npy_raw(path_of(path, "be_f4.npy"), 1, NPY_DICT(">f4", "False", "(2,)"), 1, f, 8) ==
          0);
    expect_npy_failure(path, "'>f4'", __LINE__);
    CHECK(write_npy_raw(path_of(path, "structured.npy"), 1,
                        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 1, f,
                        8) == 0);
    expect_npy_failure(path, "simple type", __LINE__);

    CHECK(write_npy_raw(path_of(path, "fortran.npy"), 1, NPY_DICT("<f4", "True", "(2, 2)"), 1, f,
                        16) == 0);
    expect_npy_failure(path, "Fortran", __LINE__);
    CHECK(write_npy_raw(path_of(path, "fortran_junk.npy"), 1, NPY_DICT("<f4", "0", "(2,)"), 1, f,
                        8) == 0);
    expect_npy_failure(path, "fortran_order", __LINE__);

    /* Payload sizes: one float short, one float too many. */
    CHECK(write_npy_raw(path_of(path, "short.npy"), 1, NPY_DICT("<f4", "False", "(4,)"), 1, f,
                        12) == 0);
    expect_npy_failure(path, "needs 16 bytes", __LINE__);
    CHECK(write_npy_raw(path_of(path, "short_f8.npy"), 1, NPY_DICT("<f8", "False", "(2,)"), 1, f,
                        12) == 0);
    expect_npy_failure(path, "needs 16 bytes", __LINE__);
    CHECK(write_npy_raw(path_of(path, "long.npy"), 1, NPY_DICT("<f4", "False", "(2,)"), 1, f, 12) ==
          0);
    expect_npy_failure(path, "after", __LINE__);

    /* Shapes: over 2^30 elements (the most any program takes) in all or in one dimension;
     * exactly 2^30 passes the count check and is refused because the file does not hold 4 GiB. */
    CHECK(write_npy_raw(path_of(path, "absurd.npy"), 1,
                        NPY_DICT("<f4", "False", "(100000, 100000)"), 1, f, 16) == 0);
    expect_npy_failure(path, "2^30", __LINE__);
    CHECK(write_npy_raw(path_of(path, "absurd_dim.npy"), 1,
                        NPY_DICT("<f4", "False", "(0, 99999999999999999999999)"), 1, f, 0) == 0);
    expect_npy_failure(path, "2^30", __LINE__);
    CHECK(write_npy_raw(path_of(path, "just_over.npy"), 1,
                        NPY_DICT("<f4", "False", "(1073741825,)"), 1, f, 16) == 0);
    expect_npy_failure(path, "2^30", __LINE__);
    CHECK(write_npy_raw(path_of(path, "over_in_all.npy"), 1,
                        NPY_DICT("<f4", "False", "(2, 536870913)"), 1, f, 16) == 0);
    expect_npy_failure(path, "more than 2^30 elements", __LINE__);
    CHECK(write_npy_raw(path_of(path, "at_limit.npy"), 1, NPY_DICT("<f4", "False", "(1073741824,)"),
                        1, f, 16) == 0);
    expect_npy_failure(path, "needs 4294967296 bytes of data, the file holds 16 after its",
                       __LINE__);

    /* Sparse files (truncate: no data blocks, any length), refused from the header and the
     * file's size before the array is allocated. Shape (1, 2^31) as long as it claims: over the
     * limit. 2^30 float64 in a file that holds 1 MiB after its header: too short. Under a 1 GiB
     * address-space limit, so that an attempt to allocate the array would fail another way. */
    struct rlimit was;
    CHECK(getrlimit(RLIMIT_AS, &was) == 0);
    struct rlimit capped = {was.rlim_max < ((rlim_t)1 << 30) ? was.rlim_max : (rlim_t)1 << 30,
                            was.rlim_max};
    CHECK(setrlimit(RLIMIT_AS, &capped) == 0);
    CHECK(write_npy_raw(path_of(path, "sparse_full.npy"), 1,
                        NPY_DICT("<f4", "False", "(1, 2147483648)"), 1, f, 0) == 0);
    CHECK(truncate(path, 128 + ((off_t)1 << 33)) == 0);
    expect_npy_failure(path, "a 'shape' dimension is over 2^30", __LINE__);
    CHECK(remove(path) == 0);
    CHECK(write_npy_raw(path_of(path, "sparse_short.npy"), 1,
                        NPY_DICT("<f8", "False", "(1073741824,)"), 1, f, 0) == 0);
    CHECK(truncate(path, 128 + (1 << 20)) == 0);
    expect_npy_failure(path, "needs 8589934592 bytes of data, the file holds 1048576 after its "
                             "128-byte header", __LINE__);
    CHECK(remove(path) == 0);
    CHECK(setrlimit(RLIMIT_AS, &was) == 0);
    CHECK(write_npy_raw(path_of(path, "negative.npy"), 1, NPY_DICT("<f4", "False", "(-1,)"), 1, f,
                        16) == 0);
    expect_npy_failure(path, "integer", __LINE__);
    CHECK(write_npy_raw(path_of(path, "five_dims.npy"), 1,
                        NPY_DICT("<f4", "False", "(1, 1, 1, 1, 1)"), 1, f, 4) == 0);
    expect_npy_failure(path, "dimensions", __LINE__);
    CHECK(write_npy_raw(path_of(path, "not_tuple.npy"), 1, NPY_DICT("<f4", "False", "(3)"), 1, f,
                        12) == 0);
    expect_npy_failure(path, "trailing comma", __LINE__);
    CHECK(write_npy_raw(path_of(path, "list_shape.npy"), 1, NPY_DICT("<f4", "False", "[3]"), 1, f,
                        12) == 0);
    expect_npy_failure(path, "tuple", __LINE__);
    CHECK(write_npy_raw(path_of(path, "float_dim.npy"), 1, NPY_DICT("<f4", "False", "(3.0,)"), 1, f,
                        12) == 0);
    expect_npy_failure(path, "shape", __LINE__);

    /* Header syntax. */
    CHECK(write_npy_raw(path_of(path, "no_shape.npy"), 1,
                        "{'descr': '<f4', 'fortran_order': False}", 1, f, 4) == 0);
    expect_npy_failure(path, "lacks", __LINE__);
    CHECK(write_npy_raw(path_of(path, "dup_key.npy"), 1,
                        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", 1,
                        f, 4) == 0);
    expect_npy_failure(path, "duplicate", __LINE__);
    CHECK(write_npy_raw(path_of(path, "extra_key.npy"), 1,
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", 1, f,
                        4) == 0);
    expect_npy_failure(path, "unexpected key", __LINE__);
    CHECK(write_npy_raw(path_of(path, "unclosed.npy"), 1,
                        "{'descr': '<f4', 'fortran_order': False, 'shape': ()", 1, f, 4) == 0);
    expect_npy_failure(path, "not closed", __LINE__);
    CHECK(write_npy_raw(path_of(path, "junk_after.npy"), 1,
                        "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", 1, f, 4) == 0);
    expect_npy_failure(path, "after the header", __LINE__);
    CHECK(write_npy_raw(path_of(path, "not_dict.npy"), 1, "('<f4', False, ())", 1, f, 4) == 0);
    expect_npy_failure(path, "not a dict", __LINE__);

    /* Header lengths: zero, over 1 MiB, and longer than the file. */
    static const unsigned char zero_len[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    CHECK(write_bytes(path_of(path, "zero_header.npy"), zero_len, sizeof zero_len) == 0);
    expect_npy_failure(path, "header of 0 bytes", __LINE__);
    static const unsigned char huge_len[] = {0x93, 'N',  'U',  'M',  'P',  'Y', 2,
                                             0,    0xff, 0xff, 0xff, 0x7f, '{', '}'};
    CHECK(write_bytes(path_of(path, "huge_header.npy"), huge_len, sizeof huge_len) == 0);
    expect_npy_failure(path, "header of 2147483647 bytes", __LINE__);
    static const unsigned char long_len[] = {0x93, 'N', 'U',  'M',  'P', 'Y',
                                             1,    0,   0x00, 0x10, '{', '}'};
    CHECK(write_bytes(path_of(path, "header_past_eof.npy"), long_len, sizeof long_len) == 0);
    expect_npy_failure(path, "truncated", __LINE__);
#undef NPY_DICT
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc > 1) test_dir = argv[1];
    unsigned long long seed =
        argc > 2 ? strtoull(argv[2], NULL, 0) : (unsigned long long)time(NULL);
    rng_state = seed;
    printf("unit_image_io: seed %llu (rerun with: %s %s %llu), files in %s\n", seed, argv[0],
           test_dir, seed, test_dir);
    signal(SIGXFSZ, SIG_IGN); /* see limit_file_size */
    if (mkdir(test_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "unit_image_io: cannot create '%s': %s\n", test_dir, strerror(errno));
        return 2;
    }

    test_image_alloc();
    test_png_formats();
    test_png_ramps();
    test_png_save();
    test_png_bad_input();
    test_npy_roundtrip();
    test_npy_handmade();
    test_npy_bad_input();
    return check_summary("unit_image_io");
}
