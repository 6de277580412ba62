#!/usr/bin/env python3
"""Reports the machine code a generated parser adds, per message type: the size of each type's
MergeFields (the parser itself), and what the file adds besides (the templates it instantiates:
MergeThunk per type, ClearKeepingElements per reusing type; the registration initializer). Reads
the symbol table of compiled `*.pbaccel.o` objects with `nm`, so it reports what the compiler
produced for the flags they were built with:

    ./bazelw build -c opt //proto:osm_pbaccel //proto:vector_tile_pbaccel //proto:profile_pbaccel
    python3 tools/generated_code_size.py bazel-bin/proto/_objs/*_pbaccel/*.pbaccel.o

Prints a Markdown table per object (bytes of code) and one line of totals.
"""
import re
import subprocess
import sys

MERGE = re.compile(r"pbaccel::gen::MergeFields\(char const\*, char const\*, ([\w:]+)\*,")


def code_symbols(path):
    """(kind, size, demangled name) of each code symbol defined in the object."""
    out = subprocess.run(["nm", "-S", "-C", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split(" ", 3)
        if len(fields) == 4 and fields[2] in ("T", "t", "W", "w"):
            yield fields[2], int(fields[1], 16), fields[3]


def report(path):
    per_type, other = {}, 0
    for _, size, name in code_symbols(path):
        match = MERGE.match(name)
        if match:
            per_type[match.group(1)] = per_type.get(match.group(1), 0) + size
        else:
            other += size
    print("`%s`: %d types\n" % (path.rsplit("/", 1)[-1], len(per_type)))
    print("| message type | MergeFields bytes |")
    print("| --- | ---: |")
    for name, size in sorted(per_type.items(), key=lambda kv: -kv[1]):
        print("| `%s` | %s |" % (name, format(size, ",")))
    total = sum(per_type.values()) + other
    print("| (thunks, templates, registration) | %s |" % format(other, ","))
    print("| **total** | **%s** |\n" % format(total, ","))
    return total


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    totals = [(p.rsplit("/", 1)[-1], report(p)) for p in paths]
    print("Totals: " + ", ".join("%s %.1f KB" % (name, size / 1024) for name, size in totals))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
