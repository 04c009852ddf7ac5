# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_06.sh: chapter 06's own tests, beside the 2D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set): the autotuner, its saved choices, every compiled
# variant on sizes that are no multiple of any tile, the block rule applied per kernel.
usage_error "ch06_tune_mask_even_large" "no compiled variants" "$solution" --tune --mask-width 8
usage_error "ch06_tune_mask_not_square" "no compiled variants" "$solution" --tune --mask-width 5x3
usage_error "ch06_tune_mask_one" "no compiled variants" "$solution" --tune --mask-width 1:7
usage_error "ch06_tune_input" "drop --input" "$solution" --tune --input "$fixtures/gray8_13x7.png"
usage_error "ch06_tune_mask_kind" "drop --input" "$solution" --tune --mask gaussian

# The chapter's kernels ignore --block, so a block smaller than the mask runs: only chapter 05's
# tiled kernel, whose input tile must cover the mask, is skipped, with the reason.
add "ch06_solution_block_rule_per_kernel" "gpu;ch06;solution" "$expect" --gpu 0 \
    "ch05 tiled +skipped: needs --block >= 5" -- "$solution" --check --block 4 --mask-width 5 \
    --size 300x200

# Every compiled variant (every shape and path), verified on two sizes that are no multiple of
# any tile (the largest tile is 128 x 128 outputs); on tiny ones with the baselines too (they are
# checked at larger sizes in ch06_solution_all_kernels).
compiled=$(spec tune_masks) || exit 1 # every mask size a variant is compiled for
[ -n "$compiled" ] || die "$solution --spec lists no tune_masks"
add heavy cost=100 "ch06_solution_every_variant" "gpu;ch06;solution" "$expect" --gpu 0 \
    "tune: PASS" -- "$solution" --tune --check --own-kernels --size 1000x777,8191x4097 \
    --mask-width "$compiled"
add "ch06_solution_every_variant_tiny" "gpu;ch06;solution" "$expect" --gpu 0 "tune: PASS" -- \
    "$solution" --tune --check --size 1x1,3x130,130x3,129x65 --mask-width "$compiled"
# --tune saves its winners for this GPU; the next run loads them; another GPU's lines are not
# used; a damaged line is reported.
add "ch06_solution_tune_round_trip" "gpu;ch06;solution" "$root/tests/tune_round_trip.sh" \
    "$solution" "$b/out/ch06_tuned_test.csv" "$fixtures/tuned_other_gpu.csv"
# --tune --json: every candidate (path and output shape) as a JSON line, the table on stderr
# (make report draws the tuner's figure from them); the winners go to a scratch file.
add "ch06_solution_tune_json" "gpu;ch06;solution" env WB_TUNED_FILE="$b/out/ch06_tuned_json.csv" \
    sh "$root/tests/json_lines.sh" '"variant":"[a-z ]+ [0-9]+x[0-9]+".*"pct_of_copy"' \
    "$solution" --tune --json --size 257x129 --mask-width 3,5 --reps 20
