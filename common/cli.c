/* cli.c: strict parsing of the shared command line (see cli.h).
 * Order: number parsing, list/range parsing, the option table walk, the cross-option checks,
 * help text, output-path check. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "data_gen.h"
#include "image_io.h"
#include "safe_output.h"

/* A whole number by the workbook's one rule (wb_parse_whole), within [lo, hi]. */
static int parse_long(const char *option, const char *text, long lo, long hi, long *value,
                      char *err) {
    long long v;
    const int rc = wb_parse_whole(text, lo, hi, &v);
    if (rc == -1)
        return wb_error(err, "%s: '%s' is not a whole number (%s)", option, text, WB_NUMBER_RULE);
    if (rc)
        return wb_error(err, "%s: %s is out of range (%ld to %ld)", option, text, lo, hi);
    *value = (long)v;
    return 0;
}

/* 1D: "W". 2D: "W" (meaning WxW) or "WxH". 3D: "W" (a cube) or "WxHxD". Each side within its
 * limit (max->width, height, depth). */
static int parse_size(const char *option, const char *text, int dims, const struct cli_size *max,
                      struct cli_size *size, char *err) {
    char buffer[64];
    if (strlen(text) >= sizeof buffer)
        return wb_error(err, "%s: '%.20s...' is too long", option, text);
    strcpy(buffer, text);
    char *x = strchr(buffer, 'x'), *x2 = x ? strchr(x + 1, 'x') : NULL;
    if (x && dims == 1) return wb_error(err, "%s: '%s' is 2D but this chapter is 1D", option, text);
    if (x2 && dims == 2) return wb_error(err, "%s: '%s' is 3D but this chapter is 2D", option, text);
    if (x && !x2 && dims == 3)
        return wb_error(err, "%s: '%s' is 2D: a volume takes WxHxD, or W for a cube", option, text);
    if (x) *x = '\0';
    if (x2) *x2 = '\0';
    if (parse_long(option, buffer, 1, max->width, &size->width, err)) return -1;
    size->height = dims == 1 ? 1 : size->width;
    size->depth = dims == 3 ? size->width : 1;
    if (x && parse_long(option, x + 1, 1, max->height, &size->height, err)) return -1;
    if (x2 && parse_long(option, x2 + 1, 1, max->depth, &size->depth, err)) return -1;
    if (!x && dims == 2 && size->height > max->height)
        return wb_error(err, "%s: %s means %ldx%ld, taller than the limit of %ld", option, text,
                        size->width, size->height, max->height);
    if (!x && dims == 3 && (size->height > max->height || size->depth > max->depth))
        return wb_error(err, "%s: %s means %ldx%ldx%ld, over the limit of %ldx%ldx%ld", option,
                        text, size->width, size->height, size->depth, max->width, max->height,
                        max->depth);
    return 0;
}

/* A comma list of sizes; items may be ranges "A:B" (square or cube sizes A..B) when ranges is
 * set. */
static int parse_size_list(const char *option, const char *text, int dims,
                           const struct cli_size *max, int ranges, struct cli_size *sizes,
                           int *count, char *err) {
    char buffer[1024];
    if (!*text) return wb_error(err, "%s needs a value", option);
    if (strlen(text) >= sizeof buffer) return wb_error(err, "%s: the list is too long", option);
    strcpy(buffer, text);
    *count = 0;
    for (char *item = buffer, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        struct cli_size first, last;
        char *colon = ranges ? strchr(item, ':') : NULL;
        if (colon) *colon = '\0';
        if (parse_size(option, item, dims, max, &first, err)) return -1;
        last = first;
        if (colon) {
            if (strchr(item, 'x') || strchr(colon + 1, 'x'))
                return wb_error(err, "%s: ranges take plain widths (1:63), not WxH", option);
            if (parse_size(option, colon + 1, dims, max, &last, err)) return -1;
            if (last.width < first.width)
                return wb_error(err, "%s: range %s:%s runs backwards", option, item, colon + 1);
        }
        for (long w = first.width; w <= last.width; ++w) {
            if (*count == CLI_MAX_VALUES)
                return wb_error(err, "%s: more than %d values", option, CLI_MAX_VALUES);
            sizes[*count].width = w;
            sizes[*count].height = colon ? (dims == 1 ? 1 : w) : first.height;
            sizes[*count].depth = colon ? (dims == 3 ? w : 1) : first.depth;
            ++*count;
        }
    }
    return 0;
}

static int is_power_of_two(long v) {
    return v > 0 && (v & (v - 1)) == 0;
}

/* Splits a comma list into items, pointers into buffer (at most CLI_MAX_VALUES). */
static int split_list(const char *option, const char *text, char *buffer, size_t size,
                      char **items, int *count, char *err) {
    if (strlen(text) >= size) return wb_error(err, "%s: the list is too long", option);
    strcpy(buffer, text);
    *count = 0;
    for (char *item = buffer, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        if (*count == CLI_MAX_VALUES)
            return wb_error(err, "%s: more than %d values", option, CLI_MAX_VALUES);
        items[(*count)++] = item;
    }
    return 0;
}

/* --block's comma list: each a block size the chapter takes. */
static int parse_block_list(const struct cli_spec *spec, const char *text, struct cli_options *opt,
                            char *err) {
    char buffer[1024], *items[CLI_MAX_VALUES];
    int count;
    if (split_list("--block", text, buffer, sizeof buffer, items, &count, err)) return -1;
    for (int k = 0; k < count; ++k) {
        long number;
        if (parse_long("--block", items[k], spec->min_block, spec->max_block, &number, err))
            return -1;
        if (spec->block_power_of_two && !is_power_of_two(number))
            return wb_error(err, "--block: %ld is not a power of two", number);
        opt->blocks[k] = (int)number;
    }
    opt->block_count = count;
    opt->block = opt->blocks[0];
    return 0;
}

/* --mask's comma list of mask names (a volume's names for dims 3). */
static int parse_mask_list(const char *text, int dims, struct cli_options *opt, char *err) {
    char buffer[1024], *items[CLI_MAX_VALUES], why[WB_ERR_LEN];
    int count;
    if (split_list("--mask", text, buffer, sizeof buffer, items, &count, err)) return -1;
    for (int k = 0; k < count; ++k)
        if (dims == 3 ? mask3d_kind_parse(items[k], &opt->volume_mask_kinds[k], why)
                      : mask_kind_parse(items[k], &opt->mask_kinds[k], why))
            return wb_error(err, "--mask: %s", why);
    opt->mask_kind_count = count;
    opt->mask_kind = opt->mask_kinds[0];
    return 0;
}

/* Fetches the value of an option given as "--name value" or "--name=value". */
static const char *option_value(int argc, char **argv, int *i, const char *inline_value,
                                const char *name, char *err) {
    if (inline_value) return inline_value;
    if (*i + 1 >= argc) {
        wb_error(err, "%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

/* names (NULL-terminated; NULL: none), comma-separated, into buffer. */
static const char *name_list(const char *const *names, char *buffer, size_t size) {
    buffer[0] = '\0';
    for (int k = 0; names && names[k]; ++k)
        snprintf(buffer + strlen(buffer), size - strlen(buffer), "%s%s", k ? ", " : "", names[k]);
    return buffer;
}

static int parse_path(const struct cli_spec *spec, const char *value, int *path, char *err) {
    if (!spec->paths) return wb_error(err, "--path: this chapter has one path, nothing to choose");
    for (int k = 0; spec->paths[k]; ++k)
        if (!strcmp(value, spec->paths[k])) {
            *path = k;
            return 0;
        }
    char names[256];
    return wb_error(err, "--path: '%s' is not one of %s", value,
                    name_list(spec->paths, names, sizeof names));
}

static int parse_kernel(const struct cli_spec *spec, const char *value, const char **kernel,
                        char *err) {
    for (int k = 0; spec->kernels[k]; ++k)
        if (!strcmp(value, spec->kernels[k])) {
            *kernel = spec->kernels[k];
            return 0;
        }
    char names[256];
    return wb_error(err, "--kernel: '%s' is not one of %s", value,
                    name_list(spec->kernels, names, sizeof names));
}

static void set_defaults(const struct cli_spec *spec, struct cli_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->mask_kind = opt->mask_kinds[0] = MASK_RANDOM;
    opt->volume_mask_kinds[0] = MASK3D_RANDOM;
    opt->mask_kind_count = 1;
    opt->block = opt->blocks[0] = spec->default_block;
    opt->block_count = 1;
    opt->reps = 30;
    opt->mode = CLI_MODE_RUN;
}

int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_options *opt,
              char *err) {
    set_defaults(spec, opt);
    int mask_named = 0, check = 0, bench = 0;
    const long max_length = spec->dims == 1   ? CLI_MAX_LENGTH_1D
                            : spec->dims == 3 ? CLI_MAX_SIDE_3D
                                              : IMAGE_MAX_DIM;
    const struct cli_size size_limit = {max_length, spec->dims == 3 ? CLI_MAX_SIDE_3D : IMAGE_MAX_DIM,
                                        CLI_MAX_SIDE_3D};
    const struct cli_size mask_limit = {spec->max_mask.width, spec->max_mask.height,
                                        spec->max_mask.depth ? spec->max_mask.depth : 1};
    for (int i = 1; i < argc; ++i) {
        char name[64];
        const char *arg = argv[i], *inline_value = NULL, *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0 && strcmp(arg, "-h") != 0)
            return wb_error(err, "unexpected argument '%s' (options start with --; see --help)",
                            arg);
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        if (eq) inline_value = eq + 1;
        static const char *const flags[] = {"--check", "--bench", "--json",        "--tune",
                                            "--spec",  "--help",  "--own-kernels", "-h"};
        static const char *const valued[] = {"--size",      "--mask-width", "--mask",
                                             "--mask-file", "--input",      "--output",
                                             "--block",     "--reps",       "--seed",
                                             "--path"};
        int takes_value = -1;
        const struct cli_extra_option *extra = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; ++k)
            if (!strcmp(name, flags[k])) takes_value = 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; ++k)
            if (!strcmp(name, valued[k])) takes_value = 1;
        for (int k = 0; takes_value < 0 && spec->extras && spec->extras[k].name; ++k)
            if (!strcmp(name, spec->extras[k].name)) {
                extra = &spec->extras[k];
                takes_value = extra->takes_value;
            }
        /* --kernel where the chapter names its own kernels (spec.kernels); a chapter's own
         * option of that name (chapter 08's) is its extra, found above */
        if (takes_value < 0 && spec->kernels && !strcmp(name, "--kernel")) takes_value = 1;
        if (takes_value < 0) return wb_error(err, "unknown option '%s' (see --help)", name);
        if (!takes_value && inline_value) return wb_error(err, "%s takes no value", name);
        const char *value = NULL;
        if (takes_value && !(value = option_value(argc, argv, &i, inline_value, name, err)))
            return -1;
        long number;
        if (value && !*value) return wb_error(err, "%s needs a value, got an empty one", name);
        /* A valued option given twice would keep one of them silently: only --input repeats
         * (lists go in one value, with commas). Flags may repeat: they mean the same. */
        if (takes_value && strcmp(name, "--input")) {
            for (int k = 1; k < i - (inline_value ? 0 : 1); ++k) {
                const char *earlier = argv[k];
                const size_t n = strlen(name);
                if (!strncmp(earlier, name, n) && (earlier[n] == '\0' || earlier[n] == '='))
                    return wb_error(err, "%s is given twice: give it once (a list takes commas)",
                                    name);
            }
        }
        if (extra) {
            if (!spec->parse_extra) return wb_error(err, "%s: this program cannot take it", name);
            if (spec->parse_extra(spec->extra_context, name, value, err)) return -1;
        } else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            cli_print_help(stdout, spec);
            return 1;
        } else if (!strcmp(name, "--spec")) {
            cli_print_spec(stdout, spec);
            return 1;
        } else if (!strcmp(name, "--check")) {
            check = 1;
        } else if (!strcmp(name, "--bench")) {
            bench = 1;
        } else if (!strcmp(name, "--json")) {
            opt->json = 1;
        } else if (!strcmp(name, "--own-kernels")) {
            opt->own_kernels = 1;
        } else if (!strcmp(name, "--tune")) {
            if (!spec->allows_tune) return wb_error(err, "--tune: this chapter has no autotuner");
            opt->tune = 1;
        } else if (!strcmp(name, "--path")) {
            if (parse_path(spec, value, &opt->path, err)) return -1;
        } else if (!strcmp(name, "--kernel")) {
            if (parse_kernel(spec, value, &opt->kernel, err)) return -1;
        } else if (!strcmp(name, "--size")) {
            if (parse_size_list(name, value, spec->dims, &size_limit, 0, opt->sizes,
                                &opt->size_count, err))
                return -1;
        } else if (!strcmp(name, "--mask-width")) {
            if (parse_size_list(name, value, spec->dims, &mask_limit, 1, opt->mask_sizes,
                                &opt->mask_size_count, err))
                return -1;
            opt->mask_width_given = 1;
        } else if (!strcmp(name, "--mask")) {
            if (parse_mask_list(value, spec->dims, opt, err)) return -1;
            mask_named = 1;
        } else if (!strcmp(name, "--mask-file")) {
            opt->mask_file = value;
        } else if (!strcmp(name, "--input")) {
            if (opt->input_count == CLI_MAX_VALUES)
                return wb_error(err, "--input: more than %d files", CLI_MAX_VALUES);
            opt->inputs[opt->input_count++] = value;
            opt->input = opt->inputs[0];
        } else if (!strcmp(name, "--output")) {
            opt->output = value;
        } else if (!strcmp(name, "--block")) {
            if (parse_block_list(spec, value, opt, err)) return -1;
        } else if (!strcmp(name, "--reps")) {
            if (parse_long(name, value, CLI_MIN_REPS, CLI_MAX_REPS, &number, err)) return -1;
            opt->reps = (int)number;
        } else if (!strcmp(name, "--seed")) {
            unsigned long long seed;
            if (wb_parse_u64(value, &seed))
                return wb_error(err, "--seed: '%s' is not a whole number from 0 to 2^64-1", value);
            opt->seed = seed;
            opt->seed_given = 1;
        }
    }
    if (check && bench) return wb_error(err, "choose one of --check and --bench, not both");
    opt->mode = check ? CLI_MODE_CHECK : bench ? CLI_MODE_BENCH : CLI_MODE_RUN;
    if (mask_named && opt->mask_file) return wb_error(err, "give --mask or --mask-file, not both");
    if (opt->input && opt->size_count)
        return wb_error(err, "give --size or --input, not both (the input decides the size)");
    if (opt->mask_file && opt->mask_size_count > 1)
        return wb_error(err, "--mask-file fixes the mask size: give at most one --mask-width");
    for (int k = 0; spec->dims == 2 && k < opt->size_count; ++k)
        if ((size_t)opt->sizes[k].width * (size_t)opt->sizes[k].height > IMAGE_MAX_PIXELS)
            return wb_error(err, "--size %ldx%ld has more than %zu pixels", opt->sizes[k].width,
                            opt->sizes[k].height, (size_t)IMAGE_MAX_PIXELS);
    for (int k = 0; spec->dims == 3 && k < opt->size_count; ++k)
        if ((size_t)opt->sizes[k].width * opt->sizes[k].height * opt->sizes[k].depth >
            CLI_MAX_VOXELS)
            return wb_error(err, "--size %ldx%ldx%ld has more than %zu voxels",
                            opt->sizes[k].width, opt->sizes[k].height, opt->sizes[k].depth,
                            (size_t)CLI_MAX_VOXELS);
    if (opt->output && (opt->size_count > 1 || opt->mask_size_count > 1 || opt->block_count > 1 ||
                        opt->mask_kind_count > 1 || opt->input_count > 1))
        return wb_error(err, "--output needs a single --size (or --input), --mask, --mask-width "
                        "and --block");
    /* The files this run reads: no writer of the program may replace them (safe_output.h). */
    for (int k = 0; k < opt->input_count; ++k)
        if (safe_output_protect(opt->inputs[k], err)) return -1;
    if (safe_output_protect(opt->mask_file, err)) return -1;
    char why[WB_ERR_LEN];
    if (opt->output && safe_output_check(opt->output, why))
        return wb_error(err, "--output %s", why);
    if (!opt->input && !opt->size_count) {
        opt->sizes[0] = spec->default_size;
        opt->size_count = 1;
    }
    if (!opt->mask_file && !opt->mask_size_count) {
        opt->mask_sizes[0] = spec->default_mask;
        opt->mask_size_count = 1;
    }
    /* Without --seed: WB_SEED where set (the grader's GRADE_SEED, a seed per test: a regrade
     * draws the same data), else a fresh seed. Printed either way. */
    const char *seed_text = getenv("WB_SEED");
    unsigned long long seed_env;
    if (!opt->seed_given && seed_text && *seed_text) {
        if (wb_parse_u64(seed_text, &seed_env))
            return wb_error(err, "WB_SEED='%s' is not a whole number from 0 to 2^64-1", seed_text);
        opt->seed = seed_env;
    } else if (!opt->seed_given) {
        opt->seed = rng_fresh_seed();
    }
    return 0;
}

void cli_print_help(FILE *out, const struct cli_spec *spec) {
    fprintf(out, "%s: %s\n\n", spec->program, spec->summary);
    fprintf(out, "usage: %s [options]\n\n", spec->program);
    if (spec->dims == 1)
        fprintf(out,
                "  --size LIST        signal length (default %ld); a comma list runs each, "
                "e.g. 31,4097\n",
                spec->default_size.width);
    else if (spec->dims == 2)
        fprintf(out,
                "  --size LIST        image size WxH (default %ldx%ld); a comma list runs "
                "each, e.g. 1000x777\n",
                spec->default_size.width, spec->default_size.height);
    else
        fprintf(out,
                "  --size LIST        volume size WxHxD, or W for a cube (default %ldx%ldx%ld); "
                "a comma list runs each, e.g. 17x33x31\n",
                spec->default_size.width, spec->default_size.height, spec->default_size.depth);
    fprintf(out, "  --input PATH       read %s instead of generating data; repeat it for "
                 "several\n", spec->input_formats);
    fprintf(out, "  --output PATH      write the GPU result (%s)\n",
            spec->dims == 1   ? ".npy"
            : spec->dims == 2 ? ".png or .npy"
                              : ".npy, or .png: its slices side by side, the input's beside");
    if (spec->dims == 3) {
        fprintf(out, "  --mask NAMES       box, gaussian, laplacian7, laplacian27, random (default "
                     "random); a comma list runs each\n");
        fprintf(out, "  --mask-file PATH   read the mask from a text file: one row per line, "
                     "slices separated by a blank line\n");
    } else {
        fprintf(out, "  --mask NAMES       box, gaussian, sharpen, laplacian, sobel, emboss, "
                     "random, rank1, rank2, rank3 (default random); a comma list runs each\n");
        fprintf(out, "  --mask-file PATH   read the mask from a text file, one row per line\n");
    }
    if (spec->dims == 1)
        fprintf(out, "  --mask-width LIST  1 to %ld (default %ld); lists 3,5,7 and ranges 1:%ld\n",
                spec->max_mask.width, spec->default_mask.width, spec->max_mask.width);
    else if (spec->dims == 2)
        fprintf(out,
                "  --mask-width LIST  W or WxH, up to %ldx%ld (default %ldx%ld); lists and "
                "ranges 2:7\n",
                spec->max_mask.width, spec->max_mask.height, spec->default_mask.width,
                spec->default_mask.height);
    else
        fprintf(out,
                "  --mask-width LIST  W (a cube) or WxHxD, up to %ldx%ldx%ld (default "
                "%ldx%ldx%ld); lists and ranges 1:7\n",
                spec->max_mask.width, spec->max_mask.height, spec->max_mask.depth,
                spec->default_mask.width, spec->default_mask.height, spec->default_mask.depth);
    static const char *const rule_text[] = {
        [BLOCK_ANY] = "",
        [BLOCK_COVERS_HALO] = ", at least mask width / 2",
        [BLOCK_COVERS_MASK] = ", at least the larger mask side",
    };
    fprintf(out, "  --block LIST       %s, %d to %d%s%s (default %d); a comma list runs each\n",
            spec->block_usage ? spec->block_usage
            : spec->dims == 2 ? "input tile edge: blocks of N x N threads"
            : spec->dims == 3 ? "input cube edge of the tiled kernel: N x N x N threads"
                              : "threads per block",
            spec->min_block, spec->max_block, spec->block_power_of_two ? ", a power of two" : "",
            rule_text[spec->block_rule], spec->default_block);
    fprintf(out, "  --reps N           timed repetitions, %d to %d (default 30)\n", CLI_MIN_REPS,
            CLI_MAX_REPS);
    fprintf(out,
            "  --seed N           seed for the random data and mask (default: fresh, printed)\n");
    fprintf(out, "  --check            verify against the CPU reference only; exit 0 or 1\n");
    fprintf(out, "  --bench            verify, then time against the copy bound and the CPU\n");
    fprintf(out, "  --json             print results as JSON lines on stdout\n");
    fprintf(out,
            "  --own-kernels      run this chapter's kernels only, not those shown beside them "
            "for comparison\n");
    char names[256];
    if (spec->paths)
        fprintf(out, "  --path NAME        force a path: %s (default %s)\n",
                name_list(spec->paths, names, sizeof names), spec->paths[0]);
    if (spec->kernels)
        fprintf(out, "  --kernel NAME      one of this chapter's own kernels alone: %s\n",
                name_list(spec->kernels, names, sizeof names));
    if (spec->allows_tune)
        fprintf(out,
                "  --tune             verify and time every compiled variant, save the fastest "
                "per mask size\n");
    for (int k = 0; spec->extras && spec->extras[k].name; ++k) {
        /* the value's name ("LIST  copy streams...") joins the option's, as for the others */
        const char *usage = spec->extras[k].usage, *gap = strstr(usage, "  ");
        char column[64];
        if (spec->extras[k].takes_value && gap && gap - usage < 16) {
            snprintf(column, sizeof column, "%s %.*s", spec->extras[k].name, (int)(gap - usage),
                     usage);
            usage = gap + 2;
        } else {
            snprintf(column, sizeof column, "%s", spec->extras[k].name);
        }
        fprintf(out, "  %-18s %s\n", column, usage);
    }
    fprintf(out, "  --spec             print these limits as key=value lines, for scripts\n");
    fprintf(out, "  --help             this text\n\n");
    fprintf(out, "numbers (options and WB_* variables): %s; each option once, but --input\n\n",
            WB_NUMBER_RULE);
    fprintf(out, "exit codes: 0 pass, 1 verification failed, 2 bad usage or input, "
                 "77 no usable CUDA device\n");
}

int block_rule_minimum(enum block_rule rule, int mask_w, int mask_h) {
    switch (rule) {
    case BLOCK_COVERS_HALO:
        return mask_w / 2 > 1 ? mask_w / 2 : 1;
    case BLOCK_COVERS_MASK:
        return mask_w > mask_h ? mask_w : mask_h;
    default:
        return 1;
    }
}

void cli_print_spec(FILE *out, const struct cli_spec *spec) {
    static const char *const rule_names[] = {[BLOCK_ANY] = "any",
                                             [BLOCK_COVERS_HALO] = "covers_halo",
                                             [BLOCK_COVERS_MASK] = "covers_mask"};
    fprintf(out, "program=%s\ndims=%d\n", spec->program, spec->dims);
    if (spec->dims == 3)
        fprintf(out, "mask_max=%ldx%ldx%ld\nmask_default=%ldx%ldx%ld\n", spec->max_mask.width,
                spec->max_mask.height, spec->max_mask.depth, spec->default_mask.width,
                spec->default_mask.height, spec->default_mask.depth);
    else
        fprintf(out, "mask_max=%ldx%ld\nmask_default=%ldx%ld\n", spec->max_mask.width,
                spec->max_mask.height, spec->default_mask.width, spec->default_mask.height);
    fprintf(out, "block_min=%d\nblock_max=%d\nblock_default=%d\nblock_rule=%s\n", spec->min_block,
            spec->max_block, spec->default_block, rule_names[spec->block_rule]);
    int needed =
        block_rule_minimum(spec->block_rule, (int)spec->max_mask.width, (int)spec->max_mask.height);
    fprintf(out, "block_min_at_mask_max=%d\n", needed > spec->min_block ? needed : spec->min_block);
    fprintf(out, "tune=%d\ntune_masks=%s\n", spec->allows_tune,
            spec->allows_tune && spec->tune_masks ? spec->tune_masks : "");
    fputs("paths=", out);
    for (int k = 0; spec->paths && spec->paths[k]; ++k)
        fprintf(out, "%s%s", k ? "," : "", spec->paths[k]);
    fputs("\nkernels=", out);
    for (int k = 0; spec->kernels && spec->kernels[k]; ++k)
        fprintf(out, "%s%s", k ? "," : "", spec->kernels[k]);
    fputs("\nextras=", out);
    for (int k = 0; spec->extras && spec->extras[k].name; ++k)
        fprintf(out, "%s%s", k ? "," : "", spec->extras[k].name);
    fputc('\n', out);
}

int cli_has_extension(const char *path, const char *ext) {
    size_t length = strlen(path), ext_length = strlen(ext);
    return length > ext_length && strcasecmp(path + length - ext_length, ext) == 0;
}
