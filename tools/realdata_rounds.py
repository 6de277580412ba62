#!/usr/bin/env python3
"""The real-data ratios of several builds and kernels measured side by side: runs each given
realdata binary (the Bazel build's bench/realdata, the CMake build's cmake/tests/realdata, ...)
under each kernel in turn, one round after another, and prints for each corpus and mode the median
over the rounds of each build's and kernel's ratio to its baseline (upstream protobuf in the same
mode, protozero for the zero-copy read), one column per build, the kernels in it in the order given:

    python3 tools/realdata_rounds.py --rounds=5 --kernels=avx512,bmi2,masked_vbyte_avx2 \\
        --build=3.21=bazel-bin/bench/realdata --build=27.2=/tmp/b27/cmake/tests/realdata \\
        -- --data=testing/data --reps=5 --pprof

Alternating every run of a round spreads a drift of the machine over all of them alike, which runs
of one build after another would put on one. The arguments after -- go to every run (--csv is
added); realdata exits non-zero on any difference from upstream or protozero, and so does this.
Standard library only.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import realdata_ratios  # noqa: E402  (tools/chart.py: the ratios the chart shows)
from placement_spread import run  # noqa: E402  (one realdata run under a kernel)

CORPUS_NAMES = {"osm": "OSM", "mvt": "tiles", "pprof": "pprof"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", action="append", required=True, metavar="NAME=PATH",
                        help="a realdata binary and the column name it is reported under")
    parser.add_argument("--kernels", required=True, help="PBACCEL_KERNEL values (comma-separated)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    builds = dict(b.split("=", 1) for b in options.build)
    kernels = options.kernels.split(",")

    ratios = {}  # (corpus, kind, mode) -> {(build, kernel): [ratio per round]}
    for _ in range(options.rounds):
        for kernel in kernels:
            for name, binary in builds.items():
                for corpus, kind, mode, base, ours in realdata_ratios(
                        run(os.path.abspath(binary), kernel, args)):
                    ratios.setdefault((corpus, kind, mode), {}).setdefault(
                        (name, kernel), []).append(ours / base)

    print("| corpus | kind | mode | " + " | ".join(
        f"{name}: " + " / ".join(f"`{k}`" for k in kernels) for name in builds) + " |")
    print("| --- | --- | --- | " + " | ".join("---:" for _ in builds) + " |")
    for (corpus, kind, mode), cells in ratios.items():
        columns = [" / ".join(f"{statistics.median(cells[(name, k)]):.2f}x" for k in kernels)
                   if all((name, k) in cells for k in kernels) else "" for name in builds]
        print(f"| {CORPUS_NAMES.get(corpus, corpus)} | {kind} | {mode} | " + " | ".join(columns) +
              " |")


if __name__ == "__main__":
    main()
