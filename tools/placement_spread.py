#!/usr/bin/env python3
"""How much of a real-data ratio is code placement. Builds //bench:realdata once per function
alignment (GCC's -falign-functions: the default, then each one given), which moves every hot loop
of pbaccel's code and of the baseline compiled into the benchmark (protozero's readers) without
changing an instruction, runs the builds interleaved, the kernels in turn, and prints for each
kernel, corpus and mode the median ratio of every build and the spread between them:

    python3 tools/placement_spread.py --kernels=bmi2,avx512 --rounds=4 -- --reps=7 --pprof

A change to the kernels moves the code after it, so a ratio that differs between two commits by
less than the spread printed here for either is not the change's (docs/speed.md, "Code placement").
The arguments after -- go to every realdata run (--csv is added). Builds go to a temporary
directory; bazel-bin is left with the default build (built last). Standard library only.
"""
import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import realdata_ratios  # noqa: E402  (tools/chart.py: the ratios the chart shows)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(alignment, out_dir):
    """The realdata binary built with `alignment` ("default" or bytes), copied to out_dir."""
    flags = [] if alignment == "default" else [f"--copt=-falign-functions={alignment}"]
    subprocess.run([os.path.join(REPO, "bazelw"), "build", "-c", "opt", *flags, "//bench:realdata"],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = os.path.join(out_dir, f"realdata.{alignment}")
    shutil.copy(os.path.join(REPO, "bazel-bin", "bench", "realdata"), path)
    return path


def run(binary, kernel, args):
    """{(corpus, implementation, mode): MB/s} of one run under `kernel`."""
    env = dict(os.environ, PBACCEL_KERNEL=kernel)
    out = subprocess.run([binary, "--csv", *args], cwd=REPO, env=env, check=True,
                         capture_output=True, text=True).stdout
    return {(r["corpus"], r["implementation"], r["mode"]): float(r["mb_per_s"])
            for r in csv.DictReader(io.StringIO(out))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alignments", default="32,64",
                        help="function alignments in bytes besides the default (comma-separated)")
    parser.add_argument("--kernels", default="bmi2", help="PBACCEL_KERNEL values (comma-separated)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    alignments = ["default"] + [a for a in options.alignments.split(",") if a]
    kernels = options.kernels.split(",")

    ratios = {}  # (kernel, corpus, kind, mode) -> {alignment: [ratio per round]}
    with tempfile.TemporaryDirectory(prefix="placement_spread.") as tmp:
        # The default last, so that bazel-bin is left with it.
        binaries = {a: build(a, tmp) for a in reversed(alignments)}
        for _ in range(options.rounds):
            for kernel in kernels:
                for alignment, binary in binaries.items():
                    for corpus, kind, mode, base, ours in realdata_ratios(run(binary, kernel, args)):
                        ratios.setdefault((kernel, corpus, kind, mode), {}).setdefault(
                            alignment, []).append(ours / base)

    print("| kernel | corpus | kind | mode | " +
          " | ".join(a if a == "default" else f"aligned {a}" for a in alignments) + " | spread |")
    print("| --- | --- | --- | --- | " + " | ".join("---:" for _ in alignments) + " | ---: |")
    for (kernel, corpus, kind, mode), by_alignment in ratios.items():
        medians = [statistics.median(by_alignment[a]) for a in alignments]
        spread = max(medians) / min(medians) - 1
        print(f"| {kernel} | {corpus} | {kind} | {mode} | " +
              " | ".join(f"{m:.2f}x" for m in medians) + f" | {100 * spread:.0f} % |")


if __name__ == "__main__":
    main()
