#!/bin/sh
# registry_check.sh: the chapter registry, tried the way a maintainer uses it.
#
#   tests/registry_check.sh new ROOT       a throwaway chapter 99, added in a copy of the tree by
#                                           the steps of README.md "Adding a chapter" (chapter
#                                           01's files under a new name, one chapter.mk), builds
#                                           and gets exactly the tests chapter 01 gets
#   tests/registry_check.sh unknown ROOT   what the registry does not know stops the build or
#                                           the test generator with a message: a chapter with no
#                                           entry, a folder with no chapter.mk, an unknown key, a
#                                           dimension with no battery
#   tests/registry_check.sh uses ROOT      `uses` is closed by the build (03 naming 02 alone still
#                                           links 01's kernel), and a chapter whose registry
#                                           leaves out a kernel its driver shows fails to link,
#                                           naming it (chapter 02 with no uses: conv1d_basic_launch)
# Works in a temporary copy (removed on exit); needs the built chapter 01 program in ROOT/build.
set -u
mode=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "registry_check: $*"
    exit 1
}
# expect_refusal PATTERN COMMAND...: COMMAND must fail, saying PATTERN.
expect_refusal() {
    pattern=$1
    shift
    if out=$("$@" 2>&1); then fail "accepted, should refuse: $*"; fi
    printf '%s\n' "$out" | grep -q -- "$pattern" || fail "refused without saying '$pattern': $out"
    echo "registry_check: refused as it should: $(printf '%s\n' "$out" | grep -- "$pattern" | head -1)"
}

# The copy: sources, and the built common library and chapter 01 (timestamps kept, so make
# rebuilds nothing of theirs).
(cd "$root" && tar cf - Makefile common chapters solutions exercises tests data) | (cd "$tmp" && tar xf -)
mkdir -p "$tmp/build"
for built in common libworkbook.a ch01_basic_1d ch01_basic_1d_exercise; do
    [ -e "$root/build/$built" ] || fail "$root/build/$built is not built (run make)"
    cp -a "$root/build/$built" "$tmp/build/"
done

case $mode in
new)
    # Steps 1-3 of "Adding a chapter", with chapter 01's kernel as the new chapter's.
    new=99_throwaway # past any real chapter
    mkdir -p "$tmp/chapters/$new" "$tmp/solutions/$new" "$tmp/exercises/$new"
    cp "$root/chapters/01_basic_1d/conv1d_basic.h" "$tmp/chapters/$new/"
    sed 's/"ch01_basic_1d"/"ch99_throwaway"/' "$root/chapters/01_basic_1d/main.c" >"$tmp/chapters/$new/main.c"
    cp "$root/solutions/01_basic_1d/conv1d_basic.cu" "$tmp/solutions/$new/"
    cp "$root/exercises/01_basic_1d/conv1d_basic.cu" "$tmp/exercises/$new/"
    printf 'uses =\nlibs =\nsanitizers = memcheck\n' >"$tmp/chapters/$new/chapter.mk"
    make -s -C "$tmp" help | grep -q "chapters:.* $new" || fail "make does not list $new"
    # One architecture is enough to prove the build (and keeps this test quick without a GPU).
    make -s -C "$tmp" SM=80 "build/ch$new" "build/ch${new}_exercise" >"$tmp/build.log" 2>&1 ||
        { cat "$tmp/build.log"; fail "the new chapter does not build"; }
    sh "$tmp/tests/ctest_list.sh" "$tmp" "01_basic_1d $new" >"$tmp/list.cmake" ||
        fail "the test generator refused the new chapter"
    names() { sed -n "s/^add_test(ch$1_\([^ ]*\) .*/\1/p" "$tmp/list.cmake" | sort; }
    # the harness's own tests (output_safety, the seed's) run with the first chapter of a
    # dimension only
    names 01 | grep -v '^solution_output_safety$\|^solution_seed_' >"$tmp/ch01.names"
    names 99 >"$tmp/ch99.names"
    count=$(wc -l <"$tmp/ch99.names")
    [ "$count" -ge 40 ] || fail "chapter 99 got only $count tests"
    diff "$tmp/ch01.names" "$tmp/ch99.names" || fail "chapter 99's tests differ from chapter 01's"
    grep -q "add_test(ch01_solution_output_safety " "$tmp/list.cmake" ||
        fail "the first 1D chapter lost the harness's output test"
    ! grep -q "add_test(ch99_solution_output_safety " "$tmp/list.cmake" ||
        fail "a second 1D chapter repeats the harness's output test"
    grep -q "add_test(ch99_solution_lengths .*build/ch${new}\"" "$tmp/list.cmake" ||
        fail "chapter 99's battery does not run build/ch$new"
    echo "registry_check: PASS: $new builds and gets the same $count tests as chapter 01"
    ;;
unknown)
    gen="$tmp/tests/ctest_list.sh"
    expect_refusal "no registry entry" sh "$gen" "$tmp" "01_basic_1d 99_nope"
    mkdir "$tmp/chapters/98_unregistered"
    expect_refusal "98_unregistered/ has no chapter.mk" make -s -C "$tmp" help
    rmdir "$tmp/chapters/98_unregistered"
    printf 'uses =\nsanitiser = memcheck\n' >"$tmp/chapters/01_basic_1d/chapter.mk"
    expect_refusal "not a known 'key = value' line: sanitiser = memcheck" sh "$gen" "$tmp" 01_basic_1d
    printf 'uses =\nsanitizers = memcheck valgrind\n' >"$tmp/chapters/01_basic_1d/chapter.mk"
    expect_refusal "no tool 'valgrind'" sh "$gen" "$tmp" 01_basic_1d
    printf 'uses =\nsanitizers = memcheck\nbattery_blocks = 8 x\n' >"$tmp/chapters/01_basic_1d/chapter.mk"
    expect_refusal "battery_blocks: 'x' is not a block size" sh "$gen" "$tmp" 01_basic_1d
    printf 'uses =\nsanitizers = memcheck\nbattery_blocks = 8 4096\n' >"$tmp/chapters/01_basic_1d/chapter.mk"
    expect_refusal "battery_blocks: 4096 is outside" sh "$gen" "$tmp" 01_basic_1d
    printf 'uses = 42_none\n' >"$tmp/chapters/01_basic_1d/chapter.mk"
    expect_refusal "uses '42_none', which is no chapter" make -s -C "$tmp" help
    # A program whose --spec says 4-D: there is no 4D battery.
    mkdir -p "$tmp/chapters/98_spacetime"
    printf 'uses =\nsanitizers = memcheck\n' >"$tmp/chapters/98_spacetime/chapter.mk"
    printf '#!/bin/sh\nprintf "dims=4\\n"\n' >"$tmp/build/ch98_spacetime"
    chmod +x "$tmp/build/ch98_spacetime"
    expect_refusal "is 4-D, and there is no" sh "$gen" "$tmp" 98_spacetime
    echo "registry_check: PASS"
    ;;
uses)
    # Chapters 01 to 03 as built (timestamps kept): only the links below run.
    for built in 01_basic_1d 02_constant_mask 03_tiled_halo; do
        [ -d "$root/build/$built" ] || fail "$root/build/$built is not built (run make)"
        cp -a "$root/build/$built" "$tmp/build/"
    done
    printf 'uses = 02_constant_mask
sanitizers = memcheck
' >"$tmp/chapters/03_tiled_halo/chapter.mk"
    make -s -C "$tmp" SM=80 build/ch03_tiled_halo >"$tmp/build.log" 2>&1 ||
        { cat "$tmp/build.log"; fail "chapter 03 naming 02 alone does not link"; }
    nm "$tmp/build/ch03_tiled_halo" | grep -q ' T conv1d_basic_launch$' ||
        fail "chapter 03 naming 02 alone lacks chapter 01's kernel"
    echo "registry_check: chapter 03 naming 02 alone links 02's and 01's kernels"
    printf 'uses =
sanitizers = memcheck
' >"$tmp/chapters/02_constant_mask/chapter.mk"
    expect_refusal "undefined reference to .conv1d_basic_launch" \
        make -s -C "$tmp" SM=80 build/ch02_constant_mask
    echo "registry_check: PASS"
    ;;
*) fail "mode must be new, unknown or uses, not '$mode'" ;;
esac
