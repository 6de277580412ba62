"""Protobuf releases this machine has no package for, as it can reach them: the sources from the
grpcio-tools sdist on PyPI (which carries the protobuf tree its protoc is built from, with Abseil
and utf8_range) and the release's protoc from Maven Central. Both are downloaded once into the
project's cache (tools/cache_dir.py) and checked: the sdist by a pinned SHA-256, the headers and
protoc by the release they say they are. Standard library only; used by tools/protobuf_api_check.py
and third_party/protobuf_release/prefix.py.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

from cache_dir import cache_dir

# The grpcio-tools release whose sdist carries each protobuf release (read off the sdists'
# google/protobuf/stubs/common.h; check_headers verifies it), and the sdist's SHA-256 as PyPI served
# it on 2026-12-07. Maven Central's protoc of protobuf N.M is com.google.protobuf:protoc:3.N.M
# through 25 and 4.N.M from 26 (the Java runtime's version).
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
PYPI_PROJECT = "https://pypi.org/pypi/grpcio-tools/json"
# Where the sdist keeps each tree, below its top directory.
PROTOBUF_TREE = "third_party/protobuf/"
ABSEIL_TREE = "third_party/abseil-cpp/"
UTF8_RANGE_TREE = "third_party/protobuf/third_party/utf8_range/"


def known(release):
    if release not in SDIST_OF_RELEASE:
        sys.exit("unknown protobuf release %s (known: %s)" % (release, ", ".join(SDIST_OF_RELEASE)))


def cpp_version(release):
    """GOOGLE_PROTOBUF_VERSION of a release: 27.2 -> 5027002 (C++ major 4 for 22-25, 5 for 26-29,
    6 for 30-33, 7 from 34)."""
    major, minor = (int(x) for x in release.split("."))
    cpp_major = 4 if major < 26 else 5 if major < 30 else 6 if major < 34 else 7
    return cpp_major * 1000000 + major * 1000 + minor


def sdist(release):
    """The path of the release's grpcio-tools sdist (.tar.gz), downloaded once and verified."""
    known(release)
    tools, sha256 = SDIST_OF_RELEASE[release]
    path = cache_dir("protobuf-sdist", "grpcio_tools-%s.tar.gz" % tools)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # The sdist's address from PyPI's JSON API, not `pip download`, which would run the sdist's
        # setup.py to read its metadata (and fails to on the older ones).
        with urllib.request.urlopen(PYPI_PROJECT, timeout=120) as response:
            files = json.load(response)["releases"][tools]
        (url,) = [f["url"] for f in files if f["packagetype"] == "sdist"]
        with urllib.request.urlopen(urllib.parse.urljoin(PYPI_PROJECT, url), timeout=600) as r:
            data = r.read()
        if hashlib.sha256(data).hexdigest() != sha256:
            sys.exit("%s: grpcio-tools %s's sdist is not the one pinned here" % (release, tools))
        with open(path + ".partial", "wb") as f:
            f.write(data)
        os.rename(path + ".partial", path)
    return path


def protoc(release):
    """The path of the release's protoc from Maven Central, downloaded once and verified."""
    known(release)
    home = cache_dir("protobuf-protoc", release)
    path = os.path.join(home, "protoc")
    if not os.path.exists(path):
        maven_version = ("3." if cpp_version(release) < 5000000 else "4.") + release
        maven = subprocess.run(
            ["mvn", "-q", "-B", "dependency:copy",
             "-Dartifact=com.google.protobuf:protoc:%s:exe:linux-x86_64" % maven_version,
             "-DoutputDirectory=" + home],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if maven.returncode != 0:
            sys.exit("%s: Maven could not fetch protoc:\n%s" % (release, maven.stdout))
        downloaded = os.path.join(home, "protoc-%s-linux-x86_64.exe" % maven_version)
        os.chmod(downloaded, 0o755)
        os.rename(downloaded, path)
    said = subprocess.run([path, "--version"], check=True, capture_output=True,
                          text=True).stdout.strip()
    if said != "libprotoc " + release:
        sys.exit("%s: Maven's protoc says %r" % (release, said))
    return path


def check_headers(include, release):
    """Exits unless the protobuf headers under `include` are the release's."""
    with open(os.path.join(include, "google/protobuf/stubs/common.h")) as f:
        found = re.search(r"#define GOOGLE_PROTOBUF_VERSION (\d+)", f.read()).group(1)
    if int(found) != cpp_version(release):
        sys.exit("%s: the sdist's headers are protobuf %s, not %s" % (release, found, release))
