/* variant_choice.c: chapter 07's choices of kernel variant (see variant_choice.h). */
#include "variant_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook.h"

int choose_direct_large(const struct gpu_limits *lim, const struct kernel_resources *narrow,
                        const struct kernel_resources *wide, int mask_w, int mask_h,
                        int force_narrow, struct direct_choice *out, char *why, size_t size) {
    char wide_why[200] = "";
    out->outputs = 0;
    out->shared_bytes = 0;
    if (wide && mask_w >= DIRECT_WIDE_FROM && !force_narrow &&
        gpu_kernel_fits(lim, wide, DIRECT_THREADS, direct_shared_bytes(32, mask_h), wide_why,
                        sizeof wide_why)) {
        out->outputs = 32;
    } else if (gpu_kernel_fits(lim, narrow, DIRECT_THREADS, direct_shared_bytes(16, mask_h), why,
                               size)) {
        out->outputs = 16;
    } else {
        char narrow_why[200];
        snprintf(narrow_why, sizeof narrow_why, "%s", why);
        snprintf(why, size, "the direct kernel for a %dx%d mask does not fit: %s", mask_w, mask_h,
                 narrow_why);
        return 0;
    }
    out->shared_bytes = direct_shared_bytes(out->outputs, mask_h);
    return out->outputs;
}

int choose_fused_terms(const struct gpu_limits *lim, const struct kernel_resources *k, char *why,
                       size_t size) {
    for (int terms = FUSED_MAX_TERMS; terms >= 1; --terms)
        if (gpu_kernel_fits(lim, k, FUSED_THREADS, fused_shared_bytes(terms), why, size))
            return terms;
    char one[200];
    snprintf(one, sizeof one, "%s", why);
    snprintf(why, size, "the fused kernel does not fit even one term: %s", one);
    return 0;
}

int direct_force_narrow(void) {
    const char *forced = getenv("WB_FORCE_DIRECT_OUTPUTS");
    if (!forced || !*forced) return 0;
    if (strcmp(forced, "16"))
        wb_die(WB_EXIT_USAGE, "WB_FORCE_DIRECT_OUTPUTS='%s' is not 16 (the older GPUs' variant)",
               forced);
    return 1;
}
