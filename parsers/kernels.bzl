"""The kernel table: every decoding kernel, its CPU features and its dispatch rule, in one place.

Everything else about a kernel is derived from its row in KERNELS:
  * its cc_library (source `<name>.cc`), built for its architecture only, with exactly the flags of
    its declared features (and KERNEL_CODE_COPTS, every kernel's);
  * the registry's entry (lib/kernel_registry.cc includes the generated `kernel_table.inc`): the
    descriptor `k<Name>Kernel`, the CpuFeature mask of the same features, the veto rule, and the
    priority order (the order of the rows);
  * //lib:kernel_registry's dependencies, the archive list of the symbol and instruction tests, and
    the features the instruction-scan test (tests/kernel_isa_test.py) allows in each kernel's code.

Adding a kernel: write parsers/<name>.cc (see lib/pbaccel/internal/kernel_abi.h), defining
`extern const KernelDescriptor k<Name>Kernel` (name in CamelCase: masked_vbyte -> kMaskedVbyteKernel),
and add its row below (its architecture, its features), where its speed puts it in the priority
order. Nothing else; a new architecture is one entry of ARCHES (and its config_setting in
parsers/BUILD) and its features' entries in CPU_FEATURES.
"""

load("//tools:optimize.bzl", "parser_copts")

# The architectures a kernel may be built for: the Bazel condition that selects them, the macro
# under which the registry's table (kernel_table.inc) lists their kernels, and the CMake processor
# names (CMAKE_SYSTEM_PROCESSOR, a regular expression). A row of KERNELS with arch = "any" builds
# everywhere.
ARCHES = {
    "x86_64": struct(
        config = "//parsers:x86_64",
        guard = "PBACCEL_X86_KERNELS",
        cmake_processors = "x86_64|AMD64|amd64",
    ),
    "aarch64": struct(
        config = "//parsers:aarch64",
        guard = "PBACCEL_ARM64_KERNELS",
        cmake_processors = "aarch64|arm64|ARM64",
    ),
}

# The CPU features a kernel may declare: the name (as pbaccel::CpuFeatureNames prints it), the
# architecture it belongs to, the CpuFeature enumerator the registry checks, and the compiler flag
# that lets the compiler use it ("" for a feature of the architecture's baseline, which needs none).
CPU_FEATURES = {
    "ssse3": struct(arch = "x86_64", enum = "kCpuSsse3", copt = "-mssse3"),
    "sse4.1": struct(arch = "x86_64", enum = "kCpuSse41", copt = "-msse4.1"),
    "popcnt": struct(arch = "x86_64", enum = "kCpuPopcnt", copt = "-mpopcnt"),
    "avx2": struct(arch = "x86_64", enum = "kCpuAvx2", copt = "-mavx2"),
    "bmi1": struct(arch = "x86_64", enum = "kCpuBmi1", copt = "-mbmi"),
    "bmi2": struct(arch = "x86_64", enum = "kCpuBmi2", copt = "-mbmi2"),
    "lzcnt": struct(arch = "x86_64", enum = "kCpuLzcnt", copt = "-mlzcnt"),
    "avx512f": struct(arch = "x86_64", enum = "kCpuAvx512F", copt = "-mavx512f"),
    "avx512bw": struct(arch = "x86_64", enum = "kCpuAvx512BW", copt = "-mavx512bw"),
    "avx512vl": struct(arch = "x86_64", enum = "kCpuAvx512VL", copt = "-mavx512vl"),
    "avx512cd": struct(arch = "x86_64", enum = "kCpuAvx512CD", copt = "-mavx512cd"),
    "avx512vbmi": struct(arch = "x86_64", enum = "kCpuAvx512Vbmi", copt = "-mavx512vbmi"),
    "avx512vbmi2": struct(arch = "x86_64", enum = "kCpuAvx512Vbmi2", copt = "-mavx512vbmi2"),
    "neon": struct(arch = "aarch64", enum = "kCpuNeon", copt = ""),
    "sve": struct(arch = "aarch64", enum = "kCpuSve", copt = "-march=armv8.2-a+sve"),
}

# The kernels, in priority order: auto-selection takes the first row whose features the CPU has and
# whose veto (a rule in lib/kernel_registry.cc, with its evidence) does not reject the CPU. `arch`
# is where the kernel builds (a key of ARCHES, or "any"); its features must be that architecture's.
# The last row must run anywhere. One registry entry comes before these rows: avx512_bmi2, the
# avx512 and bmi2 rows' decoders split by format, for AMD Zen 5 and one Intel Xeon
# (lib/kernel_registry.cc).
KERNELS = [
    struct(
        name = "avx512",
        arch = "x86_64",
        # vpermb (VBMI), vpcompressb (VBMI2), vplzcnt (CD), pdep (BMI2), tzcnt (BMI1), lzcnt.
        features = ["avx512f", "avx512bw", "avx512vl", "avx512cd", "avx512vbmi", "avx512vbmi2",
                    "avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        veto = "VetoClockDrop",
        # Tests count the short payloads its tiny decoders take in 16-bit lanes: //parsers:avx512_probed.
        probed = True,
    ),
    struct(
        name = "bmi2",
        arch = "x86_64",
        # pext/pdep/bzhi (BMI2) per 8-byte step, an AVX2 fan-out; andn (BMI1) and lzcnt where the
        # compiler picks them.
        features = ["avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        veto = "VetoSlowPext",
        # Tests count its 16-byte steps (kernel_probes.h): //parsers:bmi2_probed.
        probed = True,
    ),
    struct(
        name = "masked_vbyte_avx2",
        arch = "x86_64",
        features = ["avx2", "ssse3", "sse4.1", "popcnt"],
        veto = None,
        probed = True,
    ),
    struct(
        name = "masked_vbyte",
        arch = "x86_64",
        features = ["ssse3", "sse4.1", "popcnt"],
        veto = None,
        # Tests count the 16-byte steps of its short-payload decoders: //parsers:masked_vbyte_probed.
        probed = True,
    ),
    struct(
        name = "sve",
        arch = "aarch64",
        # The neon kernel's decoder with SVE's predicated LD1B for runs of one-byte varints; it pays
        # with vectors of 256 bits or more only (docs/arm64.md).
        features = ["neon", "sve"],
        veto = "VetoShortSveVectors",
        probed = True,
    ),
    struct(
        name = "neon",
        arch = "aarch64",
        # TBL shuffles from the masked_vbyte shape tables, SLI joins (Advanced SIMD: baseline).
        features = ["neon"],
        veto = None,
        # Tests count its 16-byte steps (kernel_probes.h): //parsers:neon_probed.
        probed = True,
    ),
    struct(name = "portable", arch = "any", features = [], veto = None),
    struct(name = "scalar", arch = "any", features = [], veto = None),
]

# Flags every kernel library is compiled with, whatever its features: its functions start at a
# 64-byte line, so a kernel's speed does not depend on where a program's linker puts it
# (docs/kernels.md, "Code placement: every kernel function at a 64-byte line"). CMake reads this
# list too; //tests:kernel_symbols_test checks the alignment (kernel_function_alignment()).
KERNEL_CODE_COPTS = ["-falign-functions=64"]

def kernel_function_alignment():
    """The byte alignment KERNEL_CODE_COPTS gives every kernel function."""
    for copt in KERNEL_CODE_COPTS:
        if copt.startswith("-falign-functions="):
            return int(copt[len("-falign-functions="):])
    fail("KERNEL_CODE_COPTS has no -falign-functions=N")

def kernel_copts(kernel):
    """The compiler flags of `kernel`: exactly one per declared feature."""
    return [CPU_FEATURES[f].copt for f in kernel.features if CPU_FEATURES[f].copt]

def _kernel_library_copts(kernel):
    """kernel_copts(kernel) and KERNEL_CODE_COPTS, optimized in -c fastbuild as the parsers
    calling it are (tools/optimize.bzl): a kernel's short-payload decoders run on the parse's
    stack."""
    return kernel_copts(kernel) + KERNEL_CODE_COPTS + parser_copts()

def probed_kernel_defines():
    """For tests/kernel_probes_test.cc: PBACCEL_PROBED_<NAME>_FEATURES=<CpuFeature mask> for each
    row with probed = True (the features a CPU needs to run its `_probed` library)."""
    return [
        "PBACCEL_PROBED_%s_FEATURES=%s" % (
            k.name.upper(),
            "|".join([CPU_FEATURES[f].enum for f in k.features]) or "0",
        )
        for k in KERNELS
        if getattr(k, "probed", False)
    ]

def descriptor_symbol(name):
    """The C++ name of a kernel's KernelDescriptor: masked_vbyte_avx2 -> kMaskedVbyteAvx2Kernel."""
    return "k" + "".join([part.capitalize() for part in name.split("_")]) + "Kernel"

def _per_arch(make, *args):
    """make(kernels, *args) for the rows that build everywhere, plus a select() of it for the rows
    of each architecture in ARCHES."""
    anywhere = make([k for k in KERNELS if k.arch == "any"], *args)
    by_arch = {
        ARCHES[arch].config: make([k for k in KERNELS if k.arch == arch], *args)
        for arch in ARCHES
    }
    by_arch["//conditions:default"] = []
    return anywhere + select(by_arch)

def _labels(kernels, suffix):
    return ["//parsers:" + k.name + suffix for k in kernels]

def _probed_labels(kernels):
    return ["//parsers:" + k.name + "_probed" for k in kernels if getattr(k, "probed", False)]

def probed_kernel_targets():
    """Labels of the `_probed` libraries of the rows with probed = True (a select(): each
    architecture's only there), for tests/kernel_probes_test.cc."""
    return _per_arch(_probed_labels)

def kernel_targets(suffix = ""):
    """Labels of every kernel's cc_library (a select(): each architecture's only there).

    With suffix = "_archives": the filegroups of their built files, for tests that read them.
    """
    return _per_arch(_labels, suffix)

def _guards(kernels):
    return {ARCHES[k.arch].guard + "=1": True for k in kernels if k.arch != "any"}.keys()

def kernel_defines():
    """The registry's defines: the guard macro of the architecture being built (kernel_table.inc)."""
    return _per_arch(_guards)

def pbaccel_kernels():
    """Declares one cc_library per row of KERNELS (and a `_probed` one for rows with probed =
    True), plus what the registry and the tests read."""
    for k in KERNELS:
        if k.arch != "any" and k.arch not in ARCHES:
            fail("kernel %s names unknown architecture %s" % (k.name, k.arch))
        for f in k.features:
            if f not in CPU_FEATURES:
                fail("kernel %s declares unknown CPU feature %s" % (k.name, f))
            if CPU_FEATURES[f].arch != k.arch:
                fail("kernel %s (%s) declares %s, a feature of %s" %
                     (k.name, k.arch, f, CPU_FEATURES[f].arch))
        # Off its architecture a kernel's library is empty (`//...` builds every target).
        srcs = [k.name + ".cc"]
        if k.arch != "any":
            srcs = select({ARCHES[k.arch].config: srcs, "//conditions:default": []})
        native.cc_library(
            name = k.name,
            srcs = srcs,
            copts = _kernel_library_copts(k),
            deps = [":kernel_abi"],
            # Keeps the descriptor, which only the registry refers to.
            alwayslink = True,
            visibility = ["//lib:__pkg__", "//tests:__pkg__", "//bench:__pkg__"],
        )
        if getattr(k, "probed", False):
            # The same kernel counting its fast paths (parsers/kernel_probes.h), for tests only;
            # it defines the same descriptor, so a test links it instead of the registry.
            native.cc_library(
                name = k.name + "_probed",
                srcs = srcs,
                copts = _kernel_library_copts(k) + ["-DPBACCEL_KERNEL_PROBES"],
                deps = [":kernel_abi"],
                alwayslink = True,
                testonly = True,
                visibility = ["//tests:__pkg__"],
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
        args = _per_arch(_isa_test_args),
        data = kernel_targets(suffix = "_archives"),
        **kwargs
    )

def _kernel_table_inc_impl(ctx):
    lines = [
        "// Generated from the KERNELS table in parsers/kernels.bzl. Do not edit.",
        "//",
        "// PBACCEL_KERNEL_ENTRY(descriptor, required CpuFeature mask, veto rule or nullptr), in",
        "// priority order. A kernel of one architecture is guarded by its macro (ARCHES).",
    ]
    for k in KERNELS:
        mask = " | ".join([CPU_FEATURES[f].enum for f in k.features]) or "0"
        entry = "PBACCEL_KERNEL_ENTRY(%s, %s, %s)" % (
            descriptor_symbol(k.name),
            mask,
            "&" + k.veto if k.veto else "nullptr",
        )
        if k.arch != "any":
            lines += ["#if " + ARCHES[k.arch].guard, entry, "#endif"]
        else:
            lines.append(entry)
    ctx.actions.write(ctx.outputs.out, "\n".join(lines) + "\n")

_kernel_table_inc = rule(
    implementation = _kernel_table_inc_impl,
    attrs = {"out": attr.output(mandatory = True)},
)
