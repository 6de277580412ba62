"""How a decoding kernel is built: one cc_library per kernel, with its instruction-set flags.

Every other target in pbaccel builds for baseline x86-64 (or any other architecture). A kernel that
uses AVX2, BMI2 or AVX-512 gets exactly the flags it needs here, in one place, and only its own
source file sees them; the registry in //lib calls it only on CPUs that have the features.
"""

# Flags per instruction-set level. x86-only levels are empty elsewhere: such kernels are left out of
# the registry on those builds (see kernel_deps()).
KERNEL_COPTS = {
    "baseline": [],
    "sse41": ["-msse4.1", "-mpopcnt"],
    "avx2": ["-mavx2", "-mbmi", "-mbmi2", "-mpopcnt", "-mlzcnt"],
    "bmi2": ["-mavx2", "-mbmi", "-mbmi2", "-mpopcnt", "-mlzcnt"],
    "avx512": [
        "-mavx512f",
        "-mavx512bw",
        "-mavx512vl",
        "-mavx512cd",
        "-mavx512vbmi",
        "-mavx512vbmi2",
        "-mbmi",
        "-mbmi2",
        "-mpopcnt",
        "-mlzcnt",
        # GCC 12's AVX-512 headers build results from _mm512_undefined_*(), which its own
        # -Wmaybe-uninitialized then flags inside the headers (a known false positive).
        "-Wno-maybe-uninitialized",
    ],
}


def pbaccel_kernel(name, isa = "baseline"):
    """Declares the kernel `name` (source `name`.cc) compiled for instruction-set level `isa`.

    alwayslink keeps the kernel's descriptor even though only the registry refers to it.
    """
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        copts = KERNEL_COPTS[isa],
        deps = [":kernel_abi"],
        alwayslink = True,
        visibility = ["//lib:__pkg__", "//tests:__pkg__", "//bench:__pkg__"],
    )
