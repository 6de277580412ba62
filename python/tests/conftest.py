"""Fixtures of the Python package's tests: the repository's schemas as one FileDescriptorSet
(Debian's protoc, as the C++ build runs it), upstream's Python message classes built from it, the
real corpora, and every kernel this CPU runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import pbaccel
from pbaccel import files

REPO = Path(__file__).resolve().parents[2]

# The schemas of the real corpora and of the C++ differential tests that protoc 3.21 compiles.
SCHEMAS = [
    "proto/osmformat.proto",
    "proto/vector_tile.proto",
    "proto/profile.proto",
    "proto/parser_test2.proto",
    "proto/parser_test3.proto",
    "proto/packed_fields.proto",
    "proto/message_workloads.proto",
    "proto/tree_shapes.proto",
    "proto/cross_target.proto",
]

# Real corpora: the vendored files, and any directories of the same layout (osm/, mvt/<area>/,
# pprof/) named in PBACCEL_REALDATA (colon-separated), e.g. ../shared/realdata.
CORPORA = {
    "osm": ("OSMPBF.PrimitiveBlock", "osm/*.osm.pbf"),
    "mvt": ("vector_tile.Tile", "mvt/*/*.mvt*"),
    "pprof": ("perftools.profiles.Profile", "pprof/*.pb*"),
}


def data_dirs():
    dirs = [REPO / "testing" / "data"]
    for d in os.environ.get("PBACCEL_REALDATA", "").split(":"):
        if d:
            dirs.append(Path(d))
    return dirs


def corpus_records(name):
    _, pattern = CORPORA[name]
    records = []
    for d in data_dirs():
        for path in sorted(d.glob(pattern)):
            records += files.records_from_path(str(path))
    return records


@pytest.fixture(scope="session")
def descriptor_set(tmp_path_factory) -> bytes:
    protoc = shutil.which("protoc")
    if protoc is None:
        pytest.fail("protoc is needed (Debian's protobuf-compiler, which ./bazelw installs)")
    out = tmp_path_factory.mktemp("descriptors") / "schemas.desc"
    subprocess.run(
        [protoc, "-I.", f"--descriptor_set_out={out}", "--include_imports", *SCHEMAS],
        cwd=REPO,
        check=True,
    )
    return out.read_bytes()


@pytest.fixture(scope="session")
def upstream(descriptor_set):
    """Upstream's Python protobuf: message classes by full name, from the same descriptors."""
    pool = descriptor_pool.DescriptorPool()
    fds = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
    for file in fds.file:
        pool.Add(file)

    class Classes:
        def __getitem__(self, full_name):
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))

    return Classes()


def supported_kernels():
    return [name for name, supported, _ in pbaccel.kernels() if supported]


def skipped_kernels():
    return [(name, why) for name, supported, why in pbaccel.kernels() if not supported]


@pytest.fixture(params=supported_kernels())
def kernel(request):
    """Runs the test once per kernel this CPU runs (the others are reported as skipped)."""
    with pbaccel.use_kernel(request.param):
        assert pbaccel.kernel() == request.param
        yield request.param


def pytest_report_header(config):
    skipped = ", ".join(f"{n} ({why})" for n, why in skipped_kernels()) or "none"
    return [
        f"pbaccel kernels run: {', '.join(supported_kernels())}; skipped: {skipped}",
        f"real data: {', '.join(str(d) for d in data_dirs())}",
    ]
