"""Abseil targets over Debian's shared Abseil libraries, under upstream Abseil's labels.

Each target is a cc_library whose headers come from /usr/include (already on the compiler's search
path) and which links the Debian shared libraries that implement it. Debian's libabsl_*.so carry
their own DT_NEEDED entries, so a target lists only the libraries that define its own symbols;
`deps` mirror upstream's graph so link order is right for static builds too. Because the labels are
upstream's, replacing this directory with the real abseil-cpp source needs no BUILD change.
"""

def system_absl_library(name, libs = [], deps = []):
    """Declares //absl/<pkg>:<name> linking -labsl_<lib> for each lib in libs."""
    native.cc_library(
        name = name,
        linkopts = ["-labsl_" + lib for lib in libs],
        deps = deps,
        visibility = ["//visibility:public"],
    )
