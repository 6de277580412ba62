// Copyright 2026 The pbaccel Authors.
//
// The public decoding API (pbaccel/packed_varint.h) under every kernel this CPU supports, forced
// with ScopedKernelOverride: values and acceptance equal upstream protobuf's, errors carry the
// byte offset, a failed append leaves the RepeatedField as it was, and the buffer form reports
// a too-small buffer. Payloads below a kernel's inline_below_bytes (16 bytes for all but avx512)
// take the inline path, so both paths run.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/packed_fields.pb.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace testing {
namespace {

using ::testing::HasSubstr;

template <typename T>
using AppendFn = absl::Status (*)(absl::string_view, RepeatedField<T>*, DecodeOptions);
template <typename T>
using SpanFn = absl::StatusOr<size_t> (*)(absl::string_view, absl::Span<T>, DecodeOptions);

// Widens a decoded element the way OutputBits does.
template <typename T>
uint64_t Bits(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<uint64_t>(v);
  }
}

// EveryKernelTest forces GetParam()'s kernel and checks that it is the one running.
class PackedVarintApiTest : public EveryKernelTest {
 protected:
  template <typename T>
  void Check(VarintFormat f, AppendFn<T> append, SpanFn<T> span, absl::string_view payload,
             bool strict) {
    SCOPED_TRACE(absl::StrCat("kernel=", GetParam(), " format=", FormatName(f), " strict=", strict,
                              " bytes=", payload.size()));
    const Expected e = ExpectedDecode(f, payload, strict);
    const DecodeOptions options{strict};

    // Append form, onto a field that already holds values.
    RepeatedField<T> field;
    for (int i = 0; i < 3; ++i) field.Add(static_cast<T>(i + 1));
    const absl::Status status = append(payload, &field, options);
    if (e.status == DecodeStatus::kOk) {
      ASSERT_TRUE(status.ok()) << status;
      ASSERT_EQ(field.size(), 3 + static_cast<int>(e.values.size()));
      for (size_t i = 0; i < e.values.size(); ++i) ASSERT_EQ(Bits(field.Get(3 + i)), e.values[i]);
    } else {
      ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
      EXPECT_THAT(std::string(status.message()),
                  HasSubstr(absl::StrCat("byte offset ", e.error_offset)));
      ASSERT_EQ(field.size(), 3) << "a failed append must leave the field as it was";
      for (int i = 0; i < 3; ++i) ASSERT_EQ(field.Get(i), static_cast<T>(i + 1));
    }

    // Append form onto fields with spare capacity (decoded into before counting): room for every
    // value, for one fewer, for half, for one; the same values or the same error every time. No
    // reallocation where the room suffices: every value, or for a payload the kernel's bounded
    // tiny decoder takes, ShortPayloadRoom.
    const int n_values = static_cast<int>(e.values.size());
    const internal::KernelDescriptor& kernel = internal::ActiveKernel();
    const int room_needed =
        internal::ApiTriesBoundedTiny(f, payload.size(), strict) &&
                kernel.BoundedTinyDecoder(f) != nullptr
            ? internal::ShortPayloadRoom(payload.size(), kernel.bounded_tiny_spare_values)
            : n_values;
    for (int spare : {n_values + 5, n_values, n_values - 1, n_values / 2, 1}) {
      if (spare < 1) continue;
      RepeatedField<T> reused;
      reused.Reserve(3 + spare);
      for (int i = 0; i < 3; ++i) reused.Add(static_cast<T>(i + 1));
      const int capacity = reused.Capacity();
      const absl::Status reused_status = append(payload, &reused, options);
      ASSERT_EQ(reused_status, status) << "spare " << spare;
      ASSERT_EQ(reused.size(), field.size()) << "spare " << spare;
      for (int i = 0; i < field.size(); ++i) ASSERT_EQ(reused.Get(i), field.Get(i)) << i;
      if (e.status == DecodeStatus::kOk && capacity >= 3 + room_needed) {
        ASSERT_EQ(reused.Capacity(), capacity) << "room enough: no reallocation";
      }
    }

    // Buffer form: exact size, one more, one less.
    const size_t n = e.values.size();
    std::unique_ptr<T[]> storage(new T[n + 1]());  // Not std::vector: vector<bool> has no data().
    T* const buffer = storage.get();
    absl::StatusOr<size_t> got = span(payload, absl::MakeSpan(buffer, n + 1), options);
    if (e.status == DecodeStatus::kOk) {
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(*got, n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(buffer[i]), e.values[i]);
      // Exactly the values' room (no room for a kernel's whole vectors): the same values.
      std::unique_ptr<T[]> exact(new T[n]);
      for (size_t i = 0; i < n; ++i) exact[i] = static_cast<T>(~Bits(T{}));
      got = span(payload, absl::MakeSpan(exact.get(), n), options);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(*got, n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(exact[i]), e.values[i]) << "exact room, " << i;
      if (n > 0) {
        got = span(payload, absl::MakeSpan(buffer, n - 1), options);
        ASSERT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted) << got.status();
        EXPECT_THAT(std::string(got.status().message()), HasSubstr(absl::StrCat("holds ", n)));
      }
    } else {
      ASSERT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << got.status();
      EXPECT_THAT(std::string(got.status().message()),
                  HasSubstr(absl::StrCat("byte offset ", e.error_offset)));
      if (n > 0) {  // A buffer too small for the good prefix still reports the real error.
        got = span(payload, absl::MakeSpan(buffer, n / 2), options);
        ASSERT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << got.status();
      }
    }
  }

  // Every public type on `payload`.
  void CheckAllTypes(absl::string_view payload, bool strict) {
    using F = VarintFormat;
    Check<int32_t>(F::kInt32, &DecodePackedInt32, &DecodePackedInt32, payload, strict);
    Check<int64_t>(F::kInt64, &DecodePackedInt64, &DecodePackedInt64, payload, strict);
    Check<uint32_t>(F::kUInt32, &DecodePackedUInt32, &DecodePackedUInt32, payload, strict);
    Check<uint64_t>(F::kUInt64, &DecodePackedUInt64, &DecodePackedUInt64, payload, strict);
    Check<int32_t>(F::kSInt32, &DecodePackedSInt32, &DecodePackedSInt32, payload, strict);
    Check<int64_t>(F::kSInt64, &DecodePackedSInt64, &DecodePackedSInt64, payload, strict);
    Check<bool>(F::kBool, &DecodePackedBool, &DecodePackedBool, payload, strict);
    Check<int>(F::kInt32, &DecodePackedEnum, &DecodePackedEnum, payload, strict);
  }
};

TEST_P(PackedVarintApiTest, WorkloadsSmallAndLarge) {
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    std::mt19937_64 rng(5);
    for (size_t n : {0, 1, 2, 3, 5, 8, 15, 16, 17, 64, 1000, 70000}) {
      const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, n, rng));
      // Upstream first: the expectation itself must be upstream's.
      ASSERT_TRUE(UpstreamDecode(VarintFormat::kUInt64, payload).has_value());
      CheckAllTypes(payload, false);
      CheckAllTypes(payload, true);
    }
  }
}

TEST_P(PackedVarintApiTest, MalformedPayloads) {
  const std::vector<std::string> payloads = {
      "\x80",                                      // Truncated, small path.
      std::string("\x01\x02\x80\x80", 4),          // Truncated after values.
      OverlongVarint(11),                          // Too long, no terminator left.
      Varint(5) + OverlongVarint(12) + Varint(1),  // Too long, mid-payload.
      std::string(40, '\x01') + "\xff\xff",        // Truncated, bulk path.
      std::string(40, '\x01') + OverlongVarint(15) + std::string(20, '\x02'),
      std::string(9, '\xff'),   // 9 continuation bytes.
      std::string(10, '\xff'),  // 10: too long.
      std::string(30, '\xff'),
      TenByteVarint(1, 0x02) + std::string(20, '\x03'),     // Lenient ok, strict overflow.
      Varint(uint64_t{1} << 32) + std::string(20, '\x03'),  // Overflows 32-bit types.
      Varint(2) + Varint(0xFFFFFFFF80000000ull),            // int32 min: fits int32.
  };
  for (const std::string& p : payloads) {
    ASSERT_EQ(UpstreamDecode(VarintFormat::kUInt64, p).has_value(),
              ExpectedDecode(VarintFormat::kUInt64, p, false).status == DecodeStatus::kOk);
    CheckAllTypes(p, false);
    CheckAllTypes(p, true);
  }
}

TEST_P(PackedVarintApiTest, ErrorMessagesNameTheProblem) {
  RepeatedField<uint32_t> field;
  absl::Status s = DecodePackedUInt32(std::string(20, '\x01') + "\x80\x80", &field);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("ends inside the varint starting at byte offset 20"));
  s = DecodePackedUInt32(std::string(20, '\x01') + OverlongVarint(11), &field);
  EXPECT_THAT(std::string(s.message()), HasSubstr("byte offset 20 does not end within 10 bytes"));
  s = DecodePackedUInt32(std::string(20, '\x01') + Varint(uint64_t{1} << 40), &field,
                         DecodeOptions{.strict = true});
  EXPECT_THAT(std::string(s.message()), HasSubstr("byte offset 20 overflows uint32 (strict mode)"));
  EXPECT_TRUE(field.empty());
}

TEST_P(PackedVarintApiTest, DeltaIsThePrefixSumFromInitial) {
  const workloads::PayloadWorkload& w = *workloads::FindPayloadWorkload("W2");
  for (size_t n : {0, 1, 7, 15, 64, 5000}) {
    const std::vector<uint64_t> gaps = workloads::GenerateWireValues(w, n);
    const std::string payload = testing::EncodePacked(gaps);
    RepeatedField<uint32_t> ids32;
    RepeatedField<uint64_t> ids64;
    ASSERT_TRUE(DecodePackedDeltaUInt32(payload, &ids32, 1000).ok());
    ASSERT_TRUE(DecodePackedDeltaUInt64(payload, &ids64, uint64_t{1} << 40).ok());
    std::vector<uint32_t> span32(n);
    ASSERT_EQ(*DecodePackedDeltaUInt32(payload, absl::MakeSpan(span32), 1000), n);
    std::vector<uint64_t> span64(n);
    ASSERT_EQ(*DecodePackedDeltaUInt64(payload, absl::MakeSpan(span64), uint64_t{1} << 40), n);
    uint32_t sum32 = 1000;
    uint64_t sum64 = uint64_t{1} << 40;
    ASSERT_EQ(ids32.size(), static_cast<int>(n));
    for (size_t i = 0; i < n; ++i) {
      sum32 += static_cast<uint32_t>(gaps[i]);
      sum64 += gaps[i];
      ASSERT_EQ(ids32.Get(i), sum32);
      ASSERT_EQ(span32[i], sum32);
      ASSERT_EQ(ids64.Get(i), sum64);
      ASSERT_EQ(span64[i], sum64);
    }
  }
  // Into reused fields whose capacity runs out part way: the running sum carries across.
  const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, 3000));
  RepeatedField<uint32_t> whole;
  ASSERT_TRUE(DecodePackedDeltaUInt32(payload, &whole, 7).ok());
  for (int spare : {1, 17, 1000, 2999, 3000}) {
    RepeatedField<uint32_t> reused;
    reused.Reserve(spare);
    ASSERT_TRUE(DecodePackedDeltaUInt32(payload, &reused, 7).ok());
    ASSERT_EQ(reused.size(), whole.size());
    for (int i = 0; i < whole.size(); ++i)
      ASSERT_EQ(reused.Get(i), whole.Get(i)) << spare << " " << i;
  }
  // Wraps modulo 2^32.
  RepeatedField<uint32_t> wrap;
  ASSERT_TRUE(DecodePackedDeltaUInt32(Varint(0xFFFFFFFF) + Varint(2), &wrap, 0).ok());
  EXPECT_EQ(wrap.Get(1), 1u);
}

// Delta sint64 (OSM's coding): the running sums, from `initial`, of the gaps upstream reads from
// the same payload as a packed sint64 field; long payloads (the kernels' vector sums) and short
// ones, into a RepeatedField (empty, and reused with too little capacity) and into a span.
TEST_P(PackedVarintApiTest, DeltaSInt64SumsTheGapsUpstreamReadsAsSInt64) {
  std::mt19937_64 rng(11);
  for (const char* name : {"W2", "len1to10", "1byte"}) {
    const workloads::PayloadWorkload& w = *workloads::FindPayloadWorkload(name);
    for (size_t n : {1, 3, 8, 15, 16, 17, 64, 100, 2047, 2048, 2049, 5000}) {
      SCOPED_TRACE(absl::StrCat(name, " n=", n));
      const std::string payload = testing::EncodePacked(workloads::GenerateWireValues(w, n, rng));
      test::PackedFields upstream;
      ASSERT_TRUE(upstream.ParseFromString(testing::LengthDelimitedField(6, payload)));
      const int64_t initial = -5000000000;
      std::vector<int64_t> want;
      uint64_t sum = static_cast<uint64_t>(initial);
      for (const int64_t gap : upstream.sint64s()) {
        sum += static_cast<uint64_t>(gap);
        want.push_back(static_cast<int64_t>(sum));
      }
      RepeatedField<int64_t> fresh;
      ASSERT_TRUE(DecodePackedDeltaSInt64(payload, &fresh, initial).ok());
      EXPECT_THAT(fresh, ::testing::ElementsAreArray(want));
      RepeatedField<int64_t> reused;
      reused.Add(42);
      reused.Reserve(static_cast<int>(n / 2) + 1);
      ASSERT_TRUE(DecodePackedDeltaSInt64(payload, &reused, initial).ok());
      ASSERT_EQ(reused.size(), static_cast<int>(n) + 1);
      EXPECT_EQ(reused.Get(0), 42);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), reused.begin() + 1));
      std::vector<int64_t> span(n + 8);
      ASSERT_EQ(*DecodePackedDeltaSInt64(payload, absl::MakeSpan(span), initial), n);
      span.resize(n);
      EXPECT_EQ(span, want);
    }
  }
  // Sums wrap modulo 2^64 (an int64's range crossed both ways; no signed overflow under UBSan).
  RepeatedField<int64_t> wrap;
  const uint64_t plus_max = 0xFFFFFFFFFFFFFFFEu;   // zigzag(INT64_MAX)
  const uint64_t minus_max = 0xFFFFFFFFFFFFFFFFu;  // zigzag(INT64_MIN)
  ASSERT_TRUE(DecodePackedDeltaSInt64(
                  Varint(plus_max) + Varint(2) + Varint(minus_max) + Varint(minus_max) + Varint(3),
                  &wrap, 5)
                  .ok());
  EXPECT_THAT(
      wrap, ::testing::ElementsAre(INT64_MIN + 4, INT64_MIN + 5, 5, 5 + INT64_MIN, INT64_MIN + 3));
  // A malformed payload: upstream's error, nothing appended.
  RepeatedField<int64_t> bad;
  EXPECT_FALSE(DecodePackedDeltaSInt64(Varint(4) + "\x80", &bad).ok());
  EXPECT_TRUE(bad.empty());
}

// The delta span forms decode a short payload's gaps with the bounded tiny decoder of the gaps'
// format (sint64 for delta sint64, like an OSM way's refs) and sum them inline; a longer one (over
// BoundedTinyPayloadBytes: 128 bytes) goes to the library's delta decoders. The sums from
// `initial` either way; a malformed short payload is left to the library, which names the error.
TEST_P(PackedVarintApiTest, ShortDeltaSpansTakeTheGapsBoundedTinyDecoder) {
  const bool has_bounded = internal::ActiveKernel().BoundedTinyDecoder(VarintFormat::kSInt64);
  ScopedCountingBoundedTinyDecoder counting(VarintFormat::kSInt64);
  const std::vector<uint64_t> raw = {9876543210, 3, 300, 70000, 0, 127, 128};  // 15 bytes.
  for (const int times : {1, 4, 8, 9, 20}) {
    std::string payload;
    for (int i = 0; i < times; ++i) payload += EncodePacked(raw);
    const bool short_payload = payload.size() <= 128;
    SCOPED_TRACE(absl::StrCat("bytes=", payload.size()));
    const Expected e = ExpectedDecode(VarintFormat::kDeltaSInt64, payload, false, 77);
    counting.ResetCalls();
    std::vector<int64_t> out(e.values.size() + 8);
    const absl::StatusOr<size_t> n = DecodePackedDeltaSInt64(payload, absl::MakeSpan(out), 77);
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_EQ(*n, e.values.size());
    for (size_t i = 0; i < *n; ++i) ASSERT_EQ(static_cast<uint64_t>(out[i]), e.values[i]) << i;
    EXPECT_EQ(counting.calls(), short_payload ? 1 : 0);
    EXPECT_EQ(counting.taken(), short_payload && has_bounded ? 1 : 0);
  }
  counting.ResetCalls();
  int64_t out[16];
  const absl::StatusOr<size_t> n =
      DecodePackedDeltaSInt64(Varint(4) + Varint(6) + "\x80", absl::MakeSpan(out));
  EXPECT_THAT(std::string(n.status().message()),
              HasSubstr("packed varint payload of 3 bytes ends inside the varint starting at byte "
                        "offset 2"));
  EXPECT_EQ(counting.taken(), 0);
}

TEST_P(PackedVarintApiTest, EnumMatchesUpstreamOpenEnumField) {
  // proto3 open enum: upstream keeps every value, including unknown and negative ones.
  std::string payload;
  for (int64_t v : std::vector<int64_t>{0, 1, 2, 3, 100, -1, -5, INT32_MIN, INT32_MAX}) {
    payload += Varint(static_cast<uint64_t>(v));
  }
  for (int i = 0; i < 3; ++i) payload += payload;
  test::PackedFields msg;
  ASSERT_TRUE(msg.ParseFromString(testing::LengthDelimitedField(8, payload)));
  RepeatedField<int> field;
  ASSERT_TRUE(DecodePackedEnum(payload, &field).ok());
  ASSERT_EQ(field.size(), msg.enums_size());
  for (int i = 0; i < field.size(); ++i) EXPECT_EQ(field.Get(i), msg.enums(i));
}

TEST_P(PackedVarintApiTest, ReservesExactlyOnceForAnEmptyField) {
  const std::string payload = testing::EncodePacked(
      workloads::GenerateWireValues(*workloads::FindPayloadWorkload("W4"), 777));
  RepeatedField<uint32_t> field;
  ASSERT_TRUE(DecodePackedUInt32(payload, &field).ok());
  EXPECT_EQ(field.size(), 777);
  EXPECT_EQ(field.Capacity(), 777);
}

// The bounded tiny path runs: a lenient span decode, append to a RepeatedField (new, and reused)
// or PackedView read of a payload of at most kBoundedTinyPayloadBytes (12, 24 and 48 bytes here:
// each of avx512's three paths) calls the active kernel's decode_tiny_bounded
// (ScopedCountingBoundedTinyDecoder counts the calls), and gets the reference's values either way;
// a longer payload (96 bytes) and a strict decode do not call it.
TEST_P(PackedVarintApiTest, ShortPayloadsTakeTheBoundedTinyDecoder) {
  ScopedCountingBoundedTinyDecoder counting(VarintFormat::kUInt32);

  const std::vector<uint32_t> values = {1, 300, 70000, 5, 0, 127, 128};  // 12 bytes.
  const std::string tiny = EncodePacked(std::vector<uint64_t>(values.begin(), values.end()));
  const std::string twice = tiny + tiny;   // 24 bytes: over kTinyPayloadBytes, still bounded-tiny.
  const std::string four = twice + twice;  // 48 bytes: over 32, still bounded-tiny.
  const std::string longer = four + four;  // 96 bytes.
  static_assert(internal::BoundedTinyPayloadBytes(VarintFormat::kUInt32) == 64,
                "the sizes above straddle it");
  for (const std::string* payload : {&tiny, &twice, &four, &longer}) {
    const size_t expected_values = payload->size() / tiny.size() * values.size();
    const bool bounded_tiny = payload != &longer;
    for (const bool strict : {false, true}) {
      SCOPED_TRACE(absl::StrCat("bytes=", payload->size(), " strict=", strict));
      counting.ResetCalls();
      uint32_t out[64];
      const absl::StatusOr<size_t> n =
          DecodePackedUInt32(*payload, absl::MakeSpan(out), DecodeOptions{strict});
      ASSERT_TRUE(n.ok()) << n.status();
      ASSERT_EQ(*n, expected_values);
      for (size_t i = 0; i < *n; ++i) ASSERT_EQ(out[i], values[i % values.size()]) << i;
      EXPECT_EQ(counting.calls(), bounded_tiny && !strict ? 1 : 0);
      // Appended to a new field, then again to it cleared (its capacity kept): no reallocation.
      RepeatedField<uint32_t> field;
      for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass == 0 ? "new RepeatedField" : "reused RepeatedField");
        field.Clear();
        const int capacity = field.Capacity();
        counting.ResetCalls();
        ASSERT_TRUE(DecodePackedUInt32(*payload, &field, DecodeOptions{strict}).ok());
        ASSERT_EQ(field.size(), static_cast<int>(expected_values));
        for (int i = 0; i < field.size(); ++i) ASSERT_EQ(field.Get(i), values[i % values.size()]);
        EXPECT_EQ(counting.calls(), bounded_tiny && !strict ? 1 : 0);
        if (pass == 1) {
          EXPECT_EQ(field.Capacity(), capacity);
        }
      }
    }
    counting.ResetCalls();
    std::vector<uint32_t> read;
    for (uint32_t v : PackedView<PackedType::kUInt32>(*payload)) read.push_back(v);
    ASSERT_EQ(read.size(), expected_values);
    for (size_t i = 0; i < read.size(); ++i) ASSERT_EQ(read[i], values[i % values.size()]) << i;
    EXPECT_EQ(counting.calls(), bounded_tiny ? 1 : 0) << "PackedView, bytes=" << payload->size();
  }
}

// The same for 64-bit types, whose bound is 128 bytes (BoundedTinyPayloadBytes): sint64 payloads
// like an OSM way's refs (a five-byte first value, then small deltas) of 30, 60 and 120 bytes
// call the bounded tiny decoder; a span decode of one of 240 bytes does not (PackedView may give
// that one's last chunk to it).
TEST_P(PackedVarintApiTest, Short64BitPayloadsTakeTheBoundedTinyDecoderUpTo128Bytes) {
  ScopedCountingBoundedTinyDecoder counting(VarintFormat::kSInt64);

  const std::vector<uint64_t> raw = {9876543210, 3, 300, 70000, 0, 127, 128};  // 15 bytes.
  const std::string unit = EncodePacked(raw);
  const std::string twice = unit + unit;
  const std::string four = twice + twice;
  const std::string eight = four + four;      // 120 bytes: over 64, still bounded-tiny.
  const std::string sixteen = eight + eight;  // 240 bytes.
  static_assert(internal::BoundedTinyPayloadBytes(VarintFormat::kSInt64) == 128,
                "the sizes above straddle it");
  for (const std::string* payload : {&twice, &four, &eight, &sixteen}) {
    const size_t expected_values = payload->size() / unit.size() * raw.size();
    const bool bounded_tiny = payload != &sixteen;
    SCOPED_TRACE(absl::StrCat("bytes=", payload->size()));
    counting.ResetCalls();
    int64_t out[128];
    const absl::StatusOr<size_t> n = DecodePackedSInt64(*payload, absl::MakeSpan(out));
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_EQ(*n, expected_values);
    for (size_t i = 0; i < *n; ++i) {
      const uint64_t v = raw[i % raw.size()];
      ASSERT_EQ(out[i], static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1)) << i;
    }
    EXPECT_EQ(counting.calls(), bounded_tiny ? 1 : 0);
    counting.ResetCalls();
    size_t read = 0;
    for (int64_t v : PackedView<PackedType::kSInt64>(*payload)) {
      ASSERT_EQ(v, out[read]) << read;
      ++read;
    }
    ASSERT_EQ(read, expected_values);
    if (bounded_tiny) {
      EXPECT_EQ(counting.calls(), 1) << "PackedView";
    }
  }
}

// Appends the payload of `times` copies of `unit` (a packed payload of `format`) to a new field, to
// one holding three values, and to each again cleared (truncated to its three) twice: the values
// are the reference's, and the kernel's bounded tiny decoder takes every append (where the kernel
// has one; none is declined to the count and reserve), offered room for a value per byte and the
// kernel's spare values, so that it may store whole groups (ShortPayloadRoom: a new field's
// capacity, from protobuf 30 on a few values held inline, is not that room); a reused field keeps
// it (no reallocation).
template <typename T>
void CheckShortAppendTaken(VarintFormat format, AppendFn<T> append, absl::string_view unit,
                           int times) {
  std::string payload;
  for (int i = 0; i < times; ++i) payload.append(unit.data(), unit.size());
  const Expected e = ExpectedDecode(format, payload, false);
  ASSERT_EQ(e.status, DecodeStatus::kOk);
  const internal::KernelDescriptor& kernel = internal::ActiveKernel();
  const bool has_bounded = kernel.BoundedTinyDecoder(format) != nullptr;
  const int room = internal::ShortPayloadRoom(payload.size(), kernel.bounded_tiny_spare_values);
  ScopedCountingBoundedTinyDecoder counting(format);
  for (const int held : {0, 3}) {
    RepeatedField<T> field;
    for (int i = 0; i < held; ++i) field.Add(static_cast<T>(i + 1));
    for (int pass = 0; pass < 3; ++pass) {
      SCOPED_TRACE(absl::StrCat("bytes=", payload.size(), " held=", held, " pass=", pass));
      field.Truncate(held);
      const int capacity = field.Capacity();
      counting.ResetCalls();
      ASSERT_TRUE(append(payload, &field, DecodeOptions{}).ok());
      ASSERT_EQ(field.size(), held + static_cast<int>(e.values.size()));
      for (size_t i = 0; i < e.values.size(); ++i) {
        ASSERT_EQ(Bits(field.Get(held + i)), e.values[i]);
      }
      EXPECT_EQ(counting.calls(), 1);
      EXPECT_EQ(counting.taken(), has_bounded ? 1 : 0) << "declined: counted and reserved";
      if (has_bounded) {
        EXPECT_GE(counting.least_room(), room);
      }
      if (pass > 0) {
        EXPECT_EQ(field.Capacity(), capacity) << "a reused field keeps its room";
      }
    }
  }
}

TEST_P(PackedVarintApiTest, ShortAppendsAreTakenWithRoomByTheBoundedTinyDecoder) {
  // 12 and 48 bytes of uint32.
  const std::string small = EncodePacked({1, 300, 70000, 5, 0, 127, 128});
  for (const int times : {1, 4}) {
    CheckShortAppendTaken<uint32_t>(VarintFormat::kUInt32, &DecodePackedUInt32, small, times);
  }
  // Like an OSM way's refs: a five-byte first value, then small deltas (15 and 120 bytes).
  const std::string refs = EncodePacked({9876543210, 3, 300, 70000, 0, 127, 128});
  for (const int times : {1, 8}) {
    CheckShortAppendTaken<int64_t>(VarintFormat::kSInt64, &DecodePackedSInt64, refs, times);
  }
}

// The span forms given the end of the buffer holding the payload (packed_varint.h) against the
// plain span forms: the same values, the same errors, for every type, strict or not, with room
// for one value, exactly the values, 16, 64 and a value per byte and kWindowSpareValues, whether
// the buffer ends right after the payload (an inaccessible page follows) or goes on for fewer than
// or at least kTinyReadableBytes or kWindowReadableBytes from the payload's start (continuation
// bytes, which would corrupt a value read past the payload).
template <typename T, typename Decode>
void CheckBufferEndForm(Decode decode, absl::string_view payload, const char* buffer_end) {
  for (const bool strict : {false, true}) {
    std::unique_ptr<T[]> all(new T[64]);
    const absl::StatusOr<size_t> count =
        decode(payload, absl::MakeSpan(all.get(), 64), DecodeOptions{strict});
    const size_t values = count.ok() ? *count : 0;
    for (const size_t room : {size_t{1}, values, size_t{16}, size_t{64},
                              payload.size() + internal::kWindowSpareValues}) {
      SCOPED_TRACE(absl::StrCat("bytes=", payload.size(), " readable=", buffer_end - payload.data(),
                                " strict=", strict, " room=", room));
      std::unique_ptr<T[]> plain(new T[room + 1]());  // Not std::vector: vector<bool>.
      std::unique_ptr<T[]> with_end(new T[room + 1]());
      const absl::StatusOr<size_t> want =
          decode(payload, absl::MakeSpan(plain.get(), room), DecodeOptions{strict});
      const absl::StatusOr<size_t> got =
          decode(payload, buffer_end, absl::MakeSpan(with_end.get(), room), DecodeOptions{strict});
      ASSERT_EQ(got.status(), want.status());
      if (!want.ok()) continue;
      ASSERT_EQ(*got, *want);
      for (size_t i = 0; i < *want; ++i) ASSERT_EQ(Bits(with_end[i]), Bits(plain[i])) << i;
    }
  }
}

TEST_P(PackedVarintApiTest, BufferEndFormsMatchTheSpanForms) {
  GuardedBuffer guard(4096);
  std::mt19937_64 rng(9);
  std::vector<std::string> payloads = {
      "\x80",
      std::string("\x01\x02\x80\x80", 4),
      OverlongVarint(11),
      std::string(9, '\xff'),
      Varint(5) + TenByteVarint(1, 0x02),  // A 10-byte varint: tiny decoders decline.
      Varint(uint64_t{1} << 32) + std::string(8, '\x03'),  // Overflows 32-bit types.
  };
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    for (size_t n : {1, 2, 3, 5, 8, 12, 16, 17, 30, 50}) {
      payloads.push_back(testing::EncodePacked(workloads::GenerateWireValues(w, n, rng)));
    }
  }
  for (const std::string& payload : payloads) {
    for (const size_t after : {size_t{0}, size_t{1}, size_t{8},
                               size_t{internal::kTinyReadableBytes} - payload.size() - 1,
                               size_t{internal::kTinyReadableBytes},
                               size_t{internal::kWindowReadableBytes} - payload.size() - 1,
                               size_t{internal::kWindowReadableBytes}}) {
      if (after > 64) continue;  // The wrapped difference of a payload over 23 (63) bytes.
      const absl::string_view input = guard.CopyFlushEnd(payload + std::string(after, '\xff'));
      const absl::string_view in_place = input.substr(0, payload.size());
      const char* const end = input.data() + input.size();
#define PBACCEL_CHECK_BUFFER_END_FORM(Name, Format, T) \
  CheckBufferEndForm<T>([](auto... a) { return DecodePacked##Name(a...); }, in_place, end);
      PBACCEL_PACKED_VARINT_TYPES(PBACCEL_CHECK_BUFFER_END_FORM)
#undef PBACCEL_CHECK_BUFFER_END_FORM
    }
  }
}

// decode_tiny and decode_window wrapped to count their calls, then run the kernel's own (by
// format): for a KernelDescriptor a test makes active. A kernel without a window decoder keeps
// none.
int decode_tiny_calls = 0;
int decode_window_calls = 0;
internal::TinyDecodeFn own_decode_tiny[internal::kNumVarintFormats];
internal::TinyDecodeFn own_decode_window[internal::kNumVarintFormats];
template <VarintFormat F>
int CountingDecodeTiny(const uint8_t* p, const uint8_t* end, void* out, int room) {
  ++decode_tiny_calls;
  return own_decode_tiny[static_cast<int>(F)](p, end, out, room);
}
template <VarintFormat F>
int CountingDecodeWindow(const uint8_t* p, const uint8_t* end, void* out, int room) {
  ++decode_window_calls;
  return own_decode_window[static_cast<int>(F)](p, end, out, room);
}
template <VarintFormat F>
void CountTinyAndWindowCalls(internal::KernelDescriptor* kernel) {
  const int f = static_cast<int>(F);
  own_decode_tiny[f] = kernel->decode_tiny[f];
  kernel->decode_tiny[f] = &CountingDecodeTiny<F>;
  own_decode_window[f] = kernel->decode_window[f];
  if (own_decode_window[f] != nullptr) kernel->decode_window[f] = &CountingDecodeWindow<F>;
}

// The ways of the span forms given a buffer end run (size_policy.h), under the active kernel with
// decode_tiny and decode_window counting their calls, for uint32 and uint64 payloads of 7 and 21
// bytes, and one of 70: a 32-bit payload of at most kTinyPayloadBytes with kTinyReadableBytes of
// the buffer from its start, decoded leniently into room for 16 values, goes to decode_tiny; one
// of at most kWindowPayloadBytes that decode_tiny does not take, with kWindowReadableBytes of the
// buffer, into room for a value per byte and kWindowSpareValues more, to decode_window where the
// kernel has one; a 64-bit one to decode_window on the same terms, never to decode_tiny. Less of
// the buffer, less room, a strict decode or a longer payload takes neither. All give the values.
TEST_P(PackedVarintApiTest, PayloadsWithABufferEndTakeTheTinyOrTheWindowDecoder) {
  internal::KernelDescriptor counting = internal::ActiveKernel();
  CountTinyAndWindowCalls<VarintFormat::kUInt32>(&counting);
  CountTinyAndWindowCalls<VarintFormat::kUInt64>(&counting);
  const bool has_window = own_decode_window[static_cast<int>(VarintFormat::kUInt32)] != nullptr;
  ASSERT_EQ(own_decode_window[static_cast<int>(VarintFormat::kUInt64)] != nullptr, has_window);
  const internal::ScopedActiveKernelForTesting use(counting);

  GuardedBuffer guard(4096);
  const std::vector<uint32_t> values = {1, 300, 70000, 5};  // 7 bytes.
  std::string tiny;
  for (const uint32_t v : values) tiny += Varint(v);
  std::string longer;
  for (int i = 0; i < 3; ++i) longer += tiny;  // 21 bytes: over kTinyPayloadBytes.
  std::string longest;
  for (int i = 0; i < 10; ++i) longest += tiny;  // 70 bytes: over kWindowPayloadBytes.
  struct Case {
    const std::string* payload;
    size_t readable;  // From the payload's start.
    size_t room;
    bool strict;
    int tiny32;    // decode_tiny's calls for uint32.
    int window32;  // decode_window's for uint32 (where the kernel has one).
    int window64;  // decode_window's for uint64 (where the kernel has one).
  };
  const size_t tiny_readable = internal::kTinyReadableBytes;
  const size_t readable = internal::kWindowReadableBytes;
  const size_t spare = internal::kWindowSpareValues;
  for (const Case& c : {
           Case{&tiny, tiny_readable, 16, false, 1, 0, 0},
           Case{&tiny, readable, 16, false, 1, 0, 1},
           Case{&tiny, readable + 9, 64, false, 1, 0, 1},
           Case{&tiny, tiny_readable - 1, 16, false, 0, 0, 0},
           Case{&tiny, 7, 64, false, 0, 0, 0},
           Case{&tiny, readable, 15, false, 0, 1, 1},  // Room for 7 + 8, not 16.
           Case{&tiny, readable, 14, false, 0, 0, 0},
           Case{&tiny, readable, 16, true, 0, 0, 0},
           Case{&longer, 48, 64, false, 0, 0, 0},
           Case{&longer, readable, 21 + spare, false, 0, 1, 1},
           Case{&longer, readable - 1, 64, false, 0, 0, 0},
           Case{&longer, readable, 20 + spare, false, 0, 0, 0},
           Case{&longer, readable, 64, true, 0, 0, 0},
           Case{&longest, 200, 200, false, 0, 0, 0},
       }) {
    SCOPED_TRACE(absl::StrCat("bytes=", c.payload->size(), " readable=", c.readable,
                              " room=", c.room, " strict=", c.strict));
    const absl::string_view input =
        guard.CopyFlushEnd(*c.payload + std::string(c.readable - c.payload->size(), '\xff'));
    decode_tiny_calls = 0;
    decode_window_calls = 0;
    std::vector<uint32_t> out(c.room);
    const absl::StatusOr<size_t> n =
        DecodePackedUInt32(input.substr(0, c.payload->size()), input.data() + input.size(),
                           absl::MakeSpan(out), DecodeOptions{c.strict});
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_EQ(*n, c.payload->size() / tiny.size() * values.size());
    for (size_t i = 0; i < *n; ++i) ASSERT_EQ(out[i], values[i % values.size()]) << i;
    EXPECT_EQ(decode_tiny_calls, c.tiny32) << "uint32";
    EXPECT_EQ(decode_window_calls, has_window ? c.window32 : 0) << "uint32";

    decode_tiny_calls = 0;
    decode_window_calls = 0;
    std::vector<uint64_t> wide(c.room);
    const absl::StatusOr<size_t> m =
        DecodePackedUInt64(input.substr(0, c.payload->size()), input.data() + input.size(),
                           absl::MakeSpan(wide), DecodeOptions{c.strict});
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_EQ(*m, *n);
    for (size_t i = 0; i < *m; ++i) ASSERT_EQ(wide[i], values[i % values.size()]) << i;
    EXPECT_EQ(decode_tiny_calls, 0) << "uint64";
    EXPECT_EQ(decode_window_calls, has_window ? c.window64 : 0) << "uint64";
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(PackedVarintApiTest);

}  // namespace
}  // namespace testing
}  // namespace pbaccel
