// Copyright 2026 The pbaccel Authors.
//
// The skip/size module under every kernel this CPU supports: counts, skips and encoded sizes
// against independent references and upstream protobuf (WireFormatLite sizes, ByteSizeLong), the
// field reader against upstream's parse of the same bytes as unknown fields, and PackedView against
// the decoding API.

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/empty.pb.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/wire_format_lite.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/packed_fields.pb.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::RepeatedField;
using google::protobuf::internal::WireFormatLite;

size_t ReferenceSize(uint64_t wire) { return Varint(wire).size(); }

class SkipSizeTest : public EveryKernelTest {};

TEST_P(SkipSizeTest, EncodedSizesMatchUpstream) {
  std::mt19937_64 rng(9);
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    for (size_t n : {0, 1, 3, 7, 8, 15, 16, 17, 33, 64, 65, 300, 4099}) {
      SCOPED_TRACE(absl::StrCat(GetParam(), " ", w.name, " n=", n));
      const std::vector<uint64_t> wire = workloads::GenerateWireValues(w, n, rng);
      RepeatedField<int32_t> i32;
      RepeatedField<uint32_t> u32;
      RepeatedField<int32_t> s32;
      RepeatedField<int64_t> i64;
      RepeatedField<uint64_t> u64;
      RepeatedField<int64_t> s64;
      size_t ref_u64 = 0, ref_i32 = 0;
      for (uint64_t v : wire) {
        i32.Add(static_cast<int32_t>(v));
        u32.Add(static_cast<uint32_t>(v));
        s32.Add(static_cast<int32_t>(v * 2654435761u));
        i64.Add(static_cast<int64_t>(v));
        u64.Add(v);
        s64.Add(static_cast<int64_t>(v * 0x9E3779B97F4A7C15ull));
        ref_u64 += ReferenceSize(v);
        ref_i32 +=
            ReferenceSize(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))));
      }
      EXPECT_EQ(EncodedSizeInt32(i32), WireFormatLite::Int32Size(i32));
      EXPECT_EQ(EncodedSizeInt32(i32), ref_i32);
      EXPECT_EQ(EncodedSizeEnum(
                    absl::MakeConstSpan(reinterpret_cast<const int*>(i32.data()), i32.size())),
                WireFormatLite::EnumSize(RepeatedField<int>(i32.begin(), i32.end())));
      EXPECT_EQ(EncodedSizeUInt32(u32), WireFormatLite::UInt32Size(u32));
      EXPECT_EQ(EncodedSizeSInt32(s32), WireFormatLite::SInt32Size(s32));
      EXPECT_EQ(EncodedSizeInt64(i64), WireFormatLite::Int64Size(i64));
      EXPECT_EQ(EncodedSizeUInt64(u64), WireFormatLite::UInt64Size(u64));
      EXPECT_EQ(EncodedSizeUInt64(u64), ref_u64);
      EXPECT_EQ(EncodedSizeSInt64(s64), WireFormatLite::SInt64Size(s64));
    }
  }
}

TEST_P(SkipSizeTest, BoundaryValueSizes) {
  const std::vector<int32_t> i32 = {0, 1, 127, 128, 16383, 16384, INT32_MAX, -1, INT32_MIN};
  const std::vector<uint32_t> u32 = {0, 127, 128, (1u << 28) - 1, 1u << 28, UINT32_MAX};
  const std::vector<uint64_t> u64 = {0,          127,        128,       (1ull << 63) - 1,
                                     1ull << 63, UINT64_MAX, 1ull << 56};
  for (int rep = 0; rep < 3; ++rep) {  // Long enough for the vector loops too.
    std::vector<int32_t> a;
    std::vector<uint32_t> b;
    std::vector<uint64_t> c;
    for (int i = 0; i < 7 * (rep + 1); ++i) {
      a.insert(a.end(), i32.begin(), i32.end());
      b.insert(b.end(), u32.begin(), u32.end());
      c.insert(c.end(), u64.begin(), u64.end());
    }
    EXPECT_EQ(EncodedSizeInt32(a),
              WireFormatLite::Int32Size(RepeatedField<int32_t>(a.begin(), a.end())));
    EXPECT_EQ(EncodedSizeSInt32(a),
              WireFormatLite::SInt32Size(RepeatedField<int32_t>(a.begin(), a.end())));
    EXPECT_EQ(EncodedSizeUInt32(b),
              WireFormatLite::UInt32Size(RepeatedField<uint32_t>(b.begin(), b.end())));
    EXPECT_EQ(EncodedSizeUInt64(c),
              WireFormatLite::UInt64Size(RepeatedField<uint64_t>(c.begin(), c.end())));
  }
}

TEST_P(SkipSizeTest, PackedFieldSizeMatchesByteSizeLong) {
  for (int n : {0, 1, 5, 200, 5000}) {
    test::PackedFields msg;
    for (int i = 0; i < n; ++i) msg.add_uint32s(static_cast<uint32_t>(i) * 977);
    const size_t payload = EncodedSizeUInt32(msg.uint32s());
    EXPECT_EQ(PackedFieldSize(3, payload), msg.ByteSizeLong()) << n;
  }
  EXPECT_EQ(PackedFieldSize(1 << 20, 300), 4 + 2 + 300u);
}

TEST_P(SkipSizeTest, CountAndSkipAgreeWithAReference) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    std::string payload;
    const size_t target = rng() % 200;
    while (payload.size() < target) {
      const int len = 1 + static_cast<int>(rng() % 10);
      payload += Varint(rng() >> (64 - 7 * len + (len == 10 ? 6 : 0)), len);
    }
    if (rng() % 4 == 0) payload += std::string(1 + rng() % 3, '\x80');  // Truncated tail.
    GuardedBuffer guard(1 << 12);
    const absl::string_view p = guard.CopyFlushEnd(payload);
    std::vector<size_t> ends;  // Offsets after each terminator.
    for (size_t i = 0; i < p.size(); ++i) {
      if ((static_cast<uint8_t>(p[i]) & 0x80) == 0) ends.push_back(i + 1);
    }
    const VarintCount c = CountVarints(p);
    EXPECT_EQ(c.count, ends.size());
    EXPECT_EQ(c.ends_inside_varint, !p.empty() && (static_cast<uint8_t>(p.back()) & 0x80));
    for (size_t n = 0; n <= ends.size() + 1; ++n) {
      const absl::StatusOr<size_t> s = SkipVarints(p, n);
      if (n <= ends.size()) {
        ASSERT_TRUE(s.ok()) << s.status();
        EXPECT_EQ(*s, n == 0 ? 0 : ends[n - 1]);
      } else {
        EXPECT_EQ(s.status().code(), absl::StatusCode::kOutOfRange);
      }
    }
  }
  // An over-long varint anywhere before the n-th is reported with its offset.
  for (size_t before : {0, 3, 8, 13, 40}) {
    const std::string p =
        std::string(before, '\x01') + OverlongVarint(12) + std::string(20, '\x01');
    const absl::StatusOr<size_t> s = SkipVarints(p, before + 5);
    ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(s.status().message()).find(absl::StrCat("byte offset ", before)),
              std::string::npos)
        << s.status();
  }
}

TEST_P(SkipSizeTest, PackedViewMatchesTheDecoder) {
  const std::vector<uint64_t> wire =
      workloads::GenerateWireValues(*workloads::FindPayloadWorkload("W4"), 1000);
  const std::string payload = testing::EncodePacked(wire);
  PackedView<PackedType::kUInt32> view(payload);
  EXPECT_EQ(view.size(), 1000u);
  size_t i = 0;
  for (uint32_t v : view) EXPECT_EQ(v, static_cast<uint32_t>(wire[i++]));
  EXPECT_EQ(i, 1000u);
  auto cursor = view.cursor();
  std::vector<uint32_t> chunk(77);
  size_t total = 0;
  while (true) {
    absl::StatusOr<size_t> n = cursor.DecodeTo(absl::MakeSpan(chunk));
    ASSERT_TRUE(n.ok());
    if (*n == 0) break;
    for (size_t k = 0; k < *n; ++k) ASSERT_EQ(chunk[k], static_cast<uint32_t>(wire[total + k]));
    total += *n;
  }
  EXPECT_EQ(total, 1000u);
  // ForEach: the same values, in order.
  i = 0;
  ASSERT_TRUE(
      view.ForEach([&](uint32_t v) { ASSERT_EQ(v, static_cast<uint32_t>(wire[i++])); }).ok());
  EXPECT_EQ(i, 1000u);
  // Malformed: iteration stops and reports; ForEach returns the decoder's error.
  const std::string bad = payload.substr(0, 500) + OverlongVarint(11);
  PackedView<PackedType::kSInt64> bad_view(bad);
  auto it = bad_view.begin();
  size_t seen = 0;
  while (it != bad_view.end()) ++it, ++seen;
  EXPECT_FALSE(it.error().ok());
  std::vector<int64_t> decoded(bad.size());
  const absl::Status expected = DecodePackedSInt64(bad, absl::MakeSpan(decoded)).status();
  ASSERT_EQ(expected.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(it.error(), expected);
  size_t called = 0;
  EXPECT_EQ(bad_view.ForEach([&](int64_t) { ++called; }), expected);
  EXPECT_LE(called, seen);
  // Short and empty views: iteration and ForEach give the sint32 values (zigzag of the low 32 bits,
  // computed here, not by the decoder) and hold nothing stale. Without a long varint the short
  // payloads take the kernel's bounded tiny decoder (inline, through the cursor); with a 10-byte
  // varint first, the block decoder.
  const auto zigzag32 = [](uint64_t wire_value) {
    const uint32_t u = static_cast<uint32_t>(wire_value);
    return static_cast<int32_t>((u >> 1) ^ (0u - (u & 1)));
  };
  for (const bool long_first : {false, true}) {
    for (size_t n : {0, 1, 5, 63, 64, 65, 200}) {
      std::vector<uint64_t> values(wire.begin(), wire.begin() + n);
      if (long_first && n > 0) values.insert(values.begin(), ~uint64_t{0});
      const std::string p = testing::EncodePacked(values);
      std::vector<int32_t> want;
      for (uint64_t w : values) want.push_back(zigzag32(w));
      SCOPED_TRACE(absl::StrCat("n=", n, " long_first=", long_first, " bytes=", p.size()));
      PackedView<PackedType::kSInt32> v(p);
      std::vector<int32_t> iterated(v.begin(), v.end());
      EXPECT_EQ(iterated, want);
      EXPECT_EQ(v.begin() == v.end(), want.empty());
      std::vector<int32_t> visited;
      ASSERT_TRUE(v.ForEach([&](int32_t x) { visited.push_back(x); }).ok());
      EXPECT_EQ(visited, want);
    }
  }
  // Fixed width: zero copy when aligned, else nullopt; CopyTo always.
  std::vector<double> doubles = {1.5, -2.25, 1e300, 0};
  std::string bytes(reinterpret_cast<const char*>(doubles.data()), doubles.size() * 8);
  alignas(8) char aligned[64];
  std::memcpy(aligned, bytes.data(), bytes.size());
  PackedView<PackedType::kDouble> dv(absl::string_view(aligned, bytes.size()));
  ASSERT_TRUE(dv.AsSpan().has_value());
  EXPECT_EQ((*dv.AsSpan())[2], 1e300);
  EXPECT_EQ(dv.AsSpan()->data(), reinterpret_cast<const double*>(aligned));
  std::memcpy(aligned + 1, bytes.data(), bytes.size());
  PackedView<PackedType::kDouble> unaligned(absl::string_view(aligned + 1, bytes.size()));
  EXPECT_FALSE(unaligned.AsSpan().has_value());
  std::vector<double> copy(4);
  ASSERT_EQ(*unaligned.CopyTo(absl::MakeSpan(copy)), 4u);
  EXPECT_EQ(copy, doubles);
}

// The field reader accepts exactly what upstream accepts when every field is unknown, and finds
// exactly the occurrences upstream keeps.
// Also: the reader's own decision is upstream's, each field's offset and raw bytes are where the
// reader stood, and after an error the reader stays stopped at the malformed field.
void CheckReaderDecision(absl::string_view bytes, bool upstream_ok) {
  FieldReader reader(bytes);
  Field f;
  size_t at = reader.position();
  ASSERT_EQ(at, 0u);
  while (reader.Next(&f)) {
    ASSERT_EQ(f.offset, at);
    ASSERT_EQ(f.raw, bytes.substr(at, f.raw.size()));
    at = reader.position();
    ASSERT_EQ(at, f.offset + f.raw.size());
  }
  ASSERT_EQ(reader.status().ok(), upstream_ok) << reader.status();
  if (upstream_ok) {
    EXPECT_EQ(at, bytes.size());
    return;
  }
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(at, bytes.size());
  EXPECT_EQ(reader.position(), at) << "the reader stays at the malformed field";
  EXPECT_FALSE(reader.Next(&f)) << "a failed reader stays failed";
  EXPECT_EQ(reader.position(), at);
  EXPECT_FALSE(reader.status().ok());
}

void CheckReader(absl::string_view bytes) {
  google::protobuf::Empty upstream;
  const bool ok = upstream.ParseFromString(std::string(bytes));
  absl::StatusOr<std::vector<Field>> found = FindField(bytes, 1);
  ASSERT_EQ(found.ok(), ok) << "upstream " << (ok ? "accepts" : "rejects") << ": "
                            << found.status();
  CheckReaderDecision(bytes, ok);
  if (!ok) return;
  const google::protobuf::UnknownFieldSet& unknown =
      upstream.GetReflection()->GetUnknownFields(upstream);
  std::vector<int> numbers;
  FieldReader reader(bytes);
  Field f;
  size_t i = 0;
  while (reader.Next(&f)) {
    ASSERT_LT(i, static_cast<size_t>(unknown.field_count()));
    const google::protobuf::UnknownField& u = unknown.field(static_cast<int>(i++));
    ASSERT_EQ(static_cast<int>(f.number), u.number());
    switch (u.type()) {
      case google::protobuf::UnknownField::TYPE_VARINT: EXPECT_EQ(f.varint, u.varint()); break;
      case google::protobuf::UnknownField::TYPE_FIXED32: EXPECT_EQ(f.fixed32(), u.fixed32()); break;
      case google::protobuf::UnknownField::TYPE_FIXED64: EXPECT_EQ(f.fixed64(), u.fixed64()); break;
      case google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED:
        EXPECT_EQ(f.data, u.length_delimited());
        break;
      case google::protobuf::UnknownField::TYPE_GROUP: {
        std::string body;
        ASSERT_TRUE(u.group().SerializeToString(&body));
        EXPECT_EQ(f.data.size() >= body.size(), true);
        break;
      }
    }
  }
  ASSERT_TRUE(reader.status().ok());
  EXPECT_EQ(i, static_cast<size_t>(unknown.field_count()));
}

TEST_P(SkipSizeTest, FieldReaderAgreesWithUpstream) {
  std::mt19937_64 rng(21);
  DifferentialOptions options;
  for (int i = 0; i < 40; ++i) {
    test::PackedFields msg;
    FillRandom(&msg, rng, options);
    std::string bytes = EncodeInterleaved(msg, rng);
    // Groups (valid, nested) and the field the finder looks for.
    bytes +=
        std::string("\x0b\x08\x01\x13\x18\x02\x14\x0c", 8);  // group 1 { 1: 1, group 2 { 3: 2 } }
    CheckReader(bytes);
    for (const std::string& m : Mutate(bytes, rng, 60)) CheckReader(m);
  }
  // Deep groups: 100 nest, 101 do not.
  for (int depth : {99, 100, 101, 102}) {
    std::string g;
    for (int d = 0; d < depth; ++d) g += '\x0b';
    for (int d = 0; d < depth; ++d) g += '\x0c';
    CheckReader(g);
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(SkipSizeTest);

}  // namespace
}  // namespace testing
}  // namespace pbaccel
