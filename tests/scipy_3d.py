#!/usr/bin/env python3
"""scipy_3d.py: chapter 09's GPU result against an independent reference, scipy.ndimage.

    python3 tests/scipy_3d.py PROGRAM SCRATCH_DIR

Draws random volumes and masks (seeded; the seed is printed, WB_SEED repeats one), writes them
as a .npy volume and a 3D mask file (masks3d.h's format: rows on lines, slices separated by a
blank line), runs PROGRAM --check --own-kernels --input ... --mask-file ... --output out.npy,
and compares its output with scipy.ndimage.correlate (mode "constant": zeros outside; an even
side's anchor at size // 2, as the workbook's), to the workbook's tolerance: |got - ref| <=
1e-6 + taps * FLT_EPSILON * (|mask| correlated with |volume|). Exit 0 on a match, 1 on a
mismatch, 77 where scipy or a GPU is missing, 2 on a usage error.
"""
import os
import subprocess
import sys

try:
    import numpy as np
    from scipy import ndimage
except ImportError:
    print("scipy_3d: numpy or scipy is missing: skipped")
    sys.exit(77)

FLT_EPSILON = float(np.finfo(np.float32).eps)
# (depth, height, width) volumes and masks: odd, even, thin, not cubic
CASES = [((11, 17, 23), (3, 3, 3)), ((11, 17, 23), (2, 4, 5)), ((5, 1, 300), (7, 1, 3)),
         ((40, 9, 33), (5, 5, 5)), ((13, 12, 14), (7, 7, 7)), ((1, 1, 1), (4, 2, 6))]


def write_mask(path, mask):
    with open(path, "w") as f:
        f.write("# drawn by tests/scipy_3d.py\n")
        f.write("\n\n".join("\n".join(" ".join("%.9g" % v for v in row) for row in plane)
                            for plane in mask))
        f.write("\n")


def main():
    if len(sys.argv) != 3:
        print("usage: python3 tests/scipy_3d.py PROGRAM SCRATCH_DIR")
        return 2
    program, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    seed = int(os.environ.get("WB_SEED", int.from_bytes(os.urandom(4), "little")))
    print(f"scipy_3d: seed {seed}")
    rng = np.random.default_rng(seed)
    for n, (shape, mshape) in enumerate(CASES):
        volume = rng.random(shape, dtype=np.float32)
        mask = rng.uniform(-1.0, 1.0, mshape).astype(np.float32)
        vpath, mpath = os.path.join(scratch, f"v{n}.npy"), os.path.join(scratch, f"m{n}.txt")
        opath = os.path.join(scratch, f"out{n}.npy")
        np.save(vpath, volume)
        write_mask(mpath, mask)
        if os.path.exists(opath):
            os.remove(opath)
        run = subprocess.run([program, "--check", "--own-kernels", "--input", vpath,
                              "--mask-file", mpath, "--output", opath],
                             capture_output=True, text=True)
        if run.returncode == 77:
            print("scipy_3d: no usable GPU: skipped")
            return 77
        if run.returncode != 0 or not os.path.exists(opath):
            print(f"scipy_3d: {program} failed on case {n} (exit {run.returncode}):")
            print(run.stdout[-2000:], run.stderr[-2000:])
            return 1
        got = np.load(opath).astype(np.float64)
        v64, m64 = volume.astype(np.float64), mask.astype(np.float64)
        ref = ndimage.correlate(v64, m64, mode="constant", cval=0.0)
        magnitude = ndimage.correlate(np.abs(v64), np.abs(m64), mode="constant", cval=0.0)
        tolerance = 1e-6 + mask.size * FLT_EPSILON * magnitude
        bad = np.abs(got - ref) > tolerance
        if got.shape != ref.shape or bad.any():
            where = np.argwhere(bad)[:5] if got.shape == ref.shape else []
            print(f"scipy_3d: case {n}, volume {shape[::-1]} (WxHxD), mask {mshape[::-1]}: "
                  f"{int(bad.sum()) if got.shape == ref.shape else 'shape'} mismatches; first "
                  f"(z, y, x): {[tuple(int(i) for i in w) for w in where]}")
            return 1
        print(f"scipy_3d: volume {'x'.join(map(str, shape[::-1]))}, mask "
              f"{'x'.join(map(str, mshape[::-1]))}: matches scipy.ndimage.correlate "
              f"(max error {np.abs(got - ref).max():.3g})")
    print("scipy_3d: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
