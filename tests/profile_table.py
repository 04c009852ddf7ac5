#!/usr/bin/env python3
"""profile_table.py: Nsight Compute's CSV for your kernel and the reference, side by side.

    python3 tests/profile_table.py YOURS.csv [REFERENCE.csv]   (no reference in a student's copy)

Each CSV is what `ncu --csv --metrics ...` printed for one program (tests/profile.sh runs it).
ncu writes one row per kernel launch and metric ("Kernel Name", "Metric Name", "Metric Unit",
"Metric Value"); older versions and `--page raw` write one row per launch with a column per
metric and the units in the row below the header: both are read. The first launch of each
kernel is shown (a --check launches each kernel twice, on the same data). Rows: the metrics, in
the order of METRICS below, with what each says in the lessons' words.
"""
import csv
import sys

METRICS = [
    ("gpu__time_duration.sum", "time"),
    ("dram__bytes_read.sum", "DRAM bytes read"),
    ("dram__bytes_write.sum", "DRAM bytes written"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak"),
    ("lts__t_sector_hit_rate.pct", "L2 hit rate, %"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "L1: global load sectors"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "L1: shared-memory wavefronts"),
    ("sm__inst_issued.avg.pct_of_peak_sustained_active", "issue slots busy, %"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %"),
]


def short_name(kernel):
    """void conv1d_tiled_kernel<...>(const float *, ...) -> conv1d_tiled_kernel<...>"""
    name = kernel.split("(")[0].strip()
    return name[5:] if name.startswith("void ") else name


def read(path):
    """{kernel: {metric: (value, unit)}} for the first launch of each kernel."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
    if not rows:
        sys.exit(f"profile_table.py: {path} holds no ncu rows (did any kernel run?)")
    header, body = rows[0], rows[1:]
    if "Kernel Name" not in header:
        sys.exit(f"profile_table.py: {path} is not ncu's CSV (no 'Kernel Name' column)")
    kernel_at, id_at = header.index("Kernel Name"), header.index("ID") if "ID" in header else None
    found, first_id = {}, {}
    if "Metric Name" in header:  # one row per launch and metric
        name_at, unit_at, value_at = (header.index(c) for c in ("Metric Name", "Metric Unit", "Metric Value"))
        for r in body:
            kernel = short_name(r[kernel_at])
            launch = r[id_at] if id_at is not None else "0"
            if first_id.setdefault(kernel, launch) != launch:
                continue
            found.setdefault(kernel, {})[r[name_at]] = (r[value_at], r[unit_at])
    else:  # one row per launch, a column per metric, units in the first row of the body
        units, launches = (body[0], body[1:]) if body and not body[0][kernel_at] else ([""] * len(header), body)
        for r in launches:
            kernel = short_name(r[kernel_at])
            if kernel in found:
                continue
            found[kernel] = {header[i]: (r[i], units[i]) for i in range(len(header)) if i < len(r)}
    return found


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit("usage: python3 tests/profile_table.py YOURS.csv [REFERENCE.csv]")
    yours = read(argv[1])
    reference = read(argv[2]) if len(argv) == 3 else {}
    kernels = list(dict.fromkeys(list(yours) + list(reference)))
    for kernel in kernels:
        print(f"\n{kernel}")
        print(f"  {'metric':<32} {'yours':>18} {'reference':>18}  unit")
        for metric, meaning in METRICS:
            a = yours.get(kernel, {}).get(metric, ("-", ""))
            b = reference.get(kernel, {}).get(metric, ("-", ""))
            print(f"  {meaning:<32} {a[0]:>18} {b[0]:>18}  {a[1] or b[1]}")
    missing = [m for m, _ in METRICS if not any(m in k for k in list(yours.values()) + list(reference.values()))]
    if missing:
        print(f"\nprofile: this ncu did not report {', '.join(missing)}")


if __name__ == "__main__":
    main(sys.argv)
