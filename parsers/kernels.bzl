"""The kernel table: every decoding kernel, its CPU features and its dispatch rule, in one place.

Everything else about a kernel is derived from its row in KERNELS:
  * its cc_library (source `<name>.cc`), compiled with exactly the flags of its declared features;
  * the registry's entry (lib/kernel_registry.cc includes the generated `kernel_table.inc`): the
    descriptor `k<Name>Kernel`, the CpuFeature mask of the same features, the veto rule, and the
    priority order (the order of the rows);
  * //lib:kernel_registry's dependencies, the archive list of the symbol and instruction tests, and
    the features the instruction-scan test (tests/kernel_isa_test.py) allows in each kernel's code.

Adding a kernel: write parsers/<name>.cc (see kernel_abi.h), defining
`extern const KernelDescriptor k<Name>Kernel` (name in CamelCase: masked_vbyte -> kMaskedVbyteKernel),
and add its row below, where its speed puts it in the priority order. Nothing else.
"""

# The CPU features a kernel may declare: the name (as pbaccel::CpuFeatureNames prints it), the
# CpuFeature enumerator the registry checks, and the compiler flag that lets the compiler use it.
CPU_FEATURES = {
    "ssse3": struct(enum = "kCpuSsse3", copt = "-mssse3"),
    "sse4.1": struct(enum = "kCpuSse41", copt = "-msse4.1"),
    "popcnt": struct(enum = "kCpuPopcnt", copt = "-mpopcnt"),
    "avx2": struct(enum = "kCpuAvx2", copt = "-mavx2"),
    "bmi1": struct(enum = "kCpuBmi1", copt = "-mbmi"),
    "bmi2": struct(enum = "kCpuBmi2", copt = "-mbmi2"),
    "lzcnt": struct(enum = "kCpuLzcnt", copt = "-mlzcnt"),
    "avx512f": struct(enum = "kCpuAvx512F", copt = "-mavx512f"),
    "avx512bw": struct(enum = "kCpuAvx512BW", copt = "-mavx512bw"),
    "avx512vl": struct(enum = "kCpuAvx512VL", copt = "-mavx512vl"),
    "avx512cd": struct(enum = "kCpuAvx512CD", copt = "-mavx512cd"),
    "avx512vbmi": struct(enum = "kCpuAvx512Vbmi", copt = "-mavx512vbmi"),
    "avx512vbmi2": struct(enum = "kCpuAvx512Vbmi2", copt = "-mavx512vbmi2"),
}

# The kernels, in priority order: auto-selection takes the first row whose features the CPU has and
# whose veto (a rule in lib/kernel_registry.cc, with its evidence) does not reject the CPU.
# Rows with features are x86-64 only; the others build everywhere. The last row must run anywhere.
KERNELS = [
    struct(
        name = "avx512",
        # vpermb (VBMI), vpcompressb (VBMI2), vplzcnt (CD), pdep (BMI2), tzcnt (BMI1), lzcnt.
        features = ["avx512f", "avx512bw", "avx512vl", "avx512cd", "avx512vbmi", "avx512vbmi2",
                    "avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        veto = "VetoClockDrop",
    ),
    struct(
        name = "bmi2",
        # pext/pdep/bzhi (BMI2) per 8-byte step, an AVX2 fan-out; andn (BMI1) and lzcnt where the
        # compiler picks them.
        features = ["avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        veto = "VetoSlowPext",
    ),
    struct(
        name = "masked_vbyte_avx2",
        features = ["avx2", "ssse3", "sse4.1", "popcnt"],
        veto = None,
    ),
    struct(
        name = "masked_vbyte",
        features = ["ssse3", "sse4.1", "popcnt"],
        veto = None,
    ),
    struct(name = "portable", features = [], veto = None),
    struct(name = "scalar", features = [], veto = None),
]

def kernel_copts(kernel):
    """The compiler flags of `kernel`: exactly one per declared feature."""
    return [CPU_FEATURES[f].copt for f in kernel.features]

def descriptor_symbol(name):
    """The C++ name of a kernel's KernelDescriptor: masked_vbyte_avx2 -> kMaskedVbyteAvx2Kernel."""
    return "k" + "".join([part.capitalize() for part in name.split("_")]) + "Kernel"

def _x86_only(kernel):
    return len(kernel.features) > 0

def kernel_targets(suffix = ""):
    """Labels of every kernel's cc_library (a select(): the x86-64 ones only on x86-64).

    With suffix = "_archives": the filegroups of their built files, for tests that read them.
    """
    portable = ["//parsers:" + k.name + suffix for k in KERNELS if not _x86_only(k)]
    x86 = ["//parsers:" + k.name + suffix for k in KERNELS if _x86_only(k)]
    return portable + select({
        "//parsers:x86_64": x86,
        "//conditions:default": [],
    })

def pbaccel_kernels():
    """Declares one cc_library per row of KERNELS, plus what the registry and the tests read."""
    for k in KERNELS:
        for f in k.features:
            if f not in CPU_FEATURES:
                fail("kernel %s declares unknown CPU feature %s" % (k.name, f))
        native.cc_library(
            name = k.name,
            srcs = [k.name + ".cc"],
            copts = kernel_copts(k),
            deps = [":kernel_abi"],
            # Keeps the descriptor, which only the registry refers to.
            alwayslink = True,
            visibility = ["//lib:__pkg__", "//tests:__pkg__", "//bench:__pkg__"],
        )
        native.filegroup(
            name = k.name + "_archives",
            srcs = [":" + k.name],
            visibility = ["//tests:__pkg__"],
        )
    _kernel_table_inc(name = "kernel_table_inc", out = "kernel_table.inc")
    native.cc_library(
        name = "kernel_table",
        textual_hdrs = [":kernel_table_inc"],
        visibility = ["//lib:__pkg__"],
    )
    native.filegroup(
        name = "kernel_archives",
        srcs = kernel_targets(),
        visibility = ["//tests:__pkg__"],
    )

def _isa_test_args(kernels):
    out = []
    for k in kernels:
        out.append("--kernel=%s:%s" % (k.name, ",".join(k.features)))
        out.append("$(locations //parsers:%s_archives)" % k.name)
    return out

def pbaccel_kernel_isa_test(name, src, **kwargs):
    """A test running `src` (tests/kernel_isa_test.py) on every kernel's archives and features."""
    native.sh_test(
        name = name,
        srcs = [src],
        args = _isa_test_args([k for k in KERNELS if not _x86_only(k)]) + select({
            "//parsers:x86_64": _isa_test_args([k for k in KERNELS if _x86_only(k)]),
            "//conditions:default": [],
        }),
        data = kernel_targets(suffix = "_archives"),
        **kwargs
    )

def _kernel_table_inc_impl(ctx):
    lines = [
        "// Generated from the KERNELS table in parsers/kernels.bzl. Do not edit.",
        "//",
        "// PBACCEL_KERNEL_ENTRY(descriptor, required CpuFeature mask, veto rule or nullptr), in",
        "// priority order. x86-64-only kernels are guarded by PBACCEL_X86_KERNELS.",
    ]
    for k in KERNELS:
        mask = " | ".join([CPU_FEATURES[f].enum for f in k.features]) or "0"
        entry = "PBACCEL_KERNEL_ENTRY(%s, %s, %s)" % (
            descriptor_symbol(k.name),
            mask,
            "&" + k.veto if k.veto else "nullptr",
        )
        if _x86_only(k):
            lines += ["#if PBACCEL_X86_KERNELS", entry, "#endif"]
        else:
            lines.append(entry)
    ctx.actions.write(ctx.outputs.out, "\n".join(lines) + "\n")

_kernel_table_inc = rule(
    implementation = _kernel_table_inc_impl,
    attrs = {"out": attr.output(mandatory = True)},
)
