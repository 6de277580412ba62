#!/usr/bin/env python3
"""Compiles pbaccel against the headers of protobuf releases no build here runs its tests on.

The test suite runs against protobuf 3.21 (Bazel), 27.2 and 33.5 (CMake; see
docs/protobuf_versions.md). Other releases removed or changed APIs again (v30: descriptor names
and GetTypeName() as string_view; v33: FieldOptions::weak() deprecated; v35: [[nodiscard]] parse
functions, and its Abseil deprecates the pointer-taking MutexLock). This check takes a release's
headers from the grpcio-tools sdist and its protoc from Maven Central (tools/protobuf_sdist.py),
generates the test schemas with that protoc and pbaccel's plugin, and compiles, with -Wall
-Werror, everything a user compiles against protobuf: the library, the plugin, the testing
library, the differential test's main, and the generated parsers (.pbaccel.cc, which include
protoc's .pb.h).

It compiles, it does not link or run: the release's semantics are not checked here, and the plugin
that writes the code is the one of the build given (--build: a CMake build of pbaccel against
protobuf 27 or later, with tests, for its protoc-gen-pbaccel, kernel table, testing headers and
LITE_RUNTIME schemas; --plugin: another build's plugin), so the code is what that plugin decides.
The downloads are kept in the project's cache (tools/cache_dir.py).

  python3 tools/protobuf_api_check.py --build=build27 [--releases=25.1,30.0,35.1]
"""
import argparse
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protobuf_sdist  # noqa: E402
from cache_dir import cache_dir  # noqa: E402

# 33.5 is built and tested whole (third_party/protobuf_release); these three span the rest.
DEFAULT_RELEASES = "25.1,30.0,35.1"
# The editions schemas, and the first protobuf release whose protoc takes each (without a flag).
EDITION_SCHEMAS = {"proto/editions_2023.proto": 27, "proto/editions_2024.proto": 32}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What pbaccel compiles against protobuf, besides generated code (lib/grpc.cc is gRPC's: it compiles
# against the gRPC a build finds, which brings its own protobuf).
SOURCES = (["compiler/parser_generator.cc", "compiler/protoc_gen_pbaccel.cc",
            "tools/differential_main.cc"] +
           sorted(p for p in glob.glob("lib/*.cc", root_dir=ROOT) if p != "lib/grpc.cc") +
           sorted(glob.glob("testing/*.cc", root_dir=ROOT)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def fetch(release):
    """The release's headers (extracted from its sdist once) and protoc: (include, protoc)."""
    home = cache_dir("protobuf-api", release)
    include = os.path.join(home, "include")
    if not os.path.exists(os.path.join(home, "complete")):
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        # The header trees (and protobuf's .proto files), each rooted at include/.
        roots = (protobuf_sdist.PROTOBUF_TREE + "src/", protobuf_sdist.ABSEIL_TREE,
                 protobuf_sdist.UTF8_RANGE_TREE)
        with tarfile.open(protobuf_sdist.sdist(release)) as tar:
            for member in tar.getmembers():
                path = member.name.split("/", 1)[-1]  # Below the sdist's top directory.
                root = next((r for r in roots if path.startswith(r)), None)
                if root and member.isfile() and path.endswith((".h", ".inc", ".proto")):
                    member.name = path[len(root):]
                    tar.extract(member, include)
        open(os.path.join(home, "complete"), "w").close()
    protobuf_sdist.check_headers(include, release)
    return include, protobuf_sdist.protoc(release)


def compile_one(args):
    source, flags = args
    result = subprocess.run(["g++"] + flags + ["-fsyntax-only", source], cwd=ROOT,
                            capture_output=True, text=True)
    return source, result.returncode, result.stderr


def check(release, build, plugin, jobs):
    include, protoc = fetch(release)
    gen = cache_dir("protobuf-api", release, "gen")
    shutil.rmtree(gen, ignore_errors=True)
    os.makedirs(gen)
    lite = os.path.join(build, "cmake/tests/lite_protos")
    schemas = sorted(glob.glob("proto/*.proto", root_dir=ROOT) +
                     glob.glob("tests/*.proto", root_dir=ROOT))
    # An editions schema where the release's protoc takes it and the build compiled it (its plugin
    # declares that edition).
    for schema, first_release in EDITION_SCHEMAS.items():
        generated = os.path.join(build, "cmake/tests/gen", schema[:-len(".proto")] + ".pb.h")
        built = os.path.exists(generated)
        if int(release.split(".")[0]) < first_release or not built:
            schemas.remove(schema)
    lite_schemas = sorted(os.path.relpath(p, lite) for p in glob.glob(lite + "/proto/*.proto"))
    if not lite_schemas:
        sys.exit("no LITE_RUNTIME twins under %s: is --build a CMake build with tests?" % lite)
    for root, files in ((ROOT, schemas), (lite, lite_schemas)):
        run([protoc, "--plugin=protoc-gen-pbaccel=" + plugin, "-I" + root, "-I" + ROOT,
             "-I" + include, "--cpp_out=" + gen, "--pbaccel_out=" + gen] + files, cwd=root,
            stderr=subprocess.DEVNULL)  # Style warnings of the schemas, not this check's business.
    # The plugin's code (which includes protoc's headers); protoc's own .pb.cc is upstream's.
    generated = sorted(glob.glob(gen + "/**/*.pbaccel.cc", recursive=True))
    # The release's headers as system headers, as an installed protobuf's CMake package gives them:
    # their own warnings (33.5's map_field.h calls a constructor it deprecates) are not pbaccel's.
    flags = ["-std=c++17", "-Wall", "-Werror", "-isystem", include, "-I" + ROOT + "/lib",
             "-I" + ROOT, "-I" + os.path.join(build, "pbaccel_generated"),
             "-I" + os.path.join(build, "pbaccel_testing_include"), "-I" + gen]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for source, rc, err in pool.map(compile_one, [(s, flags) for s in SOURCES + generated]):
            if rc != 0:
                failed.append(source)
                print("--- %s, protobuf %s:\n%s" % (source, release, err[:4000]), file=sys.stderr)
    total = len(SOURCES) + len(generated)
    print("protobuf %s: %d of %d sources compile (-Wall -Werror), %d of them written by "
          "protoc-gen-pbaccel beside protoc %s's code" %
          (release, total - len(failed), total, len(generated), release))
    return not failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True,
                        help="a CMake build of pbaccel against protobuf 27 or later, with tests")
    parser.add_argument("--plugin", help="protoc-gen-pbaccel to run (default: --build's own)")
    parser.add_argument("--releases", default=DEFAULT_RELEASES,
                        help="comma-separated, of: " + ", ".join(protobuf_sdist.SDIST_OF_RELEASE))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    plugin = os.path.abspath(args.plugin or os.path.join(build, "protoc-gen-pbaccel"))
    ok = True
    for release in args.releases.split(","):
        protobuf_sdist.known(release)
        ok = check(release, build, plugin, args.jobs) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
