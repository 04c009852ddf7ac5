/* image_io.c: images and arrays on disk (the contract is in image_io.h).
 *
 *   image_alloc, image_free   planar float buffers and the size limits they enforce
 *   libpng hooks              error, warning and I/O callbacks: libpng's messages end up in err,
 *                             never on stderr, and every libpng error longjmps to one place
 *   image_load_png            signature, IHDR against the limits, transforms, rows -> planes
 *   image_save_png            planes -> 8-bit rows into a safe_output temporary, renamed over path
 *                             at the end (npy_save_f32 likewise)
 *   npy helpers               shape formatting and element count, strict header-dict parser
 *   npy_save_f32              version 1.0 header padded to 64 bytes, then the raw floats
 *   npy_load_f32              magic, version, header dict, the shape's bytes against the file's
 *                             size, then one allocation and the payload
 *
 * The host is assumed to be little-endian: .npy payloads ('<f4', '<f8') are moved with plain
 * fread/fwrite of float and double. The #error below stops a big-endian build instead of letting
 * it read byte-swapped garbage.
 */
#define _POSIX_C_SOURCE 200809L /* fileno() and fstat() under -std=c11 */

#include "image_io.h"

#include <errno.h>
#include <limits.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "safe_input.h"
#include "safe_output.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "image_io.c reads and writes .npy payloads in host byte order, which must be little-endian"
#endif

/* ---- image buffers ------------------------------------------------------------------------ */

int image_alloc(struct image *img, int width, int height, int channels, char *err) {
    memset(img, 0, sizeof *img);
    if (channels < 1 || channels > 4)
        return wb_error(err, "an image has 1 to 4 channels, not %d", channels);
    if (width < 1 || height < 1 || width > IMAGE_MAX_DIM || height > IMAGE_MAX_DIM ||
        (size_t)width * (size_t)height > IMAGE_MAX_PIXELS)
        return wb_error(err, "image size %dx%d is out of range (1 to %d per side, %zu pixels)",
                        width, height, IMAGE_MAX_DIM, IMAGE_MAX_PIXELS);
    /* 2^28 pixels * 4 channels * 4 bytes is 4 GiB, which overflows a 32-bit size_t. */
    size_t count = (size_t)width * (size_t)height * (size_t)channels;
    if (count > SIZE_MAX / sizeof(float))
        return wb_error(err, "a %dx%dx%d image does not fit in memory", width, height, channels);
    float *data = malloc(count * sizeof(float));
    if (!data) return wb_error(err, "out of memory for a %dx%dx%d image", width, height, channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->has_alpha = channels == 2 || channels == 4;
    img->data = data;
    return 0;
}

void image_free(struct image *img) {
    free(img->data);
    memset(img, 0, sizeof *img);
}

/* ---- libpng hooks ------------------------------------------------------------------------- */

/* What the error callback needs to word its message; set up before setjmp and never changed. */
struct png_context {
    const char *path;
    char *err;
    int writing;
};

/* libpng calls this for every fatal error. It must not return: if it did, libpng would fall back
 * to its default handler, which prints to stderr and aborts. */
static void png_error_cb(png_structp png, png_const_charp msg) {
    const struct png_context *ctx = png_get_error_ptr(png);
    if (ctx->writing)
        wb_error(ctx->err, "cannot write '%s': %s", ctx->path, msg);
    else
        wb_error(ctx->err, "'%s' is truncated or corrupt: %s", ctx->path, msg);
    png_longjmp(png, 1);
}

/* Warnings (a bad CRC in an ancillary chunk, an unknown sRGB profile, ...) do not stop a load and
 * must not clutter the output of the programs, so they are dropped. */
static void png_warning_cb(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

/* Our own reader instead of png_init_io, so a short file says "unexpected end of file" instead of
 * libpng's bare "Read Error". */
static void png_read_cb(png_structp png, png_bytep buf, size_t len) {
    FILE *fp = png_get_io_ptr(png);
    if (fread(buf, 1, len, fp) != len)
        png_error(png, ferror(fp) ? "read error" : "unexpected end of file");
}

static void png_write_cb(png_structp png, png_bytep buf, size_t len) {
    FILE *fp = png_get_io_ptr(png);
    if (fwrite(buf, 1, len, fp) != len) png_error(png, strerror(errno));
}

/* Flush errors resurface in ferror()/fclose(), which image_save_png checks. */
static void png_flush_cb(png_structp png) {
    fflush(png_get_io_ptr(png));
}

/* ---- PNG load ----------------------------------------------------------------------------- */

/* Everything a load owns. It lives in image_load_png, not in png_load_body (the function that
 * calls setjmp), so its values are well defined after a longjmp without any volatile. */
struct png_load {
    struct image img;
    png_bytep rows; /* one row, or the whole image when interlaced */
};

/* Converts one decoded row (8 or 16 bits per sample, channels interleaved, 16-bit samples in
 * PNG's big-endian order, which libpng keeps unless png_set_swap is called) to the planes. */
static void png_row_to_planes(const png_byte *row, int depth, const struct image *img, size_t y) {
    size_t width = (size_t)img->width, plane = width * (size_t)img->height;
    int channels = img->channels;
    float *dst = img->data + y * width;
    for (size_t x = 0; x < width; ++x) {
        for (int c = 0; c < channels; ++c) {
            size_t i = x * (size_t)channels + (size_t)c;
            float v = depth == 16 ? (float)((row[2 * i] << 8) | row[2 * i + 1]) / 65535.0f
                                  : (float)row[i] / 255.0f;
            dst[(size_t)c * plane + x] = v;
        }
    }
}

/* The part of the load during which libpng may longjmp. On a libpng error it returns -1 with err
 * already written by png_error_cb; anything it allocated is in *st for the caller to free. */
static int png_load_body(png_structp png, png_infop info, FILE *fp, const char *path,
                         struct png_load *st, char *err) {
    if (setjmp(png_jmpbuf(png))) return -1;

    png_set_read_fn(png, fp, png_read_cb);
    png_set_sig_bytes(png, 8);
#ifdef WB_FUZZ_BUILD
    /* The fuzz build alone (make fuzz): a mutated chunk almost always fails its CRC (a mutated
     * zlib stream its Adler-32) and never reaches the decoder. The shipped loader checks both. */
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#ifdef PNG_IGNORE_ADLER32
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
#endif
    /* libpng's own limit (1000000 per side by default) would refuse some sizes with a message
     * that names no number; raise it to what PNG allows and apply ours below. */
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    /* Reads the chunks up to the first IDAT; nothing proportional to the image size yet. */
    png_read_info(png, info);

    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (width > IMAGE_MAX_DIM || height > IMAGE_MAX_DIM ||
        (size_t)width * height > IMAGE_MAX_PIXELS)
        return wb_error(err, "'%s' is %lux%lu pixels, over the limit of %d per side and %zu in all",
                        path, (unsigned long)width, (unsigned long)height, IMAGE_MAX_DIM,
                        IMAGE_MAX_PIXELS);

    /* Pixel rows are deflate-compressed, and deflate expands at most PNG_DEFLATE_MAX_RATIO to 1,
     * so a file of S bytes holds at most about that many times S bytes of rows (a filter byte
     * and the packed samples per row; interlacing only adds bytes). Refusing an image that needs
     * more, here, before anything proportional to its size is allocated, keeps a tiny hostile
     * file from committing gigabytes, and never refuses a real PNG. */
    struct stat file;
    size_t raw_row =
        ((size_t)width * png_get_channels(png, info) * png_get_bit_depth(png, info) + 7) / 8;
    double needed = (double)height * (double)(raw_row + 1);
    if (fstat(fileno(fp), &file) == 0 &&
        needed > (double)PNG_DEFLATE_MAX_RATIO * (double)file.st_size + 4096.0)
        return wb_error(err,
                        "'%s' declares %lux%lu pixels (%.0f bytes of rows) but is %lld bytes: "
                        "deflate cannot expand more than %d:1, so the file is truncated or forged",
                        path, (unsigned long)width, (unsigned long)height, needed,
                        (long long)file.st_size, PNG_DEFLATE_MAX_RATIO);

    /* Expand everything to 8 or 16 bits per sample and real channels. After
     * png_set_expand_gray_1_2_4_to_8 a sample s of depth d becomes s * 255 / (2^d - 1) exactly
     * (libpng replicates the bits: 0b1 -> 0xff, 0b10 -> 0xaa, 0b0110 -> 0x66), so dividing by 255
     * below gives s / (2^d - 1) as promised. No gamma, sBIT or background handling is requested,
     * so the samples come out as stored. */
    int color_type = png_get_color_type(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info), depth = png_get_bit_depth(png, info);
    if (channels < 1 || channels > 4 || (depth != 8 && depth != 16))
        png_error(png, "unexpected sample layout after expansion");
    size_t rowbytes = png_get_rowbytes(png, info);
    if (rowbytes < (size_t)width * (size_t)channels * (size_t)(depth / 8))
        png_error(png, "row size mismatch");

    if (image_alloc(&st->img, (int)width, (int)height, channels, err))
        return wb_error(err, "'%s': out of memory for a %lux%lux%d image", path,
                        (unsigned long)width, (unsigned long)height, channels);

    if (passes == 1) {
        /* Not interlaced: one row at a time keeps the extra memory to a single row. */
        st->rows = malloc(rowbytes);
        if (!st->rows) png_error(png, "out of memory for a row");
        for (png_uint_32 y = 0; y < height; ++y) {
            png_read_row(png, st->rows, NULL);
            png_row_to_planes(st->rows, depth, &st->img, y);
        }
    } else {
        /* Adam7: every pass adds pixels to rows read earlier, so all rows must stay around.
         * calloc so the bytes a pass merges into are defined before the first pass fills them. */
        if ((size_t)height > SIZE_MAX / rowbytes) png_error(png, "image too large for memory");
        st->rows = calloc(height, rowbytes);
        if (!st->rows) png_error(png, "out of memory for the interlaced rows");
        for (int pass = 0; pass < passes; ++pass)
            for (png_uint_32 y = 0; y < height; ++y)
                png_read_row(png, st->rows + (size_t)y * rowbytes, NULL);
        for (png_uint_32 y = 0; y < height; ++y)
            png_row_to_planes(st->rows + (size_t)y * rowbytes, depth, &st->img, y);
    }
    /* Reading up to IEND catches a file cut off after its last image row. */
    png_read_end(png, NULL);
    return 0;
}

int image_load_png(const char *path, struct image *img, char *err) {
    memset(img, 0, sizeof *img);
    FILE *fp = safe_input_open(path, "image", 0, NULL, err);
    if (!fp) return -1;

    png_byte sig[8];
    if (fread(sig, 1, sizeof sig, fp) != sizeof sig || png_sig_cmp(sig, 0, sizeof sig) != 0) {
        fclose(fp);
        return wb_error(err, "'%s' is not a PNG file", path);
    }

    struct png_context ctx = {path, err, 0};
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        fclose(fp);
        return wb_error(err, "'%s': out of memory for the PNG decoder", path);
    }

    struct png_load st = {{0, 0, 0, 0, NULL}, NULL};
    int rc = png_load_body(png, info, fp, path, &st, err);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    free(st.rows);
    if (rc != 0) {
        image_free(&st.img);
        return -1;
    }
    *img = st.img;
    return 0;
}

/* ---- PNG save ----------------------------------------------------------------------------- */

/* Clamps to [0, 1] and rounds half up. The product is exact in double (24-bit mantissa times an
 * 8-bit constant), so the rounding is exact too; !(v > 0) also catches NaN. */
static png_byte float_to_u8(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 1.0f) return 255;
    return (png_byte)((double)v * 255.0 + 0.5);
}

/* The part of the save during which libpng may longjmp; see png_load_body. */
static int png_save_body(png_structp png, png_infop info, FILE *fp, const struct image *img,
                         png_bytep row) {
    if (setjmp(png_jmpbuf(png))) return -1;

    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(png, fp, png_write_cb, png_flush_cb);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 color_types[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);

    size_t width = (size_t)img->width, plane = width * (size_t)img->height;
    int channels = img->channels;
    for (size_t y = 0; y < (size_t)img->height; ++y) {
        const float *src = img->data + y * width;
        for (size_t x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c)
                row[x * (size_t)channels + (size_t)c] = float_to_u8(src[(size_t)c * plane + x]);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    return 0;
}

int image_save_png(const char *path, const struct image *img, char *err) {
    if (img->channels < 1 || img->channels > 4 || !img->data || img->width < 1 || img->height < 1 ||
        img->width > IMAGE_MAX_DIM || img->height > IMAGE_MAX_DIM ||
        (size_t)img->width * (size_t)img->height > IMAGE_MAX_PIXELS)
        return wb_error(err, "cannot save '%s': not a valid %dx%d image with %d channels", path,
                        img->width, img->height, img->channels);

    png_bytep row = malloc((size_t)img->width * (size_t)img->channels);
    if (!row) return wb_error(err, "cannot save '%s': out of memory", path);
    struct safe_output out;
    if (safe_output_open(&out, path, err)) {
        free(row);
        return -1;
    }

    struct png_context ctx = {path, err, 1};
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int rc;
    if (!info)
        rc = wb_error(err, "cannot save '%s': out of memory for the PNG encoder", path);
    else
        rc = png_save_body(png, info, out.fp, img, row);
    png_destroy_write_struct(&png, &info);
    rc = safe_output_commit(&out, rc, err);
    free(row);
    return rc;
}

/* ---- npy helpers -------------------------------------------------------------------------- */

/* The largest array any program takes: a 1D signal of 2^30 values, an image of 4 planes of 2^28
 * pixels, a volume of 2^30 voxels. A larger shape is refused from the header alone, so a sparse
 * file that really is as long as its shape claims cannot make the loader allocate more. */
#define NPY_MAX_ELEMENTS ((size_t)1 << 30)
#define NPY_MAX_HEADER ((size_t)1 << 20)
#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6

/* Python's repr of the shape tuple: "()", "(3,)", "(2, 3)". Used in headers and messages. */
static void format_shape(char *out, size_t cap, int ndim, const size_t *shape) {
    size_t n = (size_t)snprintf(out, cap, "(");
    for (int i = 0; i < ndim && n < cap; ++i)
        n += (size_t)snprintf(out + n, cap - n, "%s%zu", i ? ", " : "", shape[i]);
    if (n < cap) snprintf(out + n, cap - n, ndim == 1 ? ",)" : ")");
}

/* Element count of a shape, or (size_t)-1 when it exceeds NPY_MAX_ELEMENTS. Any zero dimension
 * makes the count zero whatever the other dimensions are. */
static size_t shape_count(int ndim, const size_t *shape) {
    for (int i = 0; i < ndim; ++i)
        if (shape[i] == 0) return 0;
    size_t count = 1;
    for (int i = 0; i < ndim; ++i) {
        if (shape[i] > NPY_MAX_ELEMENTS / count) return (size_t)-1;
        count *= shape[i];
    }
    return count;
}

struct npy_header {
    char descr[32];
    int fortran_order;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
};

static const char *skip_space(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        ++p;
    return p;
}

/* A Python string literal without escapes, in single or double quotes. */
static const char *parse_string(const char **pp, const char *end, char *out, size_t cap) {
    const char *p = *pp;
    if (p >= end || (*p != '\'' && *p != '"')) return "expected a quoted string";
    char quote = *p++;
    size_t n = 0;
    for (; p < end && *p != quote; ++p) {
        if (*p == '\\' || *p == '\n' || *p == '\0') return "unsupported character in a string";
        if (n + 1 >= cap) return "string too long";
        out[n++] = *p;
    }
    if (p >= end) return "unterminated string";
    out[n] = '\0';
    *pp = p + 1;
    return NULL;
}

/* A tuple of non-negative decimal integers in Python syntax: "()", "(3,)", "(2, 3)", "(2, 3,)".
 * "(3)" is refused: Python reads it as the integer 3, not a tuple. */
static const char *parse_shape(const char **pp, const char *end, struct npy_header *h) {
    const char *p = *pp;
    if (p >= end || *p != '(') return "'shape' is not a tuple";
    p = skip_space(p + 1, end);
    int trailing_comma = 0;
    h->ndim = 0;
    while (p < end && *p != ')') {
        if (h->ndim == NPY_MAX_DIMS) return "'shape' has more dimensions than supported";
        if (*p < '0' || *p > '9') return "'shape' holds something other than an integer >= 0";
        if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')
            return "'shape' holds an integer with a leading zero";
        size_t v = 0;
        for (; p < end && *p >= '0' && *p <= '9'; ++p) {
            size_t digit = (size_t)(*p - '0');
            if (v > (NPY_MAX_ELEMENTS - digit) / 10)
                return "a 'shape' dimension is over 2^30, the most elements any program takes";
            v = v * 10 + digit;
        }
        h->shape[h->ndim++] = v;
        p = skip_space(p, end);
        trailing_comma = p < end && *p == ',';
        if (trailing_comma)
            p = skip_space(p + 1, end);
        else if (p < end && *p != ')')
            return "'shape' is not a comma-separated tuple";
    }
    if (p >= end) return "unterminated 'shape' tuple";
    if (h->ndim == 1 && !trailing_comma) return "'shape' (n) needs a trailing comma to be a tuple";
    *pp = p + 1;
    return NULL;
}

/* Parses NumPy's header dict: exactly the keys 'descr', 'fortran_order' and 'shape', in any
 * order, any whitespace, optional trailing comma, then only whitespace (the padding) to the end.
 * Returns NULL on success or what is wrong. */
static const char *parse_npy_header(const char *p, const char *end, struct npy_header *h) {
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
    p = skip_space(p, end);
    if (p >= end || *p != '{') return "the header is not a dict";
    p = skip_space(p + 1, end);
    while (p < end && *p != '}') {
        char key[32];
        const char *problem = parse_string(&p, end, key, sizeof key);
        if (problem) return problem;
        p = skip_space(p, end);
        if (p >= end || *p != ':') return "expected ':' after a key";
        p = skip_space(p + 1, end);
        if (strcmp(key, "descr") == 0) {
            if (seen_descr++) return "duplicate key 'descr'";
            if (parse_string(&p, end, h->descr, sizeof h->descr))
                return "'descr' is not a simple type string";
        } else if (strcmp(key, "fortran_order") == 0) {
            if (seen_fortran++) return "duplicate key 'fortran_order'";
            if (end - p >= 4 && memcmp(p, "True", 4) == 0) {
                h->fortran_order = 1;
                p += 4;
            } else if (end - p >= 5 && memcmp(p, "False", 5) == 0) {
                h->fortran_order = 0;
                p += 5;
            } else {
                return "'fortran_order' is neither True nor False";
            }
        } else if (strcmp(key, "shape") == 0) {
            if (seen_shape++) return "duplicate key 'shape'";
            problem = parse_shape(&p, end, h);
            if (problem) return problem;
        } else {
            return "unexpected key in the header";
        }
        p = skip_space(p, end);
        if (p < end && *p == ',')
            p = skip_space(p + 1, end);
        else if (p < end && *p != '}')
            return "expected ',' or '}' in the header";
    }
    if (p >= end) return "the header dict is not closed";
    if (skip_space(p + 1, end) != end) return "unexpected bytes after the header dict";
    if (!seen_descr || !seen_fortran || !seen_shape)
        return "the header lacks 'descr', 'fortran_order' or 'shape'";
    return NULL;
}

/* ---- npy save ----------------------------------------------------------------------------- */

int npy_save_f32(const char *path, const float *data, int ndim, const size_t *shape, char *err) {
    if (ndim < 0 || ndim > NPY_MAX_DIMS || (ndim > 0 && !shape))
        return wb_error(err, "cannot save '%s': %d dimensions (0 to %d supported)", path, ndim,
                        NPY_MAX_DIMS);
    char shape_text[96];
    format_shape(shape_text, sizeof shape_text, ndim, shape);
    size_t count = shape_count(ndim, shape);
    if (count == (size_t)-1)
        return wb_error(err, "cannot save '%s': shape %s has more than 2^30 elements", path,
                        shape_text);
    if (count > 0 && !data) return wb_error(err, "cannot save '%s': no data", path);

    /* NumPy pads with spaces and ends with '\n' so that magic, version, length and dict together
     * are a multiple of 64 bytes, which keeps the payload aligned for memory mapping. */
    char header[256];
    int dict_len = snprintf(header + 10, sizeof header - 10,
                            "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape_text);
    size_t total = 10 + (size_t)dict_len + 1;
    total = (total + 63) / 64 * 64;
    size_t header_len = total - 10;
    memcpy(header, NPY_MAGIC, NPY_MAGIC_LEN);
    header[6] = 1; /* version 1.0: a 2-byte header length, plenty for 4 dimensions */
    header[7] = 0;
    header[8] = (char)(header_len & 0xff);
    header[9] = (char)(header_len >> 8);
    memset(header + 10 + dict_len, ' ', total - 1 - 10 - (size_t)dict_len);
    header[total - 1] = '\n';

    /* Through a temporary file, like the PNG writer: a failed save leaves no half file. */
    struct safe_output out;
    if (safe_output_open(&out, path, err)) return -1;
    int rc = 0;
    if (fwrite(header, 1, total, out.fp) != total ||
        (count > 0 && fwrite(data, sizeof(float), count, out.fp) != count))
        rc = wb_error(err, "cannot write '%s': %s", path, strerror(errno));
    return safe_output_commit(&out, rc, err);
}

/* ---- npy load ----------------------------------------------------------------------------- */

/* Reads count float64 values and converts them, in chunks so no second full-size buffer is
 * needed. Conversion of values beyond the float range gives +-inf (IEC 60559, Annex F). */
static int read_f64_as_f32(FILE *fp, float *out, size_t count) {
    double chunk[1024];
    while (count > 0) {
        size_t n = count < 1024 ? count : 1024;
        if (fread(chunk, sizeof(double), n, fp) != n) return -1;
        for (size_t i = 0; i < n; ++i)
            out[i] = (float)chunk[i];
        out += n;
        count -= n;
    }
    return 0;
}

int npy_load_f32(const char *path, float **data, int *ndim, size_t shape[NPY_MAX_DIMS], char *err) {
    *data = NULL;
    *ndim = 0;
    /* A regular file only; its size (fstat on the open descriptor) bounds every length below. */
    long long size;
    FILE *fp = safe_input_open(path, "array", 0, &size, err);
    if (!fp) return -1;

    char *text = NULL;
    float *values = NULL;
    int rc = -1;
    const unsigned long long file_size = (unsigned long long)size;

    unsigned char pre[12];
    if (fread(pre, 1, 8, fp) != 8 || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        wb_error(err, "'%s' is not a .npy file (bad magic)", path);
        goto done;
    }
    /* 1.0 has a 2-byte header length; 2.0 a 4-byte one; 3.0 is 2.0 with a UTF-8 header, which
     * changes nothing for the ASCII this parser accepts. */
    int major = pre[6], minor = pre[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0) {
        wb_error(err, "'%s' has .npy format version %d.%d (1.0, 2.0 and 3.0 are supported)", path,
                 major, minor);
        goto done;
    }
    size_t len_bytes = major == 1 ? 2 : 4;
    if (fread(pre + 8, 1, len_bytes, fp) != len_bytes) {
        wb_error(err, "'%s' is truncated inside its .npy preamble", path);
        goto done;
    }
    size_t header_len = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (major != 1) header_len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    unsigned long long data_offset = 8 + len_bytes + header_len;
    if (header_len == 0 || header_len >= NPY_MAX_HEADER) {
        wb_error(err, "'%s' declares a .npy header of %zu bytes (must be 1 to %zu)", path,
                 header_len, NPY_MAX_HEADER - 1);
        goto done;
    }
    if (data_offset > file_size) {
        wb_error(err, "'%s' is truncated: its %zu-byte header does not fit in its %llu bytes", path,
                 header_len, file_size);
        goto done;
    }

    text = malloc(header_len);
    if (!text || fread(text, 1, header_len, fp) != header_len) {
        wb_error(err, "'%s': cannot read the .npy header", path);
        goto done;
    }
    struct npy_header h;
    memset(&h, 0, sizeof h);
    const char *problem = parse_npy_header(text, text + header_len, &h);
    if (problem) {
        wb_error(err, "'%s' has a bad .npy header: %s", path, problem);
        goto done;
    }
    size_t elem_size = strcmp(h.descr, "<f4") == 0 ? 4 : strcmp(h.descr, "<f8") == 0 ? 8 : 0;
    if (elem_size == 0) {
        wb_error(err, "'%s' holds '%s' data; only '<f4' and '<f8' are supported", path, h.descr);
        goto done;
    }
    if (h.fortran_order) {
        wb_error(err, "'%s' is in Fortran order; only C order is supported", path);
        goto done;
    }
    char shape_text[96];
    format_shape(shape_text, sizeof shape_text, h.ndim, h.shape);
    size_t count = shape_count(h.ndim, h.shape);
    if (count == (size_t)-1) {
        wb_error(err, "'%s' has shape %s, more than 2^30 elements, the most any program takes",
                 path, shape_text);
        goto done;
    }
    /* The bytes the shape claims, against the bytes the file holds after its header: both are
     * known before the element buffer is allocated. */
    const unsigned long long data_bytes = file_size - data_offset;
    if (count > ULLONG_MAX / elem_size) {
        wb_error(err, "'%s' has shape %s, whose size in bytes overflows", path, shape_text);
        goto done;
    }
    const unsigned long long payload = (unsigned long long)count * elem_size;
    if (data_bytes < payload) {
        wb_error(err, "'%s' is truncated: shape %s of '%s' needs %llu bytes of data, the file "
                 "holds %llu after its %llu-byte header", path, shape_text, h.descr, payload,
                 data_bytes, data_offset);
        goto done;
    }
    if (data_bytes > payload) {
        /* NumPy never writes this; it usually means a header that does not match the data. */
        wb_error(err, "'%s' has %llu bytes after the %llu bytes its shape %s declares", path,
                 data_bytes - payload, payload, shape_text);
        goto done;
    }

    /* At least one element, so a zero-sized array still returns a pointer the caller frees. */
    values = count <= SIZE_MAX / sizeof(float) ? malloc((count ? count : 1) * sizeof(float)) : NULL;
    if (!values) {
        wb_error(err, "'%s': out of memory for %zu floats", path, count);
        goto done;
    }
    int short_read = elem_size == 4 ? fread(values, sizeof(float), count, fp) != count
                                    : read_f64_as_f32(fp, values, count) != 0;
    if (short_read) {
        wb_error(err, "'%s' is truncated or unreadable in its data", path);
        goto done;
    }

    *data = values;
    values = NULL;
    *ndim = h.ndim;
    for (int i = 0; i < h.ndim; ++i)
        shape[i] = h.shape[i];
    rc = 0;
done:
    free(values);
    free(text);
    fclose(fp);
    return rc;
}
