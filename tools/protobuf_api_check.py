#!/usr/bin/env python3
"""Compiles pbaccel against the headers of protobuf releases this machine cannot build whole.

The build is tested in full against protobuf 3.21 (Bazel) and 27.2 (CMake; see
docs/protobuf_versions.md). Other releases removed or changed APIs again (v30: descriptor names
and GetTypeName() as string_view; v33: FieldOptions::weak() deprecated; v35: [[nodiscard]] parse
functions, and its Abseil deprecates the pointer-taking MutexLock), and no package here installs
them. Their sources are reachable all the same: the grpcio-tools sdist on PyPI carries the protobuf
tree (and its Abseil and utf8_range) it builds its protoc from, and Maven Central serves each
release's protoc. This check takes both for a release, generates the test schemas with that protoc
and pbaccel's plugin, and compiles, with -Wall -Werror, everything a user compiles against
protobuf: the library, the plugin, the testing library, the differential test's main, and the
generated parsers (.pbaccel.cc, which include protoc's .pb.h).

It compiles, it does not link or run: the release's semantics are not checked here, and the plugin
that writes the code is the one of the build given (--build: a CMake build of pbaccel against
protobuf 27 or later, with tests, for its protoc-gen-pbaccel, kernel table, testing headers and
LITE_RUNTIME schemas; --plugin: another build's plugin), so the code is what that plugin decides.
The downloads are kept in the project's cache (tools/cache_dir.py).

  python3 tools/protobuf_api_check.py --build=build27 [--releases=25.1,30.0,33.5,35.1]
"""
import argparse
import concurrent.futures
import glob
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_dir import cache_dir  # noqa: E402

# The grpcio-tools release whose sdist carries each protobuf release (read off the sdists'
# google/protobuf/stubs/common.h; the check verifies it), and the sdist's SHA-256 as PyPI served it
# on 2026-12-07. Maven Central's protoc of protobuf N.M is com.google.protobuf:protoc:3.N.M through
# 25 and 4.N.M from 26 (the Java runtime's version).
SDIST_OF_RELEASE = {
    "25.1": ("1.62.3", "7c7136015c3d62c3eef493efabaf9e3380e3e66d24ee8e94c01cb71377f57833"),
    "26.1": ("1.64.0", "fa4c47897a0ddb78204456d002923294724e1b7fc87f0745528727383c2260ad"),
    "27.2": ("1.66.2", "4a36e07913d26ba5ccfd2685ba63ca97f26b08c249d2cc9e74dda37efa49d7e4"),
    "29.0": ("1.70.0", "e578fee7c1c213c8e471750d92631d00f178a15479fb2cb3b939a07fc125ccd3"),
    "30.0": ("1.72.2", "0168a6ea7565dd8319e0fb9691b9ccf5c24ea67f2cc7aaf138e9660c0358af2d"),
    "31.1": ("1.74.0", "88ab9eb18b6ac1b4872add6b394073bd8d44eee7c32e4dc60a022e25ffaffb95"),
    "33.5": ("1.81.1", "a22a3870180927fdd84e2b27d079ef5b7f5f8c6110181b6736afc17a463481f1"),
    "35.1": ("1.85.4", "85a46eb8b59c208138c36a936a7407b27d466130053ed35957b39f13a939f24b"),
}
DEFAULT_RELEASES = "25.1,30.0,33.5,35.1"
PYPI_PROJECT = "https://pypi.org/pypi/grpcio-tools/json"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What pbaccel compiles against protobuf, besides generated code (lib/grpc.cc is gRPC's: it compiles
# against the gRPC a build finds, which brings its own protobuf).
SOURCES = (["compiler/parser_generator.cc", "compiler/protoc_gen_pbaccel.cc",
            "tools/differential_main.cc"] +
           sorted(p for p in glob.glob("lib/*.cc", root_dir=ROOT) if p != "lib/grpc.cc") +
           sorted(glob.glob("testing/*.cc", root_dir=ROOT)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def cpp_version(release):
    """GOOGLE_PROTOBUF_VERSION of a release: 27.2 -> 5027002 (C++ major 4 for 22-25, 5 for 26-29,
    6 for 30-33, 7 from 34)."""
    major, minor = (int(x) for x in release.split("."))
    cpp_major = 4 if major < 26 else 5 if major < 30 else 6 if major < 34 else 7
    return cpp_major * 1000000 + major * 1000 + minor


def fetch(release):
    """The release's headers and protoc, downloaded once: (include directory, protoc)."""
    home = cache_dir("protobuf-api", release)
    include = os.path.join(home, "include")
    protoc = os.path.join(home, "bin", "protoc")
    if not os.path.exists(os.path.join(home, "complete")):
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        tools, sha256 = SDIST_OF_RELEASE[release]
        # The sdist's address from PyPI's JSON API, not `pip download`, which would run the
        # sdist's setup.py to read its metadata (and fails to on the older ones).
        with urllib.request.urlopen(PYPI_PROJECT, timeout=120) as response:
            files = json.load(response)["releases"][tools]
        (url,) = [f["url"] for f in files if f["packagetype"] == "sdist"]
        with urllib.request.urlopen(urllib.parse.urljoin(PYPI_PROJECT, url), timeout=600) as r:
            data = r.read()
        if hashlib.sha256(data).hexdigest() != sha256:
            sys.exit("%s: grpcio-tools %s's sdist is not the one pinned here" % (release, tools))
        # The header trees (and protobuf's .proto files), each rooted at include/.
        roots = ("third_party/protobuf/src/", "third_party/abseil-cpp/",
                 "third_party/protobuf/third_party/utf8_range/")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for member in tar.getmembers():
                path = member.name.split("/", 1)[-1]  # Below the sdist's top directory.
                root = next((r for r in roots if path.startswith(r)), None)
                if root and member.isfile() and path.endswith((".h", ".inc", ".proto")):
                    member.name = path[len(root):]
                    tar.extract(member, include)
        maven_version = ("3." if cpp_version(release) < 5000000 else "4.") + release
        maven = subprocess.run(
            ["mvn", "-q", "-B", "dependency:copy",
             "-Dartifact=com.google.protobuf:protoc:%s:exe:linux-x86_64" % maven_version,
             "-DoutputDirectory=" + os.path.join(home, "bin")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if maven.returncode != 0:
            sys.exit("%s: Maven could not fetch protoc:\n%s" % (release, maven.stdout))
        os.rename(os.path.join(home, "bin", "protoc-%s-linux-x86_64.exe" % maven_version), protoc)
        os.chmod(protoc, 0o755)
        open(os.path.join(home, "complete"), "w").close()
    with open(os.path.join(include, "google/protobuf/stubs/common.h")) as f:
        found = re.search(r"#define GOOGLE_PROTOBUF_VERSION (\d+)", f.read()).group(1)
    if int(found) != cpp_version(release):
        sys.exit("%s: the sdist's headers are protobuf %s, not %s" % (release, found, release))
    said = run([protoc, "--version"], capture_output=True).stdout.strip()
    if said != "libprotoc " + release:
        sys.exit("%s: Maven's protoc says %r" % (release, said))
    return include, protoc


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
    if cpp_version(release) < 5027000:  # Before 27 protoc takes editions files only when told to.
        schemas.remove("proto/editions_2023.proto")
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
                        help="comma-separated, of: " + ", ".join(SDIST_OF_RELEASE))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    plugin = os.path.abspath(args.plugin or os.path.join(build, "protoc-gen-pbaccel"))
    ok = True
    for release in args.releases.split(","):
        if release not in SDIST_OF_RELEASE:
            sys.exit("unknown release %s (known: %s)" % (release, ", ".join(SDIST_OF_RELEASE)))
        ok = check(release, build, plugin, args.jobs) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
