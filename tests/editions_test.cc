// Copyright 2026 The pbaccel Authors.
//
// Edition 2023 (proto/editions_2023.proto): every decision the generated parser and the reflection
// walk make by a field's features, on inputs built to hit it, against upstream under every kernel
// and on both paths (CompareWithUpstream). Each case first checks that upstream itself decides as
// the feature says (so the input really exercises it), then that pbaccel agrees; the generated
// parser's own cases are proven to run by counting the parses in which a field went to upstream
// (gen::FullRequiredFieldChecksForTesting: Delegate marks a parse, whose required fields are then
// checked by a walk). Built only against protobuf 27 and later (CMake).

#include <string>

#include "gtest/gtest.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/wire_builder.h"
#include "proto/editions_2023.pb.h"
#include "proto/editions_2023.pbaccel.h"
#include "tests/editions_checks.h"

namespace pbaccel {
namespace {

using editions::Features;
using testing::AppendTag;
using testing::AppendVarint;
using testing::LengthDelimitedField;
using testing::VarintField;

constexpr int kStartGroup = 3;
constexpr int kEndGroup = 4;

// A packed field of varints.
std::string Packed(int number, std::initializer_list<uint64_t> values) {
  return LengthDelimitedField(number, testing::EncodePacked(values));
}

// The required field, so that a parse that delegates nothing checks no required field by a walk.
const std::string kRequired = VarintField(3, 7);

// Upstream's verdict and result on `bytes`, and pbaccel's agreement on every kernel and path.
struct Upstream {
  bool accepted;
  Features message;
};
Upstream ParseUpstream(const std::string& bytes) {
  Upstream u;
  u.accepted = u.message.ParseFromString(bytes);
  return u;
}

void ExpectSameAsUpstream(const std::string& bytes) {
  EXPECT_EQ(testing::CompareWithUpstream(bytes, Features::default_instance()), "");
}

TEST(EditionsTest, GeneratedParserIsLinked) {
  Features msg;
  EXPECT_TRUE(HasGeneratedParser(msg));
}

TEST(EditionsTest, Utf8ValidationByFeature) {
  const std::string invalid = "ab\xC0\xAF";  // An overlong encoding of '/'.
  // Validated by default, singular and repeated; not with utf8_validation = NONE.
  for (const int number : {4, 6}) {
    const std::string bytes = kRequired + LengthDelimitedField(number, invalid);
    EXPECT_FALSE(ParseUpstream(bytes).accepted) << "field " << number;
    ExpectSameAsUpstream(bytes);
  }
  for (const int number : {5, 7, 30}) {
    const std::string bytes = kRequired + LengthDelimitedField(number, invalid);
    EXPECT_TRUE(ParseUpstream(bytes).accepted) << "field " << number;
    ExpectSameAsUpstream(bytes);
    EXPECT_EQ(DelegatingParses<Features>(bytes), 0u) << "field " << number;
  }
  // VIEW strings are validated too (field 27 singular, 28 repeated, 41 in the oneof).
  for (const int number : {27, 28, 41}) {
    const std::string bytes = kRequired + LengthDelimitedField(number, invalid);
    EXPECT_FALSE(ParseUpstream(bytes).accepted) << "field " << number;
    ExpectSameAsUpstream(bytes);
  }
}

TEST(EditionsTest, ViewStringsAreParsedByTheGeneratedParser) {
  const std::string bytes = kRequired + LengthDelimitedField(27, "view") +
                            LengthDelimitedField(28, "one") + LengthDelimitedField(28, "two") +
                            LengthDelimitedField(29, std::string("\xFF\x00", 2)) +
                            LengthDelimitedField(41, "choice");
  const Upstream u = ParseUpstream(bytes);
  ASSERT_TRUE(u.accepted);
  EXPECT_EQ(u.message.view_string(), "view");
  EXPECT_EQ(u.message.view_strings_size(), 2);
  EXPECT_EQ(u.message.choice_view(), "choice");
  ExpectSameAsUpstream(bytes);
  EXPECT_EQ(DelegatingParses<Features>(bytes), 0u);
  // Parsed in place of a message holding other strings: the same.
  ExpectSameInPlaceOf(kRequired + LengthDelimitedField(27, "old and longer") +
                          LengthDelimitedField(28, "a") + LengthDelimitedField(28, "b") +
                          LengthDelimitedField(28, "c"),
                      bytes, u.message);
}

TEST(EditionsTest, CordBytesGoToUpstream) {
  const std::string bytes = kRequired + LengthDelimitedField(31, "a cord");
  const Upstream u = ParseUpstream(bytes);
  ASSERT_TRUE(u.accepted);
  EXPECT_EQ(std::string(u.message.cord_bytes()), "a cord");
  ExpectSameAsUpstream(bytes);
  EXPECT_EQ(DelegatingParses<Features>(bytes), 1u);
}

// A repeated CORD field is std::strings in the generated class of every release, behind private
// accessors from protobuf 28 (compat::DeclaredStringStorage's kPrivate; FieldOptions::ctype() is
// cleared from 30): handed to upstream like a singular one, and none of its old elements taken for
// reuse, fresh or in place.
TEST(EditionsTest, RepeatedCordBytesGoToUpstream) {
  const std::string bytes = kRequired + LengthDelimitedField(32, "one") +
                            LengthDelimitedField(28, "view") + LengthDelimitedField(32, "two");
  const Upstream u = ParseUpstream(bytes);
  ASSERT_TRUE(u.accepted);
  ASSERT_EQ(u.message.cord_list_size(), 2);
  ExpectSameAsUpstream(bytes);
  EXPECT_EQ(DelegatingParses<Features>(bytes), 1u);
  ExpectSameInPlaceOf(kRequired + LengthDelimitedField(32, "old and longer") +
                          LengthDelimitedField(32, "x") + LengthDelimitedField(32, "y") +
                          LengthDelimitedField(28, "a"),
                      bytes, u.message);
}

TEST(EditionsTest, PackedAndExpandedEncodingsEitherWay) {
  // Each repeated scalar takes both encodings, whatever its declared one (8 packed, 9 expanded).
  for (const int number : {8, 9, 10, 11, 12, 16}) {
    std::string bytes = kRequired + Packed(number, {1, 300, 70000, 5});
    bytes += VarintField(number, 9) + VarintField(number, 127);
    const Upstream u = ParseUpstream(bytes);
    EXPECT_TRUE(u.accepted) << "field " << number;
    ExpectSameAsUpstream(bytes);
    EXPECT_EQ(DelegatingParses<Features>(bytes), 0u) << "field " << number;
  }
  // Re-serialized in the declared encoding: packed for 8, one record per value for 9.
  Features msg;
  msg.set_required_int(1);
  msg.add_packed_ints(1);
  msg.add_packed_ints(2);
  msg.add_expanded_ints(1);
  msg.add_expanded_ints(2);
  const std::string bytes = msg.SerializeAsString();
  EXPECT_NE(bytes.find(Packed(8, {1, 2})), std::string::npos);
  EXPECT_NE(bytes.find(VarintField(9, 1) + VarintField(9, 2)), std::string::npos);
  ExpectSameAsUpstream(bytes);
  // Long packed payloads go to the kernels, in both paths (the reflection walk takes them from
  // 64 bytes, in messages of 512 bytes or more).
  std::string payload;
  for (int i = 0; i < 600; ++i) AppendVarint(static_cast<uint64_t>(i) * 37, &payload);
  for (const int number : {8, 9, 10})
    ExpectSameAsUpstream(kRequired + LengthDelimitedField(number, payload));
}

TEST(EditionsTest, OpenAndClosedEnums) {
  // 99 is no value of either enum: an open enum field keeps it, a closed one (the enum's
  // enum_type = CLOSED, or the field's legacy_closed_enum) moves it to the unknown fields.
  struct Case {
    int number;
    bool repeated;
    bool closed;
  };
  for (const Case c : {Case{15, false, false}, Case{16, true, false}, Case{22, false, false},
                       Case{17, false, true}, Case{18, true, true}, Case{19, true, true},
                       Case{20, false, true}, Case{21, true, true}}) {
    for (const bool packed : {false, true}) {
      if (packed && !c.repeated)
        continue;  // A singular field's packed record is a wrong wire type.
      const std::string field = packed ? Packed(c.number, {1, 99, 2}) : VarintField(c.number, 99);
      const std::string bytes = kRequired + field;
      const Upstream u = ParseUpstream(bytes);
      ASSERT_TRUE(u.accepted);
      const bool unknown = !u.message.GetReflection()->GetUnknownFields(u.message).empty();
      EXPECT_EQ(unknown, c.closed) << "field " << c.number << (packed ? " packed" : "");
      ExpectSameAsUpstream(bytes);
      // Known values only: no field goes to upstream.
      const std::string known =
          kRequired + (packed ? Packed(c.number, {1, 2}) : VarintField(c.number, 1));
      EXPECT_EQ(DelegatingParses<Features>(known), 0u) << "field " << c.number;
    }
  }
}

TEST(EditionsTest, Presence) {
  // Explicit: a zero is present. Implicit: a zero is not (and is not re-serialized).
  {
    const std::string bytes = kRequired + VarintField(1, 0) + VarintField(2, 0);
    const Upstream u = ParseUpstream(bytes);
    ASSERT_TRUE(u.accepted);
    EXPECT_TRUE(u.message.has_explicit_int());
    EXPECT_EQ(u.message.SerializeAsString(), VarintField(1, 0) + kRequired);
    ExpectSameAsUpstream(bytes);
    EXPECT_EQ(DelegatingParses<Features>(bytes), 0u);
  }
  // Legacy required: missing fails ParseMessage, passes ParsePartialMessage.
  {
    const std::string bytes = VarintField(1, 5);
    EXPECT_FALSE(ParseUpstream(bytes).accepted);
    ExpectSameAsUpstream(bytes);
    Features msg;
    EXPECT_FALSE(ParseMessage(bytes, &msg).ok());
    EXPECT_TRUE(ParsePartialMessage(bytes, &msg).ok());
  }
}

TEST(EditionsTest, DelimitedSubmessages) {
  // message_encoding = DELIMITED: the submessage between start- and end-group tags.
  std::string leaf;
  leaf += VarintField(1, 42);
  leaf += Packed(2, {3, 4, 5});
  for (const int number : {25, 26}) {
    std::string field;
    AppendTag(static_cast<uint64_t>(number), kStartGroup, &field);
    field += leaf;
    AppendTag(static_cast<uint64_t>(number), kEndGroup, &field);
    const std::string bytes = kRequired + field + field;
    const Upstream u = ParseUpstream(bytes);
    ASSERT_TRUE(u.accepted) << "field " << number;
    ExpectSameAsUpstream(bytes);
    // Length-delimited instead: not this field's encoding, so an unknown field.
    const std::string wrong = kRequired + LengthDelimitedField(number, leaf);
    const Upstream w = ParseUpstream(wrong);
    ASSERT_TRUE(w.accepted);
    EXPECT_FALSE(w.message.GetReflection()->GetUnknownFields(w.message).empty());
    ExpectSameAsUpstream(wrong);
    // Unterminated: rejected.
    ExpectSameAsUpstream(kRequired + field.substr(0, field.size() - 1));
  }
  // A length-delimited submessage, for contrast: the generated parser's own case.
  const std::string child =
      kRequired + LengthDelimitedField(23, leaf) + LengthDelimitedField(24, leaf);
  ExpectSameAsUpstream(child);
  EXPECT_EQ(DelegatingParses<Features>(child), 0u);
}

TEST(EditionsTest, Differential) { ExpectDifferentialPasses<Features>(60); }

}  // namespace
}  // namespace pbaccel
