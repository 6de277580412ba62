"""Compiler options for the code every parse runs through: the generated parsers, lib/'s message
parsers and the decoding kernels (parsers/kernels.bzl). They are optimized (-O2) in -c fastbuild
too, Bazel's default for a consumer's build, so that their speed and their stack use (which
tests/stack_test.cc holds to upstream's; upstream's own library is always optimized) do not depend
on the consumer's compilation mode. -c dbg keeps its -O0."""

def parser_copts():
    return select({
        str(Label("//tools:fastbuild")): ["-O2"],
        "//conditions:default": [],
    })
