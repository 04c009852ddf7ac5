#!/bin/sh
# gpu_session.sh: everything a GPU machine should confirm, in one go (used for the device runs
# recorded in the lessons and issue notes).
#
#   sh tests/gpu_session.sh [LOG_DIR]        default LOG_DIR: build/logs
#
# Builds, runs the full `make test` (nothing may be skipped on a GPU machine), the student
# exercise tests (expected to fail while unsolved), `make run`, and each chapter's --bench on the
# standard workload (make run holds those). Logs: build.log, test.log, check.log, mutants.log,
# run.log; make run's images are copied beside them.
logs=${1:-build/logs}
mkdir -p "$logs"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$logs/device.log"
make -j"$(nproc)" >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
grep -i 'warning' "$logs/build.log" && echo "gpu_session: the build printed warnings"
make test 2>&1 | tee "$logs/test.log" | grep -E 'tests passed|Skipped|Failed|\*\*\*'
for entry in chapters/[0-9][0-9]_*/chapter.mk; do # every registered chapter
    ch=$(basename "$(dirname "$entry")" | cut -c1-2)
    make check CH="$ch" >>"$logs/check.log" 2>&1
done
grep -E 'tests passed' "$logs/check.log" | sed 's/^/exercise (unsolved): /'
sh tests/mutants.sh 2>&1 | tee "$logs/mutants.log"
make run 2>&1 | tee "$logs/run.log"
cp build/out/coffee_*.png "$logs/" 2>/dev/null
