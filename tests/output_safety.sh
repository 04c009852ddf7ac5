#!/bin/sh
# output_safety.sh: a chapter program never destroys a file through its --output.
#
#   tests/output_safety.sh PROGRAM INPUT_FIXTURE SCRATCH_DIR
#
# The cases that a fixed temporary name ("OUT.tmp") once turned into data loss, run through the
# real program (so after the GPU has computed the result); INPUT_FIXTURE is a .png or .npy the
# program reads, and the output has the same extension. After each run the victim must be byte
# for byte what it was: a mask file named OUT.tmp, a symbolic link OUT.tmp to another file, a
# hard link OUT.tmp to the input, and a symbolic link at OUT itself. The output, given as the input
# by a path through "..", is refused (exit 2, one line). Exit 77 when there is no GPU. The
# program runs its own kernels only (--own-kernels): the files are the point, and the libraries'
# start-up (cuFFT, NPP) cost seconds per run.
program=$1 fixture=$2 dir=$3
ext=${fixture##*.}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() {
    echo "output_safety: $*"
    exit 1
}
run() { # run ARGS...: the program in check mode, its own kernels only; 77 passes through
    "$program" --check --own-kernels "$@"
    rc=$?
    [ $rc -eq 77 ] && exit 77
    return $rc
}
unchanged() { # unchanged COPY ORIGINAL WHAT
    cmp -s "$1" "$2" || fail "$3 was changed"
    echo "output_safety: $3 unchanged"
}

cp "$fixture" "$dir/input.$ext"
printf '1 2 1\n' >"$dir/mask.orig"
cp "$dir/mask.orig" "$dir/result0.$ext.tmp"
run --input "$dir/input.$ext" --mask-file "$dir/result0.$ext.tmp" --output "$dir/result0.$ext" ||
    fail "mask file named OUT.tmp: run failed"
unchanged "$dir/result0.$ext.tmp" "$dir/mask.orig" "a mask file named like the old temporary"
[ -s "$dir/result0.$ext" ] || fail "no output written"

echo "precious" >"$dir/victim.txt"
cp "$dir/victim.txt" "$dir/victim.orig"
ln -s "$dir/victim.txt" "$dir/result.$ext.tmp"
run --input "$dir/input.$ext" --output "$dir/result.$ext" || fail "symlink at OUT.tmp: run failed"
unchanged "$dir/victim.txt" "$dir/victim.orig" "the target of a symbolic link at OUT.tmp"

ln "$dir/input.$ext" "$dir/other.$ext.tmp"
run --input "$dir/input.$ext" --output "$dir/other.$ext" || fail "hard link at OUT.tmp: run failed"
unchanged "$dir/input.$ext" "$fixture" "an input hard-linked at OUT.tmp"

ln -s "$dir/victim.txt" "$dir/linked.$ext"
run --input "$dir/input.$ext" --output "$dir/linked.$ext" || fail "symlink at OUT: run failed"
unchanged "$dir/victim.txt" "$dir/victim.orig" "the target of a symbolic link at OUT"
{ [ -f "$dir/linked.$ext" ] && [ ! -L "$dir/linked.$ext" ]; } || fail "the link at OUT was not replaced"

up="$dir/../$(basename "$dir")/input.$ext"
"$program" --check --own-kernels --input "$dir/input.$ext" --output "$up" >"$dir/refused.log" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--output as the input through '..' exited $rc, not 2"
grep -q "refusing to overwrite an input" "$dir/refused.log" || fail "no clear refusal: $(cat "$dir/refused.log")"
unchanged "$dir/input.$ext" "$fixture" "the input given as output through '..'"
# shellcheck disable=SC2010 # names for the message; the folder is this test's own
leftover=$(ls -A "$dir" | grep '^\.' | tr '\n' ' ')
[ -z "$leftover" ] || fail "temporary files left: $leftover"
echo "output_safety: PASS"
