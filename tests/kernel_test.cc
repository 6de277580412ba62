// Copyright 2026 The pbaccel Authors.
//
// Every kernel in the registry, every format, both strictness modes, held to upstream protobuf.
//
// Each case runs the kernel's decode function directly (so every kernel is tested, not only the
// dispatched one) with the payload placed against inaccessible pages (so any read outside it
// crashes), and compares the outcome with (1) upstream protobuf's ParseFromString of the payload
// as a packed field, for acceptance and values, and (2) the independent reference splitter in
// varint_test_util, for the error kind, its byte offset and the values decoded before it.
// A kernel this CPU cannot run is skipped with the missing features named. Adding a kernel to the
// registry adds it here; no test code changes.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pbaccel/cpu_features.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/testing/random_message.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace testing {
namespace {

using internal::DecodeResult;
using internal::KernelDescriptor;
using internal::KernelEntry;

std::string StatusName(DecodeStatus s) {
  switch (s) {
    case DecodeStatus::kOk: return "kOk";
    case DecodeStatus::kOutputFull: return "kOutputFull";
    case DecodeStatus::kTruncated: return "kTruncated";
    case DecodeStatus::kTooLong: return "kTooLong";
    case DecodeStatus::kOverflow: return "kOverflow";
  }
  return "?";
}

std::string Hex(absl::string_view bytes, size_t max = 48) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    absl::StrAppend(&out, i ? " " : "", absl::Hex(static_cast<uint8_t>(bytes[i]), absl::kZeroPad2));
  }
  if (bytes.size() > max) absl::StrAppend(&out, " ... (", bytes.size(), " bytes)");
  return out;
}

class KernelTest : public ::testing::TestWithParam<KernelEntry> {
 protected:
  void SetUp() override {
    const uint32_t missing = GetParam().required_features & ~DetectedCpu().features;
    if (missing != 0) {
      GTEST_SKIP() << "kernel '" << GetParam().kernel->name
                   << "' needs CPU features this machine lacks: " << CpuFeatureNames(missing);
    }
  }

  const KernelDescriptor& kernel() const { return *GetParam().kernel; }

  // Decodes [begin, end) leniently in `format` into `out` from the running sum's base `base`, at
  // most `chunk` values per call, each call resuming where the one before stopped with kOutputFull
  // (its base the last value written). Returns the last call's result, its count the total.
  DecodeResult DecodeInChunks(VarintFormat format, const uint8_t* begin, const uint8_t* end,
                              size_t chunk, uint64_t base, std::vector<unsigned char>* out) {
    const size_t capacity = out->size() / OutputSize(format);
    size_t total = 0;
    DecodeResult r{begin, 0, DecodeStatus::kOk};
    do {
      const size_t cap = std::min(chunk, capacity - total);
      r = kernel().Decoder(format, false)(r.pos, end, out->data() + total * OutputSize(format), cap,
                                          base);
      EXPECT_LE(r.count, cap);
      if (r.status == DecodeStatus::kOutputFull) {
        EXPECT_EQ(r.count, cap);
      }
      total += r.count;
      if (total > 0) base = OutputBits(format, out->data(), total - 1);
    } while (r.status == DecodeStatus::kOutputFull && total < capacity);
    r.count = total;
    return r;
  }

  // Whether the kernel has the entries `of` gives (BoundedTinyDecoder, WindowDecoder), checking
  // that it has one for every non-delta format or none, and none for the delta formats.
  bool HasForEveryNonDeltaFormat(internal::TinyDecodeFn (KernelDescriptor::*of)(VarintFormat)
                                     const) const {
    const bool has = (kernel().*of)(VarintFormat::kUInt32) != nullptr;
    for (VarintFormat format : AllFormats()) {
      EXPECT_EQ((kernel().*of)(format) != nullptr, has && !internal::IsDeltaFormat(format))
          << FormatName(format);
    }
    return has;
  }

  // What a slack-reading tiny decoder's case is (decode_tiny, decode_window): the kernel, the
  // format, the room, what pads the payload to the readable bytes (`pad`), and the payload.
  std::string TinyCase(VarintFormat format, int room, char pad, const std::string& payload) const {
    return absl::StrCat("kernel=", kernel().name, " format=", FormatName(format), " room=", room,
                        " padding=", pad == '\x01' ? "one-byte varints" : "continuation bytes",
                        " payload=[", Hex(payload), "]");
  }

  // Decodes `payload` with the kernel (payload against the trailing guard page, then against the
  // leading one), checks both against the expectations, and returns whether the checks passed.
  void Check(VarintFormat format, absl::string_view payload, bool strict,
             bool check_upstream = true) {
    SCOPED_TRACE(absl::StrCat("kernel=", kernel().name, " format=", FormatName(format),
                              " strict=", strict, " payload=[", Hex(payload), "]"));
    const Expected expected = ExpectedDecode(format, payload, strict);
    if (check_upstream && !strict) {
      // The reference splitter must agree with upstream, or the test itself is wrong.
      const auto upstream = UpstreamDecode(format, payload);
      ASSERT_EQ(upstream.has_value(), expected.status == DecodeStatus::kOk)
          << "upstream " << (upstream ? "accepts" : "rejects") << " but the reference says "
          << StatusName(expected.status);
      if (upstream) {
        ASSERT_EQ(*upstream, expected.values);
      }
    }
    RunAndCompare(format, guard_.CopyFlushEnd(payload), strict, expected);
    RunAndCompare(format, guard_.CopyFlushStart(payload), strict, expected);
  }

  void RunAndCompare(VarintFormat format, absl::string_view payload, bool strict,
                     const Expected& expected) {
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(payload.data());
    const uint8_t* end = begin + payload.size();
    const size_t count = kernel().count_terminators(begin, end);
    size_t reference_count = 0;
    for (char c : payload) reference_count += (static_cast<uint8_t>(c) & 0x80) == 0;
    ASSERT_EQ(count, reference_count) << "count_terminators";

    // Output with a sentinel tail: a kernel must write exactly `count` elements.
    const size_t elem = OutputSize(format);
    constexpr size_t kSentinel = 64;
    std::vector<unsigned char> out((count + kSentinel) * elem, 0xA5);
    const DecodeResult r =
        kernel().Decoder(format, strict)(begin, end, out.data(), count, /*delta_base=*/0);

    // With cap == number of terminators, a payload ending in bytes without a terminator fills
    // the output; the public API classifies that remainder the same way.
    DecodeStatus status = r.status;
    if (status == DecodeStatus::kOutputFull)
      status = internal::ClassifyUnterminatedTail(r.pos, end);
    ASSERT_EQ(StatusName(status), StatusName(expected.status));
    ASSERT_EQ(r.count, expected.values.size());
    if (expected.status == DecodeStatus::kOk) {
      EXPECT_EQ(r.pos, end);
    } else {
      EXPECT_EQ(static_cast<size_t>(r.pos - begin), expected.error_offset) << "error offset";
    }
    for (size_t i = 0; i < r.count; ++i) {
      ASSERT_EQ(OutputBits(format, out.data(), i), expected.values[i]) << "value " << i;
    }
    for (size_t i = count * elem; i < out.size(); ++i) {
      ASSERT_EQ(out[i], 0xA5) << "wrote past the output's capacity at byte " << i;
    }
  }

  GuardedBuffer guard_{1 << 24};
};

// --- Lengths and values -------------------------------------------------------------------------

TEST_P(KernelTest, EveryEncodedLengthForEveryType) {
  for (VarintFormat f : AllFormats()) {
    for (int length = 1; length <= 10; ++length) {
      // The smallest and largest values of exactly this length, and a non-canonical zero.
      const uint64_t lo = length == 1 ? 0 : uint64_t{1} << (7 * (length - 1));
      const uint64_t hi = length == 10 ? UINT64_MAX : (uint64_t{1} << (7 * length)) - 1;
      for (bool strict : {false, true}) {
        Check(f, Varint(lo, length), strict);
        Check(f, Varint(hi, length), strict);
        Check(f, Varint(0, length), strict);
        // The same lengths in a run long enough for every kernel's bulk loop.
        std::string run;
        for (int i = 0; i < 40; ++i) run += Varint(i % 2 ? lo : hi, length);
        Check(f, run, strict);
      }
    }
  }
}

TEST_P(KernelTest, BoundaryValues) {
  const uint64_t kValues[] = {0,
                              1,
                              127,
                              128,
                              16383,
                              16384,
                              (uint64_t{1} << 31) - 1,
                              uint64_t{1} << 31,
                              static_cast<uint64_t>(int64_t{-1}),
                              static_cast<uint64_t>(int64_t{INT32_MIN}),
                              static_cast<uint64_t>(int64_t{INT32_MIN} - 1),
                              (uint64_t{1} << 32) - 1,
                              uint64_t{1} << 32,
                              uint64_t{1} << 63,
                              UINT64_MAX,
                              (uint64_t{1} << 56) - 1,
                              uint64_t{1} << 56};
  for (VarintFormat f : AllFormats()) {
    for (bool strict : {false, true}) {
      std::string all;
      for (uint64_t v : kValues) {
        Check(f, Varint(v), strict);
        all += Varint(v);
      }
      for (int rep = 0; rep < 4; ++rep) all += all;
      Check(f, all, strict);
    }
  }
}

TEST_P(KernelTest, TenthByteBitsBeyond64AreDroppedOrRejected) {
  for (VarintFormat f : AllFormats()) {
    for (uint8_t last : {0x00, 0x01, 0x02, 0x03, 0x40, 0x7F}) {
      for (bool strict : {false, true}) {
        std::string payload = TenByteVarint(12345, last);
        Check(f, payload, strict);
        std::string run = Varint(7) + payload + Varint(300) + payload;
        for (int i = 0; i < 4; ++i) run += run;
        Check(f, run, strict);
      }
    }
  }
}

TEST_P(KernelTest, NonCanonicalEncodingsAreAccepted) {
  for (VarintFormat f : AllFormats()) {
    std::string payload;
    for (int length = 1; length <= 10; ++length) {
      payload += Varint(0, length) + Varint(1, length) + Varint(127, length);
    }
    Check(f, payload, false);
    Check(f, payload + payload + payload, true);
  }
}

TEST_P(KernelTest, RunsOfFiveByteVarintsWithEveryFifthByte) {
  // Five-byte varints back to back (random 32-bit values; masked_vbyte's three-at-once step), their
  // fifth byte taking every value 0x00-0x7F: bits past 31 are dropped by 32-bit fields (rejected in
  // strict mode), kept by 64-bit ones. Runs of 1-7, between one-byte varints, at every alignment.
  std::mt19937_64 rng(5);
  std::string payload;
  for (int fifth = 0; fifth < 0x80; ++fifth) {
    const int run = 1 + fifth % 7;
    for (int i = 0; i < run; ++i) {
      const uint64_t low28 = rng() & 0x0FFFFFFF;
      payload +=
          Varint((uint64_t{static_cast<uint64_t>(fifth)} << 28) | low28 | (uint64_t{1} << 21), 5);
    }
    payload += Varint(fifth, 1);
  }
  for (VarintFormat f : AllFormats()) {
    for (size_t start : {0, 1, 2, 3, 4, 7, 13}) {
      Check(f, payload.substr(start), false);
      Check(f, payload.substr(start), true);
    }
  }
}

TEST_P(KernelTest, OneLongVarintInALongPayloadOfShortOnes) {
  // Two-byte varints over 1,100 bytes (long enough for avx512's per-block test for short varints),
  // with one varint of 5-10 bytes starting at every offset of a 64-byte block: at its start, inside
  // it, or open across the block's end, the blocks it touches must take the full path. Block 5 is
  // in the part avx512 samples (the payload then takes its usual walk), block 12 past it (the
  // per-block test must catch it).
  std::mt19937_64 rng(23);
  std::vector<size_t> starts;
  for (size_t block : {5, 12}) {
    for (size_t offset = 0; offset < 64; ++offset) starts.push_back(block * 64 + offset);
  }
  for (int length = 5; length <= 10; ++length) {
    for (size_t at : starts) {
      std::string payload;
      while (payload.size() < at) {
        payload +=
            at - payload.size() == 1 ? Varint(rng() % 128, 1) : Varint(128 + rng() % 16000, 2);
      }
      payload += Varint((rng() | (uint64_t{1} << 62)) >> (64 - 7 * length + (length == 10 ? 6 : 0)),
                        length);
      while (payload.size() < 1100) payload += Varint(128 + rng() % 16000, 2);
      for (VarintFormat f : AllFormats()) {
        Check(f, payload, false, /*check_upstream=*/false);
        Check(f, payload, true, /*check_upstream=*/false);
      }
    }
  }
}

TEST_P(KernelTest, PayloadsOfOneToFourByteVarints) {
  // Long payloads whose varints are all one to four bytes (the AVX2 kernels' four-byte windows):
  // every length mix, the smallest and largest values of each length and non-canonical ones (a
  // zero in four bytes), the payload started at eight offsets across the first window's steps
  // (from inside a varint too) so the varints cross window and step edges at many places; then the
  // same with a five-byte varint about every 200 bytes, which the windows around it must leave to
  // the steps.
  std::mt19937_64 rng(41);
  const auto random_varint = [&rng](int length) {
    const uint64_t lo = length == 1 ? 0 : uint64_t{1} << (7 * (length - 1));
    const uint64_t hi = (uint64_t{1} << (7 * length)) - 1;
    switch (rng() % 8) {
      case 0: return Varint(lo, length);
      case 1: return Varint(hi, length);
      case 2: return Varint(0, length);
      default: return Varint(lo + rng() % (hi - lo + 1), length);
    }
  };
  for (int min_length : {1, 3, 4}) {
    for (bool with_five : {false, true}) {
      std::string payload;
      while (payload.size() < 1100) {
        const bool five = with_five && payload.size() % 200 < 4;
        payload +=
            random_varint(five ? 5 : min_length + static_cast<int>(rng() % (5 - min_length)));
      }
      for (size_t start : {0, 1, 2, 3, 5, 9, 17, 63}) {
        for (VarintFormat f : AllFormats()) {
          SCOPED_TRACE(absl::StrCat("lengths ", min_length, "-4, five-byte ", with_five,
                                    ", from byte ", start));
          Check(f, payload.substr(start), false);
          Check(f, payload.substr(start), true);
        }
      }
    }
  }
}

// --- Malformed payloads -------------------------------------------------------------------------

TEST_P(KernelTest, OverlongVarintsAreRejectedWhereTheyStart) {
  for (VarintFormat f : AllFormats()) {
    // 64+: a whole 64-byte window (or vector block) of continuation bytes.
    for (int length : {11, 12, 16, 20, 64, 100}) {
      for (size_t before : {0, 1, 5, 13, 31, 64}) {
        std::string payload;
        for (size_t i = 0; i < before; ++i) payload += Varint(i * 37 % 300);
        payload += OverlongVarint(length);
        payload += Varint(5) + Varint(1u << 20);
        Check(f, payload, false);
        Check(f, payload, true);
      }
    }
  }
}

TEST_P(KernelTest, TruncationAtEveryByte) {
  std::mt19937_64 rng(7);
  std::string payload;
  for (int i = 0; i < 60; ++i) {
    const int length = 1 + static_cast<int>(rng() % 10);
    payload += Varint(rng() >> (64 - 7 * length + (length == 10 ? 6 : 0)), length);
  }
  for (VarintFormat f : AllFormats()) {
    for (size_t cut = 0; cut <= payload.size(); ++cut) {
      Check(f, absl::string_view(payload).substr(0, cut), false);
    }
  }
}

TEST_P(KernelTest, PayloadOfOnlyContinuationBytes) {
  for (VarintFormat f : AllFormats()) {
    for (size_t n = 1; n <= 40; ++n) Check(f, std::string(n, '\xff'), false);
    for (size_t n : {63, 64, 65, 100, 128, 130}) {
      Check(f, std::string(n, '\xff'), false);
      // With terminators after the run, the output capacity lets vector paths run over it.
      Check(f, std::string(n, '\xff') + std::string(40, '\x01'), false);
    }
  }
}

TEST_P(KernelTest, RandomBytesAgreeWithUpstream) {
  // Random bytes whose high bit is set with probability 1/2, 3/4 and 15/16: every mix of short,
  // long, over-long and truncated varints.
  std::mt19937_64 rng(2026);
  for (int bias : {1, 2, 4}) {
    for (int trial = 0; trial < 150; ++trial) {
      std::string payload(rng() % 120, '\0');
      for (char& c : payload) {
        uint8_t b = static_cast<uint8_t>(rng());
        bool high = (rng() & ((1u << bias) - 1)) != 0;
        c = static_cast<char>(high ? (b | 0x80) : (b & 0x7F));
      }
      for (VarintFormat f : AllFormats()) {
        Check(f, payload, false);
        Check(f, payload, true);
      }
    }
  }
}

// --- Workloads ----------------------------------------------------------------------------------

using testing::FormatFor;  // The format a workload's field type decodes with.

TEST_P(KernelTest, EveryWorkloadEveryLengthUpTo300) {
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    std::mt19937_64 rng(42);
    for (size_t n = 0; n <= 300; ++n) {
      const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, n, rng));
      Check(FormatFor(w.type), payload, false);
      if (n % 7 == 0) {
        Check(FormatFor(w.type), payload, true);
        // Every format on the same bytes: 32-bit formats see 64-bit values, and so on.
        for (VarintFormat f : AllFormats()) Check(f, payload, false, /*check_upstream=*/n < 100);
      }
    }
  }
}

TEST_P(KernelTest, EveryWorkloadLarge) {
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    for (size_t n : {4096, 100000}) {
      const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, n));
      Check(FormatFor(w.type), payload, false);
      Check(FormatFor(w.type), payload, true, /*check_upstream=*/false);
      for (VarintFormat f : AllFormats()) {
        if (internal::IsDeltaFormat(f)) Check(f, payload, false, /*check_upstream=*/false);
      }
    }
  }
}

// --- Output capacity and chunked decoding --------------------------------------------------------

TEST_P(KernelTest, ChunkedDecodingResumesExactly) {
  // Decoding with a small `cap` and resuming from `pos` (carrying the delta base) must give the
  // same values as one pass, for every chunk size.
  std::mt19937_64 rng(3);
  for (const char* name : {"W2", "len1to10", "int32neg25", "1byte", "bool"}) {
    const workloads::PayloadWorkload& w = *workloads::FindPayloadWorkload(name);
    const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, 500, rng));
    const absl::string_view guarded = guard_.CopyFlushEnd(payload);
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(guarded.data());
    const uint8_t* end = begin + guarded.size();
    for (VarintFormat f : AllFormats()) {
      const Expected whole = ExpectedDecode(f, payload, false, /*delta_base=*/1000);
      for (size_t chunk : {1, 2, 3, 7, 8, 9, 16, 33, 64, 127, 128, 129, 192, 200, 499, 500, 501}) {
        SCOPED_TRACE(absl::StrCat(kernel().name, " ", name, " ", FormatName(f), " chunk=", chunk));
        std::vector<unsigned char> out(600 * 8);
        const DecodeResult r = DecodeInChunks(f, begin, end, chunk, 1000, &out);
        ASSERT_EQ(StatusName(r.status), StatusName(DecodeStatus::kOk));
        ASSERT_EQ(r.pos, end);
        ASSERT_EQ(r.count, whole.values.size());
        for (size_t i = 0; i < r.count; ++i) {
          ASSERT_EQ(OutputBits(f, out.data(), i), whole.values[i]);
        }
      }
    }
  }
}

// Delta formats over payloads of several thousand values (longer than the stretches some kernels
// sum their gaps in, running_sums-inl.h's SumsAfterGaps), from a base of 1000: whole, with room
// cut at and around the stretches' ends (then resumed), and cut short inside the last varint
// (the values before it, the error at its first byte).
TEST_P(KernelTest, DeltaFormatsCarryTheirSumsThroughLongPayloads) {
  std::mt19937_64 rng(5);
  for (const char* name : {"W2", "len1to10", "1byte"}) {
    const workloads::PayloadWorkload& w = *workloads::FindPayloadWorkload(name);
    const std::string whole = testing::EncodePacked(workloads::GenerateWireValues(w, 5000, rng));
    const std::string cut = whole.substr(0, whole.size() - 1) + "\x80";
    for (VarintFormat f : AllFormats()) {
      if (!internal::IsDeltaFormat(f)) continue;
      for (const std::string* payload : {&whole, &cut}) {
        const Expected want = ExpectedDecode(f, *payload, false, /*delta_base=*/1000);
        const absl::string_view guarded = guard_.CopyFlushEnd(*payload);
        const uint8_t* const begin = reinterpret_cast<const uint8_t*>(guarded.data());
        const uint8_t* const end = begin + guarded.size();
        for (size_t room : {size_t{6000}, size_t{2047}, size_t{2048}, size_t{2049}, size_t{4096}}) {
          SCOPED_TRACE(absl::StrCat(name, " ", FormatName(f), payload == &cut ? " cut" : "",
                                    " room=", room));
          std::vector<unsigned char> out(6000 * 8);
          const DecodeResult r = DecodeInChunks(f, begin, end, room, 1000, &out);
          ASSERT_EQ(StatusName(r.status), StatusName(want.status));
          if (want.status != DecodeStatus::kOk) {
            ASSERT_EQ(r.pos - begin, static_cast<ptrdiff_t>(want.error_offset));
          }
          ASSERT_EQ(r.count, want.values.size());
          for (size_t i = 0; i < r.count; ++i) {
            ASSERT_EQ(OutputBits(f, out.data(), i), want.values[i]) << "value " << i;
          }
        }
      }
    }
  }
}

TEST_P(KernelTest, ZeroCapacityWritesNothing) {
  const std::string payload = Varint(1) + Varint(2);
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(payload.data());
  for (VarintFormat f : AllFormats()) {
    const DecodeResult r = kernel().Decoder(f, false)(begin, begin + payload.size(), nullptr, 0, 0);
    EXPECT_EQ(StatusName(r.status), StatusName(DecodeStatus::kOutputFull));
    EXPECT_EQ(r.count, 0u);
    EXPECT_EQ(r.pos, begin);
    const DecodeResult empty = kernel().Decoder(f, true)(begin, begin, nullptr, 0, 0);
    EXPECT_EQ(StatusName(empty.status), StatusName(DecodeStatus::kOk));
  }
}

TEST_P(KernelTest, GuardPagesAtEveryLength) {
  // Lengths 0..128 one by one, then doubling, of mixed-length varints, in every format: the
  // payload's last byte sits against an inaccessible page, then its first byte does.
  std::mt19937_64 rng(11);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 128; ++n) lengths.push_back(n);
  for (size_t n = 256; n <= 8192; n *= 2) lengths.push_back(n);
  for (size_t n : lengths) {
    std::string payload;
    while (payload.size() < n) {
      const int length = 1 + static_cast<int>(rng() % 10);
      payload += Varint(rng() >> (64 - 7 * length + (length == 10 ? 6 : 0)), length);
    }
    payload.resize(n);  // May cut the last varint: also exercises truncation against the guard.
    for (VarintFormat f : AllFormats()) Check(f, payload, false, /*check_upstream=*/n <= 1024);
  }
}

// Room to spare: long payloads of short varints (1,024 bytes and more of varints of at most one,
// two, four or five bytes: avx512's mostly-short block path, the AVX2 kernels' windows), ending at
// every distance from a block's end, decoded with 0-48 elements of room past their values and a
// sentinel tail past `cap`. The values must be right and nothing at or past out[cap] written
// (kernel contract: elements of out[count, cap) may be). avx512 stores whole groups of 16 where the
// room allows: some case must show it (a write past the values), so the test fails if that path
// stops running.
TEST_P(KernelTest, SpareRoomIsUsedOnlyBelowCap) {
  std::mt19937_64 rng(23);
  constexpr size_t kSentinel = 64;
  bool wrote_past_values = false;
  for (size_t total = 1024; total <= 1024 + 320; total += 7) {
    for (const int max_length : {1, 2, 4, 5}) {
      std::string payload;
      while (payload.size() < total) {
        int length = 1 + static_cast<int>(rng() % static_cast<uint64_t>(max_length));
        length = std::min(length, static_cast<int>(total - payload.size()));
        payload += Varint(rng() >> (64 - 7 * length), length);
      }
      const absl::string_view input = guard_.CopyFlushEnd(payload);
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
      for (VarintFormat format : AllFormats()) {
        const Expected expected = ExpectedDecode(format, payload, /*strict=*/false);
        ASSERT_EQ(expected.status, DecodeStatus::kOk);
        const size_t count = expected.values.size();
        const size_t elem = OutputSize(format);
        for (const size_t spare : {size_t{0}, size_t{5}, size_t{15}, size_t{16}, size_t{48}}) {
          SCOPED_TRACE(absl::StrCat("kernel=", kernel().name, " format=", FormatName(format),
                                    " bytes=", total, " longest=", max_length, " spare=", spare));
          const size_t cap = count + spare;
          std::vector<unsigned char> out((cap + kSentinel) * elem, 0xA5);
          const DecodeResult r = kernel().Decoder(format, /*strict=*/false)(
              begin, begin + payload.size(), out.data(), cap, /*delta_base=*/0);
          ASSERT_EQ(StatusName(r.status), StatusName(DecodeStatus::kOk));
          ASSERT_EQ(r.count, count);
          for (size_t i = 0; i < count; ++i) {
            ASSERT_EQ(OutputBits(format, out.data(), i), expected.values[i]) << "value " << i;
          }
          for (size_t i = cap * elem; i < out.size(); ++i) {
            ASSERT_EQ(out[i], 0xA5) << "wrote past the output's capacity at byte " << i;
          }
          for (size_t i = count * elem; i < cap * elem; ++i) {
            wrote_past_values |= out[i] != 0xA5;
          }
        }
      }
    }
  }
  if (std::string(kernel().name) == "avx512") {
    EXPECT_TRUE(wrote_past_values) << "avx512's whole-group stores did not run";
  }
}

// Payloads of up to `max_bytes` (kTinyPayloadBytes, kBoundedTinyPayloadBytes) for the tiny
// decoders: random varints of up to ten, five, four or two bytes, cut anywhere, and one long varint
// among one-byte ones at every position (more than eight varints with a long one among them: a
// vector decoder's second group of eight 64-bit lanes; more than sixteen: its second group of
// sixteen 32-bit lanes).
std::vector<std::string> TinyPayloads(int max_bytes) {
  std::mt19937_64 rng(17);
  const int random_per_size = testing::IterationsToRun(300);
  std::vector<std::string> payloads;
  for (int n = 0; n <= max_bytes; ++n) {
    payloads.push_back(std::string(static_cast<size_t>(n), '\x01'));
    // 300 random payloads per size (a share of them under PBACCEL_TEST_ITERATIONS_PERCENT: the
    // bounded tiny decoder's test takes minutes under qemu).
    for (int i = 0; i < random_per_size; ++i) {
      const int max_length = i % 4 == 0 ? 10 : i % 4 == 1 ? 5 : i % 4 == 2 ? 4 : 2;
      std::string payload;
      while (payload.size() < static_cast<size_t>(n)) {
        const int length = 1 + static_cast<int>(rng() % static_cast<uint64_t>(max_length));
        payload += Varint(rng() >> (64 - 7 * length + (length == 10 ? 6 : 0)), length);
      }
      if (i % 2 == 0) payload.resize(static_cast<size_t>(n));  // May cut the last varint.
      if (payload.size() <= static_cast<size_t>(max_bytes)) payloads.push_back(payload);
    }
  }
  for (int length = 2; length <= 10; ++length) {
    const int ones = max_bytes - length;
    for (int at = 0; at <= ones; ++at) {
      std::string payload;
      for (int i = 0; i < ones; ++i) {
        if (i == at) payload += Varint(rng() >> (64 - 7 * length + (length == 10 ? 6 : 0)), length);
        payload += Varint(static_cast<uint64_t>(i + 1), 1);
      }
      if (at == ones) payload += Varint(uint64_t{1} << (7 * (length - 1)), length);
      payloads.push_back(payload);
    }
  }
  return payloads;
}

// Whether `payload` holds a varint longer than `longest` bytes (`longest` continuation bytes in a
// row).
bool HasVarintLongerThan(const std::string& payload, int longest) {
  int run = 0;
  for (char c : payload) {
    run = (static_cast<uint8_t>(c) & 0x80) != 0 ? run + 1 : 0;
    if (run >= longest) return true;
  }
  return false;
}

// Output for `room` values of `format` and 8 more, filled with 0xA5 (CheckTinyResult's sentinel).
std::vector<unsigned char> TinyOutput(VarintFormat format, int room) {
  return std::vector<unsigned char>((static_cast<size_t>(room) + 8) * OutputSize(format), 0xA5);
}

// A tiny decoder's result `r` (decode_tiny, decode_tiny_bounded, decode_window) in `format`,
// against the reference's `expected`, its output `out` filled with 0xA5 before the call: nothing
// written past `room` values; declined (kTinyUnhandled) only where `may_decline`; kTinyMalformed
// where the reference rejects the payload; else the reference's values, within the room. Call
// through ASSERT_NO_FATAL_FAILURE.
void CheckTinyResult(VarintFormat format, const Expected& expected, int r,
                     const std::vector<unsigned char>& out, int room, bool may_decline) {
  for (size_t i = static_cast<size_t>(room) * OutputSize(format); i < out.size(); ++i) {
    ASSERT_EQ(out[i], 0xA5) << "wrote past the room at byte " << i << " (result " << r << ")";
  }
  if (r == internal::kTinyUnhandled) {
    ASSERT_TRUE(may_decline) << "declined a payload it must take";
    return;
  }
  if (expected.status != DecodeStatus::kOk) {
    ASSERT_EQ(r, internal::kTinyMalformed) << StatusName(expected.status);
    return;
  }
  ASSERT_LE(r, room);
  ASSERT_EQ(r, static_cast<int>(expected.values.size()));
  for (size_t i = 0; i < expected.values.size(); ++i) {
    ASSERT_EQ(OutputBits(format, out.data(), i), expected.values[i]) << "value " << i;
  }
}

// decode_tiny (kernel_abi.h): payloads of up to kTinyPayloadBytes - random varints of every
// length, cut anywhere - each followed by the rest of kTinyReadableBytes (continuation bytes,
// which a decoder reading past the payload's end would take into a value, or one-byte varints,
// which it would take as values of their own) and an inaccessible page, in every format, with
// room for the payload's bytes or for 16 values. The values must be
// the reference's; a malformed payload must give kTinyMalformed (or kTinyUnhandled); and
// kTinyUnhandled is allowed only for a payload holding a varint longer than the decoder takes: 8
// bytes in a kernel compiled with BMI2 (PEXT), else 4.
TEST_P(KernelTest, TinyDecoderAgreesWithTheReference) {
  const int longest_taken = (GetParam().required_features & kCpuBmi2) != 0 ? 8 : 4;
  const std::vector<std::string> payloads = TinyPayloads(internal::kTinyPayloadBytes);
  for (const std::string& payload : payloads) {
    for (const char pad : {'\xff', '\x01'}) {
      const bool has_long_varint = HasVarintLongerThan(payload, longest_taken);
      const std::string padding(internal::kTinyReadableBytes - payload.size(), pad);
      const absl::string_view input = guard_.CopyFlushEnd(payload + padding);
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
      for (VarintFormat format : AllFormats()) {
        const Expected expected = ExpectedDecode(format, payload, /*strict=*/false);
        for (const int room : {static_cast<int>(payload.size()), 16}) {
          SCOPED_TRACE(TinyCase(format, room, pad, payload));
          std::vector<unsigned char> out = TinyOutput(format, room);
          const int r =
              kernel().TinyDecoder(format)(begin, begin + payload.size(), out.data(), room);
          ASSERT_NO_FATAL_FAILURE(CheckTinyResult(format, expected, r, out, room, has_long_varint))
              << "may decline only a varint over " << longest_taken << " bytes";
        }
      }
    }
  }
}

// decode_tiny_bounded (kernel_abi.h), where the kernel has one: the same kind of payloads, up to
// kBoundedTinyPayloadBytes (128), flush against an inaccessible page (a read past the payload
// faults), with room for no value, for one value too few, for exactly the values, for the values
// and kBoundedTinySpareValues more (room a kernel may store whole groups into), and for 128. It
// must write only out[0, room), decline (kTinyUnhandled) more values than the room, and otherwise
// agree with the reference as decode_tiny does (payloads over their format's
// BoundedTinyPayloadBytes may be declined). Kernels without one must have no entry for any format.
// 64-bit payloads of 16 to 64 bytes are also decoded followed by 64 readable continuation bytes,
// which must change nothing: the AVX2 kernels read those whole into registers only where the 64
// bytes from the payload's start lie on one page (short_payloads_avx2-inl.h), so never flush
// against an inaccessible one.
TEST_P(KernelTest, BoundedTinyDecoderReadsAndWritesOnlyThePayload) {
  const bool has_bounded = HasForEveryNonDeltaFormat(&KernelDescriptor::BoundedTinyDecoder);
  ASSERT_LE(kernel().bounded_tiny_spare_values,
            static_cast<uint32_t>(internal::kBoundedTinySpareValues));
  if (!has_bounded) {
    ASSERT_EQ(kernel().bounded_tiny_spare_values, 0u) << "spare room for no bounded decoder";
    GTEST_SKIP() << kernel().name << " has no bounded tiny decoder";
  }
  for (const std::string& payload : TinyPayloads(internal::kBoundedTinyPayloadBytes)) {
    for (const bool followed : {false, true}) {
      if (followed && (payload.size() < 16 || payload.size() > 64)) continue;
      const absl::string_view input = followed
                                          ? guard_.CopyFlushEnd(payload + std::string(64, '\x80'))
                                          : guard_.CopyFlushEnd(payload);
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
      for (VarintFormat format : AllFormats()) {
        const internal::TinyDecodeFn tiny = kernel().BoundedTinyDecoder(format);
        if (tiny == nullptr || (followed && OutputSize(format) != 8)) continue;
        const Expected expected = ExpectedDecode(format, payload, /*strict=*/false);
        const int values = static_cast<int>(expected.values.size());
        // A bounded decoder may decline varints over 4 bytes (8 for 64-bit outputs), payloads over
        // its format's bound, and over 64 bytes more than 64 values.
        const bool may_decline =
            HasVarintLongerThan(payload, OutputSize(format) == 8 ? 8 : 4) ||
            payload.size() > static_cast<size_t>(internal::BoundedTinyPayloadBytes(format)) ||
            (payload.size() > 64 && values > 64);
        for (const int room : {0, values - 1, values, values + internal::kBoundedTinySpareValues,
                               internal::kBoundedTinyPayloadBytes}) {
          if (room < 0) continue;
          SCOPED_TRACE(absl::StrCat("kernel=", kernel().name, " format=", FormatName(format),
                                    " room=", room, " payload=[", Hex(payload), "]"));
          const size_t elem = OutputSize(format);
          std::vector<unsigned char> out(
              (internal::kBoundedTinyPayloadBytes + internal::kBoundedTinySpareValues) * elem + 8,
              0xA5);
          const int r = tiny(begin, begin + payload.size(), out.data(), room);
          ASSERT_NO_FATAL_FAILURE(CheckTinyResult(
              format, expected, r, out, room,
              may_decline || (expected.status == DecodeStatus::kOk && values > room)));
        }
      }
    }
  }
}

// decode_window (kernel_abi.h), where the kernel has one (for every non-delta format, and then
// with kWindowSpareValues of spare room for its callers to offer): payloads of 1 to
// kWindowPayloadBytes as for the other tiny decoders, each followed by the rest of
// kWindowReadableBytes (continuation bytes, which a decoder reading past the payload would take
// into a value, or one-byte varints, which it would take as values) and an inaccessible page, in
// every format, with room for the payload's bytes and kWindowSpareValues (the least the contract
// allows) and for 128. It must write only within the room, agree with the reference, give
// kTinyMalformed for a payload ending inside a varint, and decline (kTinyUnhandled) only a payload
// with a varint over five bytes (64-bit formats: the AVX2 kernels' lanes take five) or ten (the
// others), or where the kernel gives its bounded decoder (avx512), over what that one takes.
TEST_P(KernelTest, WindowDecoderAgreesWithTheReference) {
  const bool has_window = HasForEveryNonDeltaFormat(&KernelDescriptor::WindowDecoder);
  if (!has_window) GTEST_SKIP() << kernel().name << " has no window decoder";
  ASSERT_GE(kernel().bounded_tiny_spare_values,
            static_cast<uint32_t>(internal::kWindowSpareValues));
  for (const std::string& payload : TinyPayloads(internal::kWindowPayloadBytes)) {
    if (payload.empty()) continue;  // REQUIRES a byte.
    for (const char pad : {'\xff', '\x01'}) {
      const std::string padding(internal::kWindowReadableBytes - payload.size(), pad);
      const absl::string_view input = guard_.CopyFlushEnd(payload + padding);
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
      for (VarintFormat format : AllFormats()) {
        const internal::TinyDecodeFn window = kernel().WindowDecoder(format);
        if (window == nullptr) continue;
        const Expected expected = ExpectedDecode(format, payload, /*strict=*/false);
        // A kernel giving its bounded decoder may decline what that one does (above).
        const bool wide = OutputSize(format) == 8;
        const int longest =
            window == kernel().BoundedTinyDecoder(format) ? (wide ? 8 : 4) : (wide ? 5 : 10);
        const bool may_decline = HasVarintLongerThan(payload, longest);
        for (const int room :
             {static_cast<int>(payload.size()) + internal::kWindowSpareValues, 128}) {
          SCOPED_TRACE(TinyCase(format, room, pad, payload));
          std::vector<unsigned char> out = TinyOutput(format, room);
          const int r = window(begin, begin + payload.size(), out.data(), room);
          ASSERT_NO_FATAL_FAILURE(CheckTinyResult(format, expected, r, out, room, may_decline));
        }
      }
    }
  }
}

// The whole-step tiny decoders (parsers/short_payloads_avx2-inl.h) of bmi2 and masked_vbyte_avx2
// run: they store eight slots per 8-byte step or per half of a 16-byte step, so, given room past
// the values, they write there (the per-varint decoders they replaced wrote only the values;
// which kind of step ran is kernel_probes_test's business). decode_tiny with its 16 values of
// room, and decode_tiny_bounded with the spare room the kernel asks for (bounded_tiny_spare_values,
// which must not be 0 for them), on payloads of two-byte
// varints (no one-byte shortcut) of every size up to 64 bytes; with no room to spare the bounded
// one writes only the values. Kernels this CPU cannot run are skipped, by name.
class WholeStepKernelTest : public ::testing::TestWithParam<const char*> {};

// The kernel named `name`, or nullptr with *why set when this build or CPU cannot run it (the
// caller skips, naming it).
const KernelEntry* RunnableKernel(const char* name, std::string* why) {
  const KernelEntry* entry = internal::FindKernel(name);
  if (entry == nullptr) {
    *why = absl::StrCat(name, " is not built for this architecture");
  } else if ((entry->required_features & ~DetectedCpu().features) != 0) {
    *why = absl::StrCat("this CPU cannot run ", name);
    entry = nullptr;
  }
  return entry;
}

TEST_P(WholeStepKernelTest, TinyDecodersStoreWholeSteps) {
  std::string why;
  const KernelEntry* entry = RunnableKernel(GetParam(), &why);
  if (entry == nullptr) GTEST_SKIP() << why;
  const KernelDescriptor& kernel = *entry->kernel;
  ASSERT_GT(kernel.bounded_tiny_spare_values, 0u);
  for (int values = 1; values <= 32; ++values) {
    std::string payload;
    for (int i = 0; i < values; ++i) payload += Varint(200 + static_cast<uint64_t>(i), 2);
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    const auto* end = p + payload.size();
    SCOPED_TRACE(absl::StrCat(values, " values"));
    const auto written_past = [&](int result, const std::vector<uint32_t>& out) {
      EXPECT_EQ(result, values);
      for (int i = 0; i < values; ++i) EXPECT_EQ(out[i], 200u + static_cast<uint32_t>(i));
      return std::any_of(out.begin() + values, out.end(), [](uint32_t v) { return v != ~0u; });
    };
    if (payload.size() <= static_cast<size_t>(internal::kTinyPayloadBytes)) {
      std::string readable = payload + std::string(internal::kTinyReadableBytes, '\0');
      std::vector<uint32_t> out(internal::kTinyPayloadBytes, ~0u);
      const auto* q = reinterpret_cast<const uint8_t*>(readable.data());
      const int r = kernel.TinyDecoder(VarintFormat::kUInt32)(q, q + payload.size(), out.data(),
                                                              internal::kTinyPayloadBytes);
      EXPECT_TRUE(written_past(r, out)) << "decode_tiny wrote only the values";
    }
    const int spare = values + static_cast<int>(kernel.bounded_tiny_spare_values);
    std::vector<uint32_t> out(static_cast<size_t>(spare), ~0u);
    EXPECT_TRUE(written_past(
        kernel.DecodeTinyBounded(VarintFormat::kUInt32, p, end, out.data(), out.size()), out))
        << "decode_tiny_bounded wrote only the values";
    std::vector<uint32_t> exact(static_cast<size_t>(values) + 8, ~0u);
    EXPECT_FALSE(written_past(
        kernel.DecodeTinyBounded(VarintFormat::kUInt32, p, end, exact.data(), values), exact));
  }
}

INSTANTIATE_TEST_SUITE_P(WholeStepKernels, WholeStepKernelTest,
                         ::testing::Values("bmi2", "masked_vbyte_avx2"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// The vector kernels' shuffle steps ran (not a per-varint path that gives the same values): a
// step of four two-byte varints in 16-bit lanes stores all eight of its lanes, so the slots past
// the payload's values (a 16-byte payload: the four, then one 8-byte varint, which the step leaves
// to the kernel's long path) are overwritten, which a kernel that writes one value at a time
// never does. The x86 table kernels (masked_vbyte, masked_vbyte_avx2) store such steps too; the
// test names the aarch64 one, which has no other proof. Skipped, by name, where it is not built or
// the CPU cannot run it.
class ShuffleStepKernelTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ShuffleStepKernelTest, SixteenBitStepStoresAllItsLanes) {
  std::string why;
  const KernelEntry* entry = RunnableKernel(GetParam(), &why);
  if (entry == nullptr) GTEST_SKIP() << why;
  std::string payload;
  for (int i = 0; i < 4; ++i) payload += Varint(300 + static_cast<uint64_t>(i), 2);
  payload += Varint(uint64_t{1} << 50, 8);
  ASSERT_EQ(payload.size(), 16u);
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  std::vector<uint64_t> out(16, ~uint64_t{0});
  const DecodeResult r = entry->kernel->Decoder(VarintFormat::kUInt64, false)(
      p, p + payload.size(), out.data(), out.size(), 0);
  ASSERT_EQ(r.status, DecodeStatus::kOk);
  ASSERT_EQ(r.count, 5u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 300u + static_cast<uint64_t>(i));
  EXPECT_EQ(out[4], uint64_t{1} << 50);
  EXPECT_TRUE(std::any_of(out.begin() + 5, out.begin() + 8, [](uint64_t v) { return v != ~0ull; }))
      << "slots 5-7 untouched: the 16-bit-lane step did not run";
}

INSTANTIATE_TEST_SUITE_P(ShuffleStepKernels, ShuffleStepKernelTest, ::testing::Values("neon"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

std::vector<KernelEntry> AllKernels() {
  const auto registry = internal::KernelRegistry();
  return std::vector<KernelEntry>(registry.begin(), registry.end());
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelTest, ::testing::ValuesIn(AllKernels()),
                         [](const ::testing::TestParamInfo<KernelEntry>& info) {
                           return std::string(info.param.kernel->name);
                         });

}  // namespace
}  // namespace testing
}  // namespace pbaccel
