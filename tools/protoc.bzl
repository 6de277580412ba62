"""Running protoc with a code-generator plugin, for pbaccel's codegen rules (defs.bzl, grpc.bzl)."""

# The protoc attribute of such rules (Debian's protoc, through @com_google_protobuf).
PROTOC_ATTR = attr.label(default = "@com_google_protobuf//:protoc", executable = True, cfg = "host", allow_files = True)

def run_protoc_plugin(ctx, protos, sources, plugin, name, out_dir, outs, mnemonic, progress_message, options = []):
    """Runs ctx.executable._protoc with `plugin` as protoc-gen-<name> on `sources`.

    Args:
      ctx: the rule's context (its `_protoc` attribute is PROTOC_ATTR).
      protos: the ProtoInfo of every proto_library the sources come from (their import paths and
        transitive sources are protoc's inputs).
      sources: the import paths of the .proto files to generate code for (protoc resolves them
        against the proto paths as it does imports; a file's own path can also lie under another
        root, such as ".", and protoc would then name it by the wrong path).
      plugin: the plugin's executable File.
      name: the plugin's name: --<name>_out and --<name>_opt.
      out_dir: the --<name>_out directory.
      outs: the files the plugin writes.
      mnemonic, progress_message: the action's.
      options: --<name>_opt values.
    """
    args = ctx.actions.args()
    args.add("--plugin=protoc-gen-%s=%s" % (name, plugin.path))
    args.add("--%s_out=%s" % (name, out_dir))
    for option in options:
        args.add("--%s_opt=%s" % (name, option))
    args.add_all(depset(transitive = [p.transitive_proto_path for p in protos]), format_each = "--proto_path=%s")
    args.add_all(sources)
    ctx.actions.run(
        executable = ctx.executable._protoc,
        arguments = [args],
        inputs = depset(transitive = [p.transitive_sources for p in protos]),
        tools = [plugin],
        outputs = outs,
        mnemonic = mnemonic,
        progress_message = progress_message,
    )

def declare_generated_files(ctx, protos, suffixes, rule_name):
    """Declares the files a plugin writes for the direct sources of `protos`, where it writes them.

    Each goes where cc_proto_library puts foo.pb.h, so that it is included by the same path (the
    .proto file's import path): beside the .proto in this package (sub/foo<suffix> for
    sub/foo.proto), or, for a proto_library with strip_import_prefix or import_prefix, under its
    directory of its own (Bazel's _virtual_imports/<name>), which goes on the include path.

    Args:
      ctx: the rule's context; the rule must be declared in the package of the .proto files.
      protos: ProtoInfo of the proto_library targets.
      suffixes: what the plugin appends to each file's path without ".proto".
      rule_name: for error messages.

    Returns:
      struct(outs: the declared Files; out_dir: the plugin's output directory; sources: the files'
      import paths, for run_protoc_plugin; include_dirs: directories for the include path).
    """
    outs = []
    sources = []
    out_dir = None
    include_dirs = []

    # This package's output directory (external/<repo>/... for a rule of another repository).
    package_out = "/".join([part for part in [ctx.bin_dir.path, ctx.label.workspace_root, ctx.label.package] if part])
    package_prefix = ctx.label.package + "/" if ctx.label.package else ""
    for info in protos:
        root = info.proto_source_root
        for src in info.direct_sources:
            # The path protoc knows the file by, relative to its proto_path (its import path).
            virtual = src.path[len(root) + 1:] if root not in ("", ".") and src.path.startswith(root + "/") else src.path
            if not virtual.endswith(".proto"):
                fail("not a .proto file: " + src.path)
            stem = virtual[:-len(".proto")]
            if root.startswith(package_out + "/"):
                out_stem = root[len(package_out) + 1:] + "/" + stem
                if root not in include_dirs:
                    include_dirs.append(root)
            elif stem.startswith(package_prefix):
                out_stem = stem[len(package_prefix):]
            else:
                fail("%s must be declared in the package of %s (like cc_proto_library's outputs)" % (rule_name, src.path))
            files = [ctx.actions.declare_file(out_stem + suffix) for suffix in suffixes]
            this_dir = files[0].path[:-len("/" + stem + suffixes[0])]
            if out_dir != None and out_dir != this_dir:
                fail("%s: all srcs must share one proto root" % rule_name)
            out_dir = this_dir
            outs += files
            sources.append(virtual)
    return struct(outs = outs, out_dir = out_dir, sources = sources, include_dirs = include_dirs)

def generated_include_path(include_dirs):
    """A CcInfo that puts `include_dirs` (declare_generated_files's) on its users' include path."""
    return CcInfo(compilation_context = cc_common.create_compilation_context(includes = depset(include_dirs)))
