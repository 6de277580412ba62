#!/usr/bin/env python3
"""Fails when the Bazel and CMake builds disagree on what they build and test.

    python3 tools/check_build_lists.py [SOURCE_DIR]      (ctest runs it: build_lists_test)

Compared, from the build files themselves:
  * the library's sources: every lib/*.cc is in lib/BUILD and in CMakeLists.txt's lists;
  * the test protos: every proto/*.proto has a proto_library in proto/BUILD and is compiled by
    cmake/tests/CMakeLists.txt;
  * the tests: every test of tests/BUILD runs under ctest, except those listed in BAZEL_ONLY with
    the reason, and ctest runs nothing Bazel does not, except CMAKE_ONLY.
The differential tests' message types need no check: both builds read
proto/differential_messages.bzl.
"""

import pathlib
import re
import sys

# Bazel tests that ctest does not run, and why.
BAZEL_ONLY = {
    "kernel_symbols_test": "inspects Bazel's build outputs (the kernels' archives)",
    "kernel_isa_test": "inspects Bazel's build outputs (the kernels' object code)",
    "grpc_loopback_test": "needs Bazel's gRPC example rules (CMake's gRPC consumer is in .ci/run)",
    "grpc_unwired_test": "needs Bazel's gRPC example rules",
    "grpc_server_symbols_test": "inspects Bazel's gRPC server binary",
    "grpc_use_for_compile_test": "compiles through Bazel's gRPC rules",
    "next_field_test": "needs a generated parser compiled with a test-only define",
    "reuse_slots_test": "needs a generated parser compiled with a test-only define",
    "import_prefix_test": "tests the Bazel rule pbaccel_cc_parser on import prefixes",
    "lite_messages_differential_test": "ctest runs the lite types in proto_messages_differential_test",
    "two_gib_test": "manual in both builds (needs 4 GiB of memory)",
}

# ctest tests that have no Bazel test of the same name, and why.
CMAKE_ONLY = {
    "fuzz_corpus_test": "the fuzzer's seeds as a test (Bazel fuzzes them in .ci/run)",
    "realdata_bench_check": "//bench:realdata's checks, run once against this build's protobuf",
    "compare_check": "//bench:compare's checks, run once against this build's protobuf",
    "build_lists_test": "this check",
    "editions_test": "edition 2023 needs protoc 27: the CMake build on protobuf 27",
    "editions_2024_test": "edition 2024 needs protoc 32: the CMake build on protobuf 33.5",
    "kernel_isa_aarch64_test": "the AArch64 kernels' object code: the CMake cross build (Bazel "
                               "builds x86-64 only here; //tests:kernel_isa_test scans those)",
}

# Test protos that only one build compiles, and why.
PROTO_EXCEPTIONS = {
    "editions_2023.proto": "edition 2023 needs protoc 27: the CMake build on protobuf 27 only",
    "editions_2024.proto": "edition 2024 needs protoc 32: the CMake build on protobuf 33.5 only",
}


def read(root, path):
    return (root / path).read_text()


def bazel_names(text, pattern):
    return set(re.findall(pattern, text))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = []

    # The library's sources.
    lib_build = read(root, "lib/BUILD")
    cmake = read(root, "CMakeLists.txt")
    for cc in sorted(p.name for p in (root / "lib").glob("*.cc")):
        if f'"{cc}"' not in lib_build:
            problems.append(f"lib/{cc} is in no target of lib/BUILD")
        if f"lib/{cc}" not in cmake:
            problems.append(f"lib/{cc} is not built by CMakeLists.txt")

    # The test protos.
    proto_build = read(root, "proto/BUILD")
    cmake_tests = read(root, "cmake/tests/CMakeLists.txt")
    stems = set()
    for m in re.finditer(r"set\(test_proto_stems([^)]*)\)", cmake_tests):
        stems |= set(m.group(1).split())
    stems |= set(re.findall(r"list\(APPEND test_proto_stems ([a-z0-9_]+)\)", cmake_tests))
    for proto in sorted(p.name for p in (root / "proto").glob("*.proto")):
        if proto in PROTO_EXCEPTIONS:
            continue
        if f'"{proto}"' not in proto_build:
            problems.append(f"proto/{proto} has no proto_library in proto/BUILD")
        if proto[: -len(".proto")] not in stems:
            problems.append(f"proto/{proto} is not compiled by cmake/tests/CMakeLists.txt")

    # The tests.
    bazel_tests = bazel_names(
        read(root, "tests/BUILD"),
        r'(?:cc_test|sh_test|py_test|pbaccel_differential_test|pbaccel_kernel_isa_test)\(\s*'
        r'name = "([a-z0-9_]+)"')
    ctest_tests = bazel_names(cmake_tests, r"pbaccel_cc_test\(([a-z0-9_]+)")
    ctest_tests |= bazel_names(cmake_tests, r"add_test\(NAME ([a-z0-9_]+)")
    for name in sorted(bazel_tests - ctest_tests - set(BAZEL_ONLY)):
        problems.append(f"//tests:{name} does not run under ctest (nor is it in BAZEL_ONLY)")
    for name in sorted(ctest_tests - bazel_tests - set(CMAKE_ONLY)):
        problems.append(f"ctest's {name} has no Bazel test (nor is it in CMAKE_ONLY)")
    for name in sorted(set(BAZEL_ONLY) & ctest_tests):
        problems.append(f"{name} runs under ctest: remove it from BAZEL_ONLY")

    for p in problems:
        print("build_lists_test:", p)
    if not problems:
        print(f"build_lists_test: both builds agree ({len(bazel_tests)} Bazel tests, "
              f"{len(ctest_tests)} ctest tests)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
