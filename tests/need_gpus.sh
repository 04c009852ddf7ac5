#!/bin/sh
# need_gpus.sh: run a command only where N GPUs are visible; otherwise exit 77 (CTest: skipped).
#
#   tests/need_gpus.sh N COMMAND [ARGS...]
#
# Counts what the CUDA runtime will see: the entries of CUDA_VISIBLE_DEVICES when it is set,
# else the GPUs nvidia-smi lists (no nvidia-smi: no GPU). The command's exit code is passed on.
want=$1
shift
case $want in '' | *[!0-9]*) echo "need_gpus: '$want' is not a number of GPUs"; exit 2 ;; esac
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    have=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else
    have=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
fi
if [ "${have:-0}" -lt "$want" ]; then
    echo "need_gpus: $want GPUs needed, ${have:-0} visible: skipping"
    exit 77
fi
exec "$@"
