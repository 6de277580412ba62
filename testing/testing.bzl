"""pbaccel_testing_library: a cc_library of //testing, its header included as "pbaccel/testing/<name>.h"."""

def pbaccel_testing_library(name, deps = [], srcs = None, visibility = ["//visibility:public"], **kwargs):
    """Declares //testing:<name> from <name>.h and (unless srcs = []) <name>.cc."""
    native.cc_library(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        hdrs = [name + ".h"],
        include_prefix = "pbaccel/testing",
        strip_include_prefix = "/testing",
        visibility = visibility,
        deps = deps,
        **kwargs
    )
