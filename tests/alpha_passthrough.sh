#!/bin/sh
# alpha_passthrough.sh: a 2D chapter must copy the alpha channel through untouched.
#
#   tests/alpha_passthrough.sh PROGRAM IMAGEINFO INPUT.png OUTPUT.png
#
# Filters INPUT with a 5x5 box blur into OUTPUT, then compares the alpha statistics that
# imginfo prints for both (min, mean and max of the plane, to 6 decimals). Exits 77 without a GPU.
program=$1 imginfo=$2 input=$3 output=$4
"$program" --check --own-kernels --input "$input" --mask box --mask-width 5 --output "$output" || exit $?
want=$("$imginfo" "$input" | grep '^ *alpha ')
got=$("$imginfo" "$output" | grep '^ *alpha ')
echo "input:  $want"
echo "output: $got"
{ [ -n "$want" ] && [ "$want" = "$got" ]; } || { echo "alpha_passthrough: alpha changed"; exit 1; }
