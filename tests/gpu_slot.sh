#!/bin/sh
# gpu_slot.sh: run a one-GPU test on the GPU that CTest's resource allocation gave it.
#
#   tests/gpu_slot.sh COMMAND [ARGS...]
#
# CTest, given a resource spec file (tests/run_suite.sh writes one where there are several GPUs),
# names the GPU it chose in CTEST_RESOURCE_GROUP_0_GPUS ("id:1,slots:1"); this makes it the only
# one the command sees. Without that variable (one GPU, no GPU, make check, the grader) it
# changes nothing. The command's exit code is passed on.
case ${CTEST_RESOURCE_GROUP_0_GPUS:-} in
id:*)
    id=${CTEST_RESOURCE_GROUP_0_GPUS#id:}
    CUDA_VISIBLE_DEVICES=${id%%,*}
    export CUDA_VISIBLE_DEVICES
    ;;
esac
exec "$@"
