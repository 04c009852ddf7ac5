#!/usr/bin/env python3
"""plot.py: turns the sweeps' JSON lines (report/sweeps.sh) into CSVs, figures and report.md.

    python3 report/plot.py OUT_DIR [--no-figures]

Reads OUT_DIR/raw/: SWEEP.jsonl (the chapter programs' own JSON lines), device.json (devinfo),
meta.json (date, commit, host) and SWEEP.timeline.csv (chapter 08's recorded steps). Writes OUT_DIR/SWEEP.csv for every sweep, OUT_DIR/fig_*.png
for every figure whose data is there, and OUT_DIR/report.md, which puts each figure beside a
sentence computed from the same numbers. matplotlib is optional: without it (or with
--no-figures) the CSVs and the page are still written, and the page says how to get figures.
Every figure is checked before it is saved (axis labels, a title, data drawn): a figure that
fails the check stops the script with exit 1. Map: reading, CSVs, one function per figure, the
check, the page, main.
"""
import csv
import json
import math
import os
import sys

# The chapter programs' labels for the kernels, in the order the book builds them.
KERNELS_1D = ["ch01 basic", "ch02 constant", "ch03 tiled", "ch04 cached", "beyond: regs"]
KERNELS_2D = ["naive global", "ch05 tiled", "ch06 tuned", "NPP filter", "cuFFT"]
PATHS = ["global ldg", "texture", "shared", "global only"]
SKIPPED_LABELS = {"solution"}  # the renamed reference kernel, timed beside a student's only


# ---- reading --------------------------------------------------------------------------------
def read_json_lines(path):
    records = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"plot.py: {path} line {number} is not JSON ({error})")
            if not isinstance(record, dict):
                sys.exit(f"plot.py: {path} line {number} is not a JSON object")
            records.append(record)
    return records


def read_raw(out):
    raw = os.path.join(out, "raw")
    if not os.path.isdir(raw):
        sys.exit(f"plot.py: no {raw}/: run the sweeps first (make report)")
    sweeps = {}
    for name in sorted(os.listdir(raw)):
        if name.endswith(".jsonl"):
            sweeps[name[: -len(".jsonl")]] = read_json_lines(os.path.join(raw, name))
    if not sweeps:
        sys.exit(f"plot.py: {raw}/ holds no .jsonl sweep")
    facts = {}
    for name in ("device", "meta"):
        path = os.path.join(raw, name + ".json")
        found = read_json_lines(path) if os.path.exists(path) else []
        facts[name] = found[0] if found else {}
    failed_path = os.path.join(raw, "failed.txt")
    failed = open(failed_path).read().splitlines() if os.path.exists(failed_path) else []
    return sweeps, facts["device"], facts["meta"], failed


# Chapter 08's timelines (raw/SWEEP.timeline.csv, one row per step: mode, item, stage, stream,
# start_ms, end_ms, bytes, then the run's measured_ms and ideal_ms as the program's model found
# them), read by main beside the sweeps; the timeline figures draw them.
TIMELINES = {}


def read_timelines(out):
    raw, found = os.path.join(out, "raw"), {}
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".timeline.csv"):
            continue
        rows = []
        with open(os.path.join(raw, name), newline="") as f:
            for number, row in enumerate(csv.DictReader(f), 2):
                try:
                    rows.append({"mode": row["mode"], "item": int(row["item"]), "stage": row["stage"],
                                 "stream": int(row["stream"]), "start_ms": float(row["start_ms"]),
                                 "end_ms": float(row["end_ms"]), "bytes": float(row["bytes"]),
                                 "measured_ms": float(row["measured_ms"]),
                                 "ideal_ms": float(row["ideal_ms"])})
                except (KeyError, TypeError, ValueError):
                    sys.exit(f"plot.py: {name} line {number} is not a timeline row")
        found[name[: -len(".timeline.csv")]] = rows
    return found


def timeline_model(rows):
    """A recorded run as chapter 08's model saw it (timeline.c): each stage's busy time in the
    record (the union of its steps), and the program's own measured time (a run without marks)
    and ideal pipelined time, with the efficiency ideal / measured."""
    items = max(r["item"] for r in rows) + 1
    busy = {}
    for stage in ("upload", "compute", "download"):
        spans = sorted((r["start_ms"], r["end_ms"]) for r in rows if r["stage"] == stage)
        total, start, end = 0.0, None, None
        for a, b in spans:
            if end is None or a > end:
                total += (end - start) if end is not None else 0.0
                start, end = a, b
            else:
                end = max(end, b)
        busy[stage] = total + ((end - start) if end is not None else 0.0)
    measured, ideal = rows[0]["measured_ms"], rows[0]["ideal_ms"]
    return {"busy": busy, "ideal": ideal, "measured": measured,
            "efficiency": ideal / measured if measured > 0 else 0.0, "items": items}


def timed(records, variant=None):
    """The records that passed and were timed (optionally of one kernel)."""
    return [r for r in records
            if r.get("pass") and "median_ms" in r and r.get("variant") not in SKIPPED_LABELS
            and (variant is None or r.get("variant") == variant)]


def median(values):
    values = sorted(values)
    if not values:
        return float("nan")
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else 0.5 * (values[middle - 1] + values[middle])


def pixels(r):
    return r["width"] * r["height"] * r.get("planes", 1)


def fma_count(r):
    """Multiply-adds one run performs: every output times every mask tap."""
    if "n" in r:
        return r["n"] * r["mask_width"]
    return pixels(r) * r["mask_width"] * r["mask_height"]


def bytes_moved(r):
    """The bytes the program counts for its GB/s: input and output once each."""
    return r["gbps"] * 1e9 * r["median_ms"] * 1e-3


# ---- CSVs -------------------------------------------------------------------------------------
def write_csvs(out, sweeps):
    written = []
    for sweep, records in sweeps.items():
        columns = []
        for r in records:
            columns += [k for k in r if k not in columns]
        path = os.path.join(out, sweep + ".csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(records)
        written.append(path)
    return written


def log_axis(ax, which="y"):
    """A log scale labelled with plain numbers (0.05, 0.1, 0.2, 0.5), not powers of ten."""
    from matplotlib.ticker import FuncFormatter
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}".lstrip("0.")[:1] in ("2", "5") else ""))


def to_palette(path):
    """Rewrites a PNG with a palette of 256 colours: a third of the bytes, and the same picture
    to the eye (plots hold few colours). Pillow comes with matplotlib; without it, left as is."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        palette = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                                dither=Image.Dither.NONE)
    palette.save(path, optimize=True)


# ---- one function per figure: each returns (figure, the sentence for the page) or None --------
def fig_1d_progression(plt, sweeps, device):
    records = timed(sweeps.get("1d_widths", []))
    widths = [w for w in (5, 31) if any(r["mask_width"] == w for r in records)]
    kernels = [k for k in KERNELS_1D if any(r["variant"] == k for r in records)]
    if not widths or not kernels:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bar = 0.8 / len(widths)
    best = {}
    for i, w in enumerate(widths):
        values = []
        for k in kernels:
            found = [r["pct_of_copy"] for r in records if r["variant"] == k and r["mask_width"] == w]
            values.append(median(found) if found else 0.0)
        positions = [x + (i - (len(widths) - 1) / 2) * bar for x in range(len(kernels))]
        bars = ax.bar(positions, values, bar, label=f"mask width {w}")
        ax.bar_label(bars, fmt="%.0f%%", fontsize=8)
        best[w] = max(zip(values, kernels))
    ax.axhline(100, color="grey", lw=1, ls="--")
    ax.set_xticks(range(len(kernels)), kernels)
    ax.set_ylabel("% of device-to-device copy bandwidth")
    ax.set_xlabel("kernel (chapter)")
    ax.set_title(f"1D convolution, n = {records[0]['n']:,}: how close each kernel gets to a copy")
    ax.legend()
    said = "; ".join(f"at width {w} the best is {k} with {v:.0f}% of copy" for w, (v, k) in best.items())
    return fig, f"The 1D progression, chapter by chapter: {said}."


def fig_1d_widths(plt, sweeps, device):
    records = timed(sweeps.get("1d_widths", []))
    kernels = [k for k in KERNELS_1D if any(r["variant"] == k for r in records)]
    if not kernels:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k in kernels:
        points = sorted((r["mask_width"], r["median_ms"]) for r in records if r["variant"] == k)
        ax.plot(*zip(*points), marker="o", ms=3, label=k)
    copy_ms = [bytes_moved(r) / (r["copy_gbps"] * 1e9) * 1e3 for r in records]
    ax.axhline(median(copy_ms), color="grey", ls="--", lw=1, label="a copy of the same bytes")
    log_axis(ax)
    ax.set_xlabel("mask width (taps)")
    ax.set_ylabel("median time (ms, log scale)")
    ax.set_title("1D: time against mask width")
    ax.legend(fontsize=8)
    widest = max(r["mask_width"] for r in records)
    at_widest = {k: median([r["median_ms"] for r in records if r["variant"] == k
                            and r["mask_width"] == widest]) for k in kernels}
    slowest, fastest = max(at_widest, key=at_widest.get), min(at_widest, key=at_widest.get)
    return fig, (f"Time grows with the mask for every kernel; at width {widest}, {fastest} "
                 f"takes {at_widest[fastest]:.3f} ms and {slowest} {at_widest[slowest]:.3f} ms.")


def mask_memory_ratios(records, constant, global_, key):
    """(size, time with the mask in global memory / in constant memory) where both were timed."""
    pairs = []
    for size in sorted({key(r) for r in records}):
        const = [r["median_ms"] for r in records if r["variant"] == constant and key(r) == size]
        glob = [r["median_ms"] for r in records if r["variant"] == global_ and key(r) == size]
        if const and glob:
            pairs.append((size, median(glob) / median(const)))
    return pairs


def fig_constant_vs_global(plt, sweeps, device):
    panels = [
        ("1D: ch02 constant against ch01 basic", "mask width (taps)",
         mask_memory_ratios(timed(sweeps.get("1d_widths", [])), "ch02 constant", "ch01 basic",
                            lambda r: r["mask_width"])),
        ("2D: the naive kernel and its global-mask twin", "mask side (a side x side mask)",
         mask_memory_ratios([r for r in timed(sweeps.get("2d_masks_ch05", []))
                             if r["mask_width"] == r["mask_height"]],
                            "naive global", "naive, mask global", lambda r: r["mask_width"])),
    ]
    panels = [p for p in panels if p[2]]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
    said = []
    for ax, (title, xlabel, pairs) in zip(axes[0], panels):
        ax.plot(*zip(*pairs), marker="o")
        ax.axhline(1.0, color="grey", ls="--", lw=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("time, mask in global / in constant memory")
        ax.set_title(title, fontsize=10)
        top = max(pairs, key=lambda p: p[1])
        said.append(f"{title.split(':')[0]}: up to {top[1]:.2f}x, at size {top[0]}")
    fig.suptitle("What constant memory buys: the same kernel with its mask in global memory")
    return fig, ("The mask in constant memory against the same kernel reading it from global "
                 "memory (above 1.0, constant memory is faster): " + "; ".join(said) + ".")


def fig_cpu_vs_gpu(plt, sweeps, device):
    records = [r for r in timed(sweeps.get("1d_widths", [])) if "cpu_single_ms" in r]
    widths = [w for w in (5, 31) if any(r["mask_width"] == w for r in records)]
    if not widths:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    names = ["CPU OpenMP"] + [k for k in KERNELS_1D if any(r["variant"] == k for r in records)]
    bar = 0.8 / len(widths)
    said = []
    for i, w in enumerate(widths):
        at = [r for r in records if r["mask_width"] == w]
        single = median([r["cpu_single_ms"] for r in at])
        speedups = [single / median([r["cpu_openmp_ms"] for r in at])]
        speedups += [single / median([r["median_ms"] for r in at if r["variant"] == k]) for k in names[1:]]
        positions = [x + (i - (len(widths) - 1) / 2) * bar for x in range(len(names))]
        bars = ax.bar(positions, speedups, bar, label=f"mask width {w}")
        ax.bar_label(bars, fmt="%.0fx", fontsize=7)
        said.append(f"at width {w} the fastest GPU kernel is {max(speedups[1:]):.0f}x one CPU thread "
                    f"and OpenMP on {at[0].get('cpu_threads', '?')} threads {speedups[0]:.1f}x")
    log_axis(ax)
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylabel("speedup over one CPU thread (x, log scale)")
    ax.set_xlabel("implementation")
    ax.set_title("1D: the GPU kernels and OpenMP against a single CPU thread")
    ax.legend(fontsize=8)
    return fig, "Speedups over the single-threaded CPU reference: " + "; ".join(said) + "."


def fig_2d_sizes(plt, sweeps, device):
    records = timed(sweeps.get("2d_sizes", []))
    photo = timed(sweeps.get("2d_photo", []))
    masks = sorted({(r["mask_width"], r["mask_height"]) for r in records})
    kernels = [k for k in KERNELS_2D if any(r["variant"] == k for r in records)]
    if not masks or not kernels:
        return None
    fig, axes = plt.subplots(1, len(masks), figsize=(5 * len(masks), 4.5), squeeze=False)
    for ax, (mw, mh) in zip(axes[0], masks):
        for k in kernels:
            points = sorted((pixels(r), r["median_ms"]) for r in records
                            if r["variant"] == k and (r["mask_width"], r["mask_height"]) == (mw, mh))
            if points:
                line, = ax.plot(*zip(*points), marker="o", ms=3, label=k)
                shot = [(pixels(r), r["median_ms"]) for r in photo if r["variant"] == k
                        and (r["mask_width"], r["mask_height"]) == (mw, mh)]
                if shot:
                    ax.plot(*zip(*shot), marker="*", ms=11, ls="", color=line.get_color())
        ax.set_xscale("log")
        log_axis(ax)
        ax.set_xlabel("pixels (log scale; a star: the photo, all planes)")
        ax.set_ylabel("median time (ms, log scale)")
        ax.set_title(f"2D, mask {mw}x{mh}: time against image size")
        ax.legend(fontsize=7)
    largest = max(pixels(r) for r in records)
    at = {k: median([r["median_ms"] for r in records if r["variant"] == k and pixels(r) == largest
                     and (r["mask_width"], r["mask_height"]) == masks[0]]) for k in kernels}
    at = {k: v for k, v in at.items() if not math.isnan(v)}
    best = min(at, key=at.get)
    return fig, (f"Small images cost the launch and little else; at {largest:,} pixels with the "
                 f"{masks[0][0]}x{masks[0][1]} mask the fastest is {best} ({at[best]:.2f} ms).")


def fig_2d_blocks(plt, sweeps, device):
    records = timed(sweeps.get("2d_blocks", []), "ch05 tiled")
    if not records:
        return None
    points = sorted((r["block"], r["median_ms"]) for r in records)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(*zip(*points), marker="o")
    ax.set_xlabel("block edge (threads per side; the input tile is block x block)")
    ax.set_ylabel("median time (ms)")
    times = [t for _, t in points]
    if max(times) > 10 * min(times):  # the smallest tiles are decades slower
        log_axis(ax)
        ax.set_ylabel("median time (ms, log scale)")
    r0 = records[0]
    ax.set_title(f"Chapter 05 tiled, {r0['width']}x{r0['height']}, mask "
                 f"{r0['mask_width']}x{r0['mask_height']}: time against block size")
    best = min(points, key=lambda p: p[1])
    return fig, (f"Block {best[0]} is fastest here ({best[1]:.3f} ms). A smaller tile spends a "
                 f"larger share of its loads on halo cells, and below the mask's side the kernel "
                 f"cannot run at all.")


def fft_crossover(fft, direct):
    """Where cuFFT beats every direct kernel. fft: {side: ms}; direct: {kernel: {side: ms}}.
    Returns wins (the sides where it does), from (the side from which it wins at every larger
    side measured, or None) and a sentence that claims no more than that; where a direct kernel
    still wins past the first cuFFT win, the sentence names it, with both times."""
    wins, losses = [], []
    for side, fft_ms in sorted(fft.items()):
        times = {k: t[side] for k, t in direct.items() if side in t}
        if not times:
            continue
        best = min(times, key=times.get)
        (wins if fft_ms < times[best] else losses).append((side, best, times[best], fft_ms))
    result = {"wins": [w[0] for w in wins], "from": None, "sentence": ""}
    if not wins:
        return result
    first = wins[0][0]
    later_losses = [l for l in losses if l[0] > first]
    if not later_losses:
        result["from"] = first
        result["sentence"] = (f"From {first}x{first} on it beats every direct kernel measured "
                              f"({wins[0][3]:.3f} ms against {wins[0][2]:.3f} ms there).")
        return result
    shown = ", ".join(f"{s}x{s} ({k} {t:.3f} ms against {f:.3f} ms)"
                      for s, k, t, f in later_losses[:4])
    more = f" and {len(later_losses) - 4} more" if len(later_losses) > 4 else ""
    result["sentence"] = (f"It first beats every direct kernel at {first}x{first} and wins at "
                          f"{len(wins)} sides in all, but a direct kernel is still faster at "
                          f"larger sides: {shown}{more}.")
    return result


def fig_2d_masks(plt, sweeps, device):
    records = timed(sweeps.get("2d_masks", [])) + timed(sweeps.get("2d_masks_ch05", []), "ch05 tiled")
    records = [r for r in records if r["mask_width"] == r["mask_height"]]
    kernels = [k for k in ["ch05 tiled", "ch06 tuned", "NPP filter", "cuFFT"]
               if any(r["variant"] == k for r in records)]
    if not kernels:
        return None
    series = {}
    for k in kernels:
        by_side = {}
        for r in records:
            if r["variant"] == k:
                by_side.setdefault(r["mask_width"], []).append(r["median_ms"])
        series[k] = {side: median(v) for side, v in sorted(by_side.items())}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k in kernels:
        ax.plot(list(series[k]), list(series[k].values()), marker="o", ms=3, label=k)
    sentence = "No crossover: a direct kernel is faster than cuFFT at every mask size measured."
    if "cuFFT" in series:
        direct = {k: series[k] for k in kernels if k != "cuFFT"}
        cross = fft_crossover(series["cuFFT"], direct)
        if cross["wins"]:
            first = cross["from"] or cross["wins"][0]
            ax.axvline(first, color="black", ls=":", lw=1)
            label = f"cuFFT wins from {first}x{first}" if cross["from"] else \
                f"cuFFT first wins at {first}x{first}"
            ax.annotate(label, (first, series["cuFFT"][first]), xytext=(8, 20),
                        textcoords="offset points", fontsize=8, arrowprops={"arrowstyle": "->"})
            sentence = "cuFFT's time hardly depends on the mask. " + cross["sentence"]
    log_axis(ax)
    ax.set_xlabel("mask side (a side x side mask)")
    ax.set_ylabel("median time (ms, log scale)")
    r0 = records[0]
    ax.set_title(f"2D, {r0['width']}x{r0['height']}: direct kernels against the FFT as the mask grows")
    ax.legend(fontsize=8)
    return fig, sentence


def fig_tuner(plt, sweeps, device):
    records = [r for r in timed(sweeps.get("tuner", []))
               if any(r["variant"].startswith(p + " ") for p in PATHS)]
    if not records:
        return None
    rows = sorted({r["variant"] for r in records},
                  key=lambda v: (next(i for i, p in enumerate(PATHS) if v.startswith(p + " ")), v))
    sides = sorted({r["mask_width"] for r in records})
    grid = [[float("nan")] * len(sides) for _ in rows]
    for r in records:
        grid[rows.index(r["variant"])][sides.index(r["mask_width"])] = r["pct_of_copy"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.62 * len(sides), 1.2 + 0.32 * len(rows)))
    image = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=0)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=6,
                        color="white" if value < 0.6 * max(max(v for v in g if not math.isnan(v))
                                                           for g in grid if any(not math.isnan(v) for v in g)) else "black")
    ax.set_xticks(range(len(sides)), [f"{s}x{s}" for s in sides], fontsize=7, rotation=45)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_xlabel("mask size")
    ax.set_ylabel("memory path, outputs per thread")
    ax.set_title("Chapter 06's autotuner: % of copy for every compiled variant", fontsize=10)
    fig.colorbar(image, ax=ax, label="% of copy bandwidth")
    best = {}
    for r in records:
        if r["pct_of_copy"] > best.get(r["mask_width"], (0, ""))[0]:
            best[r["mask_width"]] = (r["pct_of_copy"], r["variant"])
    winners = sorted({v for _, v in best.values()})
    return fig, (f"No single variant wins everywhere: {len(winners)} different winners over "
                 f"{len(sides)} mask sizes ({', '.join(winners[:4])}{', ...' if len(winners) > 4 else ''}).")


def fig_roofline(plt, sweeps, device):
    peak = device.get("fma_peak_per_s")
    points = []  # (intensity FMA/byte, FMA/s, label, family)
    for sweep, kernels in (("1d_widths", KERNELS_1D), ("2d_masks", KERNELS_2D), ("2d_masks_ch05", ["ch05 tiled"])):
        for r in timed(sweeps.get(sweep, [])):
            if r["variant"] in kernels and r["variant"] != "cuFFT":
                seconds = r["median_ms"] * 1e-3
                points.append((fma_count(r) / bytes_moved(r), fma_count(r) / seconds, r["variant"]))
    copies = [r["copy_gbps"] for records in sweeps.values() for r in timed(records) if "copy_gbps" in r]
    if not points or not peak or not copies:
        return None
    copy_bps = median(copies) * 1e9
    fig, ax = plt.subplots(figsize=(8, 5))
    xs = [p[0] for p in points]
    lo, hi = min(xs) / 2, max(max(xs) * 2, 2 * peak / copy_bps)
    ridge = peak / copy_bps
    ax.plot([lo, ridge, hi], [copy_bps * lo, peak, peak], color="black", lw=1.5,
            label=f"roof: copy {copy_bps / 1e9:.0f} GB/s, FP32 FMA peak {peak / 1e12:.1f} T/s")
    for k in dict.fromkeys(p[2] for p in points):
        mine = [p for p in points if p[2] == k]
        ax.plot([p[0] for p in mine], [p[1] for p in mine], marker="o", ms=3, ls="", label=k)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (multiply-adds per byte moved, log scale)")
    ax.set_ylabel("multiply-adds per second (log scale)")
    ax.set_title("Roofline: which kernels the memory bounds and which the arithmetic")
    ax.legend(fontsize=7, loc="lower right")
    top = max(points, key=lambda p: p[1])
    # Large masks sit right of the corner, where the FMA peak binds: say how close each gets.
    largest = {}
    for p in points:
        if p[0] > ridge and p[0] >= largest.get(p[2], (0, 0))[0]:
            largest[p[2]] = (p[0], p[1])
    compute = "; ".join(f"{k} {100 * v[1] / peak:.0f}% at {v[0]:.0f} per byte"
                        for k, v in largest.items())
    compute = (f" Of the FMA peak, at each kernel's largest mask past the corner: {compute}."
               if compute else " No kernel was measured past the corner.")
    return fig, (f"The roof's corner is at {ridge:.0f} multiply-adds per byte: left of it a "
                 f"kernel can at best copy, right of it it can at best compute. The highest point "
                 f"is {top[2]} at {top[0]:.0f} per byte, {100 * top[1] / peak:.0f}% of the FMA peak "
                 f"(SMs x FP32 lanes x clock: {device.get('sms')} x {device.get('fp32_lanes_per_sm')}"
                 f" x {device.get('sm_clock_mhz')} MHz, from the CUDA runtime and the lanes table "
                 f"in common/devinfo.c)." + compute)


# ---- chapter 07: separable, low-rank and large masks (an 8192 x 8192 image) -----------------
SEPARABLE_7 = ["ch07 fused", "ch07 two-pass", "ch06 tuned", "NPP separable", "NPP filter", "cuFFT"]
TARGETS_7 = {"ch07 fused": 70, "ch07 two-pass": 40}  # % of copy, chapter 07's targets (separable)
FMA_TARGET_7 = 75  # % of the FP32 FMA peak, full-rank masks 15x15 to 31x31


def mask_kind(r):
    """'gaussian' from the programs' mask name 'gaussian 15x15'."""
    return str(r.get("mask", "")).split(" ")[0]


def by_side(records, variant, key):
    """{mask side: median of key(r)} over square masks, for one kernel."""
    found = {}
    for r in records:
        if r["variant"] == variant and r["mask_width"] == r["mask_height"]:
            found.setdefault(r["mask_width"], []).append(key(r))
    return {side: median(v) for side, v in sorted(found.items())}


def fig_7_separable(plt, sweeps, device):
    records = timed(sweeps.get("7_separable", []))
    kinds = [k for k in ("gaussian", "box", "rank1") if any(mask_kind(r) == k for r in records)]
    if not kinds:
        return None
    main = [r for r in records if mask_kind(r) == kinds[0]]
    kernels = [k for k in SEPARABLE_7 if any(r["variant"] == k for r in main)]
    pct = lambda r: r["pct_of_copy"]
    series = {k: by_side(main, k, pct) for k in kernels}
    per_kind = {(kind, k): by_side([r for r in records if mask_kind(r) == kind], k, pct)
                for kind in kinds for k in TARGETS_7}
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    for k in kernels:
        line, = axes[0].plot(list(series[k]), list(series[k].values()), marker="o", ms=3, label=k)
        if k in TARGETS_7:
            axes[0].axhline(TARGETS_7[k], color=line.get_color(), ls=":", lw=1)
    axes[0].set_ylim(bottom=0)
    axes[0].set_xlabel("mask side (a side x side mask)")
    axes[0].set_ylabel("% of device-to-device copy bandwidth")
    r0 = main[0]
    axes[0].set_title(f"{kinds[0]} masks, {r0['width']}x{r0['height']} (dotted: the targets)",
                      fontsize=10)
    axes[0].legend(fontsize=7)
    markers = {"gaussian": "o", "box": "s", "rank1": "^"}
    for (kind, k), points in per_kind.items():
        if points:
            axes[1].plot(list(points), list(points.values()), marker=markers[kind], ms=4,
                         ls="-" if k == "ch07 fused" else "--", label=f"{k}, {kind}")
    axes[1].set_ylim(bottom=0)
    axes[1].set_xlabel("mask side")
    axes[1].set_ylabel("% of copy bandwidth")
    axes[1].set_title("The same kernels on every rank-1 mask kind", fontsize=10)
    axes[1].legend(fontsize=7)
    fig.suptitle("Chapter 07, separable masks: row and column passes against the baselines")
    said = []
    for k, target in TARGETS_7.items():
        if series.get(k):
            worst = min(series[k], key=series[k].get)
            said.append(f"{k} from {series[k][worst]:.0f}% of copy (at {worst}x{worst}) to "
                        f"{max(series[k].values()):.0f}% (target {target}%)")
    npp = series.get("NPP separable", {})
    fused = series.get("ch07 fused", {})
    common = [s for s in fused if s in npp]
    if common:
        ahead = [s for s in common if fused[s] > npp[s]]
        said.append(f"the fused kernel is ahead of NPP's separable filters at {len(ahead)} of "
                    f"{len(common)} sizes")
    # how far apart the kinds sit at one side: the passes' work does not depend on the weights
    fused = [per_kind[(kind, "ch07 fused")] for kind in kinds]
    spread = [max(f[side] for f in fused) - min(f[side] for f in fused)
              for side in fused[0] if all(side in f for f in fused)]
    if len(kinds) > 1 and spread:
        said.append(f"across {', '.join(kinds)} masks of one side the fused kernel's share of "
                    f"copy differs by at most {max(spread):.1f} points")
    return fig, f"On {kinds[0]} masks: " + "; ".join(said) + "."


def fig_7_full_rank(plt, sweeps, device):
    peak = device.get("fma_peak_per_s")
    records = [r for r in timed(sweeps.get("7_full_rank", [])) if mask_kind(r) == "random"]
    kernels = [k for k in ("ch07 direct", "ch06 tuned", "ch07 chosen", "NPP filter", "cuFFT")
               if any(r["variant"] == k for r in records)]
    if not peak or not kernels:
        return None
    # Every kernel on the same axis: the direct sum's multiply-adds over its time. For cuFFT,
    # which does other work, this is the rate a direct kernel needs to tie with it.
    series = {k: by_side(records, k, lambda r: 100 * fma_count(r) / (r["median_ms"] * 1e-3) / peak)
              for k in kernels}
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for k in kernels:
        label = "cuFFT (a direct kernel's rate to tie)" if k == "cuFFT" else k
        ax.plot(list(series[k]), list(series[k].values()), marker="o", ms=4,
                ls="--" if k == "cuFFT" else "-", label=label)
    ax.axhline(FMA_TARGET_7, color="black", ls=":", lw=1, label=f"target {FMA_TARGET_7}%")
    ax.axhline(100, color="grey", ls="--", lw=1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("mask side (a random full-rank side x side mask)")
    ax.set_ylabel("% of the FP32 FMA peak (direct multiply-adds / time)")
    r0 = records[0]
    ax.set_title(f"Chapter 07, full-rank masks, {r0['width']}x{r0['height']}: against the compute roof")
    ax.legend(fontsize=7)
    best = {}
    for k in kernels:
        if k != "cuFFT":
            for side, pct in series[k].items():
                if pct > best.get(side, (0, ""))[0]:
                    best[side] = (pct, k)
    said = ", ".join(f"{s}x{s} {p:.0f}% ({k})" for s, (p, k) in sorted(best.items()))
    fft = series.get("cuFFT", {})
    beaten = [s for s in best if s in fft and best[s][0] > fft[s]]
    sentence = (f"Peak {peak / 1e12:.1f} T multiply-adds/s. The best direct kernel per size: {said}.")
    if fft:
        sentence += (f" A direct kernel beats cuFFT at {len(beaten)} of "
                     f"{len([s for s in best if s in fft])} sizes measured.")
    return fig, sentence


def fig_7_low_rank(plt, sweeps, device):
    records = timed(sweeps.get("7_low_rank", []))
    groups = sorted({(mask_kind(r), r["mask_width"], r["mask_height"]) for r in records})
    kernels = [k for k in ("ch07 chosen", "ch07 fused", "ch07 two-pass", "ch07 direct",
                           "ch06 tuned", "NPP filter", "cuFFT")
               if any(r["variant"] == k for r in records)]
    if not groups or not kernels:
        return None
    times = {}  # (kernel, mask): median ms
    for r in records:
        mask = (mask_kind(r), r["mask_width"], r["mask_height"])
        times.setdefault((r["variant"], mask), []).append(r["median_ms"])
    times = {key: median(v) for key, v in times.items()}
    fig, ax = plt.subplots(figsize=(9, 4.8))
    bar = 0.8 / len(kernels)
    for i, k in enumerate(kernels):
        positions = [g + (i - (len(kernels) - 1) / 2) * bar for g in range(len(groups))]
        ax.bar(positions, [times.get((k, group), 0.0) for group in groups], bar, label=k)
    said = [f"{kind} {mw}x{mh}: {times[('ch07 chosen', (kind, mw, mh))]:.3f} ms against "
            f"{times[('ch07 direct', (kind, mw, mh))]:.3f} ms direct" for kind, mw, mh in groups
            if ("ch07 chosen", (kind, mw, mh)) in times and ("ch07 direct", (kind, mw, mh)) in times]
    log_axis(ax)
    ax.set_xticks(range(len(groups)), [f"{k} {w}x{h}" for k, w, h in groups], fontsize=8)
    ax.set_xlabel("mask (rank and size)")
    ax.set_ylabel("median time (ms, log scale)")
    r0 = records[0]
    ax.set_title(f"Chapter 07, low-rank masks, {r0['width']}x{r0['height']}: "
                 f"r separable passes against the direct sum")
    ax.legend(fontsize=7, ncol=2)
    return fig, ("The path auto chooses against the direct sum: "
                 + ("; ".join(said) if said else "no direct kernel was timed beside it") + ".")


def runs_of(rows):
    """The recorded runs in the order they were written: mode -> its first run's rows. A run
    starts where the mode changes or its item number drops back; a mode recorded again (for
    another mask, or twice in a row) is left out."""
    runs, current, keep, last_item = {}, None, False, -1
    for r in rows:
        if r["mode"] != current or r["item"] < last_item:
            current, keep = r["mode"], r["mode"] not in runs
        last_item = r["item"]
        if keep:
            runs.setdefault(r["mode"], []).append(r)
    return runs


def fig_9_volumes(plt, sweeps, device):
    records = timed(sweeps.get("9_volumes", []))
    kernels = [k for k in ("ch09 2.5D", "ch09 tiled", "naive 3D") if any(r["variant"] == k for r in records)]
    if not records or not kernels:
        return None

    def roofs(r):
        """The time the bytes need at the copy's rate and the multiply-adds at the FMA peak."""
        voxels = r["width"] * r["height"] * r["depth"]
        fmas = voxels * r["mask_width"] * r["mask_height"] * r["mask_depth"]
        return 2 * 4 * voxels / (r["copy_gbps"] * 1e9), fmas / r["fma_peak_per_s"]

    def pct(r):
        return 100 * max(roofs(r)) / (r["median_ms"] * 1e-3)

    cubes = sorted({r["mask_width"] for r in records
                    if r["mask_width"] == r["mask_height"] == r["mask_depth"]})
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for k in kernels:
        points = {r["mask_width"]: pct(r) for r in records if r["variant"] == k and
                  r["mask_width"] == r["mask_height"] == r["mask_depth"]}
        ax.plot(sorted(points), [points[c] for c in sorted(points)], marker="o", ms=4, label=k)
    for c in cubes:
        r = next(r for r in records if r["mask_width"] == c)
        copy, fma = roofs(r)
        ax.annotate("copy" if copy >= fma else "FMA", (c, 0.03), xycoords=("data", "axes fraction"),
                    ha="center", fontsize=7, color="grey")
    ax.axhline(100, color="grey", ls="--", lw=1)
    ax.set_yscale("log")
    ax.set_xticks(cubes)
    ax.set_xlabel("mask side (a random side x side x side mask); below: the roof that binds")
    ax.set_ylabel("% of the binding roof (log scale)")
    r0 = records[0]
    ax.set_title(f"Chapter 09, {r0['width']}x{r0['height']}x{r0['depth']} volume: each kernel "
                 f"against the roof that binds it", fontsize=9)
    ax.legend(fontsize=7)
    best = [(r["mask_width"], pct(r)) for r in records if r["variant"] == kernels[0]
            and r["mask_width"] == r["mask_height"] == r["mask_depth"]]
    said = ", ".join(f"{c}x{c}x{c} {p:.0f}%" for c, p in sorted(best))
    return fig, (f"The 2.5D kernel's share of the binding roof (copy bandwidth or the FP32 FMA "
                 f"peak, whichever takes longer): {said}.")


def fig_10_scaling(plt, sweeps, device):
    """Chapter 10's study: time per pass on 1..N GPUs, strong and weak, and the exchange hidden."""
    study = [r for r in sweeps.get("10_scaling", []) if "study" in r]
    if not study:
        return None
    # strong scaling on the largest image swept, weak on the smallest slab per GPU
    largest = max((r["width"] * r["height"], r["width"], r["height"]) for r in study
                  if r["study"] == "strong")[1:]
    per_gpu = min((r["width"] * r["height"] // r["gpus"], r["width"], r["height"] // r["gpus"])
                  for r in study if r["study"] == "weak")[1:]
    strong = sorted((r["gpus"], r) for r in study if r["study"] == "strong"
                    and (r["width"], r["height"]) == largest)
    weak = sorted((r["gpus"], r) for r in study if r["study"] == "weak"
                  and (r["width"], r["height"] // r["gpus"]) == per_gpu)
    hidden = [r for r in study if r["study"] == "hidden" and (r["width"], r["height"]) == largest]
    if len(strong) < 2 or len(weak) < 2:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
    gpus = [g for g, _ in strong]
    left.plot(gpus, [r["value"] for _, r in strong], marker="o", label="strong: speedup")
    left.plot(gpus, gpus, color="grey", ls="--", lw=1, label="ideal")
    left.set_xticks(gpus)
    left.set_xlabel("GPUs")
    left.set_ylabel("speedup over one GPU (same image)")
    r0 = strong[0][1]
    left.set_title(f"Strong: {r0['width']}x{r0['height']}, {r0['mask_width']}x"
                   f"{r0['mask_height']}, {r0['iterations']} passes", fontsize=9)
    left.legend(fontsize=7)
    right.plot([g for g, _ in weak], [100 * r["value"] for _, r in weak], marker="o",
               label="weak: efficiency")
    right.axhline(100, color="grey", ls="--", lw=1)
    right.axhline(90, color="grey", ls=":", lw=1, label="target 90%")
    right.set_xticks([g for g, _ in weak])
    right.set_ylim(0, 110)
    right.set_xlabel("GPUs (the image grows with them)")
    right.set_ylabel("% of one GPU's time per pass")
    right.set_title(f"Weak: {per_gpu[0]}x{per_gpu[1]} per GPU", fontsize=9)
    right.legend(fontsize=7)
    n, top = strong[-1]
    said = (f"On {n} GPUs the image runs {top['value']:.2f}x as fast as on one, and {n} times the "
            f"image {100 * weak[-1][1]['value']:.0f}% as fast per GPU")
    if hidden:
        said += f"; {100 * hidden[-1]['value']:.0f}% of the halo exchange hides behind the interior"
    return fig, said + "."


def gantt(plt, runs, title):
    """One plot per run: a lane per stage, each step a bar coloured by its item."""
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.6 + 1.3 * len(runs)), squeeze=False)
    colours = plt.get_cmap("tab10")
    for ax, (mode, rows) in zip(axes[:, 0], runs.items()):
        origin = min(r["start_ms"] for r in rows)
        for lane, stage in enumerate(("upload", "compute", "download")):
            bars = [(r["start_ms"] - origin, r["end_ms"] - r["start_ms"], r["item"])
                    for r in rows if r["stage"] == stage]
            ax.broken_barh([(a, w) for a, w, _ in bars], (2 - lane - 0.4, 0.8),
                           facecolors=[colours(i % 10) for _, _, i in bars], edgecolor="white",
                           linewidth=0.3)
        m = timeline_model(rows)
        ax.set_yticks([2, 1, 0], ["upload", "compute", "download"])
        ax.set_xlabel("ms from the start of a run with marks around every step (they slow it)")
        ax.set_ylabel("stage")
        ax.set_title(f"{mode}: {m['measured']:.2f} ms, {100 * m['efficiency']:.0f}% of the ideal "
                     f"{m['ideal']:.2f} ms", fontsize=9)
    fig.suptitle(title, fontsize=10)
    return fig


def fig_8_batch_timeline(plt, sweeps, device):
    runs = runs_of(TIMELINES.get("8_batch", []))
    serial = runs.get("serial, pinned")
    pipelined = [m for m in runs if m.startswith("pipelined")]
    if not serial or not pipelined:
        return None
    best = min(pipelined, key=lambda m: timeline_model(runs[m])["measured"])
    chosen = {"serial, pinned": serial, best: runs[best]}
    s, p = timeline_model(serial), timeline_model(runs[best])
    fig = gantt(plt, chosen, f"Chapter 08, a batch of {p['items']} images: one step at a time, "
                             f"then overlapped over copy streams")
    return fig, (f"One step after another, the batch took {s['measured']:.2f} ms; {best} took "
                 f"{p['measured']:.2f} ms ({s['measured'] / p['measured']:.2f}x faster), "
                 f"{100 * p['efficiency']:.0f}% of the ideal pipelined time of {p['ideal']:.2f} ms "
                 f"(busiest stage: {max(p['busy'], key=p['busy'].get)}).")


def fig_8_strips_timeline(plt, sweeps, device):
    runs = runs_of(TIMELINES.get("8_strips", []))
    one = [m for m in runs if m.startswith("ch08 one pass")]
    strips = [m for m in runs if m.startswith("strips")]
    if not one or not strips:
        return None
    best = min(strips, key=lambda m: timeline_model(runs[m])["measured"])
    o, p = timeline_model(runs[one[0]]), timeline_model(runs[best])
    fig = gantt(plt, {one[0]: runs[one[0]], best: runs[best]},
                "Chapter 08, one image: whole on the GPU, then in strips under a memory budget")
    return fig, (f"The whole image up, through and down took {o['measured']:.2f} ms; in "
                 f"{p['items']} strips ({best.split(',')[0]}) {p['measured']:.2f} ms, "
                 f"{100 * p['efficiency']:.0f}% of the ideal pipelined time of {p['ideal']:.2f} ms.")


FIGURES = [
    ("fig_1d_progression", fig_1d_progression),
    ("fig_1d_widths", fig_1d_widths),
    ("fig_constant_vs_global", fig_constant_vs_global),
    ("fig_cpu_vs_gpu", fig_cpu_vs_gpu),
    ("fig_2d_sizes", fig_2d_sizes),
    ("fig_2d_blocks", fig_2d_blocks),
    ("fig_2d_masks", fig_2d_masks),
    ("fig_tuner", fig_tuner),
    ("fig_roofline", fig_roofline),
    ("fig_7_separable", fig_7_separable),
    ("fig_7_full_rank", fig_7_full_rank),
    ("fig_7_low_rank", fig_7_low_rank),
    ("fig_9_volumes", fig_9_volumes),
    ("fig_10_scaling", fig_10_scaling),
    ("fig_8_batch_timeline", fig_8_batch_timeline),
    ("fig_8_strips_timeline", fig_8_strips_timeline),
]


# ---- the check ---------------------------------------------------------------------------------
def check_figure(name, fig):
    """A figure worth saving: every plot has a title, both axis labels and something drawn."""
    problems = []
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        if not ax.get_title():
            problems.append("a plot without a title")
        if not ax.get_xlabel() or not ax.get_ylabel():
            problems.append(f"'{ax.get_title()}' lacks an axis label")
        drawn = (sum(len(line.get_xdata()) for line in ax.lines) + len(ax.patches) + len(ax.images)
                 + sum(len(c.get_paths()) for c in ax.collections))
        if drawn == 0:
            problems.append(f"'{ax.get_title()}' draws nothing")
    if problems:
        sys.exit(f"plot.py: {name}: " + "; ".join(problems))


def stamp(fig, device, meta):
    # The GPU only: a figure shown in a lesson outlives its run, whose date and commit the report's
    # page (and the chapter's figures/runs.tsv) record instead.
    del meta
    fig.text(0.995, 0.005, device.get("device", "GPU unknown"), ha="right", va="bottom", fontsize=6,
             color="grey")


# ---- the page ------------------------------------------------------------------------------------
def write_page(out, sweeps, device, meta, failed, drawn, csvs, why_no_figures):
    copies = [r["copy_gbps"] for records in sweeps.values() for r in timed(records) if "copy_gbps" in r]
    lines = ["# Measured report", ""]
    lines.append(f"- GPU: {device.get('device', 'unknown')} (sm_{device.get('sm', '?')}, "
                 f"{device.get('sms', '?')} SMs at up to {device.get('sm_clock_mhz', '?')} MHz)")
    lines.append(f"- When: {meta.get('date', 'unknown')}; commit {meta.get('commit', 'unknown')}; "
                 f"sweeps at scale '{meta.get('scale', '?')}'")
    lines.append(f"- Host: {meta.get('cpu', 'unknown')}, {meta.get('cores', '?')} cores")
    if copies:
        lines.append(f"- Device-to-device copy bandwidth measured in these runs: median "
                     f"{median(copies):.0f} GB/s (from {min(copies):.0f} to {max(copies):.0f}); "
                     f"the datasheet's DRAM figure is {device.get('dram_datasheet_gbps', '?')} GB/s")
    if device.get("fma_peak_per_s"):
        lines.append(f"- FP32 roof: {device['sms']} SMs x {device['fp32_lanes_per_sm']} lanes x "
                     f"{device['sm_clock_mhz']} MHz = {device['fma_peak_per_s'] / 1e12:.1f} T "
                     f"multiply-adds/s ({device.get('fp32_peak_tflops', 0):.1f} TFLOP/s)")
    lines.append("- Times are medians of CUDA-event timings after warm-up, with L2 flushed "
                 "between runs; every kernel was verified against the CPU reference first.")
    if failed:
        lines += ["", "**Steps where a kernel failed verification** (their failing kernels are "
                  "left out of the figures):", ""] + [f"- `{f}`" for f in failed]
    lines += [""]
    if why_no_figures:
        lines += [f"No figures: {why_no_figures}", ""]
    for name, sentence in drawn:
        lines += [f"## {name[4:].replace('_', ' ')}", "", f"![{name}]({name}.png)", "", sentence, ""]
    lines += ["## The numbers", ""] + [f"- [{os.path.basename(c)}]({os.path.basename(c)})" for c in csvs]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- main ----------------------------------------------------------------------------------------
def main(argv):
    args = [a for a in argv[1:] if a != "--no-figures"]
    if len(args) != 1 or any(a.startswith("--") for a in args):
        sys.exit("usage: python3 report/plot.py OUT_DIR [--no-figures]")
    out = args[0]
    sweeps, device, meta, failed = read_raw(out)
    TIMELINES.update(read_timelines(out))
    csvs = write_csvs(out, sweeps)
    for name, rows in TIMELINES.items():  # beside the sweeps' CSVs, for the page's list
        path = os.path.join(out, name + ".timeline.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["mode", "item", "stage", "stream", "start_ms",
                                                   "end_ms", "bytes", "measured_ms", "ideal_ms"])
            writer.writeheader()
            writer.writerows(rows)
        csvs.append(path)
    drawn, why_no_figures = [], None
    plt = None
    if "--no-figures" in argv:
        why_no_figures = "--no-figures was given."
    else:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            why_no_figures = ("matplotlib is not installed (apt-get install python3-matplotlib, or "
                              "python3 -m pip install matplotlib); the CSVs hold every number.")
    if plt:
        for name, draw in FIGURES:
            made = draw(plt, sweeps, device)
            if made is None:
                print(f"plot.py: {name}: no data for it in {out}/raw/, left out")
                continue
            fig, sentence = made
            check_figure(name, fig)
            stamp(fig, device, meta)
            fig.tight_layout()
            path = os.path.join(out, name + ".png")
            fig.savefig(path, dpi=80)
            plt.close(fig)
            to_palette(path)
            drawn.append((name, sentence))
    write_page(out, sweeps, device, meta, failed, drawn, csvs, why_no_figures)
    print(f"plot.py: {len(csvs)} CSVs, {len(drawn)} figures, {out}/report.md"
          + (f" ({why_no_figures})" if why_no_figures else ""))


if __name__ == "__main__":
    main(sys.argv)
