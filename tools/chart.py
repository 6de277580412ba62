#!/usr/bin/env python3
"""Turns //bench:compare's CSV into an SVG bar chart: one panel per workload, ns per item on a log
scale, one bar per implementation (upstream protobuf, pbaccel, each kernel, memcpy, streamvbyte).

    ./bazelw run //bench:compare -- --csv > docs/compare.csv
    python3 tools/chart.py docs/compare.csv docs/compare.svg [--n 1048576] [--markdown docs/compare.md]

Standard library only. Payload workloads are drawn at one array size (--n, default 1,048,576);
message workloads at whatever n they were run with.
"""
import argparse
import csv
import math
import sys
from collections import OrderedDict

COLORS = {
    "protobuf": "#7f7f7f",
    "pbaccel": "#d62728",
    "avx512": "#ff7f0e",
    "masked_vbyte": "#2ca02c",
    "masked_vbyte_avx2": "#98df8a",
    "bmi2": "#9467bd",
    "portable": "#8c564b",
    "scalar": "#bcbd22",
    "memcpy": "#1f77b4",
    "streamvbyte": "#17becf",
}


def load(path, n):
    panels = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            workload, size = row["workload"], int(row["n"])
            if not workload.startswith("msg_") and size != n:
                continue
            panels.setdefault((workload, size), OrderedDict())[row["implementation"]] = float(
                row["ns_per_item"])
    return panels


def svg(panels, title):
    impls = []
    for values in panels.values():
        for name in values:
            if name not in impls:
                impls.append(name)
    all_values = [v for values in panels.values() for v in values.values() if v > 0]
    lo = 10 ** math.floor(math.log10(min(all_values)))
    hi = 10 ** math.ceil(math.log10(max(all_values)))
    bar, gap, panel_gap, left, top, height = 9, 1, 18, 60, 50, 260
    width = left + len(panels) * (len(impls) * (bar + gap) + panel_gap) + 20
    legend_h = 20 * ((len(impls) + 4) // 5)
    total_h = top + height + 90 + legend_h

    def y(v):
        return top + height - height * (math.log10(v) - math.log10(lo)) / (
            math.log10(hi) - math.log10(lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14">{title}</text>',
           f'<text x="10" y="{top + height / 2}" transform="rotate(-90 10 {top + height / 2})">'
           f'ns per item (log scale, lower is better)</text>']
    decade = lo
    while decade <= hi * 1.0001:
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(decade):.1f}" y2="{y(decade):.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{left - 5}" y="{y(decade) + 4:.1f}" text-anchor="end">{decade:g}</text>')
        decade *= 10
    x = left + 5
    for (workload, size), values in panels.items():
        start = x
        for name in impls:
            v = values.get(name)
            if v:
                out.append(f'<rect x="{x}" y="{y(v):.1f}" width="{bar}" height="{top + height - y(v):.1f}" '
                           f'fill="{COLORS.get(name, "#000")}"><title>{workload} n={size} {name}: '
                           f'{v:.3f} ns</title></rect>')
            x += bar + gap
        label = workload if workload.startswith("msg_") else workload
        out.append(f'<text x="{(start + x) / 2:.1f}" y="{top + height + 14}" text-anchor="end" '
                   f'transform="rotate(-35 {(start + x) / 2:.1f} {top + height + 14})">{label}</text>')
        x += panel_gap
    for i, name in enumerate(impls):
        lx = left + (i % 5) * 150
        ly = top + height + 70 + 20 * (i // 5)
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{COLORS.get(name, "#000")}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out)


def markdown(path):
    rows = OrderedDict()
    impls = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault((row["workload"], row["n"]), {})[row["implementation"]] = float(row["ns_per_item"])
            if row["implementation"] not in impls:
                impls.append(row["implementation"])
    lines = ["| workload | n | " + " | ".join(impls) + " |", "|---|---:|" + "---:|" * len(impls)]
    for (workload, n), values in rows.items():
        base = values.get("protobuf")
        cells = []
        for name in impls:
            v = values.get(name)
            if v is None:
                cells.append("")
            elif base and name != "protobuf":
                cells.append(f"{v:.3g} ({base / v:.1f}x)")
            else:
                cells.append(f"{v:.3g}")
        lines.append(f"| {workload} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("svg")
    parser.add_argument("--n", type=int, default=1048576)
    parser.add_argument("--title", default=None)
    parser.add_argument("--markdown", default=None,
                        help="also write a markdown table of every row: ns/item and speedup over protobuf")
    args = parser.parse_args()
    panels = load(args.csv, args.n)
    if not panels:
        sys.exit(f"chart.py: no rows for n={args.n} in {args.csv}")
    title = args.title or f"pbaccel vs upstream protobuf: payload workloads at n={args.n}, message workloads per message"
    with open(args.svg, "w") as f:
        f.write(svg(panels, title))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(args.csv))


if __name__ == "__main__":
    main()
