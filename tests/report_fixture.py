#!/usr/bin/env python3
"""report_fixture.py: made-up sweeps in the chapter programs' JSON shape, to test report/plot.py.

    python3 tests/report_fixture.py SEED OUT_DIR

Writes OUT_DIR/raw/ as report/sweeps.sh would (every sweep, device.json, meta.json, failed.txt),
with timings drawn at random (seeded; the seed is printed) from a simple model: a kernel moves
its bytes at some fraction of the copy bandwidth or does its multiply-adds at some fraction of
the FP32 peak, whichever takes longer, plus a launch cost. Some records fail verification (no
timing fields), as a failing kernel's would. The numbers are not measurements.
"""
import json
import os
import random
import sys

COPY_GBPS = 3000.0
FMA_PEAK = 132 * 128 * 1.98e9


def record(rng, variant, shape, taps, bytes_moved, efficiency, compute_efficiency, **fields):
    fmas = shape * taps
    seconds = max(bytes_moved / (COPY_GBPS * 1e9 * efficiency), fmas / (FMA_PEAK * compute_efficiency))
    ms = (seconds + 4e-6) * 1e3 * rng.uniform(0.97, 1.03)
    r = {"program": "fixture", "variant": variant, "device": "Fixture GPU", "mask": "random", **fields,
         "seed": 1, "pass": True, "mismatches": 0, "max_error": 1e-6, "rel_l2_error": 1e-7}
    if rng.random() < 0.03:  # a failing kernel: no timing, as the programs print it
        r.update({"pass": False, "mismatches": 17})
        return r
    gbps = bytes_moved / (ms * 1e-3) / 1e9
    copy = COPY_GBPS * rng.uniform(0.98, 1.02)
    r.update({"median_ms": ms, "min_ms": ms * 0.98, "reps": 30, "gbps": gbps, "copy_gbps": copy,
              "pct_of_copy": 100 * gbps / copy})
    return r


def main():
    seed, out = int(sys.argv[1]), sys.argv[2]
    print(f"report_fixture: seed {seed}")
    rng = random.Random(seed)
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    sweeps = {}
    n = 1 << 24
    for w in (1, 2, 3, 5, 7, 9, 15, 17, 31, 33, 63):
        for k, eff, comp in (("ch01 basic", 0.5, 0.05), ("ch02 constant", 0.7, 0.1), ("ch03 tiled", 0.8, 0.2),
                             ("ch04 cached", 0.85, 0.25), ("beyond: regs", 0.9, 0.5), ("solution", 0.85, 0.25)):
            r = record(rng, k, n, w, 8.0 * n, eff, comp, n=n, mask_width=w, block=256)
            if r["pass"]:
                r.update({"cpu_single_ms": n * w * 1e-6 * rng.uniform(0.9, 1.1),
                          "cpu_openmp_ms": n * w * 1e-6 / 12, "cpu_threads": 16})
            sweeps.setdefault("1d_widths", []).append(r)
    kernels_2d = (("naive global", 0.4, 0.05), ("ch05 tiled", 0.6, 0.15), ("ch06 tuned", 0.9, 0.6),
                  ("NPP filter", 0.7, 0.2), ("cuFFT", 0.25, 1.0))
    for side in (256, 1024, 4096, 16384):
        for m in (3, 7):
            for k, eff, comp in kernels_2d:
                taps = 1 if k == "cuFFT" else m * m
                sweeps.setdefault("2d_sizes", []).append(record(
                    rng, k, side * side, taps, 8.0 * side * side, eff, comp, width=side, height=side,
                    planes=1, mask_width=m, mask_height=m, block=32))
    for m in (3, 7):
        for k, eff, comp in kernels_2d:
            sweeps.setdefault("2d_photo", []).append(record(
                rng, k, 3 * 640 * 480, 1 if k == "cuFFT" else m * m, 24.0 * 640 * 480, eff, comp,
                width=640, height=480, planes=3, mask_width=m, mask_height=m, block=32))
    for block in (5, 8, 16, 32):
        sweeps.setdefault("2d_blocks", []).append(record(
            rng, "ch05 tiled", 4096 * 4096, 25, 8.0 * 4096 * 4096, 0.3 + block / 64, 0.2,
            width=4096, height=4096, planes=1, mask_width=5, mask_height=5, block=block))
    for m in range(1, 32, 2):
        for k, eff, comp in kernels_2d[2:]:
            taps = 1 if k == "cuFFT" else m * m
            sweeps.setdefault("2d_masks", []).append(record(
                rng, k, 4096 * 4096, taps * (12 if k == "cuFFT" else 1), 8.0 * 4096 * 4096, eff, comp,
                width=4096, height=4096, planes=1, mask_width=m, mask_height=m, block=32))
        if m <= 15:
            for k, eff, comp in (("ch05 tiled", 0.6, 0.15), ("naive global", 0.4, 0.05),
                                 ("naive, mask global", 0.4, 0.035)):
                sweeps.setdefault("2d_masks_ch05", []).append(record(
                    rng, k, 4096 * 4096, m * m, 8.0 * 4096 * 4096, eff, comp, width=4096,
                    height=4096, planes=1, mask_width=m, mask_height=m, block=32))
    for m in (3, 5, 7, 9, 15, 31):
        for path in ("global ldg", "texture", "shared", "global only"):
            for shape in ("1x1", "2x2", "4x4") if path != "global only" else ("1x1",):
                sweeps.setdefault("tuner", []).append(record(
                    rng, f"{path} {shape}", 4096 * 4096, m * m, 8.0 * 4096 * 4096, rng.uniform(0.3, 0.95),
                    rng.uniform(0.1, 0.7), width=4096, height=4096, planes=1, mask_width=m, mask_height=m,
                    block=32))
    # Chapter 07: separable kinds, low rank, full rank; the passes cost rank x (w + h) taps.
    big = 8192 * 8192
    kernels_7 = (("ch07 fused", 0.8, 0.6), ("ch07 two-pass", 0.4, 0.5), ("ch07 chosen", 0.8, 0.6),
                 ("ch07 direct", 0.85, 0.7), ("ch06 tuned", 0.9, 0.6), ("NPP separable", 0.5, 0.3),
                 ("NPP filter", 0.7, 0.2), ("cuFFT", 0.25, 1.0), ("naive global", 0.4, 0.05))
    steps_7 = [("7_separable", kind, m) for kind, sides in (("gaussian", (3, 5, 7, 9, 15, 21, 31)),
                                                             ("box", (3, 15, 31)), ("rank1", (3, 15, 31)))
               for m in sides]
    steps_7 += [("7_low_rank", kind, m) for kind in ("rank2", "rank3") for m in (15, 31)]
    steps_7 += [("7_full_rank", "random", m) for m in (9, 15, 21, 31)]
    for sweep, kind, m in steps_7:
        rank = {"rank2": 2, "rank3": 3, "random": m}.get(kind, 1)
        for k, eff, comp in kernels_7:
            if k == "NPP separable" and rank > 1:
                continue
            taps = {"cuFFT": 12}.get(k, m * m)
            if k in ("ch07 fused", "ch07 two-pass") or (k == "ch07 chosen" and rank < m / 2):
                taps = rank * 2 * m
            sweeps.setdefault(sweep, []).append(record(
                rng, k, big, taps, 8.0 * big, eff, comp, mask=f"{kind} {m}x{m}", width=8192,
                height=8192, planes=1, mask_width=m, mask_height=m, block=32))
    # Chapter 09: three volume kernels on a 512^3 volume, cubes 3 to 7.
    voxels = 512 ** 3
    for k, eff, comp in (("ch09 2.5D", 0.76, 0.5), ("ch09 tiled", 0.1, 0.03), ("naive 3D", 0.11, 0.05)):
        for m in (3, 5, 7):
            r = record(rng, k, voxels, m ** 3, 8.0 * voxels, eff, comp, mask=f"random {m}x{m}x{m}",
                       width=512, height=512, depth=512, mask_width=m, mask_height=m, mask_depth=m,
                       block=8)
            r["fma_peak_per_s"] = FMA_PEAK
            sweeps.setdefault("9_volumes", []).append(r)
    # Chapter 10: the study over 1 to 4 GPUs, strong on 16384^2, weak on 8192^2 per GPU.
    for side, kinds in ((8192, ("weak",)), (16384, ("strong",))):
        one = rng.uniform(0.2, 0.4) * (side / 8192) ** 2
        for g in range(1, 5):
            for kind in kinds:
                value = 1.0 if g == 1 else (g * rng.uniform(0.85, 0.98) if kind == "strong"
                                            else rng.uniform(0.88, 0.99))
                height = side * g if kind == "weak" else side
                ms = one / value
                sweeps.setdefault("10_scaling", []).append(
                    {"program": "ch10_multi_gpu", "study": kind, "gpus": g, "width": side,
                     "height": height, "mask_width": 5, "mask_height": 5, "iterations": 20,
                     "ms_per_pass": ms, "value": value})
        sweeps["10_scaling"].append(
            {"program": "ch10_multi_gpu", "study": "hidden", "gpus": 4, "width": side,
             "height": side, "mask_width": 5, "mask_height": 5, "iterations": 20,
             "ms_per_pass": one / 3.5, "value": rng.uniform(0.8, 1.0)})
    # Chapter 08: timelines of made-up runs, one step after another or overlapped.
    def steps(mode, items, up, compute, down, pipelined, streams=1):
        rows, up_free, compute_free, down_free, t = [], 0.0, 0.0, 0.0, 0.0
        for i in range(items):
            jitter = rng.uniform(0.95, 1.05)
            a = up_free if pipelined else t
            b = max(a + up * jitter, compute_free) if pipelined else a + up * jitter
            c = max(b + compute * jitter, down_free) if pipelined else b + compute * jitter
            rows += [(mode, i, "upload", i % streams, a, a + up * jitter),
                     (mode, i, "compute", -1, b, b + compute * jitter),
                     (mode, i, "download", i % streams, c, c + down * jitter)]
            up_free, compute_free, down_free = a + up * jitter, b + compute * jitter, c + down * jitter
            t = c + down * jitter
        return rows
    timelines = {
        "8_batch": steps("serial, pinned", 16, 2.6, 0.3, 2.5, False)
        + steps("pipelined, 3 streams", 16, 2.6, 0.3, 2.5, True, 3),
        "8_strips": steps("ch08 one pass, 8192x8192, mask 5x5", 1, 10.4, 0.2, 10.1, False)
        + steps("strips 1024 rows, 3 str., 8192x8192, mask 5x5", 8, 1.3, 0.03, 1.27, True, 3)}
    # the program's verdict per run: measured a little faster than the record, ideal from it
    for name, rows in timelines.items():
        verdict = {}
        for m, i, st, k, a, b in rows:
            first, last, total = verdict.get(m, (a, b, {}))
            total[st] = total.get(st, 0.0) + (b - a)
            verdict[m] = (min(first, a), max(last, b), total)
        with open(os.path.join(raw, name + ".timeline.csv"), "w") as f:
            f.write("mode,item,stage,stream,start_ms,end_ms,bytes,measured_ms,ideal_ms\n")
            for m, i, st, k, a, b in rows:
                first, last, total = verdict[m]
                items = 1 + max(r[1] for r in rows if r[0] == m)
                slowest = max(total, key=total.get)
                ideal = total[slowest] + sum(v / items for g, v in total.items() if g != slowest)
                nbytes = 0 if st == "compute" else 64 << 20
                f.write(f'"{m}",{i},{st},{k},{a:.6f},{b:.6f},{nbytes},{0.97 * (last - first):.6f},'
                        f'{ideal:.6f}\n')
    for name, records in sweeps.items():
        with open(os.path.join(raw, name + ".jsonl"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
    with open(os.path.join(raw, "device.json"), "w") as f:
        json.dump({"device": "Fixture GPU", "sm": "90", "sms": 132, "sm_clock_mhz": 1980,
                   "fp32_lanes_per_sm": 128, "fma_peak_per_s": FMA_PEAK,
                   "fp32_peak_tflops": 2 * FMA_PEAK / 1e12, "dram_datasheet_gbps": 3352.3}, f)
    with open(os.path.join(raw, "meta.json"), "w") as f:
        json.dump({"date": "2026-11-23T00:00:00Z", "commit": "fixture", "scale": "fixture",
                   "cpu": "Fixture CPU", "cores": 16}, f)
    with open(os.path.join(raw, "failed.txt"), "w") as f:
        f.write("2d_masks: ch06_register_prefetch --size 4096x4096 --mask-width 1:31\n")


if __name__ == "__main__":
    main()
