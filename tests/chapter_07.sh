# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_07.sh: chapter 07's own tests, beside the 2D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set): the rank each mask is found to have and the path
# taken, forced paths (and the one that cannot apply), masks of rank 1, 2, 3 at every size and
# shape, and nearly separable masks that must not pass for separable.
usage_error "ch07_path_unknown" "'fast' is not one of auto, direct, separable, lowrank" \
    "$solution" --path fast
usage_error "ch07_path_separable_rank2" "needs a mask of rank 1, and this 9x9 one has rank 2" \
    "$solution" --path separable --mask rank2 --mask-width 9
usage_error "ch07_path_separable_noisy" "has rank 7" \
    "$solution" --path separable --mask-file "$fixtures/mask_rank1_noisy_7x7.txt"

# The rank found and the path chosen (auto: separable passes where r (w + h) < w h, except for
# square masks of up to 25 taps, which chapter 06's direct kernel takes).
path_is() { # name, expected line, arguments
    name=$1 pattern=$2
    shift 2
    add "ch07_solution_path_$name" "gpu;ch07;solution" "$expect" --gpu 0 "$pattern" -- \
        "$solution" --check --own-kernels --size 300x200 "$@"
}
path_is gaussian_9 "gaussian 9x9: rank 1, path separable: 1 x \(9 \+ 9\)" --mask gaussian --mask-width 9
path_is sobel_5x3 "sobel 5x3: rank 1, path separable" --mask sobel --mask-width 5x3
path_is gaussian_5 "gaussian 5x5: rank 1, path direct: 25 .*one pass wins" --mask gaussian \
    --mask-width 5
path_is sharpen_9 "sharpen 9x9: rank 2, path lowrank" --mask sharpen --mask-width 9
path_is laplacian_3 "laplacian 3x3: rank 2, path direct" --mask laplacian --mask-width 3
path_is rank3_31 "rank3 31x31: rank 3, path lowrank: 3 x \(31 \+ 31\)" --mask rank3 --mask-width 31
path_is rank2_31x2 "rank2 31x2: rank 2, path direct" --mask rank2 --mask-width 31x2
path_is random_15 "random 15x15: rank 15, path direct" --mask random --mask-width 15
path_is file_rank1 "rank 1, path separable" --mask-file "$fixtures/mask_rank1_7x7.txt"
path_is file_noisy "rank 7, path direct" --mask-file "$fixtures/mask_rank1_noisy_7x7.txt"
path_is forced_lowrank "random 31x31: rank 31, path lowrank \(forced\)" --mask random \
    --mask-width 31 --path lowrank
path_is forced_direct "gaussian 15x15: rank 1, path direct \(forced\)" --mask gaussian \
    --mask-width 15 --path direct

# Masks of rank 1, 2 and 3 at every size 1..31, odd, even and non-square, on images of one
# pixel, one row, one column and odd sizes (no multiple of any tile); then on a large odd image.
add "ch07_solution_rank_shapes" "gpu;ch07;solution" "$solution" --check --own-kernels \
    --mask rank1,rank2,rank3 --size 1x1,1x300,300x1,33x31,257x129 \
    --mask-width "1:31,5x3,3x5,2x7,31x14,14x31,1x31,31x1"
add heavy cost=50 "ch07_solution_rank1_large" "gpu;ch07;solution" "$solution" --check \
    --own-kernels --mask rank1 --size 8191x4097 --mask-width 31
add heavy cost=50 "ch07_solution_rank2_large" "gpu;ch07;solution" "$solution" --check \
    --own-kernels --mask rank2 --size 8191x4097 --mask-width 16
add heavy cost=50 "ch07_solution_rank3_large" "gpu;ch07;solution" "$solution" --check \
    --own-kernels --mask rank3 --size 8191x4097 --mask-width 31x6
# Every forced path on full-rank, low-rank and separable masks (the paths are checked against
# the same reference; lowrank on a full-rank mask runs all of its terms).
for path in direct separable lowrank; do
    add "ch07_solution_forced_$path" "gpu;ch07;solution" "$solution" --check --own-kernels --path $path \
        --mask gaussian --size 1000x777,33x31 --mask-width "1:9,15,16,31,5x3,31x14"
done
add "ch07_solution_forced_lowrank_full" "gpu;ch07;solution" "$solution" --check --own-kernels \
    --path lowrank --mask random --size 1000x777,31x33 --mask-width "2,5,16,31"

# The paths meant for older GPUs, forced on this one (README.md, "Every GPU a student has"):
# the 16-output direct kernel on the wide, tall masks an H100 gives 32 (a T4 takes 16 from 26
# rows: 32 outputs would need 72 416 bytes of shared memory a block, over its 65 536); an
# A100's and an RTX's limits (WB_FORCE_SM), under which a fused launch takes two terms and one;
# and a T4's, under which the fused kernel does not fit: it is skipped with the limit named, and
# every other kernel (the chosen path on the direct kernel) still passes.
add "ch07_solution_force_direct16" "gpu;ch07;solution" env WB_FORCE_DIRECT_OUTPUTS=16 \
    "$solution" --check --own-kernels --mask random --size 1000x777,33x31 \
    --mask-width "18:31,31x26,19x31,18x1"
for sm in 80 86; do
    add "ch07_solution_force_sm$sm" "gpu;ch07;solution" env WB_FORCE_SM=$sm "$solution" --check \
        --own-kernels --mask rank3,rank2,random --size 1000x777,33x31 --mask-width "5,16,31,31x14"
done
add "ch07_solution_force_sm75_fused" "gpu;ch07;solution" env WB_FORCE_SM=75 "$expect" --gpu 0 \
    "ch07 fused +skipped: .*does not fit even one term: .* over the 65536 sm_75 allows" -- \
    "$solution" --check --own-kernels --mask gaussian,random --mask-width 9,31 --size 33x31
