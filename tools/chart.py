#!/usr/bin/env python3
"""Turns the benchmarks' CSV into the chart of docs/speed.md: pbaccel's speedup over upstream
protobuf, real data first, one bar per row, its value written at the bar's end.

    ./bazelw run -c opt //bench:realdata -- --csv > docs/realdata.csv
    ./bazelw run //bench:compare -- --csv > docs/compare.csv
    python3 tools/chart.py docs/compare.csv docs/compare.svg --realdata docs/realdata.csv \\
        --machine "AMD EPYC Zen 4 (family 0x19 model 0x11), kernel avx512" --markdown docs/compare.md

Sections, top to bottom:
  * Real data (//bench:realdata's CSV): the generated parser against ParseFromString per corpus and
    mode (messages reused, one message with the inputs in turn, fresh message, fresh arena), the
    reflection parser (reused), and the
    zero-copy read against protozero (view);
  * Messages (compare's msg_* rows): per message;
  * Packed arrays (compare's payload workloads): the auto-selected kernel (implementation
    `pbaccel`) against upstream, every array size n in the CSV, one shade per n.
The x axis is the speedup (log scale; 1x, upstream's speed, is the dashed line): a bar right of it
is faster than upstream, left of it slower. Every number in the chart is a ratio from one run.
Standard library only. --markdown also writes compare's full table (every kernel, ns per item).
"""
import argparse
import csv
import math
import sys
from collections import OrderedDict

PBACCEL = "#d62728"        # pbaccel against upstream.
PROTOZERO = "#1f77b4"      # pbaccel's zero-copy read against protozero.
REFLECTION = "#ff9896"     # ParseMessage without generated parsers.
SIZE_SHADES = ["#fdd0a2", "#fdae6b", "#f16913", "#a63603", "#7f2704"]  # small n -> large n.
MODES = OrderedDict([("reuse", "messages reused"), ("stream", "one message, inputs in turn"),
                     ("fresh", "fresh message"), ("arena", "fresh arena")])
PARSERS_SECTION = "Real data: generated parser vs ParseFromString"
# //bench:realdata's corpora: (name in the chart, name in the table).
CORPORA = OrderedDict([("osm", ("OSM PBF blocks", "OSM")), ("mvt", ("vector tiles", "MVT")),
                       ("pprof", ("pprof profiles", "pprof"))])
# The real-data comparisons: (kind, baseline implementation, pbaccel's implementation, mode).
REALDATA_COMPARISONS = ([("generated", "protobuf", "pbaccel", mode) for mode in MODES] +
                        [("reflection", "protobuf", "pbaccel_reflection", "reuse"),
                         ("view", "protozero", "pbaccel", "view")])


def load_compare(path):
    """{(workload, n): {implementation: ns_per_item}} in file order."""
    rows = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault((row["workload"], int(row["n"])), {})[row["implementation"]] = float(
                row["ns_per_item"])
    return rows


def load_realdata(path):
    """{(corpus, implementation, mode): mb_per_s}."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            out[(row["corpus"], row["implementation"], row["mode"])] = float(row["mb_per_s"])
    return out


def realdata_ratios(realdata):
    """(corpus, kind, mode, baseline MB/s, pbaccel MB/s) of every real-data comparison present."""
    for corpus in CORPORA:
        for kind, base_impl, impl, mode in REALDATA_COMPARISONS:
            base = realdata.get((corpus, base_impl, mode))
            ours = realdata.get((corpus, impl, mode))
            if base and ours:
                yield corpus, kind, mode, base, ours


def chart_rows(compare, realdata):
    """[(section, label, speedup, color, tooltip)], top to bottom."""
    rows = []
    for corpus, kind, mode, base, ours in realdata_ratios(realdata):
        name = CORPORA[corpus][0]
        if kind == "view":
            section, label, color = ("Real data: zero-copy read of every packed field vs protozero",
                                     name, PROTOZERO)
        elif kind == "reflection":
            section, label, color = (PARSERS_SECTION, f"{name}, reflection path", REFLECTION)
        else:
            section, label, color = (PARSERS_SECTION, f"{name}, {MODES[mode]}", PBACCEL)
        rows.append((section, label, ours / base, color, f"{ours:.0f} vs {base:.0f} MB/s"))
    for (workload, n), values in compare.items():
        if workload.startswith("msg_") and values.get("protobuf") and values.get("pbaccel"):
            rows.append(("Messages (per message, ParseMessage vs ParseFromString)", workload,
                         values["protobuf"] / values["pbaccel"], PBACCEL,
                         f"{values['pbaccel']:.4g} vs {values['protobuf']:.4g} ns/message"))
            if values.get("pbaccel_reflection"):
                rows.append(("Messages (per message, ParseMessage vs ParseFromString)",
                             f"{workload}, reflection path",
                             values["protobuf"] / values["pbaccel_reflection"], REFLECTION,
                             f"{values['pbaccel_reflection']:.4g} vs {values['protobuf']:.4g} "
                             "ns/message"))
    sizes = sorted({n for (w, n) in compare if not w.startswith("msg_")})
    for (workload, n), values in compare.items():
        if workload.startswith("msg_") or not values.get("protobuf") or not values.get("pbaccel"):
            continue
        shade = SIZE_SHADES[min(sizes.index(n), len(SIZE_SHADES) - 1)]
        rows.append(("Packed arrays (auto-selected kernel vs upstream, per integer)",
                     f"{workload}, n = {n:,}", values["protobuf"] / values["pbaccel"], shade,
                     f"{values['pbaccel']:.3g} vs {values['protobuf']:.3g} ns/integer"))
    return rows, sizes


def escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(rows, sizes, title, subtitle):
    bar, pitch, section_gap = 12, 16, 30
    left, right, top = 230, 70, 92
    plot_w = 620
    width = left + plot_w + right
    lo = min(0.5, min(r[2] for r in rows) / 1.2)
    hi = max(2.0, max(r[2] for r in rows) * 1.3)
    lo, hi = 2 ** math.floor(math.log2(lo)), 2 ** math.ceil(math.log2(hi))

    def x(v):
        return left + plot_w * (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))

    sections = OrderedDict()
    for r in rows:
        sections.setdefault(r[0], []).append(r)
    height = top + sum(section_gap + pitch * len(rs) for rs in sections.values()) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
           f'<text x="10" y="38" fill="#444">{escape(subtitle[0])}</text>',
           f'<text x="10" y="54" fill="#444">{escape(subtitle[1])}</text>',
           f'<text x="{left}" y="{top - 14}" fill="#444">speedup over the baseline (log scale); '
           f'right of the dashed line = faster than upstream</text>']
    tick = lo
    while tick <= hi * 1.0001:
        style = 'stroke="#555" stroke-dasharray="4 3"' if tick == 1 else 'stroke="#e3e3e3"'
        out.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 8}" '
                   f'y2="{height - 50}" {style}/>')
        out.append(f'<text x="{x(tick):.1f}" y="{height - 36}" text-anchor="middle">{tick:g}x</text>')
        tick *= 2
    y = top
    for name, rs in sections.items():
        y += section_gap
        out.append(f'<text x="10" y="{y - 10}" font-weight="bold">{escape(name)}</text>')
        for _, label, speedup, color, tip in rs:
            x0, x1 = x(1.0), x(speedup)
            out.append(f'<text x="{left - 8}" y="{y + bar - 2}" text-anchor="end">{escape(label)}</text>')
            out.append(f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{abs(x1 - x0):.1f}" '
                       f'height="{bar}" fill="{color}"><title>{escape(label)}: {speedup:.2f}x '
                       f'({escape(tip)})</title></rect>')
            anchor, lx = ("start", x1 + 4) if speedup >= 1 else ("end", x1 - 4)
            out.append(f'<text x="{lx:.1f}" y="{y + bar - 2}" text-anchor="{anchor}">'
                       f'{speedup:.2f}x</text>')
            y += pitch
    ly = height - 14
    legend = [(PBACCEL, "pbaccel vs upstream protobuf"), (REFLECTION, "reflection path"),
              (PROTOZERO, "pbaccel vs protozero")]
    legend += [(SIZE_SHADES[min(i, len(SIZE_SHADES) - 1)], f"n = {n:,}") for i, n in enumerate(sizes)]
    lx = 10
    for color, text in legend:
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly}">{escape(text)}</text>')
        lx += 22 + 6.2 * len(text)
    out.append("</svg>")
    return "\n".join(out)


def number(v):
    """Three significant digits, without exponents: 0.0517, 3.39, 327, 3,780, 48,900."""
    if v >= 1000:
        digits = len(str(int(v)))
        return f"{round(v, 3 - digits):,.0f}"
    return f"{v:.3g}"


def markdown(compare):
    impls = []
    for values in compare.values():
        for name in values:
            if name not in impls:
                impls.append(name)
    lines = ["| workload | n | " + " | ".join(impls) + " |", "|---|---:|" + "---:|" * len(impls)]
    for (workload, n), values in compare.items():
        base = values.get("protobuf")
        cells = []
        for name in impls:
            v = values.get(name)
            if v is None:
                cells.append("")
            elif base and name != "protobuf":
                cells.append(f"{number(v)} ({base / v:.1f}x)")
            else:
                cells.append(number(v))
        lines.append(f"| {workload} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def realdata_markdown(realdata):
    """docs/speed.md's real-data table: MB/s of the baseline and of pbaccel, and their ratio."""
    what = {"generated": "generated parser vs `ParseFromString`",
            "reflection": "`ParseMessage` without it (reflection)",
            "view": "zero-copy read of every packed field vs protozero"}
    lines = ["| corpus | what | mode | baseline MB/s | pbaccel MB/s | pbaccel vs baseline |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    for corpus, kind, mode, base, ours in realdata_ratios(realdata):
        lines.append(f"| {CORPORA[corpus][1]} | {what[kind]} | {MODES.get(mode, 'view')} | "
                     f"{base:,.0f} | {ours:,.0f} | {ours / base:.2f}x |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="//bench:compare --csv output")
    parser.add_argument("svg")
    parser.add_argument("--realdata", help="//bench:realdata --csv output (the chart's first rows)")
    parser.add_argument("--machine", required=True,
                        help="the CPU the CSVs were measured on, named in the chart")
    parser.add_argument("--title", default="pbaccel: speedup over upstream protobuf")
    parser.add_argument("--markdown", help="also write compare's full table (every kernel)")
    parser.add_argument("--realdata-markdown", help="also write the real-data table")
    args = parser.parse_args()
    compare = load_compare(args.csv)
    realdata = load_realdata(args.realdata) if args.realdata else {}
    rows, sizes = chart_rows(compare, realdata)
    if not rows:
        sys.exit(f"chart.py: no rows with both upstream and pbaccel in {args.csv}")
    subtitle = (f"Measured on {args.machine}.",
                "Each ratio is from one run (//bench:realdata, //bench:compare); hover a bar for "
                "the absolute numbers.")
    with open(args.svg, "w") as f:
        f.write(svg(rows, sizes, args.title, subtitle))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(compare))
    if args.realdata_markdown and realdata:
        with open(args.realdata_markdown, "w") as f:
            f.write(realdata_markdown(realdata))


if __name__ == "__main__":
    main()
