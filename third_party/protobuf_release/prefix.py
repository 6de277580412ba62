#!/usr/bin/env python3
"""Prints the install prefix of a protobuf release no package here installs (30 and later), built
first when the cache does not hold it yet. The one command a CMake build of pbaccel against such
a release needs:

  cmake -S . -B build33 -DCMAKE_PREFIX_PATH="$(python3 third_party/protobuf_release/prefix.py 33.5)"

The sources are the grpcio-tools sdist's, the protoc Maven Central's (tools/protobuf_sdist.py: both
pinned and verified). The sdist carries protobuf's tree without its CMake files; CMakeLists.txt
beside this file compiles protobuf's own source lists (static, Release, C++17) with the Abseil and
utf8_range the sdist carries and installs them as protobuf's CMake package would
(protobuf::libprotobuf, protobuf::libprotoc, protobuf::protoc, absl::*, utf8_range::*). Protobuf
27 comes from the protobuf-src crate instead (third_party/protobuf27/prefix.sh), whose tree has
protobuf's own CMake build.

  prefix.py 33.5 --asan   the same libraries compiled with AddressSanitizer, for builds of pbaccel
                          under ASan: a RepeatedField's capacity annotations and Abseil's
                          hash-table layout agree only when protobuf and Abseil are instrumented
                          too. protoc is the release's own either way.

The prefix is kept in the project's cache (tools/cache_dir.py), keyed by release, variant and the
build's own files (a change to them builds a new prefix):

  ${PBACCEL_CACHE:-~/.cache/pbaccel}/protobuf-release-<release>[-asan]-<hash of this dir's files>

Progress on stderr; stdout is only the prefix. Needs cmake, ninja, g++, PyPI and Maven Central.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import protobuf_sdist  # noqa: E402
from cache_dir import cache_dir  # noqa: E402


# The compiler flags of each variant (--asan: AddressSanitizer, frame pointers kept for its stacks).
FLAGS_OF_VARIANT = {"": "", "-asan": "-fsanitize=address -fno-omit-frame-pointer"}


def build(release, variant, prefix, jobs):
    work = prefix + ".work"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with tarfile.open(protobuf_sdist.sdist(release)) as tar:
        top = tar.getmembers()[0].name.split("/", 1)[0]
        tar.extractall(work, filter="data")
    source = os.path.join(work, top)
    protobuf_sdist.check_headers(os.path.join(source, protobuf_sdist.PROTOBUF_TREE, "src"), release)
    partial = prefix + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    print("prefix.py: building protobuf %s%s from grpcio-tools %s's sdist; once per cache" %
          (release, variant, protobuf_sdist.SDIST_OF_RELEASE[release][0]), file=sys.stderr)
    flags = FLAGS_OF_VARIANT[variant]
    out = sys.stderr.fileno()
    subprocess.run(["cmake", "-S", HERE, "-B", os.path.join(work, "build"), "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_INSTALL_PREFIX=" + partial,
                    "-DPBACCEL_SDIST=" + source, "-DPBACCEL_RELEASE=" + release,
                    "-DPBACCEL_PROTOC=" + protobuf_sdist.protoc(release),
                    "-DCMAKE_C_FLAGS=" + flags, "-DCMAKE_CXX_FLAGS=" + flags],
                   check=True, stdout=out)
    subprocess.run(["cmake", "--build", os.path.join(work, "build"), "--target", "install",
                    "--parallel", str(jobs)], check=True, stdout=out)
    open(os.path.join(partial, ".complete"), "w").close()
    os.rename(partial, prefix)
    shutil.rmtree(work)


def build_files_hash():
    """The first 12 hex digits of the SHA-256 of this directory's build files (names and bytes)."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(HERE)):
        if name == "CMakeLists.txt" or name.endswith((".cmake.in", ".py")):
            digest.update(name.encode() + b"\0")
            with open(os.path.join(HERE, name), "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:12]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("release", help="of: " + ", ".join(protobuf_sdist.SDIST_OF_RELEASE))
    parser.add_argument("--asan", action="store_true",
                        help="compile with AddressSanitizer (a prefix of its own)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    protobuf_sdist.known(args.release)
    variant = "-asan" if args.asan else ""
    prefix = cache_dir("protobuf-release-%s%s-%s" % (args.release, variant, build_files_hash()))
    if not os.path.exists(os.path.join(prefix, ".complete")):
        build(args.release, variant, prefix, args.jobs)
    print(prefix)


if __name__ == "__main__":
    main()
