#!/usr/bin/env python3
"""The synthetic workloads' ratios of several builds measured side by side: runs each given compare
binary (the Bazel build's bench/compare on protobuf 3.21, the CMake builds' cmake/tests/compare on
27, 33.5, ...) in turn, one round after another, and prints for each workload and size the median
over the rounds of the chosen implementations' speedup over upstream protobuf in the same run (each
build's own upstream: the protobuf it links), one column per build, the implementations in it in
the order given, and upstream's own median ns per item beside them:

    python3 tools/compare_rounds.py --rounds=3 --implementations=pbaccel,bmi2,masked_vbyte_avx2 \\
        --build=3.21=bazel-bin/bench/compare --build=27.2=/tmp/b27/cmake/tests/compare \\
        -- --reps=11

Alternating every run of a round spreads a drift of the machine over all of them alike. The
arguments after -- go to every run (--csv is added); compare exits non-zero on any difference from
upstream, and so does this. Standard library only.
"""
import argparse
import csv
import io
import statistics
import subprocess
import sys


def run(binary, args):
    """{(workload, n): {implementation: ns per item}} of one compare run."""
    out = subprocess.run([binary, "--csv", *args], check=True, stdout=subprocess.PIPE, text=True)
    rows = {}
    for r in csv.DictReader(io.StringIO(out.stdout)):
        rows.setdefault((r["workload"], int(r["n"])), {})[r["implementation"]] = float(
            r["ns_per_item"])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", action="append", required=True, metavar="NAME=PATH",
                        help="a compare binary and the column name it is reported under")
    parser.add_argument("--implementations", default="pbaccel",
                        help="compare's implementation names (comma-separated): pbaccel is the "
                        "automatic kernel, a kernel's name that kernel forced")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    builds = dict(b.split("=", 1) for b in options.build)
    implementations = options.implementations.split(",")

    ratios = {}  # (workload, n) -> {(build, implementation): [ratio per round]}
    upstream = {}  # (workload, n) -> {build: [ns per round]}
    for r in range(options.rounds):
        for name, binary in builds.items():
            print(f"round {r + 1}: {name}", file=sys.stderr)
            for key, row in run(binary, args).items():
                upstream.setdefault(key, {}).setdefault(name, []).append(row["protobuf"])
                for impl in implementations:
                    if impl in row:
                        ratios.setdefault(key, {}).setdefault((name, impl), []).append(
                            row["protobuf"] / row[impl])

    impl_header = " / ".join(f"`{i}`" for i in implementations)
    print("| workload | n | " + " | ".join(f"{name}: {impl_header}" for name in builds) +
          " | upstream ns: " + " / ".join(builds) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in builds) + " | ---: |")
    for (workload, n), cells in ratios.items():
        columns = [" / ".join(f"{statistics.median(cells[(name, i)]):.2f}x"
                              if (name, i) in cells else "-" for i in implementations)
                   for name in builds]
        base = " / ".join(f"{statistics.median(upstream[(workload, n)][name]):.3g}"
                          for name in builds if name in upstream[(workload, n)])
        print(f"| {workload} | {n} | " + " | ".join(columns) + f" | {base} |")


if __name__ == "__main__":
    main()
