#!/usr/bin/env python3
"""Where a program's time goes, on machines without performance counters: samples the instruction
address on a wall-clock timer (tools/time_profile_sampler.c, preloaded) and names the functions,
or one function's instructions. Unlike callgrind it measures time, not instructions, on the real
CPU, so it sees cache misses, store-forwarding stalls and AVX-512 code. For one busy thread:

    ./bazelw build -c opt //bench:instruction_counts
    python3 tools/time_profile.py -- bazel-bin/bench/instruction_counts --corpus=osm \\
        --decoder=pbaccel --mode=reuse --reps=1500
    python3 tools/time_profile.py --annotate=ParsePackedUInt32 -- <the same command>

Options: --top=N functions (30), --period-ns=P between samples (50000), --annotate=TEXT (the
instructions of the busiest function of the main program whose name, or row in the table, holds
TEXT, with their share of all samples, where it is at least --min-percent, 0.2; the command's first
word must be that program: set environment variables before time_profile.py, not through `env`).
The sampler is compiled once with `cc` into the project's cache (tools/cache_dir.py):
~/.cache/pbaccel/time_profile/.
Symbols come from `nm`, instructions from `objdump`; inlined code counts as the function it was
inlined into.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_dir import cache_dir  # noqa: E402  (tools/cache_dir.py: the scripts' shared cache)

SAMPLER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "time_profile_sampler.c")


def sampler_library():
    """The sampler, compiled when missing or older than its source."""
    out = cache_dir("time_profile", "sampler.so")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(SAMPLER):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, SAMPLER, "-lrt"], check=True)
    return out


def read_samples(path):
    """(executable mappings [(start, end, file offset, path)], sampled addresses)."""
    mappings, addresses = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("M "):
                fields = line[2:].split()
                if len(fields) >= 6 and "x" in fields[1]:
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    mappings.append((start, end, int(fields[2], 16), fields[5]))
            elif line.strip():
                addresses.append(int(line, 16))
    return mappings, addresses


class Symbols:
    """A file's code symbols by address: its static table, else its dynamic one, which lacks the
    file's local functions (a stripped libc's memcpy variants): a name from it reads "near X"."""

    def __init__(self, path):
        entries = []
        self.exact = True
        for options in (["--defined-only"], ["-D", "--defined-only"]):
            self.exact = options[0] != "-D"
            listing = subprocess.run(["nm", "-C", *options, path], capture_output=True,
                                     text=True).stdout
            for line in listing.splitlines():
                m = re.match(r"([0-9a-f]+) [tTwWiI] (.*)", line)
                if m:
                    entries.append((int(m.group(1), 16), m.group(2)))
            if entries:
                break
        entries.sort()
        self.addresses = [a for a, _ in entries]
        self.names = [n for _, n in entries]

    def find(self, address):
        """(start, name) of the symbol holding `address`, or (None, '?')."""
        i = bisect.bisect_right(self.addresses, address) - 1
        if i < 0:
            return None, "?"
        return self.addresses[i], self.names[i] if self.exact else "near " + self.names[i]


def file_addresses(mappings, addresses):
    """Each sample as (file path, address within the file), or (None, address)."""
    for a in addresses:
        for start, end, offset, path in mappings:
            if start <= a < end:
                yield path, a - start + offset
                break
        else:
            yield None, a


def short_name(name):
    """A function's name without its parameters; a generated parser (one MergeFields overload per
    message type) keeps the type it parses: "MergeFields(vector_tile::Tile_Feature)"."""
    name = name.replace("(anonymous namespace)::", "")
    name = re.sub(r"pbaccel::(internal|gen)::", "", name)
    parsed = re.match(r"MergeFields\(char const\*, char const\*, ([\w:]+)\*", name)
    if parsed:
        return f"MergeFields({parsed.group(1)})"
    return re.sub(r"\((char|unsigned char) const\*.*", "", name)[:140]


def report(samples, top):
    symbols = {}
    counts = collections.Counter()
    for path, address in samples:
        if path is None:
            counts["?"] += 1
            continue
        if path not in symbols:
            symbols[path] = Symbols(path)
        table = symbols[path]
        counts[f"{os.path.basename(path)[:24]}  {short_name(table.find(address)[1])}"] += 1
    total = len(samples)
    print(f"{total} samples")
    for name, n in counts.most_common(top):
        print(f"{100.0 * n / total:6.1f}%  {name}")


def annotate(samples, program, text, min_percent):
    table = Symbols(program)
    # TEXT from the full name, or from a row of the table (its short name).
    matches = [i for i, n in enumerate(table.names) if text in n or text in short_name(n)]
    if not matches:
        sys.exit(f"time_profile: no function of {program} names {text!r}")
    is_program = {p: os.path.realpath(p) == program for p in {p for p, _ in samples} if p}
    ours = sorted(a for p, a in samples if p is not None and is_program[p])

    def extent(i):
        start = table.addresses[i]
        return start, table.addresses[i + 1] if i + 1 < len(table.addresses) else start + 4096

    def sampled(i):
        start, stop = extent(i)
        return bisect.bisect_left(ours, stop) - bisect.bisect_left(ours, start)

    # Of the functions whose names hold TEXT (a function and its .cold part, say), the busiest.
    best = max(matches, key=sampled)
    name = table.names[best]
    start, stop = extent(best)
    total = len(samples)
    here = collections.Counter(a for a in ours if start <= a < stop)
    print(f"{name}: {100.0 * sum(here.values()) / total:.1f}% of {total} samples")
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C",
                              f"--start-address={start:#x}", f"--stop-address={stop:#x}", program],
                             capture_output=True, text=True).stdout
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            share = 100.0 * here.get(int(m.group(1), 16), 0) / total
            if share >= min_percent:
                print(f"{share:6.2f}%  {m.group(1)}: {m.group(2)[:100]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--period-ns", type=int, default=50000)
    parser.add_argument("--annotate")
    parser.add_argument("--min-percent", type=float, default=0.2)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to profile after --")
    with tempfile.NamedTemporaryFile(prefix="time_profile.", delete=False) as f:
        out = f.name
    env = dict(os.environ, LD_PRELOAD=sampler_library(), TIME_PROFILE_OUT=out,
               TIME_PROFILE_PERIOD_NS=str(args.period_ns))
    status = subprocess.run(command, env=env).returncode
    mappings, addresses = read_samples(out)
    os.unlink(out)
    if status != 0:
        sys.exit(f"time_profile: the command exited with {status}")
    if not addresses:
        sys.exit("time_profile: no samples (did the command run long enough?)")
    samples = list(file_addresses(mappings, addresses))
    if args.annotate:
        annotate(samples, os.path.realpath(command[0]), args.annotate, args.min_percent)
    else:
        report(samples, args.top)


if __name__ == "__main__":
    main()
