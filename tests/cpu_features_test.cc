// Checks CPU detection for internal consistency with what the compiler and the OS report.

#include "pbaccel/cpu_features.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace pbaccel {
namespace {

TEST(CpuFeaturesTest, AgreesWithCompilerBuiltins) {
  const CpuInfo& cpu = DetectedCpu();
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(cpu.Has(kCpuSse41), __builtin_cpu_supports("sse4.1") != 0);
  EXPECT_EQ(cpu.Has(kCpuAvx2), __builtin_cpu_supports("avx2") != 0);
  EXPECT_EQ(cpu.Has(kCpuBmi2), __builtin_cpu_supports("bmi2") != 0);
  EXPECT_EQ(cpu.Has(kCpuAvx512F), __builtin_cpu_supports("avx512f") != 0);
  EXPECT_EQ(cpu.Has(kCpuAvx512BW), __builtin_cpu_supports("avx512bw") != 0);
  EXPECT_EQ(cpu.Has(kCpuAvx512Vbmi), __builtin_cpu_supports("avx512vbmi") != 0);
  // Every x86-64 CPU with SSE4.1 has SSSE3.
  if (cpu.Has(kCpuSse41)) {
    EXPECT_TRUE(cpu.Has(kCpuSsse3));
  }
  if (__builtin_cpu_is("amd")) {
    EXPECT_EQ(cpu.vendor, CpuVendor::kAmd);
  }
  if (__builtin_cpu_is("intel")) {
    EXPECT_EQ(cpu.vendor, CpuVendor::kIntel);
  }
  EXPECT_GE(cpu.family, 6u);
#elif defined(__aarch64__) && defined(__linux__)
  EXPECT_EQ(cpu.vendor, CpuVendor::kArm);
  EXPECT_TRUE(cpu.Has(kCpuNeon)) << "Advanced SIMD is part of every AArch64 Linux system";
  if (cpu.Has(kCpuSve2)) {
    EXPECT_TRUE(cpu.Has(kCpuSve));
  }
  if (cpu.Has(kCpuSve)) {
    // An SVE instruction runs (it would be SIGILL where the feature is wrongly reported): RDVL
    // X0, #1 (encoded by hand: this file is compiled without SVE) gives the vector length in
    // bytes, a multiple of 16 from 16 to 256.
    uint64_t vector_bytes;
    __asm__ volatile(".inst 0x04bf5020\n mov %0, x0" : "=r"(vector_bytes) : : "x0");
    EXPECT_EQ(vector_bytes % 16, 0u);
    EXPECT_GE(vector_bytes, 16u);
    EXPECT_LE(vector_bytes, 256u);
    // The vector length the registry's sve veto reads (prctl) is the one the instructions use.
    EXPECT_EQ(cpu.sve_vector_bytes, vector_bytes);
  } else {
    EXPECT_EQ(cpu.sve_vector_bytes, 0u);
  }
#else
  EXPECT_EQ(cpu.features, 0u);
#endif
}

TEST(CpuFeaturesTest, NamesAndDescription) {
  EXPECT_EQ(CpuFeatureNames(0), "(none)");
  EXPECT_EQ(CpuFeatureNames(kCpuSse41 | kCpuBmi2), "sse4.1 bmi2");
  CpuInfo cpu;
  cpu.vendor = CpuVendor::kAmd;
  cpu.family = 0x1A;
  cpu.model = 0x44;
  cpu.features = kCpuAvx2;
  const std::string text = DescribeCpu(cpu);
  EXPECT_NE(text.find("family 0x1a"), std::string::npos) << text;
  EXPECT_NE(text.find("avx2=yes"), std::string::npos) << text;
  EXPECT_NE(text.find("bmi2=no"), std::string::npos) << text;
}

}  // namespace
}  // namespace pbaccel
