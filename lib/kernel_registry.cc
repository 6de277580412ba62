// Copyright 2026 The pbaccel Authors.
//
// The kernel registry and the dispatch policy. The entries (descriptor, required CPU features,
// veto rule, priority order) come from the kernel table in parsers/kernels.bzl, through the
// generated parsers/kernel_table.inc; this file holds the veto rules and the selection logic.
// Adding a kernel: parsers/<name>.cc and one row in that table (see kernels.bzl).

#include "pbaccel/internal/kernel_registry.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pbaccel/kernels.h"

namespace pbaccel {
namespace internal {

// Defined in parsers/<name>.cc, one per row of the kernel table.
#define PBACCEL_KERNEL_ENTRY(descriptor, features, veto) extern const KernelDescriptor descriptor;
#include "parsers/kernel_table.inc"
#undef PBACCEL_KERNEL_ENTRY

// --- Policy rules -------------------------------------------------------------------------------
// The policy is per microarchitecture, not per feature flag: a CPU may report an extension that it
// executes so slowly that the kernel using it loses to a plainer one. Each rule states its
// evidence.

// AMD implemented PEXT/PDEP in microcode before Zen 3: on Excavator (family 0x15) and Zen 1/Zen+/
// Zen 2 (family 0x17, and Hygon's 0x18) one PEXT takes 18 uops and a data-dependent 8-300 cycles
// (Agner Fog's instruction tables; uops.info), against 3 cycles on Intel since Haswell and on Zen 3
// and later (family 0x19+). A PEXT-per-word kernel there is several times slower than scalar code.
bool PextIsMicrocoded(const CpuInfo& cpu) {
  return cpu.vendor == CpuVendor::kAmd && cpu.family >= 0x15 && cpu.family <= 0x18;
}

// Intel Skylake-SP/Skylake-X, Cascade Lake and Cooper Lake (family 6, model 0x55) drop the core's
// clock by one or two license levels while 512-bit instructions run, and keep it down for about
// 2 ms afterwards (Intel Optimization Manual §2.5.3; Lemire, "AVX-512: when and how to use these
// new instructions", 2018). A server that decodes one packed field between other work would pay
// that on all of it; this is also upstream protobuf's standing objection to AVX-512 decoders.
// Ice Lake and later Intel cores, and AMD Zen 4/5, show no meaningful license drop
// (//bench:avx512_clock; docs/kernels.md, "The 512-bit clock rule").
bool Avx512LowersClock(const CpuInfo& cpu) {
  return cpu.vendor == CpuVendor::kIntel && cpu.family == 6 && cpu.model == 0x55;
}

// Where the avx512_bmi2 split (avx512's decoders for sint64 and the delta formats, bmi2's for every
// other format but their long payloads of long values: SplitRoutesToAvx512) beats avx512 whole. In
// a reused message, a 512-bit store under a partial mask into a line not in cache (avx512's
// one-byte values, its block decoder's last group) holds up the loads after it, and bmi2's whole
// 8-byte steps do not; on long sint64 payloads (OSM's ids, coordinates and refs) avx512's 64-byte
// blocks still win. Measured with the split in place of avx512 on testing/data and held-out files,
// every mode (docs/kernels.md, "avx512_bmi2"):
// - AMD Zen 5 (family 0x1a), where the split was found (then with avx512's int64 and uint64 too;
//   pprof, the one corpus with those, read the same under both kernels there);
// - the Intel Xeon that KVM reports as family 6 model 0xa7 (AMX, AVX512-FP16, 480 MiB of L3: a
//   Granite Rapids-class host), where bmi2's int64 and uint64 decoders also beat avx512's (pprof's
//   messages). A real model 0xa7 (Rocket Lake) would take it too, unmeasured.
// Not on Zen 4 (family 0x19), where avx512 led bmi2 on tiles; other Intel models are unmeasured.
bool SplitAvx512Bmi2Wins(const CpuInfo& cpu) {
  return (cpu.vendor == CpuVendor::kAmd && cpu.family == 0x1A) ||
         (cpu.vendor == CpuVendor::kIntel && cpu.family == 6 && cpu.model == 0xA7);
}

namespace {

// SplitRoutesToAvx512's thresholds: at least a few 64-byte blocks, and values averaging over two
// bytes, so that payloads of one- and two-byte values (tiles' geometry and tags, OSM's keys and
// string indexes), on which bmi2 wins in real messages, stay with bmi2.
constexpr size_t kRouteMinBytes = 256;
constexpr uint64_t kRouteMinContinuations = 17;  // Of the first 32 bytes.

// The word-at-a-time helpers (LoadLittleEndian64, kHighBits, CountHighBits), at baseline flags.
#include "pbaccel/internal/varint_word-inl.h"

}  // namespace

bool SplitRoutesToAvx512(const uint8_t* p, const uint8_t* end) {
  if (static_cast<size_t>(end - p) < kRouteMinBytes) return false;
  uint64_t continuations = 0;
  for (int i = 0; i < 4; ++i) {
    continuations += CountHighBits(LoadLittleEndian64(p + 8 * i) & kHighBits);
  }
  return continuations >= kRouteMinContinuations;
}

#if PBACCEL_X86_KERNELS
DecodeFn SplitBlockDecoder(VarintFormat format, bool strict, const uint8_t* p, const uint8_t* end) {
  const KernelDescriptor& k = SplitRoutesToAvx512(p, end) ? kAvx512Kernel : kBmi2Kernel;
  return k.Decoder(format, strict);
}
#endif  // PBACCEL_X86_KERNELS

namespace {

#if PBACCEL_X86_KERNELS
// Veto functions for registry entries (later kernels use them: the PEXT kernel vetoes on
// PextIsMicrocoded, the 512-bit kernel on Avx512LowersClock).
const char* VetoSlowPext(const CpuInfo& cpu) {
  return PextIsMicrocoded(cpu) ? "PEXT/PDEP are microcoded on this CPU (AMD before Zen 3)"
                               : nullptr;
}

const char* VetoClockDrop(const CpuInfo& cpu) {
  return Avx512LowersClock(cpu)
             ? "512-bit instructions lower the core clock on this CPU (Skylake-SP/Cascade Lake)"
             : nullptr;
}

const char* VetoUnlessSplitWins(const CpuInfo& cpu) {
  return SplitAvx512Bmi2Wins(cpu) ? nullptr
                                  : "measured faster than avx512 only on AMD Zen 5 and the Intel "
                                    "Xeon KVM reports as model 0xa7";
}

// The features of each row of the table, as k<Name>KernelFeatures.
#define PBACCEL_KERNEL_ENTRY(descriptor, features, veto) \
  constexpr uint32_t descriptor##Features = features;
#include "parsers/kernel_table.inc"
#undef PBACCEL_KERNEL_ENTRY

// The formats avx512_bmi2 decodes with avx512: sint64 (long payloads of many-byte values, where
// avx512's 64-byte blocks win) and the delta formats, whose running sums avx512 takes in its
// vectors: faster than the split's delta uint32 through bmi2 on the Xeon, delta uint64 mixed and
// kept, Zen 5 unmeasured (docs/kernels.md, "Delta formats: the gaps, then their sums"). Only
// callers of the delta span and field forms decode them, not the generated parsers.
constexpr bool SplitTakesAvx512(VarintFormat format) {
  return format == VarintFormat::kSInt64 || IsDeltaFormat(format);
}

// avx512_bmi2's block decoder for format F (strict if kStrict) where the split takes bmi2: bmi2's,
// or avx512's for a payload SplitRoutesToAvx512. Each call decides for the payload it is given
// (both decoders are stateless: a call resuming after kOutputFull may take the other one).
template <int F, bool kStrict>
DecodeResult RoutedBlockDecode(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                               uint64_t delta_base) {
  return SplitBlockDecoder(static_cast<VarintFormat>(F), kStrict, p, end)(p, end, out, cap,
                                                                          delta_base);
}

template <int... F>
constexpr std::array<std::array<DecodeFn, 2>, sizeof...(F)> RoutedBlockDecoders(
    std::integer_sequence<int, F...>) {
  return {{{&RoutedBlockDecode<F, false>, &RoutedBlockDecode<F, true>}...}};
}
constexpr auto kRoutedBlockDecoders =
    RoutedBlockDecoders(std::make_integer_sequence<int, kNumVarintFormats>());

// avx512_bmi2: avx512's decoders (block, tiny, bounded tiny, window) for the formats
// SplitTakesAvx512 names, bmi2's for the others, whose block decoder is RoutedBlockDecode (bmi2's,
// or avx512's for long payloads of long values); avx512's terminator count and sizers, and its
// other settings (both kernels hand short payloads to their decoders; the spare room offered is
// the larger of the two). Not a kernel of its own code, so not a row of parsers/kernels.bzl: every
// function in it is one of those two kernels', tested under them and, through this entry,
// together.
KernelDescriptor SplitByFormat(const char* name, const char* summary) {
  KernelDescriptor k = kAvx512Kernel;
  k.name = name;
  k.summary = summary;
  for (int f = 0; f < kNumVarintFormats; ++f) {
    const bool takes_avx512 = SplitTakesAvx512(static_cast<VarintFormat>(f));
    const KernelDescriptor& from = takes_avx512 ? kAvx512Kernel : kBmi2Kernel;
    for (int strict = 0; strict < 2; ++strict) {
      k.decode[f][strict] = takes_avx512 ? from.decode[f][strict] : kRoutedBlockDecoders[f][strict];
    }
    k.decode_tiny[f] = from.decode_tiny[f];
    k.decode_tiny_bounded[f] = from.decode_tiny_bounded[f];
    k.decode_window[f] = from.decode_window[f];
  }
  if (kBmi2Kernel.bounded_tiny_spare_values > k.bounded_tiny_spare_values) {
    k.bounded_tiny_spare_values = kBmi2Kernel.bounded_tiny_spare_values;
  }
  return k;
}

// Zero until Entries() fills it on first use: not a dynamic initializer, because a program's own
// static initializer, in another file, may parse (or list the kernels) before this file's have run.
// Its parts, the table's descriptors, are constant-initialized, so readable at any time.
KernelDescriptor g_avx512_bmi2;

void FillSplitEntries() {
  g_avx512_bmi2 =
      SplitByFormat("avx512_bmi2",
                    "avx512 for sint64 and the delta formats, bmi2 for the other formats but their "
                    "long payloads of long values (AMD Zen 5 and an Intel Xeon, where bmi2's "
                    "whole steps beat avx512's masked stores in real messages and avx512 still "
                    "wins on long sint64 payloads and long values)");
}
#endif  // PBACCEL_X86_KERNELS

#if PBACCEL_ARM64_KERNELS
// The sve kernel widens runs of one-byte varints a vector length at a time; with 128-bit vectors
// (Neoverse N2/V2: Graviton 4, Axion, Cobalt 100) that is NEON's width, and the neon kernel's
// steps retire fewer instructions (docs/arm64.md, "SVE").
const char* VetoShortSveVectors(const CpuInfo& cpu) {
  return cpu.sve_vector_bytes < 32
             ? "SVE vectors under 256 bits: the neon kernel does this work in fewer instructions"
             : nullptr;
}
#endif  // PBACCEL_ARM64_KERNELS

// First avx512_bmi2 (avx512's sint64 decoders with bmi2's others, on AMD Zen 5 and one Intel Xeon;
// defined above, not a row of the table), then the rows of parsers/kernels.bzl, in priority order:
// avx512 (64-byte blocks; wherever the CPU has VBMI/VBMI2 and no clock drop), bmi2 (fast PEXT and
// AVX2), masked_vbyte_avx2 (AVX2 where PEXT is slow: AMD Excavator, Zen 1/2), masked_vbyte (x86-64
// without AVX2); on AArch64 sve (SVE vectors of 256 bits or more), neon; portable, scalar. The
// measurements behind that order are in docs/kernels.md and docs/arm64.md.
const KernelEntry kRegistry[] = {
#if PBACCEL_X86_KERNELS
    {&g_avx512_bmi2, kAvx512KernelFeatures | kBmi2KernelFeatures, &VetoUnlessSplitWins},
#endif
#define PBACCEL_KERNEL_ENTRY(descriptor, features, veto) {&descriptor, features, veto},
#include "parsers/kernel_table.inc"
#undef PBACCEL_KERNEL_ENTRY
};

// kRegistry, its split entries filled (once, thread-safe): every use of the registry goes through
// this.
absl::Span<const KernelEntry> Entries() {
#if PBACCEL_X86_KERNELS
  static const bool filled = (FillSplitEntries(), true);
  static_cast<void>(filled);
#endif
  return kRegistry;
}

std::string KnownNames() {
  std::vector<absl::string_view> names;
  for (const KernelEntry& e : Entries()) names.push_back(e.kernel->name);
  return absl::StrJoin(names, ", ");
}

const KernelEntry& AutoSelect(const CpuInfo& cpu) {
  const absl::Span<const KernelEntry> entries = Entries();
  for (const KernelEntry& e : entries) {
    if (cpu.Has(e.required_features) && (e.veto == nullptr || e.veto(cpu) == nullptr)) return e;
  }
  return entries.back();  // scalar runs anywhere.
}

const KernelDescriptor* ResolveFromEnvironment() {
  const char* env = std::getenv("PBACCEL_KERNEL");
  std::string warning;
  const KernelEntry& chosen = SelectKernel(DetectedCpu(), env == nullptr ? "" : env, &warning);
  // The library's only output: a misconfiguration must be visible, and must not be fatal.
  if (!warning.empty()) std::fprintf(stderr, "pbaccel: %s\n", warning.c_str());
  return chosen.kernel;
}

}  // namespace

std::atomic<const KernelDescriptor*> g_active{nullptr};

namespace {

// ScopedKernelOverride's (or a test's) kernel, used instead of the automatic choice; or nullptr.
std::atomic<const KernelDescriptor*> g_override{nullptr};

// The automatic choice (or PBACCEL_KERNEL's) once resolved; nullptr before the first call.
std::atomic<const KernelDescriptor*> g_auto{nullptr};

// Makes `kernel` (or, for nullptr, the automatic choice) the active one; returns the override it
// replaces. Overrides are not thread-safe against each other (kernels.h); decodes in other threads
// use the old kernel or the new one.
const KernelDescriptor* SetOverride(const KernelDescriptor* kernel) {
  const KernelDescriptor* previous = g_override.exchange(kernel, std::memory_order_acq_rel);
  // Without an override: the automatic choice, or nullptr until ResolveAutoKernel sets it.
  g_active.store(kernel != nullptr ? kernel : g_auto.load(std::memory_order_acquire),
                 std::memory_order_release);
  return previous;
}

}  // namespace

ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD const KernelDescriptor& ResolveAutoKernel() {
  static const KernelDescriptor* const kernel = ResolveFromEnvironment();  // Once, thread-safe.
  g_auto.store(kernel, std::memory_order_release);
  // Active unless an override came first (then that one stays; this call still returns the
  // automatic choice, which is as correct).
  const KernelDescriptor* none = nullptr;
  g_active.compare_exchange_strong(none, kernel, std::memory_order_acq_rel);
  return *kernel;
}

absl::Span<const KernelEntry> KernelRegistry() { return Entries(); }

const KernelEntry* FindKernel(absl::string_view name) {
  for (const KernelEntry& e : Entries()) {
    if (name == e.kernel->name) return &e;
  }
  return nullptr;
}

const KernelEntry& SelectKernel(const CpuInfo& cpu, absl::string_view requested,
                                std::string* warning) {
  warning->clear();
  const KernelEntry& automatic = AutoSelect(cpu);
  if (requested.empty() || requested == "auto") return automatic;
  const KernelEntry* entry = FindKernel(requested);
  if (entry == nullptr) {
    *warning = absl::StrCat("PBACCEL_KERNEL=", requested, " is not a kernel (known: ", KnownNames(),
                            ", auto); using the automatic choice '", automatic.kernel->name, "'");
    return automatic;
  }
  if (!cpu.Has(entry->required_features)) {
    *warning = absl::StrCat("PBACCEL_KERNEL=", requested, ": this CPU lacks ",
                            CpuFeatureNames(entry->required_features & ~cpu.features),
                            "; using the automatic choice '", automatic.kernel->name, "'");
    return automatic;
  }
  return *entry;  // An explicit request overrides policy vetoes: the user asked for it.
}

ScopedActiveKernelForTesting::ScopedActiveKernelForTesting(const KernelDescriptor& kernel)
    : previous_(SetOverride(&kernel)) {}

ScopedActiveKernelForTesting::~ScopedActiveKernelForTesting() { SetOverride(previous_); }

}  // namespace internal

std::vector<KernelInfo> DescribeKernels() {
  const CpuInfo& cpu = DetectedCpu();
  std::vector<KernelInfo> out;
  for (const internal::KernelEntry& e : internal::KernelRegistry()) {
    KernelInfo info;
    info.name = e.kernel->name;
    info.summary = e.kernel->summary;
    info.supported = cpu.Has(e.required_features);
    if (!info.supported)
      info.missing_features = CpuFeatureNames(e.required_features & ~cpu.features);
    const char* veto = info.supported && e.veto != nullptr ? e.veto(cpu) : nullptr;
    info.auto_selectable = info.supported && veto == nullptr;
    if (veto != nullptr) info.veto = veto;
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<absl::string_view> SupportedKernels() {
  std::vector<absl::string_view> out;
  const CpuInfo& cpu = DetectedCpu();
  for (const internal::KernelEntry& e : internal::KernelRegistry()) {
    if (cpu.Has(e.required_features)) out.push_back(e.kernel->name);
  }
  return out;
}

absl::string_view ActiveKernelName() { return internal::ActiveKernel().name; }

absl::string_view AutoSelectedKernelName() {
  std::string unused;
  return internal::SelectKernel(DetectedCpu(), "", &unused).kernel->name;
}

ScopedKernelOverride::ScopedKernelOverride(absl::string_view name) {
  const internal::KernelEntry* entry = internal::FindKernel(name);
  if (entry == nullptr || !DetectedCpu().Has(entry->required_features)) return;
  ok_ = true;
  previous_ = internal::SetOverride(entry->kernel);
}

ScopedKernelOverride::~ScopedKernelOverride() {
  if (ok_) internal::SetOverride(static_cast<const internal::KernelDescriptor*>(previous_));
}

}  // namespace pbaccel
