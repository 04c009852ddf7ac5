#!/bin/sh
# gpu_slot.sh: run a one-GPU test on the GPU that CTest's resource allocation gave it.
#
#   tests/gpu_slot.sh COMMAND [ARGS...]
#
# CTest, given a resource spec file (tests/run_suite.sh writes one where there are several GPUs),
# names the GPU it chose in CTEST_RESOURCE_GROUP_0_GPUS ("id:1,slots:1"): the id-th entry of
# run_suite.sh's list WB_SUITE_GPUS, which this makes the only GPU the command sees. Without
# those variables (one GPU, no GPU, make check, the grader) it changes nothing. The command's
# exit code is passed on.
case ${CTEST_RESOURCE_GROUP_0_GPUS:-} in
id:*)
    id=${CTEST_RESOURCE_GROUP_0_GPUS#id:}
    id=${id%%,*}
    gpu=$(printf '%s' "${WB_SUITE_GPUS:-}" | tr ',' '\n' | sed -n "$((id + 1))p")
    if [ -n "$gpu" ]; then
        CUDA_VISIBLE_DEVICES=$gpu
        export CUDA_VISIBLE_DEVICES
    fi
    ;;
esac
exec "$@"
