// Copyright 2026 The pbaccel Authors.
//
// The dispatch policy, exercised for CPUs this machine is not, by handing SelectKernel a CpuInfo
// built by hand (highway's idea: test every branch of dispatch on one machine).

#include "pbaccel/internal/kernel_registry.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pbaccel/kernels.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/formats.h"

namespace pbaccel {
namespace internal {
namespace {

using ::testing::HasSubstr;

CpuInfo Cpu(CpuVendor vendor, uint32_t family, uint32_t model, uint32_t features,
            uint32_t sve_vector_bytes = 0) {
  CpuInfo cpu;
  cpu.vendor = vendor;
  cpu.family = family;
  cpu.model = model;
  cpu.features = features;
  cpu.sve_vector_bytes = sve_vector_bytes;
  return cpu;
}

constexpr uint32_t kEverything = ~0u;

// Whether every registered kernel had its name and decoders when this file's static initializer
// ran, which comes before the library's own (objects link before archives): a program may parse in
// a static initializer of its own.
const bool kRegistryWholeAtStaticInit = [] {
  for (const KernelEntry& e : KernelRegistry()) {
    if (e.kernel->name == nullptr || e.kernel->decode[0][0] == nullptr) return false;
  }
  return true;
}();

TEST(KernelRegistryTest, WholeDuringStaticInitialization) {
  EXPECT_TRUE(kRegistryWholeAtStaticInit);
}

TEST(KernelRegistryTest, NamesAreUniqueAndScalarIsLastAndNeedsNothing) {
  std::set<std::string> names;
  for (const KernelEntry& e : KernelRegistry()) {
    EXPECT_TRUE(names.insert(e.kernel->name).second) << "duplicate kernel " << e.kernel->name;
    EXPECT_NE(e.kernel->summary, nullptr);
    EXPECT_NE(e.kernel->count_terminators, nullptr);
    for (int f = 0; f < kNumVarintFormats; ++f) {
      EXPECT_NE(e.kernel->decode[f][0], nullptr) << e.kernel->name << " format " << f;
      EXPECT_NE(e.kernel->decode[f][1], nullptr) << e.kernel->name << " format " << f;
    }
  }
  ASSERT_FALSE(KernelRegistry().empty());
  EXPECT_STREQ(KernelRegistry().back().kernel->name, "scalar");
  EXPECT_EQ(KernelRegistry().back().required_features, 0u);
  EXPECT_NE(FindKernel("portable"), nullptr);
  EXPECT_EQ(FindKernel("bogus"), nullptr);
}

TEST(KernelRegistryTest, AutoPicksTheFirstSupportedUnvetoedKernel) {
  std::string warning;
  const CpuInfo bare = Cpu(CpuVendor::kOther, 0, 0, 0);
  const KernelEntry& chosen = SelectKernel(bare, "", &warning);
  EXPECT_TRUE(warning.empty());
  EXPECT_EQ(chosen.required_features, 0u);
  // Nothing earlier in the registry is runnable on a bare CPU.
  for (const KernelEntry& e : KernelRegistry()) {
    if (&e == &chosen) break;
    EXPECT_NE(e.required_features, 0u) << e.kernel->name << " should have been chosen";
  }
  EXPECT_EQ(&SelectKernel(bare, "auto", &warning), &chosen);
  // A CPU with everything (SVE's vectors 512 bits wide too) gets the registry's first entry that
  // no rule vetoes.
  const CpuInfo zen5 = Cpu(CpuVendor::kAmd, 0x1A, 0x44, kEverything, 64);
  EXPECT_STREQ(SelectKernel(zen5, "", &warning).kernel->name,
               KernelRegistry().front().kernel->name);
}

TEST(KernelRegistryTest, ExplicitRequests) {
  std::string warning;
  const CpuInfo cpu = Cpu(CpuVendor::kIntel, 6, 0x8F, kEverything);
  EXPECT_STREQ(SelectKernel(cpu, "scalar", &warning).kernel->name, "scalar");
  EXPECT_TRUE(warning.empty());
  EXPECT_STREQ(SelectKernel(cpu, "portable", &warning).kernel->name, "portable");
  EXPECT_TRUE(warning.empty());

  const KernelEntry& automatic = SelectKernel(cpu, "", &warning);
  EXPECT_EQ(&SelectKernel(cpu, "bogus", &warning), &automatic);
  EXPECT_THAT(warning, HasSubstr("PBACCEL_KERNEL=bogus is not a kernel"));
  EXPECT_THAT(warning, HasSubstr("scalar"));
}

TEST(KernelRegistryTest, UnsupportedRequestFallsBackWithTheMissingFeatures) {
  for (const KernelEntry& e : KernelRegistry()) {
    if (e.required_features == 0) continue;
    std::string warning;
    const CpuInfo bare = Cpu(CpuVendor::kOther, 0, 0, 0);
    const KernelEntry& chosen = SelectKernel(bare, e.kernel->name, &warning);
    EXPECT_NE(&chosen, &e);
    EXPECT_THAT(warning, HasSubstr("this CPU lacks"));
    EXPECT_THAT(warning, HasSubstr(CpuFeatureNames(e.required_features)));
  }
}

TEST(KernelRegistryTest, PextRuleCoversExactlyAmdBeforeZen3) {
  EXPECT_TRUE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x15, 0x60, kEverything)));   // Excavator.
  EXPECT_TRUE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x17, 0x01, kEverything)));   // Zen 1.
  EXPECT_TRUE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x17, 0x31, kEverything)));   // Zen 2.
  EXPECT_FALSE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x19, 0x01, kEverything)));  // Zen 3.
  EXPECT_FALSE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x19, 0x11, kEverything)));  // Zen 4.
  EXPECT_FALSE(PextIsMicrocoded(Cpu(CpuVendor::kAmd, 0x1A, 0x02, kEverything)));  // Zen 5.
  EXPECT_FALSE(PextIsMicrocoded(Cpu(CpuVendor::kIntel, 6, 0x3C, kEverything)));   // Haswell.
}

TEST(KernelRegistryTest, ClockRuleCoversExactlySkylakeServerFamily) {
  EXPECT_TRUE(Avx512LowersClock(Cpu(CpuVendor::kIntel, 6, 0x55, kEverything)));   // SKX/CLX/CPX.
  EXPECT_FALSE(Avx512LowersClock(Cpu(CpuVendor::kIntel, 6, 0x6A, kEverything)));  // Ice Lake-SP.
  EXPECT_FALSE(
      Avx512LowersClock(Cpu(CpuVendor::kIntel, 6, 0x8F, kEverything)));  // Sapphire Rapids.
  EXPECT_FALSE(Avx512LowersClock(Cpu(CpuVendor::kAmd, 0x19, 0x11, kEverything)));  // Zen 4.
}

#if defined(__x86_64__)
// The x86 kernels are registered on x86-64 builds only.
TEST(KernelRegistryTest, PolicyPerCpuGeneration) {
  const uint32_t kSse = kCpuSsse3 | kCpuSse41 | kCpuPopcnt;
  const uint32_t kAvx2 = kSse | kCpuAvx2;
  const uint32_t kAvx2Bmi2 = kAvx2 | kCpuBmi1 | kCpuBmi2 | kCpuLzcnt;
  const uint32_t kAvx512 = kAvx2Bmi2 | kCpuAvx512F | kCpuAvx512BW | kCpuAvx512VL | kCpuAvx512CD |
                           kCpuAvx512Vbmi | kCpuAvx512Vbmi2;
  const struct {
    CpuInfo cpu;
    const char* expected;
  } cases[] = {
      {Cpu(CpuVendor::kAmd, 0x1A, 0x02, kAvx512), "avx512_bmi2"},  // Zen 5 (Turin).
      {Cpu(CpuVendor::kAmd, 0x1A, 0x44, kAvx512), "avx512_bmi2"},  // Zen 5 (Granite Ridge).
      {Cpu(CpuVendor::kAmd, 0x1A, 0x44, kAvx2Bmi2), "bmi2"},       // Zen 5, AVX-512 hidden.
      {Cpu(CpuVendor::kAmd, 0x19, 0x11, kAvx512), "avx512"},       // Zen 4.
      {Cpu(CpuVendor::kIntel, 6, 0xA7, kAvx512), "avx512_bmi2"},   // The Xeon KVM reports so.
      {Cpu(CpuVendor::kIntel, 6, 0xA7, kAvx2Bmi2), "bmi2"},        // The same, AVX-512 hidden.
      {Cpu(CpuVendor::kIntel, 6, 0x6A, kAvx512), "avx512"},        // Ice Lake-SP.
      {Cpu(CpuVendor::kIntel, 6, 0xCF, kAvx512), "avx512"},        // Emerald Rapids.
      {Cpu(CpuVendor::kIntel, 6, 0x55, kAvx512), "bmi2"},          // Cascade Lake: 512-bit veto.
      {Cpu(CpuVendor::kAmd, 0x19, 0x01, kAvx2Bmi2), "bmi2"},       // Zen 3.
      {Cpu(CpuVendor::kIntel, 6, 0x3C, kAvx2Bmi2), "bmi2"},        // Haswell.
      {Cpu(CpuVendor::kAmd, 0x17, 0x31, kAvx2Bmi2), "masked_vbyte_avx2"},  // Zen 2: slow PEXT.
      {Cpu(CpuVendor::kAmd, 0x15, 0x60, kAvx2Bmi2), "masked_vbyte_avx2"},  // Excavator.
      // A VM exposing AVX2 but hiding BMI1/BMI2/LZCNT: no kernel whose code holds them.
      {Cpu(CpuVendor::kIntel, 6, 0x55, kAvx2), "masked_vbyte_avx2"},
      {Cpu(CpuVendor::kAmd, 0x19, 0x01, kAvx2 | kCpuBmi2), "masked_vbyte_avx2"},
      {Cpu(CpuVendor::kIntel, 6, 0x2A, kSse), "masked_vbyte"},  // Sandy Bridge.
      {Cpu(CpuVendor::kOther, 0, 0, 0), "portable"},
  };
  for (const auto& c : cases) {
    std::string warning;
    EXPECT_STREQ(SelectKernel(c.cpu, "", &warning).kernel->name, c.expected)
        << "family " << c.cpu.family << " model " << c.cpu.model;
  }
  // Asked for by name, avx512 is avx512 on Zen 5 too.
  std::string warning;
  EXPECT_STREQ(
      SelectKernel(Cpu(CpuVendor::kAmd, 0x1A, 0x02, kAvx512), "avx512", &warning).kernel->name,
      "avx512");
}

TEST(KernelRegistryTest, SplitRuleCoversExactlyZen5AndTheMeasuredXeon) {
  EXPECT_TRUE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kAmd, 0x1A, 0x02, kEverything)));
  EXPECT_TRUE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kAmd, 0x1A, 0x44, kEverything)));
  EXPECT_TRUE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kIntel, 6, 0xA7, kEverything)));
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kAmd, 0x19, 0x11, kEverything)));  // Zen 4.
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kIntel, 6, 0x8F, kEverything)));
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kIntel, 6, 0xCF, kEverything)));
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kAmd, 0xA7, 0x02, kEverything)));
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kOther, 0x1A, 0x02, kEverything)));
  EXPECT_FALSE(SplitAvx512Bmi2Wins(Cpu(CpuVendor::kOther, 6, 0xA7, kEverything)));
}

// The formats avx512_bmi2 takes from avx512 whole (every decoder); the others it takes from bmi2,
// their block decoder routing between the two.
bool SplitTakesAvx512(VarintFormat format) {
  return format == VarintFormat::kSInt64 || format == VarintFormat::kDeltaUInt32 ||
         format == VarintFormat::kDeltaUInt64 || format == VarintFormat::kDeltaSInt64;
}

// avx512_bmi2 is exactly avx512's decoders for sint64 and the delta formats and bmi2's for the
// others, but the others' block decoder, which routes between the two (the function pointers
// themselves: the every-kernel tests then decode through it like any kernel).
TEST(KernelRegistryTest, Avx512Bmi2TakesAvx512ForSint64AndDeltaFormatsOnly) {
  const KernelEntry* split = FindKernel("avx512_bmi2");
  const KernelEntry* avx512 = FindKernel("avx512");
  const KernelEntry* bmi2 = FindKernel("bmi2");
  ASSERT_NE(split, nullptr);
  ASSERT_NE(avx512, nullptr);
  ASSERT_NE(bmi2, nullptr);
  EXPECT_EQ(split->required_features, avx512->required_features | bmi2->required_features);
  EXPECT_EQ(split->kernel->count_terminators, avx512->kernel->count_terminators);
  const KernelDescriptor& k = *split->kernel;
  for (int f = 0; f < kNumVarintFormats; ++f) {
    const auto format = static_cast<VarintFormat>(f);
    const bool from_avx512 = SplitTakesAvx512(format);
    const KernelDescriptor& from = from_avx512 ? *avx512->kernel : *bmi2->kernel;
    const KernelDescriptor& other = from_avx512 ? *bmi2->kernel : *avx512->kernel;
    for (int strict = 0; strict < 2; ++strict) {
      if (from_avx512) {
        EXPECT_EQ(k.decode[f][strict], from.decode[f][strict]) << testing::FormatName(format);
      } else {  // The router (SplitRoutesToAvx512), neither kernel's own.
        EXPECT_NE(k.decode[f][strict], from.decode[f][strict]) << testing::FormatName(format);
      }
      EXPECT_NE(k.decode[f][strict], other.decode[f][strict]) << testing::FormatName(format);
    }
    EXPECT_EQ(k.decode_tiny[f], from.decode_tiny[f]) << testing::FormatName(format);
    EXPECT_NE(k.decode_tiny[f], other.decode_tiny[f]) << testing::FormatName(format);
    EXPECT_EQ(k.decode_tiny_bounded[f], from.decode_tiny_bounded[f]) << testing::FormatName(format);
    if (other.decode_tiny_bounded[f] != nullptr) {  // None for the delta formats.
      EXPECT_NE(k.decode_tiny_bounded[f], other.decode_tiny_bounded[f])
          << testing::FormatName(format);
    }
    EXPECT_EQ(k.decode_window[f], from.decode_window[f]) << testing::FormatName(format);
    if (other.decode_window[f] != nullptr) {  // None for the delta formats.
      EXPECT_NE(k.decode_window[f], other.decode_window[f]) << testing::FormatName(format);
    }
  }
  EXPECT_GE(k.bounded_tiny_spare_values, avx512->kernel->bounded_tiny_spare_values);
  EXPECT_GE(k.bounded_tiny_spare_values, bmi2->kernel->bounded_tiny_spare_values);
}

// The route: payloads of at least 256 bytes whose first 32 bytes hold 17 or more continuation
// bytes go to avx512; shorter ones, and ones of one- and two-byte values, stay with bmi2.
TEST(KernelRegistryTest, SplitRoutesLongPayloadsOfLongValuesToAvx512) {
  const auto payload = [](size_t bytes, size_t value_bytes) {
    std::vector<uint8_t> p;
    while (p.size() < bytes) {
      for (size_t i = 1; i < value_bytes; ++i) p.push_back(0x81);
      p.push_back(0x01);
    }
    p.resize(bytes);
    return p;
  };
  const auto routed = [](const std::vector<uint8_t>& p) {
    return SplitRoutesToAvx512(p.data(), p.data() + p.size());
  };
  EXPECT_TRUE(routed(payload(256, 5)));
  EXPECT_TRUE(routed(payload(4096, 3)));   // 22 of 32 are continuation bytes.
  EXPECT_FALSE(routed(payload(255, 5)));   // Too short.
  EXPECT_FALSE(routed(payload(4096, 2)));  // 16 of 32: tiles' kind of values.
  EXPECT_FALSE(routed(payload(4096, 1)));
  // Two-byte values with one three-byte value among the first 32 bytes (17 continuation bytes),
  // and without it (16): the first 32 bytes decide.
  std::vector<uint8_t> edge(300, 0x01);
  for (int i = 0; i < 16; ++i) edge[2 * i] = 0x80;
  edge[31] = 0x80;
  EXPECT_TRUE(routed(edge));
  edge[31] = 0x01;
  EXPECT_FALSE(routed(edge));
  edge[40] = 0x80;  // Past the first 32 bytes: not looked at.
  EXPECT_FALSE(routed(edge));

  // The split's block decoder for each format it takes from bmi2 calls avx512's decoder for the
  // first kind of payload, bmi2's for the others.
  const KernelDescriptor& avx512 = *FindKernel("avx512")->kernel;
  const KernelDescriptor& bmi2 = *FindKernel("bmi2")->kernel;
  const std::vector<uint8_t> long_values = payload(512, 5);
  const std::vector<uint8_t> short_values = payload(512, 2);
  for (const VarintFormat format : testing::AllFormats()) {
    if (SplitTakesAvx512(format)) continue;
    for (const bool strict : {false, true}) {
      const auto decoder = [&](const std::vector<uint8_t>& p) {
        return SplitBlockDecoder(format, strict, p.data(), p.data() + p.size());
      };
      EXPECT_EQ(decoder(long_values), avx512.Decoder(format, strict))
          << testing::FormatName(format);
      EXPECT_EQ(decoder(short_values), bmi2.Decoder(format, strict)) << testing::FormatName(format);
    }
  }
}
#endif  // defined(__x86_64__)

#if defined(__aarch64__)
// The AArch64 kernels are registered on AArch64 builds only. sve where SVE's vectors are 256 bits
// or more, neon where they are 128 (docs/arm64.md) or SVE is absent.
TEST(KernelRegistryTest, PolicyPerArmCore) {
  const uint32_t kSve = kCpuNeon | kCpuSve;
  const struct {
    CpuInfo cpu;
    const char* expected;
  } cases[] = {
      {Cpu(CpuVendor::kArm, 0x41, 0xd0c, kCpuNeon), "neon"},             // Neoverse N1.
      {Cpu(CpuVendor::kArm, 0x41, 0xd40, kSve, 32), "sve"},              // Neoverse V1.
      {Cpu(CpuVendor::kArm, 0x41, 0xd4f, kSve | kCpuSve2, 16), "neon"},  // Neoverse V2.
      {Cpu(CpuVendor::kArm, 0x46, 0x001, kSve, 64), "sve"},              // A64FX.
      {Cpu(CpuVendor::kArm, 0x41, 0xd40, kSve, 0), "neon"},              // Length unknown.
      {Cpu(CpuVendor::kArm, 0x41, 0xd40, kCpuSve, 32), "portable"},      // No NEON reported.
  };
  for (const auto& c : cases) {
    std::string warning;
    EXPECT_STREQ(SelectKernel(c.cpu, "", &warning).kernel->name, c.expected)
        << "part 0x" << std::hex << c.cpu.model << ", SVE bytes " << std::dec
        << c.cpu.sve_vector_bytes;
  }
  std::string warning;
  const CpuInfo v2 = Cpu(CpuVendor::kArm, 0x41, 0xd4f, kSve | kCpuSve2, 16);
  EXPECT_STREQ(SelectKernel(v2, "sve", &warning).kernel->name, "sve");  // Asked for: allowed.
}
#endif  // defined(__aarch64__)

// The every-kernel fixture's skip decision: every registered kernel is named, the ones this CPU
// runs are not skipped, the others are skipped with the features they lack.
TEST(KernelRegistryTest, EveryKernelFixtureSkipsExactlyTheUnsupported) {
  const std::vector<std::string> names = testing::AllKernelNames();
  ASSERT_EQ(names.size(), KernelRegistry().size());
  for (const KernelInfo& k : DescribeKernels()) {
    const std::string reason = testing::KernelSkipReason(k.name);
    if (k.supported) {
      EXPECT_EQ(reason, "") << k.name;
    } else {
      EXPECT_THAT(reason, HasSubstr(k.missing_features)) << k.name;
    }
  }
  EXPECT_THAT(testing::KernelSkipReason("no_such_kernel"), HasSubstr("no kernel named"));
}

TEST(KernelRegistryTest, VetoedKernelsAreNeverAutoSelected) {
  // Whatever the registry holds, no CPU's auto choice is a kernel its rules veto or it cannot run.
  const CpuInfo cpus[] = {
      Cpu(CpuVendor::kAmd, 0x17, 0x31, kEverything),
      Cpu(CpuVendor::kIntel, 6, 0x55, kEverything),
      Cpu(CpuVendor::kAmd, 0x1A, 0x44, kEverything),
      Cpu(CpuVendor::kOther, 0, 0, 0),
      Cpu(CpuVendor::kIntel, 6, 0x3C, kCpuSsse3 | kCpuSse41 | kCpuAvx2 | kCpuBmi2),
  };
  for (const CpuInfo& cpu : cpus) {
    std::string warning;
    const KernelEntry& e = SelectKernel(cpu, "", &warning);
    EXPECT_TRUE(cpu.Has(e.required_features)) << e.kernel->name;
    EXPECT_TRUE(e.veto == nullptr || e.veto(cpu) == nullptr) << e.kernel->name;
  }
}

TEST(KernelRegistryTest, PublicViewMatchesThisCpu) {
  const std::vector<KernelInfo> kernels = DescribeKernels();
  ASSERT_EQ(kernels.size(), KernelRegistry().size());
  const std::vector<absl::string_view> supported = SupportedKernels();
  size_t n_supported = 0;
  for (const KernelInfo& k : kernels) {
    n_supported += k.supported;
    EXPECT_EQ(k.supported, k.missing_features.empty()) << k.name;
    if (!k.supported) {
      EXPECT_FALSE(k.auto_selectable);
    }
  }
  EXPECT_EQ(supported.size(), n_supported);
  EXPECT_EQ(supported.back(), "scalar");
  // The automatic choice is the first auto-selectable kernel.
  for (const KernelInfo& k : kernels) {
    if (k.auto_selectable) {
      EXPECT_EQ(AutoSelectedKernelName(), k.name);
      break;
    }
  }
}

TEST(KernelRegistryTest, ScopedOverridesNestAndRestore) {
  const absl::string_view before = ActiveKernelName();
  {
    ScopedKernelOverride outer("scalar");
    ASSERT_TRUE(outer.ok());
    EXPECT_EQ(ActiveKernelName(), "scalar");
    {
      ScopedKernelOverride inner("portable");
      ASSERT_TRUE(inner.ok());
      EXPECT_EQ(ActiveKernelName(), "portable");
      ScopedKernelOverride bogus("bogus");
      EXPECT_FALSE(bogus.ok());
      EXPECT_EQ(ActiveKernelName(), "portable");
    }
    EXPECT_EQ(ActiveKernelName(), "scalar");
  }
  EXPECT_EQ(ActiveKernelName(), before);
}

}  // namespace
}  // namespace internal
}  // namespace pbaccel
