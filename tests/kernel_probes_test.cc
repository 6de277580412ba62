// Copyright 2026 The pbaccel Authors.
//
// Which steps decoded a payload, where the values cannot tell: the 16-byte steps for one- and
// two-byte varints of the AVX2 kernels (parsers/two_byte_steps_avx2-inl.h), of masked_vbyte
// (SSE4.1, parsers/two_byte_steps_sse41-inl.h: its short-payload decoders only) and of neon
// (parsers/two_byte_steps_neon-inl.h) store the same values into the same slots as the steps they
// replace. Their probed builds (parsers/kernel_probes.h, linked here instead of the registry)
// count the 16-byte steps: the block decoder's two-byte windows, decode_tiny and
// decode_tiny_bounded must take them for payloads of one- and two-byte varints (the bounded one
// also when the caller's room holds the values and nothing more), and must not for payloads
// holding a longer varint. The AVX2 kernels count what they decode in 32-bit lanes
// (parsers/varint_lanes_avx2-inl.h): their block decoders' four- and five-byte windows, which must
// take long 64-bit payloads of one- to four-byte (five-byte) varints and nothing else, and their
// tiny decoders' short 64-bit payloads of varints of up to five bytes. avx512's tiny decoders
// count the short payloads they decode in 16-bit lanes. Skipped, by name, on CPUs that cannot run
// a kernel.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pbaccel/cpu_features.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/testing/wire_builder.h"

namespace pbaccel {
namespace internal {
namespace probes {
thread_local uint64_t two_byte_steps = 0;
thread_local uint64_t four_byte_windows = 0;
thread_local uint64_t five_byte_windows = 0;
thread_local uint64_t lane_payloads = 0;
thread_local uint64_t register_payloads = 0;
thread_local uint64_t window_payloads = 0;
thread_local uint64_t step_loop_steps = 0;
thread_local uint64_t step_loop_bounded_steps = 0;
thread_local uint64_t running_sum_vectors = 0;
thread_local uint64_t sve_one_byte_runs = 0;
thread_local uint64_t avx512_two_byte_payloads = 0;
}  // namespace probes

#if defined(__x86_64__)
extern const KernelDescriptor kAvx512Kernel;
extern const KernelDescriptor kBmi2Kernel;
extern const KernelDescriptor kMaskedVbyteAvx2Kernel;
extern const KernelDescriptor kMaskedVbyteKernel;
#elif defined(__aarch64__)
extern const KernelDescriptor kNeonKernel;
extern const KernelDescriptor kSveKernel;
#endif

#if defined(__x86_64__) || defined(__aarch64__)

namespace {

using ::pbaccel::testing::Varint;
using ::pbaccel::testing::ZigZagDecode64;

// `count` varints cycling through `values`, and the values themselves.
template <typename T>
std::string Payload(const std::vector<T>& values, int count, std::vector<T>* out) {
  std::string payload;
  for (int i = 0; i < count; ++i) {
    const T v = values[static_cast<size_t>(i) % values.size()];
    payload += Varint(v);
    out->push_back(v);
  }
  return payload;
}

// The formats whose block decoder takes the step loop's 8-byte steps (step_loop_avx2-inl.h).
enum class StepLoopFormats { kNone, k64Bit, kAll };

struct Probed {
  const char* name;
  const KernelDescriptor* kernel;
  uint32_t features;
  bool block_decoder_steps;  // Whether the block decoder takes two-byte windows (masked_vbyte's
                             // does not: only its short-payload decoders have the steps).
  StepLoopFormats step_loop;
  bool varint_lanes;     // Whether 64-bit fields' varints of up to four or five bytes take 32-bit
                         // lanes (the block decoder's windows, decode_tiny's and decode_window's
                         // payloads).
  bool avx2_lanes;       // The AVX2 kernels' lanes: also in the block decoder's windows and in
                         // decode_tiny_bounded (from registers); decode_window takes them for every
                         // 64-bit payload, whole steps every other payload. masked_vbyte's SSE4.1
                         // ones: decode_tiny and decode_window only, after the 16-byte steps.
  bool sums_after_gaps;  // Whether lenient delta decodes its gaps, then sums them in vectors
                         // (running_sums-inl.h's SumsAfterGaps); the others fuse the sums.
};

// Tile-like values: one and two bytes; with a three-byte one among them; with a four-byte one
// too; with a five-byte one too (16 bytes a cycle: one in every 64-byte window).
const std::vector<uint32_t> kShort = {9, 4096, 17, 130, 1, 16383, 77};
const std::vector<uint32_t> kWithLong = {9, 4096, 17, 70000, 1, 16383, 77};
const std::vector<uint32_t> kUpToFour = {9, 4096, 17, 70000, 1, 268435455, 16383, 77};
const std::vector<uint32_t> kWithFive = {9, 4096, 17, 70000, 1, 16383, 77, 300000000};
// 64-bit values: the last two above; like a way's refs (a five-byte node id,
// then one- and five-byte deltas); with a six-byte varint among one- to five-byte ones (17 bytes a
// cycle: one in every 64-byte window).
const std::vector<uint64_t> kUpToFour64(kUpToFour.begin(), kUpToFour.end());
const std::vector<uint64_t> kWithFive64(kWithFive.begin(), kWithFive.end());
const std::vector<uint64_t> kRefsLike = {uint64_t{1} << 34 | 12345, 2, 1, 6000000000, 4, 1};
const std::vector<uint64_t> kWithSix64 = {9, 4096, 17, 70000, uint64_t{1} << 35, 1, 16383, 77};

// Whether a format's values are stored as 64-bit words (its running sums too).
bool Stores64Bits(VarintFormat format) { return Is64BitFormat(GapFormat(format)); }

// The values a decode in `format` gives for the varints of `values`, as 64-bit words: zigzag
// decoded (sint32 from the value's low 32 bits, as upstream), summed (the delta formats), cut to
// 32 bits.
std::vector<uint64_t> Want(VarintFormat format, const std::vector<uint64_t>& values) {
  const bool is64 = Stores64Bits(format);
  std::vector<uint64_t> want;
  uint64_t sum = 0;
  uint64_t zigzag_sum = 0;
  for (const uint64_t v : values) {
    sum += v;
    zigzag_sum += static_cast<uint64_t>(ZigZagDecode64(v));
    uint64_t w = v;
    if (format == VarintFormat::kDeltaSInt64) {
      w = zigzag_sum;
    } else if (format == VarintFormat::kSInt64) {
      w = static_cast<uint64_t>(ZigZagDecode64(v));
    } else if (format == VarintFormat::kSInt32) {
      w = static_cast<uint64_t>(ZigZagDecode64(static_cast<uint32_t>(v)));
    } else if (format == VarintFormat::kDeltaUInt64 || format == VarintFormat::kDeltaUInt32) {
      w = sum;
    }
    want.push_back(is64 ? w : static_cast<uint32_t>(w));
  }
  return want;
}

class KernelProbesTest : public ::testing::TestWithParam<Probed> {
 protected:
  void SetUp() override {
    if (!DetectedCpu().Has(GetParam().features)) {
      GTEST_SKIP() << "this CPU cannot run " << GetParam().name;
    }
  }
  const KernelDescriptor& kernel() const { return *GetParam().kernel; }

  // How far the probe `counter` moves while `decode` decodes, checking its values (of type T)
  // against `expected`. `decode(out, room)` is offered room for the values and 64 more, or with
  // `exact_room` for the values only (then nothing past them may be written).
  template <typename T, typename Decode>
  uint64_t Counting(const uint64_t& counter, const std::vector<T>& expected, Decode decode,
                    bool exact_room = false) {
    constexpr T kUnwritten = static_cast<T>(~T{0});
    std::vector<T> out(expected.size() + 64, kUnwritten);
    const uint64_t before = counter;
    const int room = static_cast<int>(exact_room ? expected.size() : out.size());
    EXPECT_EQ(decode(out.data(), room), static_cast<int64_t>(expected.size()));
    const uint64_t moved = counter - before;
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "value " << i;
    if (exact_room) {
      for (size_t i = expected.size(); i < out.size(); ++i) {
        EXPECT_EQ(out[i], kUnwritten) << "slot " << i << " past the room written";
      }
    }
    return moved;
  }

  // The 16-byte steps `decode` takes (Counting's), of uint32 values.
  template <typename Decode>
  uint64_t StepsOf(const std::vector<uint32_t>& expected, Decode decode, bool exact_room = false) {
    return Counting(probes::two_byte_steps, expected, decode, exact_room);
  }

  // How far the probe `counter` moves while the block decoder decodes `payload`, the varints of
  // `values`, in `format`; checks every value.
  template <typename T>
  uint64_t BlockDecodeCounting(const uint64_t& counter, VarintFormat format, bool strict,
                               const std::string& payload, const std::vector<T>& values) {
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    std::vector<uint64_t> out(values.size() + 64, ~uint64_t{0});
    const uint64_t before = counter;
    const DecodeResult r =
        kernel().Decoder(format, strict)(p, p + payload.size(), out.data(), out.size(), 0);
    const uint64_t moved = counter - before;
    EXPECT_EQ(r.status, DecodeStatus::kOk);
    EXPECT_EQ(r.count, values.size());
    if (r.status != DecodeStatus::kOk || r.count != values.size()) return moved;
    const bool is64 = Stores64Bits(format);
    const std::vector<uint64_t> want =
        Want(format, std::vector<uint64_t>(values.begin(), values.end()));
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t got = is64 ? out[i] : reinterpret_cast<const uint32_t*>(out.data())[i];
      if (got != want[i]) {
        ADD_FAILURE() << "value " << i << ": " << got << ", not " << want[i];
        break;
      }
    }
    return moved;
  }
};

// Long payloads in the delta formats (7,000 values, tile-like and with a five-byte varint in
// every window): the kernels that sum after their gaps (sums_after_gaps: the x86 ones here) sum
// the gaps their decoders stored a vector at a time (running_sums-inl.h: 256-bit vectors on the
// AVX2 kernels, 128-bit on masked_vbyte), all but the last few of each 2,048-value stretch, in
// lenient mode; strict mode keeps the sums fused into its steps, and the others (the ARM kernels)
// fuse them always.
TEST_P(KernelProbesTest, DeltaFormatsSumTheirGapsInVectors) {
  const uint64_t vector_bytes = (GetParam().features & kCpuAvx2) != 0 ? 32 : 16;
  for (const auto* cycle : {&kShort, &kWithFive}) {
    std::vector<uint32_t> values;
    const std::string payload = Payload(*cycle, 1000, &values);
    for (const VarintFormat format :
         {VarintFormat::kDeltaUInt32, VarintFormat::kDeltaUInt64, VarintFormat::kDeltaSInt64}) {
      for (const bool strict : {false, true}) {
        SCOPED_TRACE(absl::StrCat("format ", static_cast<int>(format), strict ? " strict" : "",
                                  cycle == &kShort ? " one and two bytes" : " up to five"));
        const uint64_t vectors =
            BlockDecodeCounting(probes::running_sum_vectors, format, strict, payload, values);
        const uint64_t lanes = vector_bytes / (Stores64Bits(format) ? 8 : 4);
        if (GetParam().sums_after_gaps && !strict) {
          EXPECT_GE(vectors, values.size() / lanes - 4);
        } else {
          EXPECT_EQ(vectors, 0u);
        }
      }
    }
  }
}

// uint32, and delta uint32 (the step loop's windows store its gaps, summed after them), from a
// running sum's base of 7.
TEST_P(KernelProbesTest, BlockDecoderTakesTwoByteWindows) {
  const bool takes = GetParam().block_decoder_steps;
  for (const auto* values : {&kShort, &kWithLong}) {
    for (const VarintFormat format : {VarintFormat::kUInt32, VarintFormat::kDeltaUInt32}) {
      const bool delta = format == VarintFormat::kDeltaUInt32;
      SCOPED_TRACE(delta ? "delta uint32" : "uint32");
      std::vector<uint32_t> expected;
      const std::string payload = Payload(*values, 1000, &expected);
      if (delta) {
        uint32_t sum = 7;
        for (uint32_t& v : expected) v = sum += v;
      }
      const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
      const uint64_t steps = StepsOf(expected, [&](uint32_t* out, int cap) {
        const DecodeResult r = kernel().Decoder(format, false)(p, p + payload.size(), out,
                                                               static_cast<size_t>(cap), 7);
        return r.status == DecodeStatus::kOk ? static_cast<int64_t>(r.count) : -1;
      });
      if (!takes || (delta && GetParam().step_loop != StepLoopFormats::kAll)) {
        EXPECT_EQ(steps, 0u) << "a block decoder without two-byte windows";
      } else if (values == &kShort) {
        // Every 64-byte window but the ones the 8-byte steps take after the first: most of them.
        EXPECT_GE(steps, 4 * (payload.size() / 64) / 2) << payload.size() << " bytes";
      } else {
        EXPECT_EQ(steps, 0u) << "every window holds a three-byte varint";
      }
    }
  }
}

// Long payloads in each format class, of varints no window takes (32-bit formats: one- to
// five-byte varints; 64-bit ones: a six-byte varint in every window): the step loop's steps where
// the kernel's table says so, none elsewhere, and the values right either way.
TEST_P(KernelProbesTest, BlockDecoderTakesTheStepLoopWhereItShould) {
  std::vector<uint32_t> values32;
  const std::string payload32 = Payload(kWithFive, 1000, &values32);
  std::vector<uint64_t> values64;
  const std::string payload64 = Payload(kWithSix64, 1000, &values64);
  for (const VarintFormat format : {VarintFormat::kUInt32, VarintFormat::kInt32,
                                    VarintFormat::kUInt64, VarintFormat::kSInt64}) {
    const bool is64 = Is64BitFormat(format);
    SCOPED_TRACE(absl::StrCat("format ", static_cast<int>(format)));
    const std::string& payload = is64 ? payload64 : payload32;
    const uint64_t steps =
        is64 ? BlockDecodeCounting(probes::step_loop_steps, format, false, payload, values64)
             : BlockDecodeCounting(probes::step_loop_steps, format, false, payload, values32);
    const StepLoopFormats loop = GetParam().step_loop;
    if (loop == StepLoopFormats::kAll || (loop == StepLoopFormats::k64Bit && is64)) {
      // Every 8 bytes but the scalar tail's: no window of these payloads is all one- or two-byte,
      // or free of five-byte (64-bit: six-byte) varints.
      EXPECT_GE(steps, payload.size() / 8 - 2) << payload.size() << " bytes";
    } else {
      EXPECT_EQ(steps, 0u);
    }
  }
}

// Long payloads of one- to four-byte varints (OSM's dense node coordinates are such sint64
// fields), of one- to five-byte ones (its node ids, a way's refs) and with a six-byte one in every
// window: the AVX2 kernels take a four-byte window for every 64 bytes of the first, a five-byte
// window for every 64 bytes of the second, in the lenient 64-bit formats (delta uint64's gaps too,
// summed after them); none in strict mode, for 32-bit formats, or for the third (masked_vbyte none
// at all: its lanes are for short payloads); the values right either way.
TEST_P(KernelProbesTest, BlockDecoderTakesFourAndFiveByteWindowsFor64BitFields) {
  for (const auto* cycle : {&kUpToFour64, &kWithFive64, &kWithSix64}) {
    std::vector<uint64_t> values;
    const std::string payload = Payload(*cycle, 1000, &values);
    for (const VarintFormat format :
         {VarintFormat::kUInt64, VarintFormat::kInt64, VarintFormat::kSInt64,
          VarintFormat::kDeltaUInt64, VarintFormat::kUInt32, VarintFormat::kSInt32}) {
      // The 64-bit formats.
      const bool windowed = Stores64Bits(format);
      const bool is32 = format == VarintFormat::kUInt32 || format == VarintFormat::kSInt32;
      for (const bool strict : {false, true}) {
        if (is32 && strict && cycle == &kWithSix64)
          continue;  // Values a strict 32-bit field
                     // rejects.
        SCOPED_TRACE(absl::StrCat("format ", static_cast<int>(format), " strict ", strict,
                                  cycle == &kUpToFour64   ? " up to four bytes"
                                  : cycle == &kWithFive64 ? " up to five"
                                                          : " with six"));
        const uint64_t fours = probes::four_byte_windows;
        const uint64_t fives =
            BlockDecodeCounting(probes::five_byte_windows, format, strict, payload, values);
        const uint64_t four_windows = probes::four_byte_windows - fours;
        const bool lanes = GetParam().avx2_lanes && windowed && !strict;
        // Every window but the last, which the bounded scalar reader finishes.
        const uint64_t windows = payload.size() / 64 - 1;
        if (lanes && cycle == &kUpToFour64) {
          EXPECT_GE(four_windows, windows) << payload.size() << " bytes";
          EXPECT_EQ(fives, 0u);
        } else if (lanes && cycle != &kWithSix64) {
          EXPECT_EQ(four_windows, 0u);
          EXPECT_GE(fives, windows) << payload.size() << " bytes";
        } else {
          EXPECT_EQ(four_windows, 0u);
          EXPECT_EQ(fives, 0u);
        }
      }
    }
  }
}

// Payloads of 3 to 28 varints of one to five bytes (6 to 56 bytes: no 64-byte window), decoded
// with room for 64 more values and with room for exactly theirs: where the kernel's block decoder
// takes the step loop, its 8-byte steps and bounded steps together cover every byte of a payload
// of a step or more (the last partial step is a bounded one, and so are the steps that exact room
// cuts short), none left to the scalar reader, with nothing stored past the room; a payload
// ending inside a varint is still rejected there. No bounded steps elsewhere.
TEST_P(KernelProbesTest, BlockDecoderEndsInBoundedSteps) {
  for (int count = 3; count <= 28; ++count) {
    std::vector<uint64_t> values;
    const std::string payload = Payload(kWithFive64, count, &values);
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    const uint64_t payload_steps = (payload.size() + 7) / 8;
    for (const VarintFormat format :
         {VarintFormat::kUInt32, VarintFormat::kSInt32, VarintFormat::kUInt64,
          VarintFormat::kSInt64, VarintFormat::kDeltaUInt64}) {
      const bool is64 = Stores64Bits(format);
      const std::vector<uint64_t> want = Want(format, values);
      for (const bool strict : {false, true}) {
        for (const bool exact_room : {false, true}) {
          SCOPED_TRACE(absl::StrCat(payload.size(), " bytes, format ", static_cast<int>(format),
                                    strict ? ", strict" : "", exact_room ? ", exact room" : ""));
          const auto decode = [&](auto* out, int room) {
            const DecodeResult r = kernel().Decoder(format, strict)(p, p + payload.size(), out,
                                                                    static_cast<size_t>(room), 0);
            return r.status == DecodeStatus::kOk ? static_cast<int64_t>(r.count) : -1;
          };
          const uint64_t steps_before = probes::step_loop_steps;
          const uint64_t bounded =
              is64 ? Counting(probes::step_loop_bounded_steps, want, decode, exact_room)
                   : Counting(probes::step_loop_bounded_steps,
                              std::vector<uint32_t>(want.begin(), want.end()), decode, exact_room);
          const uint64_t steps = probes::step_loop_steps - steps_before;
          if (GetParam().step_loop == StepLoopFormats::kAll && payload.size() >= 8) {
            EXPECT_EQ(steps + bounded, payload_steps) << steps << " steps";
            EXPECT_GE(bounded, payload.size() % 8 != 0 ? 1u : 0u);
          } else {
            EXPECT_EQ(bounded, 0u);
          }
        }
      }
    }
    // Cut inside its last varint, which then ends in a continuation byte.
    const std::string cut = payload + "\x80";
    const auto* c = reinterpret_cast<const uint8_t*>(cut.data());
    std::vector<uint32_t> out(values.size() + 64);
    const DecodeResult r = kernel().Decoder(VarintFormat::kUInt32, false)(
        c, c + cut.size(), out.data(), out.size(), 0);
    EXPECT_EQ(r.status, DecodeStatus::kTruncated) << cut.size() << " bytes";
    EXPECT_EQ(r.count, values.size());
    EXPECT_EQ(r.pos, c + payload.size());
  }
}

#if defined(__x86_64__)
// masked_vbyte_avx2's block decoder samples the first 64 bytes of a 32-bit payload of 256 bytes or
// more: at most 14 varint ends there, none of a varint over five bytes (mostly five-byte varints),
// take Masked VByte (no 8-byte steps); 15 ends, a ten-byte varint among 13 (a negative int32), or
// a payload under 256 bytes, the step loop; a 64-bit field never takes Masked VByte (the step loop
// here, a six-byte varint in every window keeping out the five-byte windows). Each payload repeats
// its 64 bytes' pattern past the sample, so the choice is the sample's alone.
TEST(MaskedVbyteAvx2BlockDecoderTest, PayloadsOfFiveByteVarintsTakeMaskedVByte) {
  if (!DetectedCpu().Has(PBACCEL_PROBED_MASKED_VBYTE_AVX2_FEATURES)) {
    GTEST_SKIP() << "this CPU cannot run masked_vbyte_avx2";
  }
  using F = VarintFormat;
  // `n` five-byte varints (of values under 2^31: valid in every 32-bit format, strict too), then
  // `rest`.
  const auto fives_then = [](int n, std::vector<int64_t> rest) {
    std::vector<int64_t> v;
    for (int k = 0; k < n; ++k) v.push_back(int64_t{1} << 28 | 977 * k);
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  };
  const std::vector<int64_t> twelve = fives_then(12, {128, 16383});
  const struct {
    const char* what;
    std::vector<int64_t> pattern;  // 64 bytes of varints.
    std::vector<VarintFormat> formats;
    bool masked_vbyte;
    int repeats = 50;  // The payload: the pattern this many times.
  } cases[] = {
      {"12 five-byte varints, 2 two-byte", twelve, {F::kUInt32, F::kInt32, F::kDeltaUInt32}, true},
      {"11 five-byte varints, a three-byte, 3 two-byte",
       fives_then(11, {1 << 14, 128, 200, 16383}),
       {F::kUInt32, F::kInt32, F::kDeltaUInt32},
       false},
      {"10 five-byte varints, 2 two-byte, a ten-byte",
       fives_then(10, {128, 16383, -5}),
       {F::kInt32},
       false},
      {"the first pattern, 256 bytes", twelve, {F::kUInt32}, true, 4},
      {"the first pattern, 192 bytes: too short to be sampled", twelve, {F::kUInt32}, false, 3},
      {"11 five-byte varints, a six-byte, a two- and a one-byte, as uint64",
       fives_then(11, {128, int64_t{1} << 35, 1}),
       {F::kUInt64},
       false},
  };
  for (const auto& c : cases) {
    std::string payload;
    std::vector<int64_t> values;
    for (int i = 0; i < c.repeats; ++i) {
      for (const int64_t v : c.pattern) {
        payload += Varint(static_cast<uint64_t>(v));
        values.push_back(v);
      }
    }
    ASSERT_EQ(payload.size(), 64u * c.repeats) << c.what;
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    for (const VarintFormat format : c.formats) {
      for (const bool strict : {false, true}) {
        SCOPED_TRACE(
            absl::StrCat(c.what, ", format ", static_cast<int>(format), strict ? ", strict" : ""));
        std::vector<uint64_t> out(values.size() + 64, ~uint64_t{0});
        const uint64_t before = probes::step_loop_steps;
        const DecodeResult r = kMaskedVbyteAvx2Kernel.Decoder(format, strict)(
            p, p + payload.size(), out.data(), out.size(), 0);
        const uint64_t steps = probes::step_loop_steps - before;
        ASSERT_EQ(r.status, DecodeStatus::kOk);
        ASSERT_EQ(r.count, values.size());
        uint32_t sum = 0;
        for (size_t i = 0; i < values.size(); ++i) {
          sum += static_cast<uint32_t>(values[i]);
          const uint64_t got =
              format == F::kUInt64 ? out[i] : reinterpret_cast<const uint32_t*>(out.data())[i];
          const uint64_t want = format == F::kUInt64        ? static_cast<uint64_t>(values[i])
                                : format == F::kDeltaUInt32 ? sum
                                                            : static_cast<uint32_t>(values[i]);
          ASSERT_EQ(got, want) << "value " << i;
        }
        if (c.masked_vbyte) {
          EXPECT_EQ(steps, 0u) << "Masked VByte takes no 8-byte steps";
        } else {
          EXPECT_GE(steps, payload.size() / 8 - 2) << "the step loop";
        }
      }
    }
  }
}
#endif  // defined(__x86_64__)

TEST_P(KernelProbesTest, TinyDecodersTakeSixteenByteSteps) {
  for (int count = 1; count <= 40; ++count) {
    for (const auto* values : {&kShort, &kWithLong}) {
      std::vector<uint32_t> expected;
      std::string payload = Payload(*values, count, &expected);
      const bool two_byte = values == &kShort || count < 4;  // 70000 is the fourth value.
      // A payload of one-byte varints only (the first value alone) is widened without steps.
      const bool one_byte =
          std::all_of(payload.begin(), payload.end(), [](char c) { return (c & 0x80) == 0; });
      const uint64_t expected_steps = two_byte && !one_byte ? (payload.size() + 15) / 16 : 0;
      SCOPED_TRACE(absl::StrCat(count, " values, ", payload.size(), " bytes"));
      if (payload.size() <= static_cast<size_t>(kTinyPayloadBytes)) {
        const size_t n = payload.size();
        payload.resize(n + kTinyReadableBytes, '\x80');  // Readable past the payload.
        const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
        const uint64_t steps = StepsOf(expected, [&](uint32_t* out, int) {
          return kernel().TinyDecoder(VarintFormat::kUInt32)(p, p + n, out, kTinyPayloadBytes);
        });
        EXPECT_EQ(steps, expected_steps) << "decode_tiny";
        payload.resize(n);
      }
      if (payload.size() <= 64) {
        const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
        const auto bounded = [&](uint32_t* out, int cap) {
          return kernel().DecodeTinyBounded(VarintFormat::kUInt32, p, p + payload.size(), out,
                                            static_cast<size_t>(cap));
        };
        EXPECT_EQ(StepsOf(expected, bounded), expected_steps) << "decode_tiny_bounded";
        // A caller's span of exactly the values (no room for whole steps past them): the steps
        // still decode it, through a buffer.
        EXPECT_EQ(StepsOf(expected, bounded, /*exact_room=*/true), expected_steps)
            << "decode_tiny_bounded, room for the values only";
      }
    }
  }
}

// Short 64-bit payloads whose varints are all at most five bytes, with one of three to five bytes
// among them (a way's refs: a five-byte node id, then one- and five-byte deltas): the kernels with
// 32-bit lanes take them there in decode_tiny (up to 16 bytes) and, from 16 bytes to 64, in
// decode_tiny_bounded (also with room for the values only); not payloads of one- and two-byte
// varints (the 16-byte steps), nor ones holding a six-byte varint, nor 32-bit formats. The values
// right either way.
TEST_P(KernelProbesTest, ShortPayloadsOfUpToFiveByteVarintsTakeLanes) {
  for (const auto* cycle : {&kWithFive64, &kRefsLike, &kWithSix64}) {
    for (int count = 1; count <= 40; ++count) {
      std::vector<uint64_t> values;
      std::string payload = Payload(*cycle, count, &values);
      const size_t n = payload.size();
      const bool over_two_bytes = std::any_of(values.begin(), values.end(),
                                              [](uint64_t v) { return v >= uint64_t{1} << 14; });
      const bool over_five_bytes = std::any_of(values.begin(), values.end(),
                                               [](uint64_t v) { return v >= uint64_t{1} << 35; });
      for (const VarintFormat format : {VarintFormat::kUInt64, VarintFormat::kInt64,
                                        VarintFormat::kSInt64, VarintFormat::kUInt32}) {
        SCOPED_TRACE(
            absl::StrCat(count, " values, ", n, " bytes, format ", static_cast<int>(format)));
        const bool is64 = Is64BitFormat(format);
        const bool lanes = GetParam().varint_lanes && is64 && over_two_bytes && !over_five_bytes;
        const std::vector<uint64_t> want = Want(format, values);
        // Counting's check in the format's output type.
        const auto counted = [&](const uint64_t& counter, auto decode, bool exact_room) {
          if (is64) return Counting(counter, want, decode, exact_room);
          return Counting(counter, std::vector<uint32_t>(want.begin(), want.end()), decode,
                          exact_room);
        };
        const auto lane_payloads = [&](auto decode, bool exact_room) {
          return counted(probes::lane_payloads, decode, exact_room);
        };
        if (n <= static_cast<size_t>(kTinyPayloadBytes)) {
          payload.resize(n + kTinyReadableBytes, '\x80');  // Readable past the payload.
          const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
          const auto tiny = [&](auto* out, int) {
            return kernel().TinyDecoder(format)(p, p + n, out, kTinyPayloadBytes);
          };
          // The AVX2 kernels (avx2_lanes: whole steps for the rest) take every such payload,
          // and every kernel the ones its lanes take; another may decline (neon's and
          // masked_vbyte's decode_tiny take other varints of up to four bytes, one by one): then
          // there are no values to check.
          std::vector<uint64_t> scratch(kTinyPayloadBytes);
          if (GetParam().avx2_lanes || lanes || tiny(scratch.data(), 0) != kTinyUnhandled) {
            EXPECT_EQ(lane_payloads(tiny, false), lanes ? 1u : 0u) << "decode_tiny";
          }
          payload.resize(n);
        }
        if (n <= 64) {
          // At the start of a 64-byte line: the AVX2 kernels' loads of p[0, 64) stay on its page,
          // as they must to take the registers' way (short_payloads_avx2-inl.h).
          alignas(64) uint8_t line[64];
          std::memcpy(line, payload.data(), n);
          const uint8_t* p = line;
          const auto bounded = [&](auto* out, int room) {
            return kernel().DecodeTinyBounded(format, p, p + n, out, static_cast<size_t>(room));
          };
          const uint64_t want_lanes = lanes && GetParam().avx2_lanes && n >= 16 ? 1 : 0;
          EXPECT_EQ(lane_payloads(bounded, false), want_lanes) << "decode_tiny_bounded";
          // Without the spare slots the steps go through a buffer, where the AVX2 kernels take
          // 8-byte steps: short_payloads_avx2-inl.h's WholeStepBoundedTiny reads a payload into
          // registers (every 64-bit one of 16 bytes or more without a varint over five bytes) only
          // where the caller offers them.
          EXPECT_EQ(lane_payloads(bounded, true), 0u)
              << "decode_tiny_bounded, room for the values only";
          const uint64_t want_registers =
              GetParam().avx2_lanes && is64 && !over_five_bytes && n >= 16 ? 1 : 0;
          EXPECT_EQ(counted(probes::register_payloads, bounded, false), want_registers)
              << "decode_tiny_bounded";
          EXPECT_EQ(counted(probes::register_payloads, bounded, true), 0u)
              << "decode_tiny_bounded, room for the values only";
        }
      }
    }
  }
}

// The x86 kernels' window decoder (decode_window, short_payloads_avx2-inl.h) takes payloads of up
// to 64 bytes followed by readable bytes (continuation bytes here) its own ways: a 64-bit one of
// varints of up to five bytes (OSM's refs) in 32-bit lanes, also when they are all one or two
// bytes; a 32-bit one of one- and two-byte varints in 16-byte steps, and one holding a longer
// varint without them. It declines a 64-bit payload holding a six-byte varint, taking no way. The
// values right each time. masked_vbyte's (SSE4.1) the same ways, but a 64-bit payload of one- and
// two-byte varints takes the 16-byte steps, and a 32-bit one with a longer varint its block
// decoder. Kernels without one (neon, sve) have no entry.
TEST_P(KernelProbesTest, TheWindowDecoderTakesShortPayloadsItsWays) {
  if (kernel().WindowDecoder(VarintFormat::kUInt32) == nullptr) {
    GTEST_SKIP() << GetParam().name << " has no window decoder";
  }
  ASSERT_TRUE(GetParam().varint_lanes);
  // The payload of `count` varints of `cycle`, 64 continuation bytes readable after it, decoded by
  // the window decoder in `format`; how far `counter` moved (-1: declined, or over 64 bytes).
  const auto window = [&](const auto& cycle, int count, VarintFormat format,
                          const uint64_t& counter) -> int64_t {
    using T = typename std::decay_t<decltype(cycle)>::value_type;
    std::vector<T> values;
    std::string payload = Payload(cycle, count, &values);
    const size_t n = payload.size();
    if (n > static_cast<size_t>(kWindowPayloadBytes)) return -1;
    payload.resize(n + kWindowReadableBytes, '\x80');
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    const auto decode = [&](auto* out, int room) {
      return kernel().WindowDecoder(format)(p, p + n, out, room);
    };
    std::vector<uint64_t> scratch(n + 64);
    if (decode(scratch.data(), static_cast<int>(scratch.size())) == kTinyUnhandled) return -1;
    const std::vector<uint64_t> want = Want(format, {values.begin(), values.end()});
    if (Is64BitFormat(format)) return static_cast<int64_t>(Counting(counter, want, decode));
    return static_cast<int64_t>(
        Counting(counter, std::vector<uint32_t>(want.begin(), want.end()), decode));
  };
  for (int count = 1; count <= 40; ++count) {
    SCOPED_TRACE(absl::StrCat(count, " values"));
    for (const VarintFormat format : {VarintFormat::kUInt64, VarintFormat::kSInt64}) {
      for (const auto* cycle : {&kRefsLike, &kWithFive64}) {
        const int64_t windows = window(*cycle, count, format, probes::window_payloads);
        if (windows < 0) continue;  // Over 64 bytes.
        EXPECT_EQ(windows, 1);
        // masked_vbyte's: where a varint is over two bytes (the first of these is the third
        // value of kWithFive64, the first of kRefsLike).
        bool over_two_bytes = false;
        for (int i = 0; i < count; ++i) {
          over_two_bytes |= (*cycle)[static_cast<size_t>(i) % cycle->size()] >= uint64_t{1} << 14;
        }
        EXPECT_EQ(window(*cycle, count, format, probes::lane_payloads),
                  GetParam().avx2_lanes || over_two_bytes ? 1 : 0)
            << "64-bit lanes";
      }
      const std::vector<uint64_t> short64(kShort.begin(), kShort.end());
      if (window(short64, count, format, probes::window_payloads) >= 0) {
        if (GetParam().avx2_lanes) {
          EXPECT_EQ(window(short64, count, format, probes::lane_payloads), 1) << "short ones too";
        } else if (count >= 2) {  // The second is two bytes (the first alone: widened).
          EXPECT_EQ(window(short64, count, format, probes::lane_payloads), 0) << "short ones";
          EXPECT_GE(window(short64, count, format, probes::two_byte_steps), 1) << "short ones";
        }
      }
      if (count >= 5) {  // The six-byte varint is the fifth.
        EXPECT_EQ(window(kWithSix64, count, format, probes::window_payloads), -1)
            << "a six-byte varint";
      }
    }
    for (const VarintFormat format : {VarintFormat::kUInt32, VarintFormat::kSInt32}) {
      const int64_t two_byte = window(kShort, count, format, probes::two_byte_steps);
      if (two_byte >= 0 && count >= 2) {  // The second is two bytes (the first alone: widened).
        EXPECT_GE(two_byte, 1) << "one- and two-byte varints";
        EXPECT_EQ(window(kShort, count, format, probes::window_payloads), 1);
      }
      if (count >= 4 && window(kUpToFour, count, format, probes::window_payloads) >= 0) {
        EXPECT_EQ(window(kUpToFour, count, format, probes::two_byte_steps), 0) << "longer ones";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    ProbedKernels, KernelProbesTest,
#if defined(__x86_64__)
    ::testing::Values(Probed{"bmi2", &kBmi2Kernel, PBACCEL_PROBED_BMI2_FEATURES, true,
                             StepLoopFormats::kAll, true, true, true},
                      // The step loop (PortableBits) for every format (long payloads of five-byte
                      // varints aside: MaskedVbyteAvx2BlockDecoderTest).
                      Probed{"masked_vbyte_avx2", &kMaskedVbyteAvx2Kernel,
                             PBACCEL_PROBED_MASKED_VBYTE_AVX2_FEATURES, true, StepLoopFormats::kAll,
                             true, true, true},
                      // The SSE4.1 lanes (varint_lanes_sse41-inl.h).
                      Probed{"masked_vbyte", &kMaskedVbyteKernel,
                             PBACCEL_PROBED_MASKED_VBYTE_FEATURES, false, StepLoopFormats::kNone,
                             true, false, true}),
#else
    ::testing::Values(Probed{"neon", &kNeonKernel, PBACCEL_PROBED_NEON_FEATURES, true,
                             StepLoopFormats::kNone, false, false, false},
                      Probed{"sve", &kSveKernel, PBACCEL_PROBED_SVE_FEATURES, true,
                             StepLoopFormats::kNone, false, false, false}),
#endif
    [](const ::testing::TestParamInfo<Probed>& info) { return std::string(info.param.name); });

#if defined(__x86_64__)
// The values `decode(out, room)` gives in format T (uint32_t or uint64_t), offered room for exactly
// the expected values (nothing past them may be written), checked against `expected`; returns the
// payloads avx512's tiny decoders took in 16-bit lanes.
template <typename T, typename Decode>
uint64_t TwoBytePayloadsOf(const std::vector<uint32_t>& expected, Decode decode) {
  std::vector<T> out(expected.size() + 64, static_cast<T>(~T{0}));
  const uint64_t before = probes::avx512_two_byte_payloads;
  EXPECT_EQ(decode(out.data(), static_cast<int>(expected.size())),
            static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], T{expected[i]}) << "value " << i;
  for (size_t i = expected.size(); i < out.size(); ++i) {
    EXPECT_EQ(out[i], static_cast<T>(~T{0})) << "slot " << i << " past the values written";
  }
  return probes::avx512_two_byte_payloads - before;
}

// avx512's tiny decoders decode a payload of one- and two-byte varints in 16-bit lanes (one
// vpcompressw, parsers/avx512.cc's TwoByteValues16 and TwoByteValues32): decode_tiny's payloads
// (up to 16 bytes) and decode_tiny_bounded's of up to 32 bytes, 32- and 64-bit outputs alike. A
// payload holding a longer varint, of one-byte varints only, or longer, takes the general steps.
template <typename T>
void CheckAvx512TwoBytePayloads(VarintFormat format) {
  for (int count = 1; count <= 40; ++count) {
    for (const auto* values : {&kShort, &kWithLong}) {
      std::vector<uint32_t> expected;
      std::string payload = Payload(*values, count, &expected);
      const size_t n = payload.size();
      const bool two_byte = values == &kShort || count < 4;  // 70000 is the fourth value.
      const bool one_byte =
          std::all_of(payload.begin(), payload.end(), [](char c) { return (c & 0x80) == 0; });
      const uint64_t expected_payloads = two_byte && !one_byte && n <= 32 ? 1 : 0;
      SCOPED_TRACE(
          absl::StrCat(count, " values, ", n, " bytes, format ", static_cast<int>(format)));
      payload.resize(n + kTinyReadableBytes, '\x80');  // Readable past the payload.
      const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
      if (n <= static_cast<size_t>(kTinyPayloadBytes)) {
        std::vector<T> out(kTinyPayloadBytes);
        const uint64_t before = probes::avx512_two_byte_payloads;
        ASSERT_EQ(kAvx512Kernel.TinyDecoder(format)(p, p + n, out.data(), kTinyPayloadBytes),
                  count);
        for (int i = 0; i < count; ++i) EXPECT_EQ(out[i], T{expected[i]}) << "value " << i;
        EXPECT_EQ(probes::avx512_two_byte_payloads - before, expected_payloads) << "decode_tiny";
      }
      if (n <= 64) {
        EXPECT_EQ(TwoBytePayloadsOf<T>(expected,
                                       [&](T* out, int room) {
                                         return kAvx512Kernel.DecodeTinyBounded(
                                             format, p, p + n, out, static_cast<size_t>(room));
                                       }),
                  expected_payloads)
            << "decode_tiny_bounded";
      }
    }
  }
}

TEST(Avx512TwoByteLanesTest, ShortPayloadsOfTwoByteVarintsTakeSixteenBitLanes) {
  if (!DetectedCpu().Has(PBACCEL_PROBED_AVX512_FEATURES)) {
    GTEST_SKIP() << "this CPU cannot run avx512";
  }
  CheckAvx512TwoBytePayloads<uint32_t>(VarintFormat::kUInt32);
  CheckAvx512TwoBytePayloads<uint64_t>(VarintFormat::kUInt64);
}

// avx512's block decoder takes lenient delta sint64 as its gaps (sint64, its own decoder), then
// sums them in vectors (running_sums-inl.h: AVX2's, four 64-bit lanes; parsers/avx512.cc's
// DeltaAfterGaps for that format only); strict delta sint64, and the other delta formats, keep the
// sums fused into its stores. 7,000 values, with the zigzag gaps' running sums checked.
TEST(Avx512DeltaTest, DeltaSInt64SumsItsGapsInVectors) {
  if (!DetectedCpu().Has(PBACCEL_PROBED_AVX512_FEATURES)) {
    GTEST_SKIP() << "this CPU cannot run avx512";
  }
  for (const auto* cycle : {&kShort, &kWithFive}) {
    std::vector<uint32_t> values;
    const std::string payload = Payload(*cycle, 7000, &values);
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    const std::vector<uint64_t> want =
        Want(VarintFormat::kDeltaSInt64, std::vector<uint64_t>(values.begin(), values.end()));
    for (const VarintFormat format : {VarintFormat::kDeltaSInt64, VarintFormat::kDeltaUInt64}) {
      for (const bool strict : {false, true}) {
        SCOPED_TRACE(absl::StrCat("format ", static_cast<int>(format), strict ? " strict" : ""));
        std::vector<uint64_t> out(values.size() + 64);
        const uint64_t before = probes::running_sum_vectors;
        const DecodeResult r =
            kAvx512Kernel.Decoder(format, strict)(p, p + payload.size(), out.data(), out.size(), 0);
        const uint64_t vectors = probes::running_sum_vectors - before;
        ASSERT_EQ(r.status, DecodeStatus::kOk);
        ASSERT_EQ(r.count, values.size());
        if (format == VarintFormat::kDeltaSInt64) {
          out.resize(values.size());
          EXPECT_EQ(out, want);
        }
        if (format == VarintFormat::kDeltaSInt64 && !strict) {
          EXPECT_GE(vectors, values.size() / 4 - 4);
        } else {
          EXPECT_EQ(vectors, 0u);
        }
      }
    }
  }
}

// avx512's tiny decoders store whole vectors where the room holds their lanes (on Zen 5 a store
// under a partial mask held up the reused messages' next loads: docs/kernels.md, "Whole stores on
// Zen 5"): given room to spare, slots past the values are written, which no store under a mask
// does; given the least room each takes (decode_tiny: one value per payload byte, under 16 here;
// the bounded decoder: the values), nothing past the values; never anything past the room. The
// payloads take the vector paths: two-byte varints (TwoByteValues16, TwoByteValues32), a
// three-byte one among them (the gather: Pack32UpTo4, or Pack64UpTo8's lanes for sint64), and a
// five-byte one (groups of eight 64-bit lanes).
TEST(Avx512TinyStoresTest, WholeVectorsWhereTheRoomHoldsThem) {
  if (!DetectedCpu().Has(PBACCEL_PROBED_AVX512_FEATURES)) {
    GTEST_SKIP() << "this CPU cannot run avx512";
  }
  constexpr unsigned char kSentinel = 0xA5;
  constexpr int kSpareRoom = 32;
  struct Case {
    bool bounded;  // decode_tiny_bounded, else decode_tiny.
    std::vector<VarintFormat> formats;
    std::vector<int64_t> values;  // Encoded as canonical varints.
  };
  const std::vector<Case> cases = {
      {false, {VarintFormat::kUInt32, VarintFormat::kSInt64}, {300, 5, 1000}},
      {false, {VarintFormat::kUInt32, VarintFormat::kSInt64}, {300, 20000, 7}},
      {true,
       {VarintFormat::kUInt32, VarintFormat::kSInt64},
       {300, 301, 302, 303, 304, 305, 306, 307, 308}},  // 18 bytes.
      {true, {VarintFormat::kSInt64}, {int64_t{1} << 30, 300, 300, 300, 300, 300, 300}},
  };
  for (const Case& c : cases) {
    std::string input;
    for (const int64_t v : c.values) input += Varint(static_cast<uint64_t>(v));
    const size_t n = input.size();
    input.resize(n + kTinyReadableBytes, 0x01);  // Readable past the payload, as decode_tiny asks.
    const auto* p = reinterpret_cast<const uint8_t*>(input.data());
    const int count = static_cast<int>(c.values.size());
    // The least room each decoder takes: the values (bounded), one per payload byte (decode_tiny).
    const int least = c.bounded ? count : static_cast<int>(n);
    for (const VarintFormat format : c.formats) {
      const size_t elem = format == VarintFormat::kUInt32 ? 4 : 8;
      for (const int room : {least, kSpareRoom}) {
        SCOPED_TRACE(absl::StrCat(c.bounded ? "decode_tiny_bounded" : "decode_tiny", ", ", n,
                                  " bytes, format ", static_cast<int>(format), ", room ", room));
        std::vector<unsigned char> out((kSpareRoom + 8) * elem, kSentinel);
        const int r = c.bounded ? kAvx512Kernel.DecodeTinyBounded(format, p, p + n, out.data(),
                                                                  static_cast<size_t>(room))
                                : kAvx512Kernel.TinyDecoder(format)(p, p + n, out.data(), room);
        ASSERT_EQ(r, count);
        for (int i = 0; i < count; ++i) {
          int64_t v = 0;
          std::memcpy(&v, out.data() + i * elem, elem);
          if (elem == 4) v = static_cast<uint32_t>(v);
          const int64_t raw = c.values[i];
          EXPECT_EQ(
              v, format == VarintFormat::kSInt64 ? ZigZagDecode64(static_cast<uint64_t>(raw)) : raw)
              << i;
        }
        const auto untouched = [&](size_t from, size_t to) {
          return std::all_of(out.begin() + from * elem, out.begin() + to * elem,
                             [](unsigned char b) { return b == kSentinel; });
        };
        EXPECT_EQ(untouched(count, room), room == least)
            << "slots past the values are stored exactly when the room has them to spare";
        EXPECT_TRUE(untouched(room, kSpareRoom + 8)) << "wrote past the room";
      }
    }
  }
}
#endif  // defined(__x86_64__)

#if defined(__aarch64__)
// The sve kernel's SVE loads (parsers/sve_runs-inl.h) store the values NEON's steps would: the
// probe counts them. Every 64-byte window of one-byte varints is one run, and so is a last run of
// under 16 one-byte varints; a tail holding a longer varint, and running sums, take none.
TEST(SveOneByteRunsTest, WindowsAndTailsOfOneByteVarintsTakeSveLoads) {
  if (!DetectedCpu().Has(PBACCEL_PROBED_SVE_FEATURES)) GTEST_SKIP() << "this CPU cannot run sve";
  struct Case {
    size_t one_byte;  // One-byte varints first,
    bool long_last;   // then a two-byte one.
    uint64_t runs;
  };
  for (const Case c : {Case{1, false, 1}, Case{15, false, 1}, Case{16, false, 0},
                       Case{64, false, 1}, Case{71, false, 2}, Case{200, false, 4},
                       Case{1003, false, 16}, Case{200, true, 3}, Case{12, true, 0}}) {
    std::string payload;
    std::vector<uint32_t> expected;
    for (size_t i = 0; i < c.one_byte; ++i) {
      payload.push_back(static_cast<char>(i * 37 % 128));
      expected.push_back(static_cast<uint32_t>(i * 37 % 128));
    }
    if (c.long_last) payload += Payload({300}, 1, &expected);
    SCOPED_TRACE(
        absl::StrCat(c.one_byte, " one-byte varints", c.long_last ? " and one of two" : ""));
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    for (const VarintFormat format :
         {VarintFormat::kUInt32, VarintFormat::kSInt64, VarintFormat::kDeltaUInt32}) {
      std::vector<uint64_t> out(expected.size() + 64);
      const uint64_t before = probes::sve_one_byte_runs;
      const DecodeResult r =
          kSveKernel.Decoder(format, false)(p, p + payload.size(), out.data(), out.size(), 0);
      ASSERT_EQ(r.status, DecodeStatus::kOk);
      ASSERT_EQ(r.count, expected.size());
      const bool delta = format == VarintFormat::kDeltaUInt32;
      uint32_t sum = 0;
      for (size_t i = 0; i < expected.size(); ++i) {
        sum += expected[i];
        if (format == VarintFormat::kUInt32) {
          EXPECT_EQ(reinterpret_cast<const uint32_t*>(out.data())[i], expected[i]) << i;
        } else if (format == VarintFormat::kSInt64) {
          const int64_t zigzag = static_cast<int64_t>(expected[i] >> 1) ^ -int64_t{expected[i] & 1};
          EXPECT_EQ(static_cast<int64_t>(out[i]), zigzag) << i;
        } else {
          EXPECT_EQ(reinterpret_cast<const uint32_t*>(out.data())[i], sum) << i;
        }
      }
      EXPECT_EQ(probes::sve_one_byte_runs - before, delta ? 0 : c.runs) << static_cast<int>(format);
    }
  }
}
#endif  // defined(__aarch64__)

}  // namespace
#endif  // defined(__x86_64__) || defined(__aarch64__)

}  // namespace internal
}  // namespace pbaccel
