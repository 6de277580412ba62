"""Offline stand-in for @rules_java//java:defs.bzl (Bazel 4.2.3, WORKSPACE mode).

Bazel 4.2.3's built-in tools load the Java rules from @rules_java, which its WORKSPACE suffix would
otherwise download. The rules are native in 4.2.3; this file re-exports them. pbaccel builds no
Java: only Bazel's own tool packages load this file.
"""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_lite_proto_library = native.java_lite_proto_library
java_package_configuration = native.java_package_configuration
java_plugin = native.java_plugin
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
