"""cc_grpc_library: C++ gRPC service code from a proto_library, with the system grpc_cpp_plugin.

    load("@pbaccel//tools:grpc.bzl", "cc_grpc_library")

    cc_grpc_library(
        name = "feature_service_cc_grpc",
        srcs = [":feature_service_proto"],        # a proto_library
        deps = [":feature_service_cc_proto"],     # its cc_proto_library
        additional_header_includes = ["examples/feature_traits.h"],  # optional
    )

additional_header_includes are #included by the generated .grpc.pb.h: the place for
PBACCEL_GRPC_USE_FOR(...) (pbaccel/grpc.h), so that every translation unit that instantiates the
service's handlers sees the same SerializationTraits.
"""

load(":protoc.bzl", "PROTOC_ATTR", "declare_generated_files", "generated_include_path", "run_protoc_plugin")

def _grpc_codegen_impl(ctx):
    proto = ctx.attr.proto[ProtoInfo]
    generated = declare_generated_files(ctx, [proto], [".grpc.pb.h", ".grpc.pb.cc"], "cc_grpc_library")
    run_protoc_plugin(
        ctx,
        protos = [proto],
        sources = generated.sources,
        plugin = ctx.executable._plugin,
        name = "grpc",
        out_dir = generated.out_dir,
        outs = generated.outs,
        mnemonic = "GrpcCppCodegen",
        progress_message = "Generating gRPC C++ code for %s" % ctx.label,
        options = ["additional_header_includes=" + ":".join(ctx.attr.additional_header_includes)] if ctx.attr.additional_header_includes else [],
    )
    return [DefaultInfo(files = depset(generated.outs)), generated_include_path(generated.include_dirs)]

_grpc_codegen = rule(
    implementation = _grpc_codegen_impl,
    attrs = {
        "proto": attr.label(providers = [ProtoInfo], mandatory = True),
        "additional_header_includes": attr.string_list(),
        "_protoc": PROTOC_ATTR,
        "_plugin": attr.label(default = "@com_github_grpc_grpc//:grpc_cpp_plugin", executable = True, cfg = "host", allow_files = True),
    },
)

def cc_grpc_library(name, srcs, deps, additional_header_includes = [], extra_deps = [], **kwargs):
    """A cc_library of the gRPC service code generated from the one proto_library in srcs.

    Declare it in the proto_library's package: the generated foo.grpc.pb.h is included by the same
    path as foo.pb.h (strip_import_prefix and import_prefix included).
    extra_deps: libraries providing additional_header_includes.
    """
    if len(srcs) != 1:
        fail("cc_grpc_library takes exactly one proto_library in srcs")
    codegen = name + "_codegen"
    _grpc_codegen(
        name = codegen,
        proto = srcs[0],
        additional_header_includes = additional_header_includes,
    )
    native.cc_library(
        name = name,
        srcs = [":" + codegen],
        hdrs = [":" + codegen],
        deps = deps + extra_deps + [":" + codegen, "@com_github_grpc_grpc//:grpc++"],
        **kwargs
    )
