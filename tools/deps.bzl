"""pbaccel_deps(): every external repository pbaccel needs, for a user's WORKSPACE.

    local_repository(
        name = "pbaccel",
        path = "/path/to/pbaccel",
    )

    load("@pbaccel//tools:deps.bzl", "pbaccel_deps")

    pbaccel_deps()

Each repository is declared only if the WORKSPACE has not declared one of that name already (call
pbaccel_deps() after your own declarations), so a project that builds protobuf, Abseil or gRPC from
source keeps its own. Nothing is downloaded:

  * com_google_protobuf, com_google_absl, com_google_googletest, com_github_google_benchmark,
    com_github_grpc_grpc, zlib, com_github_mapbox_protozero, com_github_lemire_streamvbyte: the
    Debian packages pbaccel's ./bazelw installs, under their upstream repository names (BUILD
    files in pbaccel's third_party/);
  * rules_cc, rules_java, remote_coverage_tools: small local stand-ins for what Bazel 4.2.3's
    built-in WORKSPACE suffix would otherwise download.

pbaccel's own WORKSPACE calls this macro too, so the two cannot drift.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")

def _vendored_repository_impl(rctx):
    # pbaccel's root (the directory of its WORKSPACE file), then the directory, linked entry by
    # entry.
    directory = rctx.path(rctx.attr.pbaccel_workspace).dirname.get_child("third_party").get_child(rctx.attr.directory)
    for entry in directory.readdir():
        rctx.symlink(entry, entry.basename)

# A repository made of one of pbaccel's third_party/ directories (which has its own WORKSPACE and
# BUILD files), found through a label of pbaccel's root package so that it works whatever the
# user's WORKSPACE calls pbaccel. (.bazelignore keeps pbaccel's own //... out of those
# directories, as Bazel does for local_repository paths.)
_vendored_repository = repository_rule(
    implementation = _vendored_repository_impl,
    attrs = {
        "pbaccel_workspace": attr.label(allow_single_file = True, mandatory = True),
        "directory": attr.string(mandatory = True),
    },
    local = True,
)

def _vendored(name, directory):
    maybe(
        _vendored_repository,
        name = name,
        pbaccel_workspace = Label("//:WORKSPACE"),
        directory = directory,
    )

def _system(name, build_file):
    maybe(
        native.new_local_repository,
        name = name,
        build_file = str(Label(build_file)),
        path = "/usr",
    )

def pbaccel_deps():
    """Declares the repositories pbaccel's targets use, unless already declared."""

    # Stand-ins for repositories that Bazel 4.2.3's built-in WORKSPACE suffix would download.
    _vendored("rules_cc", "rules_cc")
    _vendored("rules_java", "rules_java")
    _vendored("remote_coverage_tools", "remote_coverage_tools")

    # Debian's protobuf 3.21: libprotobuf-dev, protobuf-compiler, libprotoc-dev.
    _system("com_google_protobuf", "//third_party/protobuf:BUILD.protobuf")

    # Debian's Abseil 20220623: libabsl-dev.
    _vendored("com_google_absl", "absl")

    # Debian's GoogleTest 1.12: libgtest-dev, libgmock-dev (pbaccel_differential_test).
    _vendored("com_google_googletest", "googletest")

    # Debian's gRPC 1.51: libgrpc++-dev, protobuf-compiler-grpc (cc_grpc_library, //lib:grpc).
    _system("com_github_grpc_grpc", "//third_party/grpc:BUILD.grpc")

    # Benchmarks only: Debian's Google Benchmark 1.7, zlib, protozero and Stream VByte.
    _vendored("com_github_google_benchmark", "benchmark")
    _vendored("zlib", "zlib")
    _vendored("com_github_mapbox_protozero", "protozero")
    _vendored("com_github_lemire_streamvbyte", "streamvbyte")
