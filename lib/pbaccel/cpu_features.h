// Copyright 2026 The pbaccel Authors.
//
// cpu_features.h: what the CPU running pbaccel can do, as far as pbaccel's kernels care.
//
// pbaccel builds with baseline flags and picks its decoding kernel at run time. This header
// exposes the detection it uses. On x86-64: CPUID feature bits, the operating system's support for
// the AVX and AVX-512 register state (XGETBV), and the vendor/family/model that the dispatch policy
// needs for per-microarchitecture rules (see pbaccel/kernels.h). On AArch64 (Linux): the kernel's
// hardware capabilities (getauxval(AT_HWCAP), AT_HWCAP2), and the main ID register (MIDR_EL1,
// which Linux emulates for user space where HWCAP_CPUID says so) as vendor = implementer, family
// = implementer code, model = part number.
//
// On other architectures every feature reads as absent.

#ifndef PBACCEL_CPU_FEATURES_H_
#define PBACCEL_CPU_FEATURES_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstdint>
#include <string>

namespace pbaccel {

// One bit per instruction-set extension a kernel may require. A bit is set only when the CPU has
// the extension AND the operating system saves the register state it needs (YMM for AVX2,
// opmask/ZMM for AVX-512), so a set bit means the instructions can actually be used.
enum CpuFeature : uint32_t {
  kCpuSsse3 = 1u << 0,
  kCpuSse41 = 1u << 1,
  kCpuPopcnt = 1u << 2,
  kCpuAvx2 = 1u << 3,
  kCpuBmi1 = 1u << 4,
  kCpuBmi2 = 1u << 5,
  kCpuLzcnt = 1u << 6,
  kCpuAvx512F = 1u << 7,
  kCpuAvx512BW = 1u << 8,
  kCpuAvx512VL = 1u << 9,
  kCpuAvx512CD = 1u << 10,
  kCpuAvx512Vbmi = 1u << 11,
  kCpuAvx512Vbmi2 = 1u << 12,
  // AArch64.
  kCpuNeon = 1u << 13,  // Advanced SIMD (HWCAP_ASIMD): every AArch64 CPU Linux runs on has it.
  kCpuSve = 1u << 14,
  kCpuSve2 = 1u << 15,
};

enum class CpuVendor { kOther, kIntel, kAmd, kArm };

// What DetectCpu() found. Plain data, so tests can build one by hand to exercise the dispatch
// policy for CPUs they do not run on.
struct CpuInfo {
  CpuVendor vendor = CpuVendor::kOther;
  uint32_t family = 0;    // Display family (base family + extended family, as vendors document).
  uint32_t model = 0;     // Display model (extended model folded in).
  uint32_t features = 0;  // Bitwise OR of CpuFeature values usable on this machine.
  std::string brand;      // e.g. "AMD EPYC 9B45"; empty when the CPU does not report one.
  // AArch64 with SVE: the vector length in bytes (16 for 128-bit vectors, up to 256) this process
  // started with; 0 without SVE.
  uint32_t sve_vector_bytes = 0;

  bool Has(uint32_t required) const { return (features & required) == required; }
};

// The CPU this process runs on. Detected once (thread-safe) on first call.
const CpuInfo& DetectedCpu();

// "sse4.1 avx2 bmi2 ..." for the given feature mask, in CpuFeature order; "(none)" for 0.
std::string CpuFeatureNames(uint32_t features);

// "AMD", "Intel", "Arm" (an AArch64 CPU, whoever designed it: its implementer code is the
// family) or "other".
const char* CpuVendorName(CpuVendor vendor);

// A multi-line human-readable report: vendor, family/model in hex, brand, and every feature
// pbaccel knows with yes/no. Used by //bench:compare's header.
std::string DescribeCpu(const CpuInfo& cpu);

}  // namespace pbaccel

#endif  // PBACCEL_CPU_FEATURES_H_
