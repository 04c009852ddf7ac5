/* arch_fit.c: every variant the launchers choose fits every GPU the workbook builds for, proved
 * without one (tests/arch_fit.sh compiles the kernels and runs this on ptxas's report).
 *
 *   build/tests/arch_fit RESOURCES [--shrink SM=BYTES] [--force-wide]
 *
 * RESOURCES: one kernel a line, "SM NAME REGISTERS STATIC_SHARED STACK SPILLS" (NAME demangled,
 * spaces removed). For each architecture of gpu_limits.h's table it calls the choice functions
 * the launches call (chapter 07's choose_direct_large and choose_fused_terms at every mask size
 * 1..31 x 1..31, chapter 09's choose_conv3d_fetch at widths that TMA takes and that it does not),
 * fed the table's limits and the compiler's numbers, and checks with its own arithmetic that
 * the chosen kernel launches: registers x threads within the SM's, static + dynamic shared
 * memory within the opt-in maximum (and the SM's, with its reserve), no TMA where the
 * architecture has none. On sm_90 each choice must be the one the launches made before the
 * choices took limits (32 outputs from 18 wide, three fused terms, TMA wherever the width is a
 * multiple of 4), so an H100's kernels stay exactly what they were. Every failure is one line
 * naming the kernel, the architecture and the limit; exit 1 if any.
 * Plants (tests/arch_fit.sh --plants): --shrink 75=40000 shrinks one table entry's opt-in
 * maximum; --force-wide makes the direct kernel take 32 outputs wherever it has them, as a
 * launcher that ignored the limits would. Each must fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../chapters/07_separable/variant_choice.c"
#include "../chapters/09_3d/fetch_choice.c"
#include "gpu_limits.h"
#include "lowrank.h"

enum { MAX_KERNELS = 2048, NAME_CHARS = 160 };

static struct entry {
    int sm;
    char name[NAME_CHARS];
    struct kernel_resources k;
    int spills;
} entries[MAX_KERNELS];
static int entry_count, failures;

static const struct entry *find(int sm, const char *name) {
    for (int i = 0; i < entry_count; ++i)
        if (entries[i].sm == sm && !strcmp(entries[i].name, name)) return &entries[i];
    return NULL;
}

static void fail(const char *fmt, const char *kernel, int sm, const char *detail) {
    printf("FAIL ");
    printf(fmt, kernel, sm, detail);
    printf("\n");
    ++failures;
}

/* The launch check, written out here rather than through gpu_kernel_fits, so that a choice
 * function and this test cannot share a mistake. */
static void check_launch(const struct gpu_limits *lim, const struct entry *e, int threads,
                         long dynamic, const char *context) {
    char detail[320];
    const long warps = (threads + 31) / 32, per_warp = (e->k.regs * 32 + 255) / 256 * 256;
    const long shared = e->k.static_shared + dynamic;
    if (warps * per_warp > lim->regs_per_block)
        snprintf(detail, sizeof detail, "%s: %d registers x %d threads need %ld registers, over "
                 "the %d a block may have", context, e->k.regs, threads, warps * per_warp,
                 lim->regs_per_block);
    else if (shared > lim->shared_per_block_optin)
        snprintf(detail, sizeof detail, "%s: %ld bytes of shared memory a block (%d static + %ld "
                 "dynamic), over the opt-in maximum of %d", context, shared, e->k.static_shared,
                 dynamic, lim->shared_per_block_optin);
    else if (shared + lim->shared_reserved > lim->shared_per_sm)
        snprintf(detail, sizeof detail, "%s: %ld bytes of shared memory and %d reserved, over "
                 "the SM's %d", context, shared, lim->shared_reserved, lim->shared_per_sm);
    else
        return;
    fail("%s on sm_%d: %s", e->name, lim->sm, detail);
}

static void note_spills(const struct entry *e) {
    if (e->spills) printf("note %s on sm_%d spills %d bytes a thread\n", e->name, e->sm, e->spills);
}

/* Chapter 07's direct kernel: every mask size, the choice, then the check. */
static void check_direct(const struct gpu_limits *lim, int force_wide) {
    int wide_count = 0, narrow_count = 0;
    for (int w = 1; w <= LOWRANK_MAX_SIDE; ++w)
        for (int h = 1; h <= LOWRANK_MAX_SIDE; ++h) {
            const int groups = (w + 3) / 4;
            char name[NAME_CHARS], context[64], why[256];
            snprintf(name, sizeof name, "direct_large_kernel<%d,16,4>", groups);
            const struct entry *narrow = find(lim->sm, name), *wide = NULL;
            if (!narrow) {
                fail("%s on sm_%d: %s", name, lim->sm, "not in the compiler's report");
                return;
            }
            snprintf(name, sizeof name, "direct_large_kernel<%d,32,3>", groups);
            if (direct_has_wide(groups) && !(wide = find(lim->sm, name))) {
                fail("%s on sm_%d: %s", name, lim->sm, "not in the compiler's report");
                return;
            }
            struct direct_choice c;
            snprintf(context, sizeof context, "mask %dx%d", w, h);
            if (!choose_direct_large(lim, &narrow->k, wide ? &wide->k : NULL, w, h, 0, &c, why,
                                     sizeof why)) {
                fail("%s on sm_%d: %s", "direct_large", lim->sm, why);
                continue;
            }
            if (force_wide && wide && w >= DIRECT_WIDE_FROM)
                c.outputs = 32, c.shared_bytes = direct_shared_bytes(32, h);
            if (lim->sm == 90 && c.outputs != (w >= DIRECT_WIDE_FROM ? 32 : 16))
                fail("%s on sm_%d: %s", "direct_large", 90, "the choice differs from the "
                     "H100's (32 outputs from 18 wide, else 16)");
            const struct entry *e = c.outputs == 32 ? wide : narrow;
            check_launch(lim, e, DIRECT_THREADS, (long)c.shared_bytes, context);
            *(c.outputs == 32 ? &wide_count : &narrow_count) += 1;
        }
    printf("sm_%d direct_large: 32 outputs for %d masks, 16 for %d\n", lim->sm, wide_count,
           narrow_count);
}

/* Chapter 07's fused kernel: each width and height bucket's kernel, the terms a launch takes. */
static void check_fused(const struct gpu_limits *lim) {
    static const int buckets[] = {4, 8, 16, 24, 32};
    int least = FUSED_MAX_TERMS;
    char why[256] = "";
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            char name[NAME_CHARS];
            snprintf(name, sizeof name, "fused_kernel<%d,%d>", buckets[i], buckets[j]);
            const struct entry *e = find(lim->sm, name);
            if (!e) {
                fail("%s on sm_%d: %s", name, lim->sm, "not in the compiler's report");
                continue;
            }
            const int terms = choose_fused_terms(lim, &e->k, why, sizeof why);
            if (lim->sm == 90 && terms != FUSED_MAX_TERMS)
                fail("%s on sm_%d: %s", name, 90, "takes fewer terms a launch than the H100's 3");
            if (terms)
                check_launch(lim, e, FUSED_THREADS, (long)fused_shared_bytes(terms), "fused");
            if (terms < least) least = terms;
        }
    if (least)
        printf("sm_%d fused: %d term(s) a launch\n", lim->sm, least);
    else
        printf("sm_%d fused: does not fit (%s); chapter 07's auto path takes the direct kernel\n",
               lim->sm, why);
}

/* Chapter 09's 2.5D kernel: each instantiation's TMA and cp.async kernels, two widths. */
static void check_stream(const struct gpu_limits *lim) {
    int pairs = 0, tma = 0;
    for (int i = 0; i < entry_count; ++i) {
        const struct entry *with = &entries[i];
        const char *suffix = strstr(with->name, ",true>");
        if (with->sm != lim->sm || strncmp(with->name, "conv3d_stream_kernel<", 21) || !suffix)
            continue;
        char name[NAME_CHARS], why[256];
        snprintf(name, sizeof name, "%.*s,false>", (int)(suffix - with->name), with->name);
        const struct entry *without = find(lim->sm, name);
        if (!without) {
            fail("%s on sm_%d: %s", name, lim->sm, "not in the compiler's report");
            continue;
        }
        ++pairs;
        for (int width = 36; width <= 37; ++width) {
            const enum conv3d_fetch f =
                choose_conv3d_fetch(lim, &with->k, &without->k, width, 0, why, sizeof why);
            if (f == CONV3D_FETCH_NONE) {
                fail("%s on sm_%d: %s", with->name, lim->sm, why);
                continue;
            }
            if (f == CONV3D_FETCH_TMA && !lim->has_tma)
                fail("%s on sm_%d: %s", with->name, lim->sm, "TMA chosen, and the GPU has none");
            if (lim->sm == 90 && (f == CONV3D_FETCH_TMA) != (width % 4 == 0))
                fail("%s on sm_%d: %s", with->name, 90, "not the H100's choice (TMA where the "
                     "width is a multiple of 4)");
            tma += f == CONV3D_FETCH_TMA;
            check_launch(lim, f == CONV3D_FETCH_TMA ? with : without, CONV3D_STREAM_THREADS, 0,
                         "2.5D");
        }
    }
    if (!pairs) fail("%s on sm_%d: %s", "conv3d_stream_kernel", lim->sm, "none in the report");
    printf("sm_%d conv3d_stream: %d kernels, TMA in %d of %d choices\n", lim->sm, pairs, tma,
           2 * pairs);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: arch_fit RESOURCES [--shrink SM=BYTES] [--force-wide]\n");
        return 2;
    }
    int force_wide = 0, shrink_sm = 0, shrink_bytes = 0;
    for (int i = 2; i < argc; ++i) {
        if (!strcmp(argv[i], "--force-wide"))
            force_wide = 1;
        else if (!strcmp(argv[i], "--shrink") && i + 1 < argc &&
                 sscanf(argv[++i], "%d=%d", &shrink_sm, &shrink_bytes) == 2)
            continue;
        else {
            fprintf(stderr, "arch_fit: bad option '%s'\n", argv[i]);
            return 2;
        }
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        fprintf(stderr, "arch_fit: cannot read %s\n", argv[1]);
        return 2;
    }
    struct entry e;
    memset(&e, 0, sizeof e);
    while (entry_count < MAX_KERNELS &&
           fscanf(in, "%d %159s %d %d %d %d", &e.sm, e.name, &e.k.regs, &e.k.static_shared,
                  &e.k.stack, &e.spills) == 6) {
        e.k.local = e.spills;
        e.k.binary_version = e.sm;
        entries[entry_count++] = e;
    }
    fclose(in);
    for (int a = 0; a < gpu_limits_known_count; ++a) {
        struct gpu_limits lim = gpu_limits_known[a];
        if (lim.sm == shrink_sm) lim.shared_per_block_optin = shrink_bytes;
        int kernels = 0;
        for (int i = 0; i < entry_count; ++i)
            if (entries[i].sm == lim.sm) {
                ++kernels;
                note_spills(&entries[i]);
                /* every kernel on its own: the block sizes its launcher uses are 256 threads */
                check_launch(&lim, &entries[i], 256, 0, "alone");
            }
        if (!kernels) {
            fail("%s on sm_%d: %s", "every kernel", lim.sm, "none in the compiler's report");
            continue;
        }
        check_direct(&lim, force_wide);
        check_fused(&lim);
        check_stream(&lim);
    }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
