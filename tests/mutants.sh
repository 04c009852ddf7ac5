#!/bin/sh
# mutants.sh: do the GPU tests catch wrong kernels, and do their hints name the bug? Plants one
# bug at a time in a solution, rebuilds, and requires the chapter's --check to fail (or
# compute-sanitizer to object) with the hint that names that bug ("hint [id]", diagnose.h). All of
# it happens in a copy of the tree (build/mutants/tree: the sources, and the built objects with
# their timestamps, so a mutant rebuilds only its own program), removed at the end: the
# workbook's own solutions/ and build are never touched.
#
#   sh tests/mutants.sh            (on a GPU machine, from the repository root; make mutants)
#   ONLY=ch04 sh tests/mutants.sh  only the mutants whose description holds ch04 (any text)
# A mutant whose failure has no hint to require gives "-" and must only fail: chapter 08's waits
# (a step held late against one that does not wait for it: a race or a wrong strip, by timing),
# the slips of chapters 07, 08 and 09 whose hint is not settled, and chapter 10's slips through
# NCCL on two GPUs that are not also checked on one.
# Prints one line per mutant: "caught  [hint] what", "MISSED" or "WRONG HINT"; exits 1 if any
# mutant was missed or got another hint. Each mutated file is restored (in the copy) before the
# next mutant; the copy goes on every exit, an interrupt (Ctrl-C) or a kill by TERM included.
# shellcheck disable=SC2086 # throughout: a check command is one string of words (sh has no arrays), split on purpose
set -u
for built in common libworkbook.a devinfo; do
    [ -e "build/$built" ] || { echo "mutants: build/$built is not built (run make first)"; exit 2; }
done
build/devinfo >/dev/null 2>&1 || { echo "mutants: no usable GPU here: the planted bugs need one to run"; exit 77; }
copy=$(pwd)/build/mutants/tree
trap 'cd / && rm -rf "$copy"' EXIT
trap 'exit 130' INT HUP TERM # exit runs the EXIT trap
rm -rf "$copy" && mkdir -p "$copy/build" || exit 2
{ tar cf - Makefile common chapters solutions exercises tests data grading | tar xf - -C "$copy" &&
    (cd build && tar cf - common libworkbook.a [0-9][0-9]_*) | tar xf - -C "$copy/build"; } ||
    { echo "mutants: could not copy the tree to $copy"; exit 2; }
cd "$copy" || exit 2
missed=0
mutated= # the solution file that holds a mutant right now
restore() {
    [ -n "$mutated" ] && [ -f "$mutated.orig" ] || return 0
    mv "$mutated.orig" "$mutated"
    touch "$mutated" # newer than the mutant's objects, so make rebuilds the real kernel
    mutated=
}
# The chapter program a check command runs (build/chNN_name): the one program a mutant rebuilds,
# so each mutant costs one compile and one link, not the whole workbook and its test list.
program_in() {
    for word; do
        case $word in build/ch[0-9][0-9]_*) echo "$word"; return ;; esac
    done
    echo all
}
mutant() { # FILE SED_EXPRESSION HINT_ID DESCRIPTION CHECK_COMMAND...
    file=$1 expr=$2 hint=$3 what=$4
    shift 4
    case $what in *"${ONLY:-}"*) ;; *) return 0 ;; esac
    [ -e "$file.orig" ] && { echo "mutants: $file.orig exists: restore $file from it first"; exit 2; }
    cp "$file" "$file.orig"
    mutated=$file
    sed "$expr" "$file.orig" >"$file"
    if cmp -s "$file" "$file.orig"; then
        echo "mutants: '$what' changed nothing in $file: fix the expression"
        missed=1
    elif ! make -s "$(program_in "$@")" >/dev/null 2>&1; then
        echo "mutants: '$what' does not build"
        missed=1
    elif output=$("$@" 2>&1); then
        echo "MISSED  $what"
        missed=1
    elif [ "$hint" != - ] && ! printf '%s\n' "$output" | grep -q "hint \[$hint\]"; then
        echo "WRONG HINT  $what: expected [$hint], got:"
        printf '%s\n' "$output" | grep "hint \[" | sort | uniq -c | sort -rn | head -3
        missed=1
    else
        echo "caught  [$hint] $what"
    fi
    restore
}
ch01=solutions/01_basic_1d/conv1d_basic.cu
check01="build/ch01_basic_1d --check --size 1,2,33,4097,100000 --mask-width 1:63"
mutant $ch01 's/k >= 0 \&\& k < n/k >= 0 \&\& k < n - 1/' ghost-cells "ch01: skips the last input" $check01
mutant $ch01 's/k >= 0 \&\& k < n/k > 0 \&\& k < n/' ghost-cells "ch01: skips the first input" $check01
mutant $ch01 's/i - mask_width \/ 2/i - (mask_width - 1) \/ 2/' shifted "ch01: even-width anchor on the left" $check01
mutant $ch01 's/j < mask_width/j < mask_width - 1/' one-tap "ch01: drops the last mask weight" $check01
mutant $ch01 's/sum += mask\[j\] \* in\[k\]/sum += mask[mask_width - 1 - j] * in[k]/' flipped "ch01: flips the mask (true convolution)" $check01
mutant $ch01 's/if (i >= n) return;/if (i > n) return;/' out-of-bounds "ch01: one thread past the end (memcheck)" \
    tests/sanitize.sh memcheck build/ch01_basic_1d --check --size 33 --mask-width 5
# Rounded down, the grid has no block at all for a signal shorter than one block (the launch
# fails), and misses the last outputs of a longer one.
mutant $ch01 's/(n + block_size - 1) \/ block_size/n \/ block_size/' launch-config \
    "ch01: grid rounded down (a signal shorter than a block)" $check01
mutant $ch01 's/(n + block_size - 1) \/ block_size/n \/ block_size/' unwritten-end \
    "ch01: grid rounded down (longer signals)" build/ch01_basic_1d --check --size 4097,100000 --mask-width 1:63
ch02=solutions/02_constant_mask/conv1d_constant.cu
check02="build/ch02_constant_mask --check --size 1,2,33,4097,100000 --mask-width 1:63"
mutant $ch02 's/mask_width \* sizeof(float)));/(mask_width - 1) * sizeof(float)));/' \
    one-tap "ch02: copies one weight too few" $check02
mutant $ch02 's/c_mask\[j\] \* in\[k\]/c_mask[j + 1] * in[k]/' wrong-everywhere "ch02: weights shifted by one" $check02
mutant $ch02 's/^    CUDA_CHECK(cudaMemcpyToSymbol(c_mask.*$/    \/\/ mask never copied/' wrong-everywhere \
    "ch02: the mask never copied to constant memory" $check02
ch03=solutions/03_tiled_halo/conv1d_tiled.cu
check03="build/ch03_tiled_halo --check --size 1,2,33,4097,100000 --mask-width 1:63 --block 64"
mutant $ch03 's/^    __syncthreads();/    \/\/ no barrier/' race "ch03: no barrier (racecheck)" \
    tests/sanitize.sh racecheck build/ch03_tiled_halo --check --size 4097 --mask-width 5 --block 64
mutant $ch03 's/(k >= 0) ? in\[k\] : 0.0f;/(k >= 0) ? in[k] : in[0];/' ghost-cells "ch03: left ghost cells not zero" $check03
mutant $ch03 's/(k < n) ? in\[k\] : 0.0f;/(k < n - 1) ? in[k] : 0.0f;/' ghost-cells "ch03: right halo stops early" $check03
mutant $ch03 's/int k = i - (int)blockDim.x;/int k = i - (int)blockDim.x + 1;/' tile-seams "ch03: left halo off by one" $check03
# Not planted: `if (i < n) __syncthreads();`. The threads that skip that barrier here go on to
# exit, and from sm_70 an exited thread counts as arrived, so the block completes with the right
# outputs and synccheck (which reports a divergent barrier only before sm_70) has nothing to see.
# The lesson still forbids it (the CUDA model leaves it undefined); chapters 08 and 10's
# synccheck tests cover the barriers a wrong strip or slab loop can leave unmatched.
ch04=solutions/04_cached_tiling/conv1d_cached.cu
check04="build/ch04_cached_tiling --check --size 1,2,33,4097,100000 --mask-width 1:63 --block 64"
mutant $ch04 's/^    __syncthreads();/    \/\/ no barrier/' race "ch04: no barrier (racecheck)" \
    tests/sanitize.sh racecheck build/ch04_cached_tiling --check --size 4097 --mask-width 5 --block 64
# One past the tile is one float past the block's shared memory: the GPU faults on that read.
mutant $ch04 's/k >= tile_start \&\& k < tile_end/k >= tile_start \&\& k <= tile_end/' \
    out-of-bounds "ch04: tile end off by one (reads past the shared tile)" $check04
mutant $ch04 's/else if (k >= 0 \&\& k < n)/else if (k >= 0 \&\& k < n - 1)/' ghost-cells "ch04: halo misses the last input" $check04
# Exercise 2 (section 6), the register-tiled kernel ("beyond: regs", checked beside the cached one).
regs04=solutions/04_cached_tiling/conv1d_register.cu
mutant $regs04 's/for (int j = 0; j < W; ++j)/for (int j = 0; j < W - 1; ++j)/' one-tap \
    "ch04 regs: drops the last mask weight" $check04
mutant $regs04 's/if (first + o < n) out/if (first + o < n - 1) out/' unwritten-end \
    "ch04 regs: the signal's last output never stored" $check04
mutant $regs04 's/x\[T::lead + o + j\]/x[T::lead + o + j + 1]/' shifted \
    "ch04 regs: output o meets the window one place right" $check04
ch05=solutions/05_tiled_2d/conv2d_tiled.cu
check05="build/ch05_tiled_2d --check --size 1000x777,1x37,37x1 --mask-width 1:15,5x3,2x4 --block 16"
mutant $ch05 's/^    __syncthreads();/    \/\/ no barrier/' race "ch05: no barrier (racecheck)" \
    tests/sanitize.sh racecheck build/ch05_tiled_2d --check --size 100x37 --mask-width 5 --block 16
mutant $ch05 's/value = row_of(in, pitch, in_y)\[in_x\];/value = in[in_y * width + in_x];/' \
    pitch "ch05: rows addressed by width, not pitch" $check05
mutant $ch05 's/int in_x = out_x - mask_w \/ 2;/int in_x = out_x - (mask_w - 1) \/ 2;/' \
    shifted "ch05: even-width anchor on the left" $check05
mutant $ch05 's/int out_tile_w = blockDim.x - (mask_w - 1);/int out_tile_w = blockDim.x - mask_w;/' \
    unwritten-end "ch05: output tile one column short" $check05
mutant $ch05 's/float value = 0.0f;/float value = 1.0f;/' ghost-cells "ch05: ghost cells not zero" $check05
ch06=solutions/06_register_prefetch/conv2d_prefetch.cu
check06="build/ch06_register_prefetch --check --size 1000x777,37x33,1x1 --mask-width 3"
mutant $ch06 's/c_mask\[i \* MASK + j\]/c_mask[(MASK - 1 - i) * MASK + (MASK - 1 - j)]/' flipped \
    "ch06: flips the mask (true convolution)" $check06
mutant $ch06 's/if (x0 + ox < width \&\& y0/if (x0 + ox < width - 1 \&\& y0/' unwritten-end \
    "ch06: never stores the last column" $check06
mutant $ch06 's/: 0.0f;/: 1.0f;/' ghost-cells "ch06: ghost cells not zero" $check06
mutant $ch06 's/__ldg(row_of(in, pitch, y) + x)/__ldg(in + y * width + x)/' pitch \
    "ch06: rows addressed by width, not pitch" $check06
mutant $ch06 's/const int y = wy + i, x = wx + j;/const int y = wy + i, x = wx + j + 1;/' shifted \
    "ch06: the window one column right of its corner" $check06
# Chapter 07's row pass, under the two-pass path: rank-1 masks of odd, even and bucket-edge
# widths (4, 8, 16 and 32 taps), sizes that are no multiple of a tile.
ch07=solutions/07_separable/conv2d_row_pass.cu
check07="build/ch07_separable --check --own-kernels --mask rank1 --size 1000x777,37x33,1x1"
check07="$check07 --mask-width 3,4,6,9,16,17,31"
mutant $ch07 's/const float weight = weights\[j\];/const float weight = weights[mask_w - 1 - j];/' - \
    "ch07: row weights flipped (true convolution along x)" $check07
mutant $ch07 's/        if (j < mask_w) {/        if (j < mask_w - 1) {/' - \
    "ch07: drops the last row weight" $check07
mutant $ch07 's/x = x0 - left + c;/x = x0 - (mask_w - 1) \/ 2 + c;/' - \
    "ch07: even-width anchor on the left" $check07
mutant $ch07 's/const bool inside = y < height \&\& x >= 0 \&\& x < width;/const bool inside = y < height \&\& x >= 0 \&\& x < width - 1;/' - \
    "ch07: the last column read as a ghost cell" $check07
mutant $ch07 's/if (x < width \&\& y < height) row_of/if (x < width - 1 \&\& y < height) row_of/' - \
    "ch07: never stores the last column" $check07
mutant $ch07 's/row_of(in, pitch, y < height ? y : 0)/in + (size_t)(y < height ? y : 0) * width/' - \
    "ch07: rows addressed by width, not pitch" $check07
# The row pass's sums stored with 11 significant bits, as a half-precision temporary would be
# (rounded to nearest in magnitude): close to the reference everywhere, outside the tolerance.
mutant $ch07 's/s_out\[row \* S_OUT_PITCH + first + p\] = sum\[p\];/s_out[row * S_OUT_PITCH + first + p] = __int_as_float((__float_as_int(sum[p]) + 0x1000) \& ~0x1fff);/' \
    rounding "ch07: the row pass's sums kept in half precision" $check07
# Chapter 09's z-march: a slip in each TODO, on volumes and chunk lengths that are no multiple of
# the tile, cubic and non-cubic masks.
ch09=solutions/09_3d/conv3d_stream.cu
check09="build/ch09_3d --check --own-kernels --mask random --size 17x33x31,9x8x23"
check09="$check09 --mask-width 1:7,2x3x4,3x4x5"
mutant $ch09 's/const int k = MD - 1 - q;/const int k = q;/' flipped \
    "ch09: mask slices in the queue reversed (flipped along z)" $check09
mutant $ch09 's/if (zi + STAGES - 1 <= last)/if (zi + STAGES - 1 < last)/' - \
    "ch09: the chunk's last plane never fetched" $check09
mutant $ch09 's/if (done >= z0 \&\& done < z_end \&\& x < width)/if (done >= z0 \&\& done < z_end - 1 \&\& x < width)/' unwritten \
    "ch09: the chunk's last output plane never stored" env WB_CONV3D_Z_CHUNK=5 $check09
# (a chunk of one output plane, what these small volumes get, never reuses a slot: chunks of 5)
mutant $ch09 's/acc\[MD - 1\]\[r\]\[c\] = 0.0f;/{}/' z-march \
    "ch09: the queue's new slot not cleared" env WB_CONV3D_Z_CHUNK=5 $check09
# Plane 0 fetched as a ghost plane (zeros): the slices within mask_d/2 of z = 0 are wrong. The
# planes go through cp.async here (TMA fills its own zeros); the fetcher is the chapter's
# (chapters/09_3d/conv3d_stream_tiles.cuh), a bug there shows through the student's kernel.
mutant chapters/09_3d/conv3d_stream_tiles.cuh 's/const bool plane_inside = z >= 0 \&\& z < depth;/const bool plane_inside = z > 0 \&\& z < depth;/' \
    z-halo "ch09: the first plane read as a ghost plane" env WB_CONV3D_NO_TMA=1 $check09
ch08=solutions/08_streams/strips.cu
check08="build/ch08_streams --check --own-kernels --size 1000x777,300x1,1x300 --mask-width 1:15,4x2,2x6"
check08="$check08 --strip-rows 1,7,64 --streams 1,4"
# Each wait of the strip loop left out, run with the stage it guards against held late (the
# tests' WB_STRIPS_DELAY_US), four copy streams for two buffers.
late08="--check --own-kernels --size 300x200 --mask-width 1,5,15 --strip-rows 8,33 --streams 4"
mutant $ch08 's/const int above = gpu->mask_h \/ 2,/const int above = (gpu->mask_h - 1) \/ 2,/' strip-seams \
    "ch08: halo above one row short for even masks" $check08
mutant $ch08 's/below = gpu->mask_h - 1 - gpu->mask_h \/ 2;/below = gpu->mask_h \/ 2;/' - \
    "ch08: halo below one row too many for even masks (past the buffer)" $check08
mutant $ch08 's/in_end = first + rows + below < gpu->height ? first + rows + below/in_end = first + rows < gpu->height ? first + rows/' strip-seams \
    "ch08: no halo below" $check08
mutant $ch08 '0,/WaitEvent(stream, gpu->computed\[b\]/{/WaitEvent(stream, gpu->computed\[b\]/d}' - \
    "ch08: an upload that does not wait for the kernel two strips back" \
    env WB_STRIPS_DELAY_US=0,1000,0 build/ch08_streams $late08
mutant $ch08 '/WaitEvent(gpu->compute, gpu->uploaded\[b\]/d' - \
    "ch08: a kernel that does not wait for its upload" \
    env WB_STRIPS_DELAY_US=1000,0,0 build/ch08_streams $late08
mutant $ch08 '/WaitEvent(gpu->compute, gpu->downloaded\[b\]/d' - \
    "ch08: a kernel that does not wait for the download two strips back" \
    env WB_STRIPS_DELAY_US=0,0,1000 build/ch08_streams $late08
mutant $ch08 '/strip_compute(gpu, s, b, in_rows);/{n;d}' - \
    "ch08: a download that does not wait for its kernel" \
    env WB_STRIPS_DELAY_US=0,1000,0 build/ch08_streams $late08
# Chapter 10's exchange. Two slabs on one GPU trade through the workbook's own calls
# (slab_trade.h), so these run on any GPU; the same slips through NCCL on two GPUs follow, where
# there are two.
ch10=solutions/10_multi_gpu/exchange.cu
slabs10="build/ch10_multi_gpu --check --own-kernels --gpus 1 --slabs 2 --iterations 6"
check10="--mask gaussian,box --size 300x14,67x45,1000x777 --mask-width 3,5x4,2x6,9"
# A wait left out, with the other side held late: the edge rows (or the trade) run at once, on
# the halo rows (or the rows) still in the buffers: zeros in the first run on a fresh engine,
# what that run left there in the second, so the two runs differ (WB_SLABS_HALO_DELAY_US and
# WB_SLABS_COMPUTE_DELAY_US hold the comm or the compute stream).
mutant $ch10 '/cudaStreamWaitEvent(gpus\[g\].edge, gpus\[g\].halo_arrived/d' race \
    "ch10 one GPU: edge rows that do not wait for the halo" \
    env WB_SLABS_HALO_DELAY_US=2000 $slabs10 $check10
mutant $ch10 '/cudaStreamWaitEvent(gpus\[g\].comm, gpus\[g\].pass_done/d' race \
    "ch10 one GPU: a trade that does not wait for the last pass" \
    env WB_SLABS_COMPUTE_DELAY_US=2000 $slabs10 $check10
mutant $ch10 's/rows_at(s, current, end - s->reach_above)/rows_at(s, current, end - s->reach_above - 1)/' \
    slab-seams "ch10 one GPU: the rows sent down one row too high" $slabs10 $check10
# A group never closed trades nothing: the halo rows stay the zeros they started as. One image
# and mask: the workbook's calls keep an open group's sends and receives, at most 256.
mutant $ch10 '/NCCL_CHECK(ncclGroupEnd());/d' nccl-group \
    "ch10 one GPU: the NCCL group never closed" \
    $slabs10 --mask gaussian --size 1000x777 --mask-width 5
# On two GPUs (skipped with fewer: need_gpus.sh exits 77, which fails the mutant's check and
# would count as caught, so the whole block is left out below two GPUs).
nccl10="build/ch10_multi_gpu --check --own-kernels --gpus 2 --iterations 6"
if sh tests/need_gpus.sh 2 true >/dev/null 2>&1; then
    mutant $ch10 '/cudaStreamWaitEvent(gpus\[g\].edge, gpus\[g\].halo_arrived/d' race \
        "ch10 two GPUs: edge rows that do not wait for the halo" \
        env WB_SLABS_HALO_DELAY_US=2000 $nccl10 $check10
    mutant $ch10 '/cudaStreamWaitEvent(gpus\[g\].comm, gpus\[g\].pass_done/d' race \
        "ch10 two GPUs: a trade that does not wait for the last pass" \
        env WB_SLABS_COMPUTE_DELAY_US=2000 $nccl10 $check10
    mutant $ch10 's/rows_at(s, current, end - s->reach_above)/rows_at(s, current, end - s->reach_above - 1)/' \
        slab-seams "ch10 two GPUs: the rows sent down one row too high" $nccl10 $check10
    # The received rows overlap the first row the same slab sends, in one group: which value
    # goes out depends on timing.
    mutant $ch10 's/ncclRecv(rows_at(s, current, 0)/ncclRecv(rows_at(s, current, 1)/' - \
        "ch10 two GPUs: the halo from above received one row low" $nccl10 $check10
fi
make -s all >/dev/null 2>&1
exit $missed
