#!/bin/sh
# sanitize.sh: run a chapter program under compute-sanitizer.
#
#   tests/sanitize.sh TOOL PROGRAM [ARGS...]      TOOL: memcheck, racecheck, initcheck, synccheck
#
# Fails (exit 1) on any error the tool reports or any failure of the program, with a hint in the
# student's terms (the same "hint [id]:" form as the programs' own, common/diagnose.h); exits 77
# (CTest: skipped) when there is no GPU or no compute-sanitizer, saying which.

# The chapter of a program named chNN_name or chNN_name_exercise (its path may differ), or
# nothing.
chapter_of() {
    basename "${1:-}" | sed -n 's/^ch\([0-9][0-9]\)_.*/\1/p'
}

# hint TOOL CHAPTER: the likely cause of what TOOL reported, in the words of the chapter's data
# (a signal, an image, a volume) and of what its student writes (chapters 08 to 10: a strip loop,
# a march, a trade), with the lesson section, in the programs' own "hint [id]:" form.
hint() {
    barrier="chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early'"
    march="chapters/09_3d/README.md, 'Marching along z'"
    tile_2d="chapters/05_tiled_2d/README.md, 'Input tile, output tile: one thread per input cell'"
    case $1:$2 in
    memcheck:0[1-4]) echo "  hint [out-of-bounds]: a thread read or wrote outside its arrays: a" \
        "thread past the end (i >= n) must neither read nor write, and every input index must lie" \
        "in 0 .. n-1 (see chapters/01_basic_1d/README.md, 'Ghost cells'); the report above names" \
        "the kernel and the source line" ;;
    memcheck:08) echo "  hint [out-of-bounds]: a copy or a kernel reached past a strip's buffer or" \
        "the image: a strip uploads the input rows from max(first - mask_h/2, 0) to min(first +" \
        "rows + mask_h - 1 - mask_h/2, height), its buffer holds no more, and the kernel and the" \
        "download use exactly those (see" \
        "chapters/08_streams/README.md, 'Strips: an image larger than the GPU'); the report above" \
        "names the kernel or the copy" ;;
    memcheck:09) echo "  hint [out-of-bounds]: a thread read or wrote outside the volume or its" \
        "stage of shared memory: an output is stored only for x < width, y < height and a slice" \
        "of the chunk inside the volume, a plane is read only for 0 <= z < depth (zeros" \
        "elsewhere) (see $march); the report above names the kernel and the source line" ;;
    memcheck:10) echo "  hint [out-of-bounds]: the trade reached past a slab's buffer: it holds" \
        "halo_above + rows + halo_below whole rows, and each send or receive starts at" \
        "rows_at(row) and moves whole rows inside it (see" \
        "chapters/10_multi_gpu/README.md, 'Your exercise: the exchange'); the report above names" \
        "the kernel" ;;
    memcheck:*) echo "  hint [out-of-bounds]: a thread read or wrote outside its arrays: a thread" \
        "outside the image (x >= width or y >= height) must neither read nor write, and every" \
        "input it reads must lie inside the image, rows pitch bytes apart (see" \
        "chapters/05_tiled_2d/README.md, 'Images, planes and the 2D formula'); the report above" \
        "names the kernel and the source line" ;;
    racecheck:09) echo "  hint [race]: threads share a stage of the plane ring without order:" \
        "a plane fetched into the stage another plane is still read from, or read before the" \
        "wait and the barrier (see $march)" ;;
    racecheck:0[1-4]) echo "  hint [race]: threads share the tile without a barrier between" \
        "writing and reading it: a missing __syncthreads() (see $barrier)" ;;
    racecheck:*) echo "  hint [race]: threads share the tile without a barrier between writing and" \
        "reading it: a missing __syncthreads() after every thread's load, reached by every" \
        "thread of the block (see $tile_2d)" ;;
    synccheck:09) echo "  hint [divergent-barrier]: a __syncthreads() that not every thread of" \
        "the block reaches: the march's barrier after each plane's wait must be reached by every" \
        "thread, every step, also by threads whose outputs lie outside the volume (see $march)" ;;
    synccheck:*) echo "  hint [divergent-barrier]: a __syncthreads() that not every thread of the" \
        "block reaches: one inside a branch that depends on the thread (if (i < n)" \
        "__syncthreads()) or after an early return; every thread must reach every barrier, and" \
        "only the store is skipped (see $barrier)" ;;
    esac
}

tool=$1
shift
sanitizer=$(command -v compute-sanitizer 2>/dev/null)
if [ -z "$sanitizer" ]; then
    for dir in /usr/local/cuda/bin /opt/cuda/bin; do
        [ -x "$dir/compute-sanitizer" ] && sanitizer="$dir/compute-sanitizer" && break
    done
fi
if [ -z "$sanitizer" ]; then
    echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA Toolkit): skipping"
    exit 77
fi
# No GPU visible (CUDA_VISIBLE_DEVICES set but empty): the program would exit 77, but the tool
# counts its failed device query as an API error (99); skip as the program itself would.
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ] && [ -z "$CUDA_VISIBLE_DEVICES" ]; then
    echo "sanitize.sh: no GPU visible (CUDA_VISIBLE_DEVICES is empty): skipping"
    exit 77
fi
"$sanitizer" --tool "$tool" --error-exitcode 99 "$@"
rc=$?
case $rc in
0) echo "sanitize.sh: $tool found no errors" ;;
77) echo "sanitize.sh: no usable GPU: skipping" ;;
99)
    echo "sanitize.sh: $tool reported errors"
    hint "$tool" "$(chapter_of "$1")"
    exit 1
    ;;
*) echo "sanitize.sh: the program failed with exit code $rc"; exit 1 ;;
esac
exit $rc
