// Copyright 2026 The pbaccel Authors.
//
// CPU detection. x86-64: CPUID and XGETBV (Intel SDM vol. 2A "CPUID", AMD APM vol. 3
// "CPUID Fn0000_0001/0000_0007/8000_0001"; XCR0 bit layout from Intel SDM vol. 1 §13.3). AArch64
// Linux: getauxval's hardware capabilities (Linux's Documentation/arch/arm64/elf_hwcaps.rst) and
// MIDR_EL1 (Arm ARM D23.2, "MIDR_EL1": implementer bits 31:24, part number bits 15:4), which Linux
// emulates for user space when HWCAP_CPUID is set (Documentation/arch/arm64/cpu-feature-registers).

#include "pbaccel/cpu_features.h"

#include <cstdio>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PBACCEL_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#define PBACCEL_ARM64_LINUX 1
#endif

namespace pbaccel {
namespace {

#if PBACCEL_X86
struct Regs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs Cpuid(uint32_t leaf, uint32_t subleaf) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

// XGETBV(0): which register states the OS saves on context switch. Only valid when CPUID.1:ECX
// reports OSXSAVE (bit 27).
uint64_t ReadXcr0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

CpuInfo Detect() {
  CpuInfo cpu;
  const Regs leaf0 = Cpuid(0, 0);
  const uint32_t max_leaf = leaf0.eax;
  char vendor[13] = {};
  std::memcpy(vendor + 0, &leaf0.ebx, 4);
  std::memcpy(vendor + 4, &leaf0.edx, 4);
  std::memcpy(vendor + 8, &leaf0.ecx, 4);
  if (std::strcmp(vendor, "GenuineIntel") == 0) cpu.vendor = CpuVendor::kIntel;
  if (std::strcmp(vendor, "AuthenticAMD") == 0) cpu.vendor = CpuVendor::kAmd;
  if (max_leaf < 1) return cpu;

  const Regs leaf1 = Cpuid(1, 0);
  // Family/model encoding: the extended fields apply when base family is 0xF (family) or when
  // base family is 6 or 0xF (model).
  const uint32_t base_family = (leaf1.eax >> 8) & 0xF;
  const uint32_t base_model = (leaf1.eax >> 4) & 0xF;
  const uint32_t ext_family = (leaf1.eax >> 20) & 0xFF;
  const uint32_t ext_model = (leaf1.eax >> 16) & 0xF;
  cpu.family = base_family == 0xF ? base_family + ext_family : base_family;
  cpu.model =
      (base_family == 0x6 || base_family == 0xF) ? (ext_model << 4) | base_model : base_model;

  uint32_t f = 0;
  if (leaf1.ecx & (1u << 9)) f |= kCpuSsse3;
  if (leaf1.ecx & (1u << 19)) f |= kCpuSse41;
  if (leaf1.ecx & (1u << 23)) f |= kCpuPopcnt;

  const bool osxsave = leaf1.ecx & (1u << 27);
  const uint64_t xcr0 = osxsave ? ReadXcr0() : 0;
  // XCR0 bit 1 = SSE (XMM) state, bit 2 = AVX (upper YMM) state.
  const bool os_avx = (xcr0 & 0x6) == 0x6;
  // Bits 5..7 = opmask, upper ZMM0-15, ZMM16-31: all needed for AVX-512.
  const bool os_avx512 = os_avx && (xcr0 & 0xE0) == 0xE0;

  if (max_leaf >= 7) {
    const Regs leaf7 = Cpuid(7, 0);
    if (leaf7.ebx & (1u << 3)) f |= kCpuBmi1;
    if (leaf7.ebx & (1u << 8)) f |= kCpuBmi2;
    if (os_avx && (leaf7.ebx & (1u << 5))) f |= kCpuAvx2;
    if (os_avx512) {
      if (leaf7.ebx & (1u << 16)) f |= kCpuAvx512F;
      if (leaf7.ebx & (1u << 30)) f |= kCpuAvx512BW;
      if (leaf7.ebx & (1u << 31)) f |= kCpuAvx512VL;
      if (leaf7.ebx & (1u << 28)) f |= kCpuAvx512CD;
      if (leaf7.ecx & (1u << 1)) f |= kCpuAvx512Vbmi;
      if (leaf7.ecx & (1u << 6)) f |= kCpuAvx512Vbmi2;
    }
  }
  const Regs ext0 = Cpuid(0x80000000u, 0);
  if (ext0.eax >= 0x80000001u) {
    const Regs ext1 = Cpuid(0x80000001u, 0);
    if (ext1.ecx & (1u << 5)) f |= kCpuLzcnt;  // ABM/LZCNT
  }
  if (ext0.eax >= 0x80000004u) {
    char brand[49] = {};
    for (uint32_t i = 0; i < 3; ++i) {
      const Regs r = Cpuid(0x80000002u + i, 0);
      std::memcpy(brand + 16 * i + 0, &r.eax, 4);
      std::memcpy(brand + 16 * i + 4, &r.ebx, 4);
      std::memcpy(brand + 16 * i + 8, &r.ecx, 4);
      std::memcpy(brand + 16 * i + 12, &r.edx, 4);
    }
    cpu.brand = brand;
    const size_t first = cpu.brand.find_first_not_of(' ');
    const size_t last = cpu.brand.find_last_not_of(' ');
    cpu.brand = first == std::string::npos ? "" : cpu.brand.substr(first, last - first + 1);
  }
  cpu.features = f;
  return cpu;
}
#elif PBACCEL_ARM64_LINUX
// The bits of linux/arch/arm64/include/uapi/asm/hwcap.h that pbaccel reads (kernel ABI: fixed).
constexpr unsigned long kHwcapAsimd = 1ul << 1;
constexpr unsigned long kHwcapCpuid = 1ul << 11;
constexpr unsigned long kHwcapSve = 1ul << 22;
constexpr unsigned long kHwcap2Sve2 = 1ul << 1;
// linux/include/uapi/linux/prctl.h (kernel ABI: fixed), for C libraries whose headers predate them.
constexpr int kPrSveGetVl = 51;
constexpr uint32_t kPrSveVlLenMask = 0xffff;

CpuInfo Detect() {
  CpuInfo cpu;
  cpu.vendor = CpuVendor::kArm;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  uint32_t f = 0;
  if (hwcap & kHwcapAsimd) f |= kCpuNeon;
  if (hwcap & kHwcapSve) f |= kCpuSve;
  if ((hwcap & kHwcapSve) && (hwcap2 & kHwcap2Sve2)) f |= kCpuSve2;
  cpu.features = f;
  if (hwcap & kHwcapSve) {
    // The thread's SVE vector length in bytes (PR_SVE_GET_VL, Linux 4.15+: the low 16 bits).
    const int vl = prctl(kPrSveGetVl, 0, 0, 0, 0);
    if (vl > 0) cpu.sve_vector_bytes = static_cast<uint32_t>(vl) & kPrSveVlLenMask;
  }
  if (hwcap & kHwcapCpuid) {
    uint64_t midr;
    __asm__("mrs %0, MIDR_EL1" : "=r"(midr));
    cpu.family = static_cast<uint32_t>((midr >> 24) & 0xFF);  // Implementer: 0x41 Arm, ...
    cpu.model = static_cast<uint32_t>((midr >> 4) & 0xFFF);   // Part: 0xd0c Neoverse N1, ...
  }
  return cpu;
}
#else
CpuInfo Detect() { return CpuInfo{}; }
#endif

struct FeatureName {
  CpuFeature feature;
  const char* name;
};

constexpr FeatureName kFeatureNames[] = {
    {kCpuSsse3, "ssse3"},
    {kCpuSse41, "sse4.1"},
    {kCpuPopcnt, "popcnt"},
    {kCpuAvx2, "avx2"},
    {kCpuBmi1, "bmi1"},
    {kCpuBmi2, "bmi2"},
    {kCpuLzcnt, "lzcnt"},
    {kCpuAvx512F, "avx512f"},
    {kCpuAvx512BW, "avx512bw"},
    {kCpuAvx512VL, "avx512vl"},
    {kCpuAvx512CD, "avx512cd"},
    {kCpuAvx512Vbmi, "avx512vbmi"},
    {kCpuAvx512Vbmi2, "avx512vbmi2"},
    {kCpuNeon, "neon"},
    {kCpuSve, "sve"},
    {kCpuSve2, "sve2"},
};

}  // namespace

const CpuInfo& DetectedCpu() {
  static const CpuInfo* const cpu = new CpuInfo(Detect());  // Thread-safe static init; never freed.
  return *cpu;
}

std::string CpuFeatureNames(uint32_t features) {
  std::string out;
  for (const FeatureName& f : kFeatureNames) {
    if (features & f.feature) {
      if (!out.empty()) out += ' ';
      out += f.name;
    }
  }
  return out.empty() ? "(none)" : out;
}

const char* CpuVendorName(CpuVendor vendor) {
  switch (vendor) {
    case CpuVendor::kIntel: return "Intel";
    case CpuVendor::kAmd: return "AMD";
    case CpuVendor::kArm: return "Arm";
    case CpuVendor::kOther: break;
  }
  return "other";
}

std::string DescribeCpu(const CpuInfo& cpu) {
  char head[160];
  std::snprintf(head, sizeof(head), "CPU: %s (vendor %s, family 0x%x, model 0x%x)\n",
                cpu.brand.empty() ? "unknown" : cpu.brand.c_str(), CpuVendorName(cpu.vendor),
                cpu.family, cpu.model);
  std::string out = head;
  out += "Features:";
  for (const FeatureName& f : kFeatureNames) {
    out += ' ';
    out += f.name;
    out += (cpu.features & f.feature) ? "=yes" : "=no";
  }
  out += '\n';
  if (cpu.sve_vector_bytes != 0) {
    out += "SVE vector length: " + std::to_string(8 * cpu.sve_vector_bytes) + " bits\n";
  }
  return out;
}

}  // namespace pbaccel
