#!/bin/sh
# ranks_pair.sh: chapter 10 as two processes, one GPU each, the way a launcher starts them
# (WB_RANK / WB_WORLD_SIZE / WB_LOCAL_RANK, NCCL's id through a fresh WB_NCCL_ID_FILE); both
# must pass. Exit 77 with fewer than two GPUs.
#
#   tests/ranks_pair.sh PROGRAM ARGS...
here=$(dirname "$0")
sh "$here/need_gpus.sh" 2 true >/dev/null || exit 77
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export WB_NCCL_ID_FILE="$dir/nccl_id" WB_WORLD_SIZE=2
for rank in 0 1; do
    WB_RANK=$rank WB_LOCAL_RANK=$rank "$@" >"$dir/rank$rank.log" 2>&1 &
    eval "pid$rank=\$!"
done
# shellcheck disable=SC2154 # pid0 and pid1: set by the eval above
wait "$pid0"
rc0=$?
# shellcheck disable=SC2154 # (as above)
wait "$pid1"
rc1=$?
for rank in 0 1; do
    echo "---- rank $rank"
    cat "$dir/rank$rank.log"
done
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && exit 0
echo "ranks_pair: rank 0 exited $rc0, rank 1 exited $rc1"
[ "$rc0" -eq 77 ] && [ "$rc1" -eq 77 ] && exit 77
exit 1
