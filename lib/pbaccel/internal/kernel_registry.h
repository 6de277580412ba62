// Copyright 2026 The pbaccel Authors.
//
// Internal view of the kernel registry: the entries, the dispatch policy as a pure function of a
// CpuInfo (so tests can exercise every rule on one machine), and the active kernel.

#ifndef PBACCEL_INTERNAL_KERNEL_REGISTRY_H_
#define PBACCEL_INTERNAL_KERNEL_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "pbaccel/cpu_features.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {

struct KernelEntry {
  const KernelDescriptor* kernel;
  uint32_t required_features;  // CpuFeature bits the kernel's instructions need.
  // The reason auto-selection must skip this kernel on `cpu` although the CPU can run it, or
  // nullptr. Each rule is a function below kRegistry in kernel_registry.cc, with its evidence.
  const char* (*veto)(const CpuInfo& cpu);
};

// All kernels compiled into this build, in priority order (fastest first, "scalar" last).
absl::Span<const KernelEntry> KernelRegistry();

// The entry named `name`, or nullptr.
const KernelEntry* FindKernel(absl::string_view name);

// The dispatch policy: the kernel for `cpu` given the value of PBACCEL_KERNEL (`requested`, empty
// or "auto" for automatic). When `requested` cannot be honoured, *warning receives the one-line
// explanation to print; otherwise it is left empty.
const KernelEntry& SelectKernel(const CpuInfo& cpu, absl::string_view requested,
                                std::string* warning);

// Policy rules, exposed for tests.
// PEXT/PDEP are microcoded on AMD before Zen 3 (families 0x15-0x18).
bool PextIsMicrocoded(const CpuInfo& cpu);
// 512-bit instructions lower the core clock on Intel Skylake-SP/-X, Cascade Lake, Cooper Lake.
bool Avx512LowersClock(const CpuInfo& cpu);
// avx512_bmi2, the registry's first entry (avx512's decoders for sint64 and the delta formats,
// bmi2's for the other formats, whose long payloads of long values SplitRoutesToAvx512 hands to
// avx512's block decoder), beats avx512 in real messages: AMD Zen 5 (family 0x1a) and the Intel
// Xeon KVM reports as family 6 model 0xa7.
bool SplitAvx512Bmi2Wins(const CpuInfo& cpu);
// Whether avx512_bmi2's block decoder hands the payload [p, end) of a format it takes from bmi2
// to avx512's instead: a long payload of long values (at least 256 bytes, and more than 16
// continuation bytes among its first 32: its values average over two bytes), where avx512's
// 64-byte blocks are two to three times as fast (docs/kernels.md, "avx512_bmi2: long values to
// avx512"). REQUIRES: p <= end.
bool SplitRoutesToAvx512(const uint8_t* p, const uint8_t* end);
// The block decoder avx512_bmi2's entry for `format` (one it takes from bmi2) calls for the
// payload [p, end): avx512's if SplitRoutesToAvx512, else bmi2's. x86-64 builds only.
DecodeFn SplitBlockDecoder(VarintFormat format, bool strict, const uint8_t* p, const uint8_t* end);

// What ActiveKernel() reads (defined in kernel_registry.cc; set only there, by
// ScopedKernelOverride, ScopedActiveKernelForTesting and ResolveAutoKernel): the override if one
// is in force, else the automatic choice (PBACCEL_KERNEL's when it names a usable kernel) once
// resolved, else nullptr. One pointer, so that the kernel fetch each packed field makes is one
// load and one test.
extern std::atomic<const KernelDescriptor*> g_active;
// Resolves the automatic choice (once, thread-safe), makes it active unless an override is, and
// returns it. Out of line and cold: inlined, its locals made every ActiveKernel() call save six
// registers and check a stack canary (about 30 instructions per call, 5% of a generated parser's
// time on the tiles under callgrind).
const KernelDescriptor& ResolveAutoKernel();

// The kernel to decode with now: one atomic load, inline (generated parsers ask once per packed
// field, and a call per field showed in their profile); callers fetch it once per payload, never
// per varint.
inline const KernelDescriptor& ActiveKernel() {
  const KernelDescriptor* active = g_active.load(std::memory_order_acquire);
  return ABSL_PREDICT_TRUE(active != nullptr) ? *active : ResolveAutoKernel();
}

// For tests: makes `kernel` (a descriptor the test built, e.g. a registered one with a function
// wrapped to count its calls; it must outlive this object) the active kernel, as
// ScopedKernelOverride does for a registered one by name. Not thread-safe against other overrides.
class ScopedActiveKernelForTesting {
 public:
  explicit ScopedActiveKernelForTesting(const KernelDescriptor& kernel);
  ~ScopedActiveKernelForTesting();
  ScopedActiveKernelForTesting(const ScopedActiveKernelForTesting&) = delete;
  ScopedActiveKernelForTesting& operator=(const ScopedActiveKernelForTesting&) = delete;

 private:
  const KernelDescriptor* previous_;
};

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_KERNEL_REGISTRY_H_
