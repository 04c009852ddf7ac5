/* cli.h: the one command line every chapter program speaks.
 *
 *   struct cli_spec      what a chapter accepts (dimensions, defaults, limits), set by its driver
 *   struct cli_options   what the user asked for, after strict validation
 *   cli_parse            parse argv; bad values are refused with a one-line message
 *   cli_print_help       the --help text, built from the spec
 *   cli_print_spec       --spec: the spec as key=value lines, for the test generator and graders
 *   block_rule_minimum   the smallest --block a kernel with a given block rule takes for a mask
 *
 * Options (a value may follow as the next argument or after '='):
 *   --size LIST          1D: lengths (4097); 2D: WxH (1000x777); 3D: WxHxD (17x33x31), or W for
 *                        a cube; a comma list runs each
 *   --mask NAME          box gaussian sharpen laplacian sobel emboss random rank1 rank2 rank3;
 *                        3D: box gaussian laplacian7 laplacian27 random
 *   --mask-file PATH     a mask from a text file (see masks.h)
 *   --mask-width LIST    1D: widths; 2D: W or WxH; 3D: W or WxHxD; lists (3,5,7) and ranges
 *                        (1:63: squares, cubes) allowed
 *   --block LIST         block sizes, a comma list runs each (8,16,32)
 *   --mask NAMES         a comma list runs each (box,gaussian)
 *   --input PATH         repeat it to run several inputs in one process
 *   --output PATH  --reps N  --seed N  --check  --bench  --json  --help  --own-kernels
 *   --path NAME          chapters with several paths (07): force one, "auto" by default
 *   --kernel NAME        chapters with several kernels of their own (04): run that one alone
 *   --spec               print what the program accepts (limits, defaults) and exit 0
 * Nothing here touches the GPU: errors come out the same on machines with and without one.
 */
#ifndef CLI_H
#define CLI_H

#include <stdint.h>
#include <stdio.h>

#include "masks.h"
#include "masks3d.h"
#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLI_MAX_VALUES 128
#define CLI_MAX_LENGTH_1D (1L << 30)
#define CLI_MIN_REPS 20
#define CLI_MAX_REPS 100000

struct cli_size {
    long width;
    long height; /* 1 for 1D */
    long depth;  /* 3D (volumes) only; 1 or 0 (not set) elsewhere */
};

/* Volumes (dims 3): each side and the voxel count of --size. */
#define CLI_MAX_SIDE_3D 4096
#define CLI_MAX_VOXELS ((size_t)1 << 30)

/* What a kernel needs of --block, declared with each kernel (conv1d_variant, conv2d_variant). */
enum block_rule {
    BLOCK_ANY,         /* any --block, or the kernel ignores it */
    BLOCK_COVERS_HALO, /* 1D tiles where each thread loads at most one halo cell: >= mask_w / 2 */
    BLOCK_COVERS_MASK  /* 2D input tiles of block x block: >= both mask sides */
};

/* The smallest --block a kernel with this rule takes for a mask_w x mask_h mask. */
int block_rule_minimum(enum block_rule rule, int mask_w, int mask_h);

/* An option of one chapter's own (chapter 08's --streams, say), parsed by its driver. */
struct cli_extra_option {
    const char *name;  /* "--streams" */
    int takes_value;   /* 1: "--name value" or "--name=value"; 0: a flag */
    const char *usage; /* --help: the value's name, two spaces, the text: "K  copy streams, 1 to 16" */
};

struct cli_spec {
    const char *program;          /* "ch01_basic_1d" */
    const char *summary;          /* one line for --help */
    int dims;                     /* 1, 2 or 3 */
    struct cli_size default_size; /* used when neither --size nor --input is given */
    struct cli_size default_mask; /* default mask width (x height) */
    struct cli_size max_mask;     /* largest mask width (x height) the chapter accepts */
    int default_block, min_block, max_block;
    int block_power_of_two;     /* --block must be a power of two */
    const char *block_usage;    /* --help's words for --block; NULL: the dimension's own */
    enum block_rule block_rule; /* the chapter's own kernel's rule (the harness sets it from the
                                   kernel's declaration; --help and --spec state it) */
    int allows_tune;            /* the chapter has an autotuner: accept --tune */
    const char *tune_masks;     /* with allows_tune: the mask sizes it can tune, "2:7,9" */
    const char *input_formats;  /* "a 1-D float32 .npy" for --help and errors */
    const char *const *paths;   /* names --path takes, NULL-terminated, the first the default;
                                   NULL: the chapter has one path and refuses --path */
    const char *const *kernels; /* the chapter's own kernels' names, NULL-terminated, where it
                                   has several (04): --kernel NAME checks one alone, so that
                                   the tests and the grader report each; NULL: refuses --kernel */
    const struct cli_extra_option *extras; /* the chapter's own options, ended by a NULL name;
                                              NULL: none */
    /* Takes one of extras (value NULL for a flag): 0, or -1 with a one-line message in err. */
    int (*parse_extra)(void *context, const char *name, const char *value, char *err);
    void *extra_context;
    int several_streams; /* GPU work on several streams at once (chapters 08 and 10): the
                            driver's 8 hardware queues stay; else harness_start asks for one
                            (device_one_queue) */
};

enum cli_mode { CLI_MODE_RUN, CLI_MODE_CHECK, CLI_MODE_BENCH };

struct cli_options {
    struct cli_size sizes[CLI_MAX_VALUES];
    int size_count; /* 0 when --input is given */
    struct cli_size mask_sizes[CLI_MAX_VALUES];
    int mask_size_count;  /* 0 with --mask-file and no --mask-width: the file decides */
    int mask_width_given; /* --mask-width was on the command line (else the default is set) */
    enum mask_kind mask_kind; /* the one a configuration uses: mask_kinds[0] after parsing */
    enum mask_kind mask_kinds[CLI_MAX_VALUES];
    enum mask3d_kind volume_mask_kinds[CLI_MAX_VALUES]; /* dims 3: --mask's names for volumes */
    int mask_kind_count;        /* 1 at least: --mask's list, or the default */
    const char *mask_file;      /* NULL unless --mask-file */
    const char *input, *output; /* NULL unless given; input: the one a configuration reads */
    const char *inputs[CLI_MAX_VALUES];
    int input_count; /* how many --input were given (0: generated data) */
    int block;       /* the one a configuration uses: blocks[0] after parsing */
    int blocks[CLI_MAX_VALUES];
    int block_count; /* 1 at least: --block's list, or the default */
    int reps;
    uint64_t seed;
    int seed_given;
    enum cli_mode mode;
    int json;
    int tune; /* --tune: sweep the compiled variants, verify and time each, save the winners */
    int path;        /* --path: an index into spec->paths (0, the default, without it) */
    const char *kernel; /* --kernel: the one own kernel to run (one of spec->kernels); NULL:
                           every kernel */
    int own_kernels; /* --own-kernels: leave out the kernels shown for comparison (earlier
                        chapters', libraries', baselines): the tests' batteries check each
                        kernel in its own chapter, not again in every later one */
};

/* Parses argv against spec. Returns 0 to run, 1 if --help or --spec was printed (exit 0), -1
 * with a message in err (exit WB_EXIT_USAGE). The seed defaults to a fresh one (rng_fresh_seed). */
int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_options *opt,
              char *err);

void cli_print_help(FILE *out, const struct cli_spec *spec);

/* One key=value line per fact: program, dims, mask_max, mask_default (WxH), block_min,
 * block_max, block_default, block_rule (any, covers_halo, covers_mask), block_min_at_mask_max
 * (the smallest --block the chapter's kernel takes with the largest mask), tune (0 or 1),
 * tune_masks (empty without an autotuner), paths (the names --path takes, comma-separated, empty
 * without), kernels (the names --kernel takes, likewise), extras (the chapter's own options,
 * comma-separated, empty without). Tests read limits from here instead of typing them again. */
void cli_print_spec(FILE *out, const struct cli_spec *spec);

/* 1 if path ends with the extension ext (".npy"), case-insensitive. */
int cli_has_extension(const char *path, const char *ext);

#ifdef __cplusplus
}
#endif
#endif
