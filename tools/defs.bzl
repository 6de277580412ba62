"""Bazel macros for pbaccel's users.

pbaccel_differential_test proves, in your own test suite, that pbaccel parses your message types
exactly as upstream protobuf does:

    load("@pbaccel//tools:defs.bzl", "pbaccel_differential_test")

    pbaccel_differential_test(
        name = "my_messages_differential_test",
        deps = [":my_cc_proto"],                 # cc_proto_library targets holding the types
        messages = ["my.pkg.Request", "my.pkg.Response"],
        iterations = 200,                        # random valid messages per type
    )

For each type it generates random messages (every field kind, repeated fields drawn from the
benchmark workloads, nesting, maps, oneofs, unknown fields, packed and unpacked encodings
interleaved), derives malformed variants (truncation, bit flips, over-long varints, bad lengths,
wrong wire types, broken groups, field numbers 0 and 2^29, nesting past the recursion limit), and
checks upstream and pbaccel agree on every input under every kernel the CPU supports: same
accept/reject decision, MessageDifferencer::Equals, identical re-serialization.
(testing/differential.h documents the checker.)
"""

def pbaccel_differential_test(name, deps, messages, iterations = 100, seed = 42, size = "medium", **kwargs):
    """A cc_test running pbaccel's differential checker on `messages` (full protobuf names)."""
    native.cc_test(
        name = name,
        size = size,
        args = [
            "--messages=" + ",".join(messages),
            "--iterations=%d" % iterations,
            "--seed=%d" % seed,
        ],
        # Linked dynamically (the cc_test default, spelled out): every cc_proto_library in deps is
        # loaded whole, so its types register in the generated pool even though no code names them.
        linkstatic = False,
        deps = deps + [Label("//tools:differential_main")],
        **kwargs
    )
