// Copyright 2026 The pbaccel Authors.
//
// Edition 2024 (proto/editions_2024.proto): what it changes for the generated parser, against
// upstream under every kernel and on both paths (CompareWithUpstream), each case first checking
// that upstream's generated class itself decides as the edition says. Strings are VIEW unless a
// field says otherwise (upstream's class has no mutable_x() for them: checked at compile time), and
// the generated parser takes them itself (no parse delegates: DelegatingParses); CORD fields go to
// upstream. Built only against protobuf 32 and later (CMake), whose plugin declares edition 2024.

#include <string>
#include <type_traits>
#include <utility>

#include "gtest/gtest.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/wire_builder.h"
#include "proto/editions_2024.pb.h"
#include "proto/editions_2024.pbaccel.h"
#include "tests/editions_checks.h"

namespace pbaccel {
namespace {

using editions2024::Strings;
using testing::LengthDelimitedField;
using testing::VarintField;

// Whether M's generated class has mutable_view_string() / mutable_std_string().
template <typename M, typename = void>
struct HasMutableViewString : std::false_type {};
template <typename M>
struct HasMutableViewString<M, std::void_t<decltype(std::declval<M&>().mutable_view_string())>>
    : std::true_type {};
template <typename M, typename = void>
struct HasMutableStdString : std::false_type {};
template <typename M>
struct HasMutableStdString<M, std::void_t<decltype(std::declval<M&>().mutable_std_string())>>
    : std::true_type {};

// The edition's default reached upstream's generated class: a VIEW string has no mutable_x(), an
// explicit STRING one has.
static_assert(!HasMutableViewString<Strings>::value, "edition 2024 strings are VIEW by default");
static_assert(HasMutableStdString<Strings>::value, "string_type = STRING keeps mutable_x()");

// The required field (1): a parse that delegates nothing then checks no required field by a walk.
const std::string kRequired = VarintField(1, 7);

std::string Leaf(const std::string& label, const std::string& tag) {
  return LengthDelimitedField(2, label) + LengthDelimitedField(3, tag);
}

void ExpectSameAsUpstream(const std::string& bytes) {
  EXPECT_EQ(testing::CompareWithUpstream(bytes, Strings::default_instance()), "");
}

TEST(Editions2024Test, GeneratedParserIsLinked) {
  Strings msg;
  EXPECT_TRUE(HasGeneratedParser(msg));
}

TEST(Editions2024Test, DefaultViewStringsAreParsedByTheGeneratedParser) {
  const std::string bytes =
      kRequired + LengthDelimitedField(2, "view") + LengthDelimitedField(3, "one") +
      LengthDelimitedField(3, "two") + LengthDelimitedField(4, std::string("\xFF\x00", 2)) +
      LengthDelimitedField(6, "std") + LengthDelimitedField(7, "std list") +
      LengthDelimitedField(12, Leaf("leaf", "t")) + LengthDelimitedField(13, Leaf("a", "b")) +
      LengthDelimitedField(20, "choice");
  Strings upstream;
  ASSERT_TRUE(upstream.ParseFromString(bytes));
  EXPECT_EQ(upstream.view_string(), "view");
  EXPECT_EQ(upstream.view_strings_size(), 2);
  EXPECT_EQ(upstream.child().label(), "leaf");
  EXPECT_EQ(upstream.choice_view(), "choice");
  ExpectSameAsUpstream(bytes);
  EXPECT_EQ(DelegatingParses<Strings>(bytes), 0u);
  // In place of a message holding other strings (and more elements): the same.
  ExpectSameInPlaceOf<Strings>(
      kRequired + LengthDelimitedField(2, "old and longer") + LengthDelimitedField(3, "a") +
          LengthDelimitedField(3, "b") + LengthDelimitedField(3, "c") +
          LengthDelimitedField(13, Leaf("x", "y")) + LengthDelimitedField(13, Leaf("z", "w")),
      bytes, upstream);
}

TEST(Editions2024Test, Utf8ValidationOfViewStrings) {
  const std::string invalid = "ab\xC0\xAF";  // An overlong encoding of '/'.
  // VIEW strings are validated (2 singular, 3 repeated, 20 in the oneof, 12 a submessage's label);
  // not with utf8_validation = NONE (5); bytes never (4).
  for (const auto& [field, valid] : {std::pair{LengthDelimitedField(2, invalid), false},
                                     std::pair{LengthDelimitedField(3, invalid), false},
                                     std::pair{LengthDelimitedField(20, invalid), false},
                                     std::pair{LengthDelimitedField(12, Leaf(invalid, "t")), false},
                                     std::pair{LengthDelimitedField(5, invalid), true},
                                     std::pair{LengthDelimitedField(4, invalid), true}}) {
    const std::string bytes = kRequired + field;
    Strings upstream;
    EXPECT_EQ(upstream.ParseFromString(bytes), valid);
    ExpectSameAsUpstream(bytes);
    if (valid) {
      EXPECT_EQ(DelegatingParses<Strings>(bytes), 0u);
    }
  }
}

// CORD by the feature: a singular bytes field is an absl::Cord, a repeated one std::strings behind
// private accessors (compat::DeclaredStringStorage's kPrivate). Both go to upstream.
TEST(Editions2024Test, CordBytesGoToUpstream) {
  for (const int number : {8, 9}) {
    const std::string bytes = kRequired + LengthDelimitedField(number, "a cord") +
                              LengthDelimitedField(3, "view") +
                              LengthDelimitedField(number, "another");
    Strings upstream;
    ASSERT_TRUE(upstream.ParseFromString(bytes));
    ExpectSameAsUpstream(bytes);
    EXPECT_EQ(DelegatingParses<Strings>(bytes), 1u) << "field " << number;
    ExpectSameInPlaceOf<Strings>(kRequired + LengthDelimitedField(number, "old and longer") +
                                     LengthDelimitedField(3, "a") + LengthDelimitedField(3, "b"),
                                 bytes, upstream);
  }
}

TEST(Editions2024Test, Differential) { ExpectDifferentialPasses<Strings>(60); }

}  // namespace
}  // namespace pbaccel
