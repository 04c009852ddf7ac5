#!/bin/sh
# gpu_session.sh: everything a GPU machine should confirm before a change is trusted, in steps
# of a few minutes each (a remote or batch GPU can run them one at a time), logs in one folder.
#
#   sh tests/gpu_session.sh LOG_DIR [STEP...]   steps: build test check grade mutants run report
#                                               profiles
#                                               (default: build test check grade)
#
# build: make -j, no warnings allowed; test: the full `make test` with its wall time (nothing may
# be skipped on a GPU machine); check: `make check CH=NN` on the unsolved exercise of every
# chapter, with the time to the first verdict and in all; grade: the reference solutions graded
# as a submission (full marks expected) and the workbook's own exercises (no correctness points);
# mutants: tests/mutants.sh (each planted bug caught, with its hint); run: `make run`; report:
# `make report` (REPORT_SCALE from the environment), its folder copied to LOG_DIR/report/;
# profiles: tests/profile.sh on each chapter's reference kernels, at the mask widths the lessons
# discuss (the numbers the lessons quote), tables in profiles.log. Logs:
# LOG_DIR/<step>.log, and device.log; test also keeps CTest's per-test costs and its JUnit
# reports, and names the tests that failed or were skipped from those (tests/ctest_junit.sh).
logs=${1:-build/logs}
shift
steps=${*:-build test check grade}
mkdir -p "$logs"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$logs/device.log"
elapsed() { echo "$(($(date +%s) - $1)) s"; }
for step in $steps; do
    start=$(date +%s)
    case $step in
    build)
        make -j"$(nproc)" >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
        grep -i 'warning' "$logs/build.log" && echo "gpu_session: the build printed warnings"
        ;;
    test)
        make test >"$logs/test.log" 2>&1
        cp build/Testing/Temporary/CTestCostData.txt build/Testing/suite_*.xml "$logs/" 2>/dev/null
        # The counts and the names of the tests that did not pass, from CTest's JUnit reports
        results=$(sh tests/ctest_junit.sh list build/Testing/suite_*.xml 2>/dev/null)
        if [ -z "$results" ]; then
            echo "gpu_session: make test wrote no test report (build/Testing/suite_*.xml); its log ends:"
            tail -15 "$logs/test.log"
        else
            count() { printf '%s\n' "$results" | grep -c "^$1 "; }
            echo "gpu_session: make test: $(count passed) passed, $(count failed) failed," \
                "$(count skipped) skipped (none may be, on a GPU machine)"
            printf '%s\n' "$results" | grep -v '^passed ' | head -30 | sed 's/^/    /'
        fi
        ;;
    check)
        for entry in chapters/[0-9][0-9]_*/chapter.mk; do # every registered chapter
            ch=$(basename "$(dirname "$entry")" | cut -c1-2)
            make check CH="$ch" >>"$logs/check.log" 2>&1
        done
        grep -E 'first verdict|make check: hint|make check: chapter' "$logs/check.log"
        ;;
    grade)
        make grade SUBMISSION=solutions >"$logs/grade.log" 2>&1
        make grade >>"$logs/grade.log" 2>&1
        grep -E 'total:|grade:' "$logs/grade.log"
        ;;
    mutants) sh tests/mutants.sh >"$logs/mutants.log" 2>&1; cat "$logs/mutants.log" ;;
    run)
        make run >"$logs/run.log" 2>&1
        tail -20 "$logs/run.log"
        cp build/out/coffee_*.png "$logs/" 2>/dev/null
        ;;
    report)
        make report >"$logs/report.log" 2>&1
        grep -E '^report: (step|[0-9]+ steps)|plot.py' "$logs/report.log" | tail -25
        cp -R build/report "$logs/report" 2>/dev/null
        ;;
    profiles)
        for entry in chapters/[0-9][0-9]_*/chapter.mk; do
            chapter=$(basename "$(dirname "$entry")")
            dims=$("build/ch$chapter" --spec | sed -n 's/^dims=//p')
            case $chapter in 06_*) masks="3 7" ;; *) [ "$dims" = 1 ] && masks="5 31" || masks=5 ;; esac
            for w in $masks; do
                size=16777216
                [ "$dims" = 1 ] || { size=4096x4096 w=${w}x$w; }
                echo "== $chapter, --size $size --mask-width $w" >>"$logs/profiles.log"
                PROFILE_ARGS="--size $size --mask-width $w" sh tests/profile.sh \
                    "build/profiles/$chapter-$w" "build/ch$chapter" >>"$logs/profiles.log" 2>&1
            done
        done
        cat "$logs/profiles.log"
        ;;
    *) echo "gpu_session: no step '$step'"; exit 2 ;;
    esac
    echo "gpu_session: $step took $(elapsed "$start")" | tee -a "$logs/times.log"
done
