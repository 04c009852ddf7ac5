#!/usr/bin/env python3
"""baselines.py: the libraries a Python user would reach for, timed on the same GPU as chapter 09.

    python3 chapters/09_3d/baselines.py [--size N] [--mask-width 3,5,7] [--reps R] [--json]

CuPy's cupyx.scipy.ndimage.correlate (zeros outside, mode "constant") and cuDNN through
PyTorch's conv3d (padding "same"; a convolution layer's cross-correlation, what chapter 09
computes) on an N^3 float32 volume with random cubic masks; each timed with CUDA events after a
warm-up (median of R runs), beside the device-to-device copy of the same bytes. Prints % of the
copy and % of the FP32 FMA peak (taken from build/devinfo's JSON when it is there). A library
that is missing is reported and left out; exit 77 when neither is there or there is no GPU.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def timed(run, reps, cupy):
    """Median ms of run() over reps launches, after two untimed ones, with CUDA events."""
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(2):
        run()
    times = []
    for _ in range(reps):
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


def fma_peak():
    devinfo = os.path.join(os.path.dirname(__file__), "..", "..", "build", "devinfo")
    try:
        return json.loads(subprocess.run([devinfo], capture_output=True, text=True,
                                         check=True).stdout)["fma_peak_per_s"]
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--mask-width", default="3,5,7")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        import cupy
        from cupyx.scipy import ndimage
    except ImportError:
        print("baselines: CuPy is missing: skipped")
        return 77
    try:
        cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        print("baselines: no usable GPU: skipped")
        return 77
    try:
        import torch
        import torch.nn.functional as F
        torch.backends.cudnn.benchmark = True
    except ImportError:
        torch = None
        print("baselines: PyTorch is missing: cuDNN left out")
    n, peak = args.size, fma_peak()
    human = sys.stderr if args.json else sys.stdout  # --json: JSON lines on stdout, as the programs
    rng = cupy.random.default_rng(9)
    volume = rng.random((n, n, n), dtype=cupy.float32)
    copy_target = cupy.empty_like(volume)
    copy_ms = timed(lambda: copy_target.__setitem__(Ellipsis, volume), args.reps, cupy)
    copy_gbps = 2 * volume.nbytes / (copy_ms * 1e-3) / 1e9
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"baselines on {name}: {n}^3 float32, copy {copy_gbps:.0f} GB/s"
          + (f", FMA peak {peak / 1e12:.1f} T/s" if peak else ""), file=human)
    for m in (int(w) for w in args.mask_width.split(",")):
        mask = rng.uniform(-1.0, 1.0, (m, m, m), dtype=cupy.float32)
        runs = {"CuPy ndimage": lambda: ndimage.correlate(volume, mask, mode="constant")}
        if torch is not None:
            tv = torch.as_tensor(volume, device="cuda")[None, None]
            tm = torch.as_tensor(mask, device="cuda")[None, None]
            runs["cuDNN conv3d"] = lambda: F.conv3d(tv, tm, padding="same")
        for label, run in runs.items():
            ms = timed(run, args.reps, cupy)
            pct_copy = 100 * (2 * volume.nbytes / (ms * 1e-3) / 1e9) / copy_gbps
            pct_fma = 100 * n ** 3 * m ** 3 / (ms * 1e-3) / peak if peak else float("nan")
            print(f"  mask {m}x{m}x{m}  {label:13s} {ms:10.3f} ms  {pct_copy:6.1f}% of copy  "
                  f"{pct_fma:6.1f}% of FMA peak", file=human)
            if args.json:
                print(json.dumps({"program": "baselines.py", "variant": label, "device": name,
                                  "width": n, "height": n, "depth": n, "mask_width": m,
                                  "mask_height": m, "mask_depth": m, "pass": True,
                                  "median_ms": ms, "copy_gbps": copy_gbps,
                                  "fma_peak_per_s": peak}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
