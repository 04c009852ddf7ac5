# chapter_09.sh: chapter 09's own tests, beside the 3D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set): the 2.5D kernel against an independent reference,
# scipy.ndimage.correlate (skipped, 77, where Python 3, scipy or a GPU is missing).
add "ch09_solution_scipy" "gpu;ch09;solution" sh -c \
    'command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }; exec python3 "$@"' \
    scipy_3d "$root/tests/scipy_3d.py" "$solution" "$b/tests/scipy_3d"
