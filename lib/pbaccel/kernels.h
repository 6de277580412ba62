// Copyright 2026 The pbaccel Authors.
//
// kernels.h: which decoding kernel pbaccel uses, and why.
//
// pbaccel decodes packed varints with one of several kernels, each a different technique for a
// different instruction set (see parsers/). The kernel is chosen once per process, on first use:
//
//   1. If the environment variable PBACCEL_KERNEL names a kernel this CPU can run, that kernel.
//      PBACCEL_KERNEL=auto (or unset, or empty) means step 2. An unknown name, or a kernel the CPU
//      cannot run, prints one line to stderr and falls back to step 2: a server must not die of a
//      typo in its environment.
//   2. Otherwise the first kernel in priority order (fastest first) that the CPU supports and that
//      the per-microarchitecture policy does not veto (lib/kernel_registry.cc documents each rule
//      and its reason, e.g. no PEXT-based kernel on AMD Zen 1/2 where PEXT is microcoded).
//
// Every kernel returns identical results for identical input; the choice only changes speed.

#ifndef PBACCEL_KERNELS_H_
#define PBACCEL_KERNELS_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pbaccel {

// One kernel compiled into this build, as seen from this CPU.
struct KernelInfo {
  absl::string_view name;        // "scalar", "portable", ...: also its PBACCEL_KERNEL value.
  absl::string_view summary;     // The technique, in one line.
  bool supported;                // This CPU (and OS) can run it.
  std::string missing_features;  // When !supported: the CPU features it lacks, e.g. "avx512vbmi".
  bool auto_selectable;          // supported, and no policy rule vetoes it on this CPU.
  std::string veto;              // When supported && !auto_selectable: the rule's reason.
};

// Every kernel compiled into this build, in priority order (the auto-selection order).
std::vector<KernelInfo> DescribeKernels();

// Names of the kernels this CPU can run, in priority order. Always includes "scalar".
std::vector<absl::string_view> SupportedKernels();

// The name of the kernel decoding now: the ScopedKernelOverride if one is active, else the one
// chosen on first use (see above). Resolves the choice if it has not happened yet.
absl::string_view ActiveKernelName();

// The kernel auto-selection picks on this CPU, ignoring PBACCEL_KERNEL and overrides.
absl::string_view AutoSelectedKernelName();

// Makes every decode in the process use the named kernel while this object lives, then restores
// the previous choice. Meant for tests and benchmarks that compare kernels; the swap is atomic, so
// decodes running concurrently in other threads stay correct (they use one kernel or the other).
// Overrides nest (destroy in reverse order of creation).
//
// If `name` is unknown or this CPU cannot run it, nothing changes and ok() is false.
class ScopedKernelOverride {
 public:
  explicit ScopedKernelOverride(absl::string_view name);
  ~ScopedKernelOverride();
  ScopedKernelOverride(const ScopedKernelOverride&) = delete;
  ScopedKernelOverride& operator=(const ScopedKernelOverride&) = delete;

  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
  const void* previous_ = nullptr;
};

}  // namespace pbaccel

#endif  // PBACCEL_KERNELS_H_
