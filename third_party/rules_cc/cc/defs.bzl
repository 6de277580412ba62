"""Offline stand-in for @rules_cc//cc:defs.bzl (Bazel 4.2.3, WORKSPACE mode).

Bazel 4.2.3's built-in tools load the C++ rules from @rules_cc, and its WORKSPACE suffix would
download rules_cc to provide them. On a machine without internet that download fails, and Debian's
bazel-rules-cc is written for a newer Bazel. The C++ rules are native in 4.2.3, so this file only
re-exports them under the names rules_cc uses.
"""

cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_proto_library = native.cc_proto_library
cc_shared_library = getattr(native, "cc_shared_library", None)
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
fdo_prefetch_hints = native.fdo_prefetch_hints
fdo_profile = native.fdo_profile
objc_import = native.objc_import
objc_library = native.objc_library
