#!/bin/sh
# profile_cli.sh: `make profile` without a GPU: its table from ncu's CSV, and its messages.
#
#   sh tests/profile_cli.sh ROOT
#
# With tests/fixtures/fake_ncu.sh standing in for ncu: the first launch of each kernel is laid out
# beside the reference's, by metric; a machine that hides the performance counters and a missing
# ncu each get their one clear message and exit 1. Skips (77) without python3.
root=$1
fail() {
    echo "profile_cli: $*"
    exit 1
}
command -v python3 >/dev/null || { echo "profile_cli: no python3: skipping"; exit 77; }
cd "$root" || exit 2
program=build/ch01_basic_1d_exercise
out=$(NCU="$root/tests/fixtures/fake_ncu.sh" FAKE_NCU_MODE=ok sh tests/profile.sh build/tests/profile_cli "$program" "$program" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || fail "profile.sh exited $rc with a working ncu"
printf '%s\n' "$out" | grep -q '^conv1d_basic_kernel$' || fail "no table for conv1d_basic_kernel"
printf '%s\n' "$out" | grep -Eq 'DRAM bytes read +536870912 +536870912 +byte' ||
    fail "the first launch's DRAM bytes are not side by side"
printf '%s\n' "$out" | grep -Eq 'achieved occupancy, % +87.5 +87.5' || fail "no occupancy row"
printf '%s\n' "$out" | grep -q 'did not report.*gpu__time_duration.sum' || fail "missing metrics are not named"
out=$(NCU="$root/tests/fixtures/fake_ncu.sh" FAKE_NCU_MODE=perm sh tests/profile.sh build/tests/profile_cli "$program" 2>&1)
[ $? -eq 1 ] || fail "a permission error did not exit 1"
printf '%s\n' "$out" | grep -q 'ERR_NVGPUCTRPERM.*administrator' || fail "permission error: '$out'"
out=$(PATH=/usr/bin:/bin NCU='' CUDA_HOME=/nonexistent sh tests/profile.sh build/tests/profile_cli "$program" 2>&1)
[ $? -eq 1 ] || fail "a missing ncu did not exit 1"
printf '%s\n' "$out" | grep -q 'ncu) not found' || fail "missing ncu: '$out'"
echo "profile_cli: the table, the counters-permission message and the missing-ncu message are right"
