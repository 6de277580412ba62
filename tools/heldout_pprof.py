#!/usr/bin/env python3
"""Writes pprof profiles that no pbaccel change was tuned on, for the real-data benchmark's held-out
check: Go's own profiler (runtime/pprof) run over the benchmarks of Go standard library packages
other than the three whose profiles testing/data holds (compress/flate, regexp, sort), one CPU and
one heap profile per package. The directory is laid out as `bench/realdata --data` expects; where
../shared/realdata exists its OSM files and tiles are linked in beside the profiles, so one run
reads every held-out corpus:

    python3 tools/heldout_pprof.py --out=/tmp/heldout
    bazel-bin/bench/realdata --data=/tmp/heldout --pprof --reps=3 --csv

Needs a Go toolchain (`go` on PATH, or --go); the standard library's tests need no network. About
six minutes on the project's 2-core VMs, most of it the packages' benchmarks themselves. The
profiles differ from run to run (they sample a running program), so a measurement names the
directory it read, and the profiles stay outside the checkout: committed, they would become data
the next change is tuned on. Go's build cache goes to the project's cache (tools/cache_dir.py:
~/.cache/pbaccel/gocache). Standard library only.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_dir import cache_dir  # noqa: E402  (tools/cache_dir.py: the scripts' shared cache)

# Packages with benchmarks of different kinds of code (parsing, formatting, arithmetic, image
# encoding), none of them the ones testing/data's profiles come from.
PACKAGES = ["encoding/json", "strconv", "math/big", "fmt", "image/png", "go/parser"]


def write_profiles(go, package, out_dir, benchtime):
    """Runs `package`'s benchmarks under the profiler; returns the two profiles' paths."""
    stem = "go_" + package.replace("/", "_")
    cpu = os.path.join(out_dir, stem + ".cpu.pb.gz")
    mem = os.path.join(out_dir, stem + ".mem.pb.gz")
    env = dict(os.environ, GOCACHE=cache_dir("gocache"), GOFLAGS="", GOTOOLCHAIN="local")
    # go test leaves its test binary in the working directory when profiling: use a scratch one.
    with tempfile.TemporaryDirectory() as work:
        result = subprocess.run(
            [go, "test", "-run", "^$", "-bench", ".", "-benchtime", benchtime,
             "-cpuprofile", cpu, "-memprofile", mem, package],
            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("heldout_pprof: go test %s failed:\n%s" % (package, result.stdout[-2000:]))
    return cpu, mem


def link_shared_corpora(out):
    """Links ../shared/realdata's osm/ and mvt/ into `out`, where they exist."""
    shared = os.path.join(os.path.dirname(REPO), "shared", "realdata")
    for corpus in ("osm", "mvt"):
        source = os.path.join(shared, corpus)
        target = os.path.join(out, corpus)
        if os.path.isdir(source) and not os.path.lexists(target):
            os.symlink(source, target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory to write (DIR/pprof/*.pb.gz)")
    parser.add_argument("--go", default="go", help="the go command (default: go on PATH)")
    parser.add_argument("--benchtime", default="200ms", help="go test -benchtime (200ms)")
    parser.add_argument("--packages", default=",".join(PACKAGES),
                        help="comma-separated Go packages (default: %(default)s)")
    args = parser.parse_args()
    go = shutil.which(args.go)
    if go is None:
        sys.exit("heldout_pprof: no Go toolchain (%s); pass --go" % args.go)
    out = os.path.abspath(args.out)
    profiles = os.path.join(out, "pprof")
    os.makedirs(profiles, exist_ok=True)
    version = subprocess.run([go, "version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    written = []
    for package in args.packages.split(","):
        written += write_profiles(go, package, profiles, args.benchtime)
    link_shared_corpora(out)
    total = sum(os.path.getsize(p) for p in written)
    print("%d profiles (%d bytes compressed) by %s in %s" % (len(written), total, version,
                                                             profiles))
    print("bazel-bin/bench/realdata --data=%s --pprof --reps=3 --csv" % out)


if __name__ == "__main__":
    main()
