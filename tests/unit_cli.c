/* unit_cli.c: tests of common/cli.c, the command line every chapter program shares (no GPU
 * needed).
 *
 *   usage: unit_cli [SCRATCH_DIR]   the input, mask and link files of the same-file checks go to
 *                                   SCRATCH_DIR (default /tmp/unit_cli_scratch, made if missing)
 *
 * Four stand-in chapters (1D, 2D, 2D with a non-square mask limit, 3D) parse what a chapter
 * accepts: defaults, sizes, mask-width lists and ranges, modes and flags, lists of blocks and
 * masks, input and output files, --help and --spec, --path, a chapter's own options; and refuse,
 * in one line naming the option or the bad word, everything else, an output that is an input
 * under another name (a hard link, a ./ path) included. Then the block rules' minimums and
 * cli_has_extension.
 */
#define _POSIX_C_SOURCE 200809L /* link, dup, nanosleep under -std=c11 */

#include "check.h"
#include "cli.h"
#include "workbook.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct cli_spec spec_1d = {
    .program = "unit_1d",
    .summary = "a 1D chapter as the tests see it",
    .dims = 1,
    .default_size = {1L << 26, 1},
    .default_mask = {5, 1},
    .max_mask = {WB_MAX_MASK_WIDTH_1D, 1},
    .default_block = 256,
    .min_block = 1,
    .max_block = 1024,
    .block_power_of_two = 0,
    .input_formats = "a 1-D float32 .npy",
};

static const struct cli_spec spec_2d = {
    .program = "unit_2d",
    .summary = "a 2D chapter as the tests see it",
    .dims = 2,
    .default_size = {8192, 8192},
    .default_mask = {3, 3},
    .max_mask = {9, 9},
    .default_block = 16,
    .min_block = 8,
    .max_block = 32,
    .block_power_of_two = 1,
    .input_formats = "a PNG or a 2-D float32 .npy",
};

/* A 2D chapter whose masks may be wider than tall (e.g. a row-tiled kernel). */
static const struct cli_spec spec_2d_wide = {
    .program = "unit_2d_wide",
    .summary = "a 2D chapter with a non-square mask limit",
    .dims = 2,
    .default_size = {1024, 1024},
    .default_mask = {3, 3},
    .max_mask = {9, 5},
    .default_block = 16,
    .min_block = 8,
    .max_block = 32,
    .block_power_of_two = 1,
    .input_formats = "a PNG",
};

static const struct cli_spec spec_3d = {
    .program = "unit_3d",
    .summary = "a volume chapter",
    .dims = 3,
    .default_size = {128, 96, 64},
    .default_mask = {3, 3, 3},
    .max_mask = {7, 7, 5},
    .default_block = 8,
    .min_block = 1,
    .max_block = 32,
    .input_formats = "a 3-D float32 .npy",
};

/* cli_parse on "prog" followed by the NULL-terminated args. */
static int parse(const struct cli_spec *spec, struct cli_options *opt, char *err,
                 const char *const *args) {
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    while (*args && argc < 63)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    err[0] = '\0';
    return cli_parse(argc, argv, spec, opt, err);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Must be accepted; returns 1 if it was (so the caller can look at opt). */
static int accepted(int line, const struct cli_spec *spec, struct cli_options *opt,
                    const char *const *args) {
    char err[WB_ERR_LEN];
    int status = parse(spec, opt, err, args);
    CHECK(status == 0);
    if (status != 0) fprintf(stderr, "  (from line %d: %s)\n", line, err);
    return status == 0;
}

/* Must be refused with -1 and a one-line message containing `needle`. */
static void refused(int line, const struct cli_spec *spec, const char *needle,
                    const char *const *args) {
    char err[WB_ERR_LEN];
    struct cli_options opt;
    int failed_before = check_failed;
    int status = parse(spec, &opt, err, args);
    CHECK(status == -1 && err[0] != '\0' && text_contains(err, needle) && !strchr(err, '\n'));
    if (check_failed != failed_before) {
        fprintf(stderr,
                "  (from line %d: returned %d, message '%s', expected it to mention '%s';"
                " argv:",
                line, status, err, needle);
        for (const char *const *a = args; *a; ++a)
            fprintf(stderr, " '%s'", *a);
        fprintf(stderr, ")\n");
    }
}

#define ACCEPTED(spec, opt, ...) accepted(__LINE__, spec, opt, ARGS(__VA_ARGS__))
#define REFUSED(spec, needle, ...) refused(__LINE__, spec, needle, ARGS(__VA_ARGS__))

/* --help prints to stdout: send that to /dev/null for the call so the test output stays clean. */
static int parse_quietly(const struct cli_spec *spec, const char *const *args) {
    struct cli_options opt;
    char err[WB_ERR_LEN];
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    int status = parse(spec, &opt, err, args);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (null >= 0) close(null);
    return status;
}

/* What a chapter's own options set, for the cli test (take_extra). */
struct extra_seen {
    int streams, pinned;
};

static int take_extra(void *context, const char *name, const char *value, char *err) {
    struct extra_seen *seen = context;
    if (!strcmp(name, "--pinned")) {
        seen->pinned = 1;
        return 0;
    }
    char *end;
    long k = strtol(value, &end, 10);
    if (*end || k < 1 || k > 16) return wb_error(err, "--streams: %s is out of range (1 to 16)", value);
    seen->streams = (int)k;
    return 0;
}

/* What print (cli_print_help, cli_print_spec) writes for spec, as text ("" if no temporary
 * file could be made, which fails the checks on it). */
static void printed(void (*print)(FILE *, const struct cli_spec *), const struct cli_spec *spec,
                    char *text, size_t size) {
    text[0] = '\0';
    FILE *f = tmpfile();
    if (!f) return;
    print(f, spec);
    text_read_back(f, text, size);
    fclose(f);
}

static void test_cli(void) {
    struct cli_options opt;

    /* Defaults of a 1D chapter. */
    if (ACCEPTED(&spec_1d, &opt, NULL)) {
        CHECK(opt.size_count == 1 && opt.sizes[0].width == 1L << 26 && opt.sizes[0].height == 1);
        CHECK(opt.mask_size_count == 1 && opt.mask_sizes[0].width == 5 &&
              opt.mask_sizes[0].height == 1);
        CHECK(opt.mode == CLI_MODE_RUN && !opt.json && opt.block == 256 && opt.reps == 30);
        CHECK(opt.mask_kind == MASK_RANDOM && !opt.mask_file && !opt.input && !opt.output);
        CHECK(!opt.seed_given);
    }
    /* A fresh seed per run: two parses a millisecond apart draw different seeds (a clash
     * would need equal clocks or a 1 in 2^32 coincidence). */
    uint64_t first_seed = opt.seed;
    nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (ACCEPTED(&spec_1d, &opt, NULL)) CHECK(opt.seed != first_seed && !opt.seed_given);

    /* Defaults of a 2D chapter. */
    if (ACCEPTED(&spec_2d, &opt, NULL)) {
        CHECK(opt.size_count == 1 && opt.sizes[0].width == 8192 && opt.sizes[0].height == 8192);
        CHECK(opt.mask_size_count == 1 && opt.mask_sizes[0].width == 3 &&
              opt.mask_sizes[0].height == 3);
        CHECK(opt.block == 16);
    }

    /* Sizes. */
    if (ACCEPTED(&spec_1d, &opt, "--size", "31,4097"))
        CHECK(opt.size_count == 2 && opt.sizes[0].width == 31 && opt.sizes[1].width == 4097 &&
              opt.sizes[0].height == 1 && opt.sizes[1].height == 1);
    if (ACCEPTED(&spec_1d, &opt, "--size=33"))
        CHECK(opt.size_count == 1 && opt.sizes[0].width == 33);
    if (ACCEPTED(&spec_1d, &opt, "--size", "1073741824")) /* CLI_MAX_LENGTH_1D itself */
        CHECK(opt.sizes[0].width == CLI_MAX_LENGTH_1D);
    if (ACCEPTED(&spec_2d, &opt, "--size", "1000x777"))
        CHECK(opt.size_count == 1 && opt.sizes[0].width == 1000 && opt.sizes[0].height == 777);
    if (ACCEPTED(&spec_2d, &opt, "--size", "640,3x5"))
        CHECK(opt.size_count == 2 && opt.sizes[0].width == 640 && opt.sizes[0].height == 640 &&
              opt.sizes[1].width == 3 && opt.sizes[1].height == 5);

    /* Mask widths: lists and ranges. */
    if (ACCEPTED(&spec_1d, &opt, "--mask-width", "1:63")) {
        int ok = opt.mask_size_count == 63;
        for (int k = 0; ok && k < 63; ++k)
            ok &= opt.mask_sizes[k].width == k + 1 && opt.mask_sizes[k].height == 1;
        CHECK(ok);
    }
    if (ACCEPTED(&spec_1d, &opt, "--mask-width", "3,5,7"))
        CHECK(opt.mask_size_count == 3 && opt.mask_sizes[0].width == 3 &&
              opt.mask_sizes[1].width == 5 && opt.mask_sizes[2].width == 7);
    if (ACCEPTED(&spec_1d, &opt, "--mask-width", "1,4:6,63"))
        CHECK(opt.mask_size_count == 5 && opt.mask_sizes[1].width == 4 &&
              opt.mask_sizes[3].width == 6 && opt.mask_sizes[4].width == 63);
    if (ACCEPTED(&spec_2d, &opt, "--mask-width", "5x3"))
        CHECK(opt.mask_size_count == 1 && opt.mask_sizes[0].width == 5 &&
              opt.mask_sizes[0].height == 3);
    if (ACCEPTED(&spec_2d, &opt, "--mask-width", "7"))
        CHECK(opt.mask_sizes[0].width == 7 && opt.mask_sizes[0].height == 7);
    if (ACCEPTED(&spec_2d, &opt, "--mask-width", "2:7")) {
        int ok = opt.mask_size_count == 6;
        for (int k = 0; ok && k < 6; ++k)
            ok &= opt.mask_sizes[k].width == k + 2 && opt.mask_sizes[k].height == k + 2;
        CHECK(ok);
    }
    if (ACCEPTED(&spec_2d_wide, &opt, "--mask-width", "9x5"))
        CHECK(opt.mask_sizes[0].width == 9 && opt.mask_sizes[0].height == 5);

    /* Modes and flags. */
    if (ACCEPTED(&spec_1d, &opt, "--check")) CHECK(opt.mode == CLI_MODE_CHECK);
    if (ACCEPTED(&spec_1d, &opt, "--bench")) CHECK(opt.mode == CLI_MODE_BENCH);
    if (ACCEPTED(&spec_1d, &opt, "--json")) CHECK(opt.json && opt.mode == CLI_MODE_RUN);
    if (ACCEPTED(&spec_1d, &opt, "--check")) CHECK(!opt.own_kernels);
    if (ACCEPTED(&spec_1d, &opt, "--own-kernels", "--check"))
        CHECK(opt.own_kernels && opt.mode == CLI_MODE_CHECK);
    if (ACCEPTED(&spec_1d, &opt, "--seed", "18446744073709551615"))
        CHECK(opt.seed == UINT64_MAX && opt.seed_given);
    if (ACCEPTED(&spec_1d, &opt, "--seed=0")) CHECK(opt.seed == 0 && opt.seed_given);
    if (ACCEPTED(&spec_1d, &opt, "--reps", "20")) CHECK(opt.reps == 20);
    if (ACCEPTED(&spec_1d, &opt, "--reps=100000")) CHECK(opt.reps == 100000);
    if (ACCEPTED(&spec_1d, &opt, "--block", "1024")) CHECK(opt.block == 1024);
    if (ACCEPTED(&spec_1d, &opt, "--block", "1")) CHECK(opt.block == 1);
    if (ACCEPTED(&spec_1d, &opt, "--block", "384")) CHECK(opt.block == 384); /* 1D: any */
    if (ACCEPTED(&spec_2d, &opt, "--block", "8")) CHECK(opt.block == 8);
    if (ACCEPTED(&spec_2d, &opt, "--block", "32")) CHECK(opt.block == 32);
    if (ACCEPTED(&spec_1d, &opt, "--mask", "gaussian")) CHECK(opt.mask_kind == MASK_GAUSSIAN);
    /* Lists of blocks and mask names: each runs in turn, the first is the current one. */
    if (ACCEPTED(&spec_2d, &opt, "--block", "8,32,16"))
        CHECK(opt.block_count == 3 && opt.blocks[0] == 8 && opt.blocks[1] == 32 &&
              opt.blocks[2] == 16 && opt.block == 8);
    if (ACCEPTED(&spec_1d, &opt, NULL)) CHECK(opt.block_count == 1 && opt.blocks[0] == 256);
    if (ACCEPTED(&spec_1d, &opt, "--mask", "box,sobel,box"))
        CHECK(opt.mask_kind_count == 3 && opt.mask_kinds[0] == MASK_BOX &&
              opt.mask_kinds[1] == MASK_SOBEL && opt.mask_kinds[2] == MASK_BOX &&
              opt.mask_kind == MASK_BOX);
    if (ACCEPTED(&spec_1d, &opt, NULL))
        CHECK(opt.mask_kind_count == 1 && opt.mask_kinds[0] == MASK_RANDOM && opt.input_count == 0);
    if (ACCEPTED(&spec_1d, &opt, "--mask=sobel")) CHECK(opt.mask_kind == MASK_SOBEL);
    if (ACCEPTED(&spec_1d, &opt, "--check", "--size", "31,4097", "--mask-width", "1:63", "--seed",
                 "7", "--json", "--mask", "box")) {
        CHECK(opt.mode == CLI_MODE_CHECK && opt.size_count == 2 && opt.mask_size_count == 63);
        CHECK(opt.seed == 7 && opt.json && opt.mask_kind == MASK_BOX);
    }
    /* Nothing carries over from one parse to the next. */
    if (ACCEPTED(&spec_1d, &opt, NULL)) CHECK(!opt.json && opt.mode == CLI_MODE_RUN);

    /* Files: the scratch files make the same-file checks real. */
    char in_path[512], link_path[512], dot_path[512], mask_path[512], out_path[512];
    scratch_write(in_path, "input.npy", "not really npy");
    scratch_write(mask_path, "mask.txt", "1 2 1\n");
    scratch_path(link_path, "input_link.npy");
    remove(link_path);
    CHECK(link(in_path, link_path) == 0);
    snprintf(dot_path, sizeof dot_path, "%s/./input.npy", scratch_dir);
    scratch_path(out_path, "output.npy");
    remove(out_path);
    if (ACCEPTED(&spec_1d, &opt, "--input", in_path))
        CHECK(opt.input && strcmp(opt.input, in_path) == 0 && opt.size_count == 0);
    if (ACCEPTED(&spec_1d, &opt, "--input", in_path, "--output", out_path))
        CHECK(opt.output && strcmp(opt.output, out_path) == 0);
    /* --input repeated: several inputs in one run, each protected from --output. */
    if (ACCEPTED(&spec_1d, &opt, "--input", in_path, "--input", dot_path))
        CHECK(opt.input_count == 2 && strcmp(opt.inputs[0], in_path) == 0 &&
              strcmp(opt.inputs[1], dot_path) == 0 && opt.input == opt.inputs[0]);
    REFUSED(&spec_1d, "--output needs a single", "--input", in_path, "--input", dot_path,
            "--output", out_path);
    REFUSED(&spec_1d, "--output needs a single", "--block", "32,64", "--output", out_path);
    REFUSED(&spec_1d, "--output needs a single", "--mask", "box,sobel", "--output", out_path);
    if (ACCEPTED(&spec_1d, &opt, "--output", out_path, "--size", "100"))
        CHECK(opt.size_count == 1 && opt.output);
    if (ACCEPTED(&spec_1d, &opt, "--mask-file", mask_path))
        CHECK(opt.mask_file && strcmp(opt.mask_file, mask_path) == 0 && opt.mask_size_count == 0);
    if (ACCEPTED(&spec_1d, &opt, "--mask-file", mask_path, "--mask-width", "3"))
        CHECK(opt.mask_size_count == 1 && opt.mask_sizes[0].width == 3);

    /* --help (and -h) print the help and return 1. */
    CHECK(parse_quietly(&spec_1d, ARGS("--help")) == 1);
    CHECK(parse_quietly(&spec_2d, ARGS("--size", "3x3", "-h")) == 1);
    FILE *help = tmpfile();
    if (help) {
        char text[8192];
        cli_print_help(help, &spec_2d);
        text_read_back(help, text, sizeof text);
        CHECK(text_contains(text, "unit_2d") && text_contains(text, "--mask-width") &&
              text_contains(text, "power of two"));
        fclose(help);
    }

    /* --spec prints the limits as key=value lines and returns 1; the mask widths given are
     * told apart from the default. */
    CHECK(parse_quietly(&spec_1d, ARGS("--spec")) == 1);
    FILE *facts = tmpfile();
    if (facts) {
        char text[2048];
        struct cli_spec halo = spec_1d;
        halo.block_rule = BLOCK_COVERS_HALO;
        cli_print_spec(facts, &halo);
        text_read_back(facts, text, sizeof text);
        char expected[64];
        snprintf(expected, sizeof expected, "mask_max=%ldx1\n", halo.max_mask.width);
        CHECK(text_contains(text, "dims=1\n") && text_contains(text, expected) &&
              text_contains(text, "block_rule=covers_halo\n") && text_contains(text, "tune=0\n"));
        snprintf(expected, sizeof expected, "block_min_at_mask_max=%d\n",
                 block_rule_minimum(BLOCK_COVERS_HALO, (int)halo.max_mask.width, 1));
        CHECK(text_contains(text, expected));
        fclose(facts);
    }
    if (ACCEPTED(&spec_1d, &opt, "--size", "9")) CHECK(!opt.mask_width_given);

    /* --path: only where the chapter names its paths; the first is the default. */
    static const char *const paths[] = {"auto", "direct", "separable", NULL};
    struct cli_spec pathed = spec_2d;
    pathed.paths = paths;
    REFUSED(&spec_2d, "one path", "--path", "auto");
    REFUSED(&pathed, "'fast' is not one of auto, direct, separable", "--path", "fast");
    REFUSED(&pathed, "needs a value", "--path=");
    if (ACCEPTED(&pathed, &opt, NULL)) CHECK(opt.path == 0);
    if (ACCEPTED(&pathed, &opt, "--path", "separable")) CHECK(opt.path == 2);
    if (ACCEPTED(&pathed, &opt, "--path=direct")) CHECK(opt.path == 1);
    if (ACCEPTED(&spec_1d, &opt, "--mask-width", "3")) CHECK(opt.mask_width_given);

    /* A chapter's own options: parsed by its callback, listed by --help and --spec, unknown
     * elsewhere; the callback's refusal is the run's. */
    static const struct cli_extra_option extras[] = {
        {"--streams", 1, "K  copy streams, 1 to 16"}, {"--pinned", 0, "pinned host memory"}, {NULL}};
    struct extra_seen seen = {0, 0};
    struct cli_spec extended = spec_2d;
    extended.extras = extras;
    extended.parse_extra = take_extra;
    extended.extra_context = &seen;
    if (ACCEPTED(&extended, &opt, "--streams", "4", "--pinned", "--size", "9"))
        CHECK(seen.streams == 4 && seen.pinned == 1 && opt.sizes[0].width == 9);
    if (ACCEPTED(&extended, &opt, "--streams=16")) CHECK(seen.streams == 16);
    REFUSED(&extended, "--streams: 17 is out of range", "--streams", "17");
    REFUSED(&extended, "--streams needs a value", "--streams");
    REFUSED(&extended, "--pinned takes no value", "--pinned=1");
    REFUSED(&spec_2d, "unknown option '--streams'", "--streams", "4");
    char text[8192];
    printed(cli_print_help, &extended, text, sizeof text);
    CHECK(text_contains(text, "--streams K        copy streams, 1 to 16\n"));
    CHECK(text_contains(text, "--pinned           pinned host memory\n"));
    printed(cli_print_spec, &extended, text, sizeof text);
    CHECK(text_contains(text, "extras=--streams,--pinned\n"));
    printed(cli_print_spec, &spec_2d, text, sizeof text);
    CHECK(text_contains(text, "extras=\n"));
    /* Volumes: WxHxD, or W for a cube; ranges are cubes; every side against its own limit. */
    if (ACCEPTED(&spec_3d, &opt, NULL))
        CHECK(opt.size_count == 1 && opt.sizes[0].width == 128 && opt.sizes[0].height == 96 &&
              opt.sizes[0].depth == 64 && opt.mask_sizes[0].depth == 3);
    if (ACCEPTED(&spec_3d, &opt, "--size", "17x33x31,5", "--mask-width", "1:3,7x1x5"))
        CHECK(opt.size_count == 2 && opt.sizes[0].width == 17 && opt.sizes[0].height == 33 &&
              opt.sizes[0].depth == 31 && opt.sizes[1].width == 5 && opt.sizes[1].height == 5 &&
              opt.sizes[1].depth == 5 && opt.mask_size_count == 4 &&
              opt.mask_sizes[2].width == 3 && opt.mask_sizes[2].depth == 3 &&
              opt.mask_sizes[3].width == 7 && opt.mask_sizes[3].height == 1 &&
              opt.mask_sizes[3].depth == 5);
    REFUSED(&spec_3d, "is 2D: a volume takes WxHxD", "--size", "17x33");
    REFUSED(&spec_3d, "out of range", "--mask-width", "3x3x6");
    REFUSED(&spec_3d, "means 7x7x7, over the limit of 7x7x5", "--mask-width", "7");
    REFUSED(&spec_3d, "means 6x6x6, over the limit of 7x7x5", "--mask-width", "2:6");
    REFUSED(&spec_3d, "out of range", "--size", "4097x1x1");
    REFUSED(&spec_3d, "more than 1073741824 voxels", "--size", "2048x1024x1024");
    REFUSED(&spec_2d, "is 3D but this chapter is 2D", "--size", "3x4x5");
    REFUSED(&spec_1d, "is 2D but this chapter is 1D", "--size", "3x4x5");
    char volume_text[4096];
    printed(cli_print_spec, &spec_3d, volume_text, sizeof volume_text);
    CHECK(text_contains(volume_text, "dims=3\n") && text_contains(volume_text, "mask_max=7x7x5\n") &&
          text_contains(volume_text, "mask_default=3x3x3\n"));
    printed(cli_print_help, &spec_3d, volume_text, sizeof volume_text);
    CHECK(text_contains(volume_text, "volume size WxHxD") && text_contains(volume_text, "up to 7x7x5"));

    /* The block rules: the smallest --block each takes. */
    CHECK(block_rule_minimum(BLOCK_ANY, 63, 1) == 1);
    CHECK(block_rule_minimum(BLOCK_COVERS_HALO, 1, 1) == 1);
    CHECK(block_rule_minimum(BLOCK_COVERS_HALO, 3, 1) == 1);
    CHECK(block_rule_minimum(BLOCK_COVERS_HALO, 4, 1) == 2);
    CHECK(block_rule_minimum(BLOCK_COVERS_HALO, 63, 1) == 31);
    CHECK(block_rule_minimum(BLOCK_COVERS_MASK, 5, 3) == 5);
    CHECK(block_rule_minimum(BLOCK_COVERS_MASK, 3, 7) == 7);

    /* Refusals: each names the option (or the bad word) in one line. */
    REFUSED(&spec_1d, "--frobnicate", "--frobnicate");
    REFUSED(&spec_1d, "'foo'", "foo");
    REFUSED(&spec_1d, "-x", "-x");
    REFUSED(&spec_1d, "--size", "--size", "0");
    REFUSED(&spec_1d, "--size", "--size", "-5");
    REFUSED(&spec_1d, "--size", "--size", "abc");
    REFUSED(&spec_1d, "12abc", "--size", "12abc");
    REFUSED(&spec_1d, "--size", "--size", "");
    REFUSED(&spec_1d, "--size", "--size=");
    REFUSED(&spec_1d, "--size", "--size", " 5");
    REFUSED(&spec_1d, "--size", "--size", "5 ");
    REFUSED(&spec_1d, "--size", "--size", "1.5");
    REFUSED(&spec_1d, "--size", "--size", "31,");
    REFUSED(&spec_1d, "--size", "--size", "31,,4097");
    REFUSED(&spec_1d, "--size", "--size", "10x10");
    REFUSED(&spec_1d, "--size", "--size", "1073741825");
    REFUSED(&spec_1d, "--size", "--size", "99999999999999999999999");
    REFUSED(&spec_1d, "--size", "--size", "5:7"); /* ranges are for mask widths only */
    REFUSED(&spec_2d, "--size", "--size", "10x");
    REFUSED(&spec_2d, "--size", "--size", "x10");
    REFUSED(&spec_2d, "--size", "--size", "0x5");
    REFUSED(&spec_2d, "--size", "--size", "10x10x10");
    REFUSED(&spec_2d, "--size", "--size", "65537x10");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "0");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "64");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "-1");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "5:3");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "1:64");
    REFUSED(&spec_1d, "--mask-width", "--mask-width", "1:63,1:63,1:63"); /* > CLI_MAX_VALUES */
    REFUSED(&spec_2d, "--mask-width", "--mask-width", "10x3");
    REFUSED(&spec_2d, "--mask-width", "--mask-width", "3x10");
    REFUSED(&spec_2d, "--mask-width", "--mask-width", "10");
    REFUSED(&spec_2d, "--mask-width", "--mask-width", "2x2:5");
    /* A bare W in 2D means WxW, so it must respect the height limit too: parse_size checks the
     * height it copies from W against max_h. */
    REFUSED(&spec_2d_wide, "--mask-width", "--mask-width", "7");
    REFUSED(&spec_2d_wide, "--mask-width", "--mask-width", "2:7");
    REFUSED(&spec_2d_wide, "--mask-width", "--mask-width", "3x6"); /* explicit H is checked */
    /* mask_kind_parse's message names the bad word and the choices, not the option itself */
    REFUSED(&spec_1d, "nosuch", "--mask", "nosuch");
    REFUSED(&spec_1d, "--block", "--block", "0");
    REFUSED(&spec_1d, "--block", "--block", "1025");
    REFUSED(&spec_2d, "--block", "--block", "24");
    REFUSED(&spec_2d, "--block", "--block", "4");
    REFUSED(&spec_2d, "--block", "--block", "64");
    REFUSED(&spec_2d, "out of range", "--block", "8,64");
    REFUSED(&spec_2d, "power of two", "--block", "16,24");
    REFUSED(&spec_2d, "not a whole number", "--block", "8,,16");
    REFUSED(&spec_2d, "not a whole number", "--block", "8,");
    REFUSED(&spec_1d, "nosuch", "--mask", "box,nosuch");
    REFUSED(&spec_1d, "--mask", "--mask", "box,");
    REFUSED(&spec_1d, "--reps", "--reps", "19");
    REFUSED(&spec_1d, "--reps", "--reps", "100001");
    REFUSED(&spec_1d, "--seed", "--seed", "-1");
    REFUSED(&spec_1d, "--seed", "--seed", "x");
    REFUSED(&spec_1d, "--seed", "--seed", "");
    REFUSED(&spec_1d, "--seed", "--seed", "+5");
    REFUSED(&spec_1d, "--seed", "--seed", "12x");
    REFUSED(&spec_1d, "--seed", "--seed", "18446744073709551616");
    REFUSED(&spec_1d, "--check", "--check", "--bench");
    REFUSED(&spec_1d, "--check", "--bench", "--check");
    REFUSED(&spec_1d, "--mask-file", "--mask", "box", "--mask-file", mask_path);
    REFUSED(&spec_1d, "--mask-file", "--mask-file", mask_path, "--mask-width", "3,5");
    REFUSED(&spec_1d, "--input", "--input", in_path, "--size", "10");
    REFUSED(&spec_1d, "--input", "--size", "10", "--input", in_path);
    REFUSED(&spec_1d, "--output", "--output", out_path, "--size", "10,20");
    REFUSED(&spec_1d, "--output", "--output", out_path, "--mask-width", "3,5");
    REFUSED(&spec_1d, "--size", "--size");
    REFUSED(&spec_1d, "--seed", "--check", "--seed");
    REFUSED(&spec_1d, "--check", "--check=1");
    REFUSED(&spec_1d, "--json", "--json=");
    REFUSED(&spec_1d, "--own-kernels", "--own-kernels=yes");
    REFUSED(&spec_1d, "--output", "--input", in_path, "--output", in_path);
    REFUSED(&spec_1d, "--output", "--input", in_path, "--output", link_path); /* hard link */
    REFUSED(&spec_1d, "--output", "--input", in_path, "--output", dot_path);  /* ./ prefix */
    REFUSED(&spec_1d, "--output", "--mask-file", mask_path, "--output", mask_path);

    /* cli_has_extension: a real suffix after something, any case. */
    CHECK(cli_has_extension("out.npy", ".npy") == 1);
    CHECK(cli_has_extension("dir/OUT.NPY", ".npy") == 1);
    CHECK(cli_has_extension("out.Png", ".png") == 1);
    CHECK(cli_has_extension("out.png", ".npy") == 0);
    CHECK(cli_has_extension("out.npy.png", ".npy") == 0);
    CHECK(cli_has_extension("outnpy", ".npy") == 0);
    CHECK(cli_has_extension(".npy", ".npy") == 0);
    CHECK(cli_has_extension("", ".npy") == 0);
}

int main(int argc, char **argv) {
    int status = scratch_from_args(argc, argv, "unit_cli");
    if (status) return status;
    test_cli();
    return check_summary("unit_cli");
}
