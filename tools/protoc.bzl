"""Running protoc with a code-generator plugin, for pbaccel's codegen rules (defs.bzl, grpc.bzl)."""

# The protoc attribute of such rules (Debian's protoc, through @com_google_protobuf).
PROTOC_ATTR = attr.label(default = "@com_google_protobuf//:protoc", executable = True, cfg = "host", allow_files = True)

def run_protoc_plugin(ctx, protos, sources, plugin, name, out_dir, outs, mnemonic, progress_message, options = []):
    """Runs ctx.executable._protoc with `plugin` as protoc-gen-<name> on `sources`.

    Args:
      ctx: the rule's context (its `_protoc` attribute is PROTOC_ATTR).
      protos: the ProtoInfo of every proto_library the sources come from (their import paths and
        transitive sources are protoc's inputs).
      sources: the .proto files to generate code for: Files, or their import paths (which protoc
        resolves against the proto paths as it does imports; a File's path can also lie under
        another root, such as ".", and then be named by the wrong path).
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
