"""Bazel macros for pbaccel's users.

pbaccel_cc_parser generates parsers for your message types, which parse every field in generated
code (packed fields with pbaccel's kernels) instead of by reflection:

    load("@pbaccel//tools:defs.bzl", "pbaccel_cc_parser")

    pbaccel_cc_parser(
        name = "my_pbaccel",
        srcs = [":my_proto"],        # proto_library targets (declare the rule in their package)
        deps = [":my_cc_proto"],     # their cc_proto_library
    )

For each foo.proto it compiles foo.pbaccel.h/.cc: `#include "path/foo.pbaccel.h"` gives
pbaccel::ParseMessage(bytes, &msg) (and ParsePartialMessage, MergeMessage, MergePartialMessage)
for each type, MessageLite types included; linking the library also makes
ParseMessage(bytes, google::protobuf::Message*) and PBACCEL_GRPC_USE_FOR use the generated parsers.

pbaccel_differential_test proves, in your own test suite, that pbaccel parses your message types
exactly as upstream protobuf does:

    load("@pbaccel//tools:defs.bzl", "pbaccel_differential_test")

    pbaccel_differential_test(
        name = "my_messages_differential_test",
        deps = [":my_cc_proto"],                 # cc_proto_library targets holding the types
        messages = ["my.pkg.Request", "my.pkg.Response"],
        iterations = 200,                        # random valid messages per type
    )

LITE_RUNTIME types (no descriptors, no reflection) are tested through their generated parser:
name them in messages, link their pbaccel_cc_parser library in deps, and give their proto_library
targets in lite_protos; the test builds its inputs from a DynamicMessage of the same schema and
compares re-serialized bytes with upstream's lite parse:

    pbaccel_differential_test(
        name = "my_lite_differential_test",
        deps = [":my_lite_cc_proto", ":my_lite_pbaccel"],
        messages = ["my.pkg.LiteRequest"],
        lite_protos = [":my_lite_proto"],
    )

For each type it generates random messages (every field kind, repeated fields drawn from the
benchmark workloads, nesting, maps, oneofs, unknown fields, packed and unpacked encodings
interleaved), derives malformed variants (truncation, bit flips, over-long varints, bad lengths,
wrong wire types, broken groups, field numbers 0 and 2^29, nesting past the recursion limit), and
checks upstream and pbaccel agree on every input under every kernel the CPU supports: same
accept/reject decision, MessageDifferencer::Equals, identical re-serialization.
(testing/differential.h documents the checker.)
"""

load(":optimize.bzl", "parser_copts")
load(":protoc.bzl", "PROTOC_ATTR", "declare_generated_files", "generated_include_path", "run_protoc_plugin")

def _descriptor_sets_impl(ctx):
    files = depset(transitive = [p[ProtoInfo].transitive_descriptor_sets for p in ctx.attr.protos])
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

# The FileDescriptorSets of proto_library targets and everything they import.
_descriptor_sets = rule(
    implementation = _descriptor_sets_impl,
    attrs = {"protos": attr.label_list(providers = [ProtoInfo], mandatory = True)},
)

def pbaccel_differential_test(name, deps, messages, lite_protos = [], iterations = 100, seed = 42, size = "medium", **kwargs):
    """A cc_test running pbaccel's differential checker on `messages` (full protobuf names).

    lite_protos: the proto_library targets of the LITE_RUNTIME types among `messages`, whose
    schemas the test builds their inputs from.
    """
    args = [
        "--messages=" + ",".join(messages),
        "--iterations=%d" % iterations,
        "--seed=%d" % seed,
    ]
    data = kwargs.pop("data", [])
    if lite_protos:
        sets = name + "_descriptor_sets"
        _descriptor_sets(name = sets, protos = lite_protos, testonly = True)
        args.append("'--descriptor_sets=$(rootpaths :%s)'" % sets)
        data = data + [":" + sets]
    native.cc_test(
        name = name,
        size = size,
        args = args,
        data = data,
        # Linked dynamically (the cc_test default, spelled out): every cc_proto_library in deps is
        # loaded whole, so its types register in the generated pool even though no code names them.
        linkstatic = False,
        deps = deps + [Label("//tools:differential_main")],
        **kwargs
    )


def _pbaccel_codegen_impl(ctx):
    protos = [t[ProtoInfo] for t in ctx.attr.srcs]
    generated = declare_generated_files(ctx, protos, [".pbaccel.h", ".pbaccel.cc"], "pbaccel_cc_parser")
    run_protoc_plugin(
        ctx,
        protos = protos,
        sources = generated.sources,
        plugin = ctx.executable._plugin,
        name = "pbaccel",
        out_dir = generated.out_dir,
        outs = generated.outs,
        mnemonic = "PbaccelParserCodegen",
        progress_message = "Generating pbaccel parsers for %s" % ctx.label,
    )
    return [DefaultInfo(files = depset(generated.outs)), generated_include_path(generated.include_dirs)]

_pbaccel_codegen = rule(
    implementation = _pbaccel_codegen_impl,
    attrs = {
        "srcs": attr.label_list(providers = [ProtoInfo], mandatory = True),
        "_protoc": PROTOC_ATTR,
        "_plugin": attr.label(default = Label("//compiler:protoc-gen-pbaccel"), executable = True, cfg = "host"),
    },
)

def pbaccel_cc_parser(name, srcs, deps, **kwargs):
    """A cc_library of generated parsers for the message types of the proto_library targets in srcs.

    Args:
      name: the cc_library's name.
      srcs: proto_library targets, declared in this package. With strip_import_prefix or
        import_prefix, the generated headers are included by the files' import paths, as
        cc_proto_library's are.
      deps: their cc_proto_library targets, and the pbaccel_cc_parser libraries of imported files
        if you want their generated parsers for submessages of their types (looked up at run time:
        any such parser linked into the program is used; full-runtime types only; without one,
        upstream parses those submessages).
      **kwargs: passed to the cc_library (visibility, testonly, ...).
    """
    codegen = name + "_codegen"
    _pbaccel_codegen(
        name = codegen,
        srcs = srcs,
        testonly = kwargs.get("testonly", False),
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [":" + codegen],
        hdrs = [":" + codegen],
        copts = kwargs.pop("copts", []) + parser_copts(),
        deps = deps + [":" + codegen, Label("//lib:generated_parser"), Label("//lib:pbaccel")],
        # The generated files register their parsers at static initialization: keep them linked
        # even where no code names them (ParseMessage(bytes, Message*) finds them by type).
        alwayslink = True,
        **kwargs
    )
