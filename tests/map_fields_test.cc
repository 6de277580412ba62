// Copyright 2026 The pbaccel Authors.
//
// Map fields in generated parsers (compiler/parser_generator.cc, WriteMap): entries in the shape
// serializers write (key, then value) are read by the generated code, which hands no field to
// upstream for them (gen::DelegatedFieldsForTesting does not move); every other shape - a key or
// value missing, repeated or out of order, unknown fields, other wire types, invalid UTF-8,
// malformed bytes - and maps of closed enums go to upstream. Every input agrees with upstream
// under every kernel, fresh and reused, full and LITE_RUNTIME types (testing::CompareWithUpstream,
// CompareLiteWithUpstream): proto3 (Maps3: every key type, every kind of value) and proto2 (Maps2:
// closed enums, unchecked strings, values with required fields), and nesting through maps up to
// and past the recursion limit (an entry is a level, a message value one more).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/wire_builder.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test2.pbaccel.h"
#include "proto/parser_test2_lite.pb.h"
#include "proto/parser_test2_lite.pbaccel.h"
#include "proto/parser_test3.pb.h"
#include "proto/parser_test3.pbaccel.h"
#include "proto/parser_test3_lite.pb.h"
#include "proto/parser_test3_lite.pbaccel.h"

namespace pbaccel {
namespace {

using testing::AppendTag;
using testing::Varint;

// Wire pieces: a field `number` of wire type `wire_type` holding `bytes` (a varint's, a fixed
// value's, or a length-delimited payload with its length).
std::string Field(int number, int wire_type, const std::string& bytes) {
  std::string out;
  AppendTag(static_cast<uint64_t>(number), wire_type, &out);
  return out + bytes;
}
std::string Delimited(const std::string& payload) { return Varint(payload.size()) + payload; }
std::string Entry(int map_number, const std::string& entry_payload) {
  return Field(map_number, 2, Delimited(entry_payload));
}
std::string Fixed32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

// Compares pbaccel with upstream on `input` for the full and the lite type.
template <typename Full, typename Lite>
std::string Compare(const std::string& input) {
  std::string diff = testing::CompareWithUpstream(input, Full::default_instance());
  if (!diff.empty()) return "full: " + diff;
  diff = testing::CompareLiteWithUpstream(input, Lite::default_instance(), &gen::MergeThunk<Lite>);
  return diff.empty() ? "" : "lite: " + diff;
}

test3::Maps3 EveryKind(int nesting) {
  test3::Maps3 m;
  for (int i = -2; i < 3; ++i) {
    (*m.mutable_i32())[i * 1000000] = -i;
    (*m.mutable_i64())[int64_t{i} * (int64_t{1} << 40)] = i;
    (*m.mutable_u32())[static_cast<uint32_t>(i + 2) * 300] = 7;
    (*m.mutable_u64())[uint64_t{1} << (40 + i)] = 0;
    (*m.mutable_s32())[-i] = i * 99;
    (*m.mutable_s64())[int64_t{-i} * (int64_t{1} << 33)] = -1;
    (*m.mutable_f32())[static_cast<uint32_t>(i + 5)] = 0xdeadbeef;
    (*m.mutable_f64())[static_cast<uint64_t>(i) << 50] = 1;
    (*m.mutable_sf32())[-i] = i;
    (*m.mutable_sf64())[i] = -i;
    (*m.mutable_names())["name" + std::to_string(i)] = "välue";
    (*m.mutable_blobs())[""] = std::string("\xff\x00\x80", 3);
    (*m.mutable_floats())[i] = 0.5f * static_cast<float>(i);
    (*m.mutable_doubles())["d" + std::to_string(i)] = -1e300;
    (*m.mutable_opens())[static_cast<uint32_t>(i + 2)] = static_cast<test3::Open>(i + 2);
    (*m.mutable_levels())["level"].add_ids(static_cast<uint64_t>(i + 2));
  }
  (*m.mutable_flags())[true] = false;
  (*m.mutable_flags())[false] = true;
  (*m.mutable_opens())[99] = static_cast<test3::Open>(77);  // Open: kept as a number.
  (*m.mutable_levels())[""];                                // An empty message value.
  if (nesting > 0) (*m.mutable_nested())[nesting] = EveryKind(nesting - 1);
  return m;
}

class MapFieldsTest : public testing::EveryKernelTest {};

TEST_P(MapFieldsTest, EntriesAsSerializersWriteThemAreReadByGeneratedCode) {
  const std::string input = EveryKind(3).SerializeAsString();
  EXPECT_EQ((Compare<test3::Maps3, test3lite::Maps3>(input)), "");
  test2::Maps2 m2;
  for (int i = 0; i < 4; ++i) {
    (*m2.mutable_names())["n" + std::to_string(i)] = "\xff not UTF-8: proto2 does not check";
    (*m2.mutable_leaves())["leaf"].add_packed_s64(-i);
    (*m2.mutable_required())[static_cast<uint32_t>(i)].set_id(i);
    (*m2.mutable_nested())[-i].mutable_names()->insert({"x", "y"});
  }
  const std::string input2 = m2.SerializeAsString();
  EXPECT_EQ((Compare<test2::Maps2, test2lite::Maps2>(input2)), "");

  const uint64_t delegated = gen::DelegatedFieldsForTesting();
  test3::Maps3 full;
  test3lite::Maps3 lite;
  test2::Maps2 full2;
  ASSERT_TRUE(ParseMessage(input, &full).ok());
  ASSERT_TRUE(ParseMessage(input, &lite).ok());
  ASSERT_TRUE(ParseMessage(input2, &full2).ok());
  EXPECT_EQ(gen::DelegatedFieldsForTesting(), delegated) << "a map entry went to upstream";
  EXPECT_EQ(full.nested().at(3).nested().at(2).names().at("name1"), "välue");

  // A closed enum's map is upstream's (an unknown value sends the entry to the unknown fields).
  test2::Maps2 closed;
  (*closed.mutable_closed())[1] = test2::CLOSED_FIVE;
  const std::string closed_input =
      closed.SerializeAsString() + Entry(1, Field(1, 0, Varint(2)) + Field(2, 0, Varint(3)));
  EXPECT_EQ((Compare<test2::Maps2, test2lite::Maps2>(closed_input)), "");
  const uint64_t before_closed = gen::DelegatedFieldsForTesting();
  ASSERT_TRUE(ParseMessage(closed_input, &full2).ok());
  EXPECT_EQ(gen::DelegatedFieldsForTesting(), before_closed + 2);
  EXPECT_EQ(full2.closed_size(), 1);
}

TEST_P(MapFieldsTest, EveryOtherShapeGoesToUpstreamAndAgrees) {
  const std::string key7 = Field(1, 0, Varint(7));
  const std::string name_key = Field(1, 2, Delimited("k"));
  const std::string level = Field(2, 2, Delimited(Field(1, 2, Delimited(Varint(5)))));  // ids [5]
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"value before key", Entry(1, Field(2, 0, Varint(3)) + key7)},
      {"key only", Entry(1, key7)},
      {"value only", Entry(1, Field(2, 0, Varint(3)))},
      {"empty entry", Entry(1, "")},
      {"key twice", Entry(1, key7 + Field(1, 0, Varint(8)) + Field(2, 0, Varint(3)))},
      {"value twice", Entry(1, key7 + Field(2, 0, Varint(3)) + Field(2, 0, Varint(4)))},
      {"message value twice (merged)", Entry(17, name_key + level + level)},
      {"unknown field after", Entry(1, key7 + Field(2, 0, Varint(3)) + Field(3, 0, Varint(1)))},
      {"unknown field between", Entry(1, key7 + Field(9, 2, Delimited("?")) + Field(2, 0, "\x03"))},
      {"key of another wire type", Entry(1, Field(1, 5, Fixed32(7)) + Field(2, 0, Varint(3)))},
      {"value of another wire type", Entry(1, key7 + Field(2, 2, Delimited("x")))},
      {"fixed value cut", Entry(7, Field(1, 5, Fixed32(1)) + Field(2, 5, "ab"))},
      {"fixed value too long", Entry(7, Field(1, 5, Fixed32(1)) + Field(2, 5, Fixed32(2)) + "z")},
      {"overlong tag", Entry(1, std::string("\x88\x00", 2) + Varint(7) + Field(2, 0, Varint(3)))},
      {"padded varints", Entry(1, Field(1, 0, Varint(7, 5)) + Field(2, 0, Varint(3, 10)))},
      {"varint key cut", Entry(1, std::string("\x08\x80", 2))},
      {"entry longer than the input", Field(1, 2, Varint(50) + key7)},
      {"invalid UTF-8 key", Entry(12, Field(1, 2, Delimited("\xc0")) + Field(2, 2, Delimited("")))},
      {"invalid UTF-8 value", Entry(12, name_key + Field(2, 2, Delimited("\xe2\x82")))},
      {"bytes value not checked", Entry(13, name_key + Field(2, 2, Delimited("\xc0")))},
      {"message value malformed", Entry(17, name_key + Field(2, 2, Delimited("\x0a\x05")))},
      {"a key seen before: scalar",
       Entry(1, key7 + Field(2, 0, Varint(3))) + Entry(1, key7 + Field(2, 0, Varint(4)))},
      {"a key seen before: message (replaced, not merged)",
       Entry(17, name_key + level) +
           Entry(17, name_key + Field(2, 2, Delimited(Field(3, 2, Delimited("note")))))},
      {"a key seen before, then a field",
       Entry(17, name_key + level) + Entry(17, name_key + level) + Field(12, 2, Delimited(""))},
  };
  for (const auto& [what, input] : cases) {
    SCOPED_TRACE(what);
    EXPECT_EQ((Compare<test3::Maps3, test3lite::Maps3>(input)), "");
  }
  // proto2: strings unchecked; a value missing its required field.
  const std::vector<std::pair<std::string, std::string>> cases2 = {
      {"invalid UTF-8 key and value",
       Entry(2, Field(1, 2, Delimited("\xc0")) + Field(2, 2, Delimited("\xff")))},
      {"value missing its required field", Entry(5, Field(1, 0, Varint(1)) + Field(2, 2, ""))},
      {"value with its required field",
       Entry(5, Field(1, 0, Varint(1)) + Field(2, 2, Delimited(Field(1, 0, Varint(9)))))},
      {"required field given by a second entry of the same key",
       Entry(5, Field(1, 0, Varint(1)) + Field(2, 2, Delimited(Field(1, 0, Varint(9))))) +
           Entry(5, Field(1, 0, Varint(1)) + Field(2, 2, Delimited(Field(2, 2, Delimited("n")))))},
  };
  for (const auto& [what, input] : cases2) {
    SCOPED_TRACE(what);
    EXPECT_EQ((Compare<test2::Maps2, test2lite::Maps2>(input)), "");
  }
  // Shapes other than key-then-value reach Delegate.
  const uint64_t delegated = gen::DelegatedFieldsForTesting();
  test3::Maps3 m;
  ASSERT_TRUE(ParseMessage(cases[0].second, &m).ok());
  EXPECT_EQ(gen::DelegatedFieldsForTesting(), delegated + 1);
}

// A chain of `levels` Maps3 messages, each the value of its parent's `nested` map: 2 nesting levels
// each (the entry, the value), past kGeneratedNestingLevels and up to the recursion limit.
std::string NestedThroughMaps(int levels) {
  std::string inner = Field(1, 2, Delimited(Field(1, 0, Varint(1)) + Field(2, 0, Varint(2))));
  for (int i = 0; i < levels; ++i) {
    inner =
        Entry(18, Field(1, 0, Varint(static_cast<uint64_t>(i))) + Field(2, 2, Delimited(inner)));
  }
  return inner;
}

TEST_P(MapFieldsTest, NestingThroughMapsCountsTwoLevelsPerEntryAsUpstream) {
  for (const int levels : {3, 4, 5, 20, 48, 49, 50, 51}) {
    SCOPED_TRACE(absl::StrCat(levels, " levels of maps"));
    const std::string input = NestedThroughMaps(levels);
    test3::Maps3 upstream;
    const bool upstream_ok = upstream.ParseFromString(input);
    EXPECT_EQ(upstream_ok, levels < 50) << "the recursion limit (100) should fall at 50 map levels";
    EXPECT_EQ((Compare<test3::Maps3, test3lite::Maps3>(input)), "");
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(MapFieldsTest);

}  // namespace
}  // namespace pbaccel
