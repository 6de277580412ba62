// Copyright 2026 The pbaccel Authors.
//
// Two fast paths of generated parsers, counted: tests/predicted_fields.proto's parser is compiled
// with PBACCEL_GEN_COUNT_FAST_PATHS (generated_parser.h).
//
// Successor prediction (compiler/parser_generator.cc): each case ends by testing whether the next
// tag is the one a serializer writes next and, if so, jumps to that case without the switch
// (gen::PredictedTagsForTesting counts the hits). Fields in the serializer's order must take
// exactly the predicted jumps, fields in reverse order only those within runs.
//
// Short varints: gen::ReadVarint reads values of up to four bytes inline (three and four only
// where four bytes are left) and hands only longer ones, or ones nearer the end, to ReadVarintSlow
// (gen::SlowVarintsForTesting counts those), which takes nothing past the end of the submessage
// it reads in, though it loads words up to the input's end.
//
// Plain clears: a message parsed in place of old contents whose reusable repeated fields are all
// short (at most gen::kClearedInPlaceElements elements) is reset by a plain Clear(); a longer one
// is set aside and its elements reused one by one (gen::PlainClearsForTesting counts the former).
//
// Reused elements: a parse in place of old contents that sets a field aside hands its old elements
// back one by one (gen::ReusedElementsForTesting counts them).
//
// Strings in place: a reused string element given a value of its old length is overwritten where it
// is (gen::AssignString; gen::StringsOverwrittenForTesting counts them), any other length assigned.
//
// Every entry point reaches the generated parser: a fragmented Cord and a ZeroCopyInputStream take
// the same predicted jumps as a flat buffer (so the generated code ran, not the reflection walk).
//
// Every input parses as upstream does, under every kernel. The inline word read (VarintInWord32) is
// also checked on its own against VarintInWord.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/every_kernel.h"
#include "tests/predicted_fields.pb.h"
#include "tests/predicted_fields.pbaccel.h"

namespace pbaccel {
namespace {

using predict::Point;
using predict::Shape;

Point MakePoint(int x, int y) {
  Point p;
  p.set_x(x);
  p.set_y(y);
  return p;
}

Shape MakeShape() {
  Shape s;
  s.set_id(7);
  for (const uint32_t t : {1u, 2u, 300u}) s.add_tags(t);
  s.set_name("road");
  for (int i = 1; i <= 3; ++i) *s.add_points() = MakePoint(i, -i);
  s.add_steps(1);
  s.add_steps(-2);
  *s.mutable_center() = MakePoint(10, 20);
  s.set_after(9);
  return s;
}

// `shape`'s fields, each serialized on its own, from the highest number to the lowest: the same
// message (each field occurs in one place), in the reverse of the serializer's order.
std::string ReversedFields(const Shape& shape) {
  std::string bytes;
  for (int number = 7; number >= 1; --number) {
    Shape one = shape;
    const google::protobuf::Reflection* reflection = one.GetReflection();
    for (int i = 0; i < Shape::descriptor()->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* f = Shape::descriptor()->field(i);
      if (f->number() != number) reflection->ClearField(&one, f);
    }
    bytes += one.SerializeAsString();
  }
  return bytes;
}

// Parses `bytes` with the generated parser into *parsed (in place of its contents) and with
// upstream into a fresh message, which must agree (both accept and give the same message, or both
// reject). Returns how far the parse moved `counter` (one of gen::*ForTesting()).
uint64_t ParseCounting(const std::string& bytes, uint64_t& counter, Shape* parsed) {
  Shape upstream;
  const bool upstream_ok = upstream.ParseFromString(bytes);
  counter = 0;
  const absl::Status s = ParseMessage(bytes, parsed);
  const uint64_t counted = counter;
  EXPECT_EQ(s.ok(), upstream_ok) << s;
  if (s.ok() && upstream_ok) {
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*parsed, upstream))
        << parsed->DebugString() << "\nupstream:\n"
        << upstream.DebugString();
  }
  return counted;
}

// The jumps a parse of `bytes` (valid) into a fresh message takes.
uint64_t ParseCountingJumps(const std::string& bytes) {
  Shape parsed;
  return ParseCounting(bytes, gen::PredictedTagsForTesting(), &parsed);
}

class NextFieldTest : public testing::EveryKernelTest {};

TEST_P(NextFieldTest, FieldsInSerializerOrderTakeEveryPredictedJump) {
  // Shape: id -> tags -> name -> points[0] -> points[1] -> points[2] -> steps[0] (the second
  // prediction after a point) -> steps[1] -> center (the second after a step): 8 jumps; none
  // after center (a singular submessage) or after `after` (the last field). Point: x -> y in each
  // of the four points: 4 jumps.
  EXPECT_EQ(ParseCountingJumps(MakeShape().SerializeAsString()), 12u);
}

TEST_P(NextFieldTest, FieldsInReverseOrderTakeOnlyTheJumpsWithinRuns) {
  // after, center (x -> y: 1), steps[0] -> steps[1] (1), points[0] -> [1] -> [2] (2, and x -> y in
  // each: 3), name, tags, id: every change of field goes through the switch.
  const Shape shape = MakeShape();
  const std::string reversed = ReversedFields(shape);
  ASSERT_NE(reversed, shape.SerializeAsString());
  EXPECT_EQ(ParseCountingJumps(reversed), 7u);
}

TEST_P(NextFieldTest, AnEmptyMessageTakesNoJump) { EXPECT_EQ(ParseCountingJumps(""), 0u); }

// The varints a parse of `bytes` into a fresh message reads out of line.
uint64_t ParseCountingSlowVarints(const std::string& bytes) {
  Shape parsed;
  return ParseCounting(bytes, gen::SlowVarintsForTesting(), &parsed);
}

// MakeShape() with every varint field one byte long (its points' negative y are ten bytes each).
Shape ShortVarintShape() {
  Shape shape = MakeShape();
  for (Point& point : *shape.mutable_points()) point.set_y(-point.y());
  return shape;
}

TEST_P(NextFieldTest, VarintsOfUpToFourBytesAreReadInline) {
  EXPECT_EQ(ParseCountingSlowVarints(ShortVarintShape().SerializeAsString()), 0u);
  Shape shape = ShortVarintShape();
  shape.set_id(16383);  // The largest two-byte varint.
  shape.mutable_center()->set_x(300);
  shape.set_after(200);  // Two bytes, the input's last.
  std::string bytes = shape.SerializeAsString();
  ASSERT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 2]), 0xC8);  // `after` ends the input.
  EXPECT_EQ(ParseCountingSlowVarints(bytes), 0u);
  // Three and four bytes, read as one word where four bytes are left: the largest four-byte
  // value, the smallest three-byte one followed by the rest of its submessage, and a four-byte
  // value ending the input.
  shape = ShortVarintShape();
  shape.set_id((uint64_t{1} << 28) - 1);
  shape.mutable_center()->set_x(16384);
  shape.set_after(1 << 21);
  bytes = shape.SerializeAsString();
  ASSERT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 5]), 7 << 3);  // `after`'s tag, 4 bytes left.
  EXPECT_EQ(ParseCountingSlowVarints(bytes), 0u);
}

TEST_P(NextFieldTest, LongerVarintsAndOnesNearTheEndGoOutOfLine) {
  Shape shape = ShortVarintShape();
  shape.set_id(uint64_t{1} << 28);         // Five bytes.
  shape.mutable_center()->set_y(-1);       // Ten bytes (a negative int32).
  shape.mutable_center()->set_x(1 << 28);  // Five bytes.
  shape.set_after(16384);                  // Three bytes, the input's last: fewer than four left.
  EXPECT_EQ(ParseCountingSlowVarints(shape.SerializeAsString()), 4u);
  // A two-byte value whose second byte is missing: out of line, which rejects it, as upstream does.
  shape = ShortVarintShape();
  shape.set_after(200);
  std::string cut = shape.SerializeAsString();
  cut.pop_back();
  EXPECT_EQ(ParseCountingSlowVarints(cut), 1u);
  // A four-byte value cut to three, and one whose four bytes all continue: out of line, rejected.
  shape.set_after(1 << 21);
  cut = shape.SerializeAsString();
  cut.pop_back();
  EXPECT_EQ(ParseCountingSlowVarints(cut), 1u);
  shape.set_after(1 << 28);  // Five bytes; the last one dropped leaves four that all continue.
  cut = shape.SerializeAsString();
  cut.pop_back();
  EXPECT_EQ(ParseCountingSlowVarints(cut), 1u);
}

// A long varint closing a submessage (center's y, then `after` in the outer message): read out of
// line as words loaded up to the input's end, of which nothing past the submessage may be taken.
// Whole, it parses as upstream's; with center's length one or two bytes short (the varint cut by
// its submessage's end, the bytes after it, `after`'s tag 0x38 and value, ending it as a varint),
// rejected, as upstream rejects it.
TEST_P(NextFieldTest, AVarintEndingASubmessageIsReadWithinIt) {
  for (const int32_t y : {1 << 28, -1, INT32_MIN}) {  // Five, ten and ten bytes.
    Shape shape;
    shape.mutable_center()->set_y(y);
    shape.set_after(9);
    const std::string bytes = shape.SerializeAsString();
    EXPECT_EQ(ParseCountingSlowVarints(bytes), 1u) << y;
    ASSERT_EQ(bytes[0], '\x32');  // center's tag, then its one-byte length.
    for (const char shorter : {1, 2}) {
      std::string cut = bytes;
      cut[1] = static_cast<char>(cut[1] - shorter);
      Shape upstream;
      ASSERT_FALSE(upstream.ParseFromString(cut)) << y;
      EXPECT_EQ(ParseCountingSlowVarints(cut), 1u) << y;  // And rejected (ParseCounting checks).
    }
  }
}

// The inline word read itself, against the whole-word reader it shortens (VarintInWord on the same
// four bytes zero-extended, where a varint that none of the four ends is read as five bytes): every
// word whose bytes are drawn from values around the continuation bit, and a million random ones.
// Not kernel-dependent, so not repeated per kernel.
TEST(VarintInWord32Test, AgreesWithTheWholeWordReader) {
  const auto check = [](uint32_t w) {
    uint64_t value32 = ~uint64_t{0};
    uint64_t value64 = ~uint64_t{0};
    const int length32 = internal::word::VarintInWord32(w, &value32);
    const int length64 = internal::word::VarintInWord(w, &value64);
    if (length64 <= 4) {
      ASSERT_EQ(length32, length64) << std::hex << w;
      ASSERT_EQ(value32, value64) << std::hex << w;
    } else {
      ASSERT_EQ(length32, 0) << std::hex << w;
    }
  };
  const uint8_t bytes[] = {0x00, 0x01, 0x40, 0x7F, 0x80, 0x81, 0xC0, 0xFF};
  for (const uint8_t b0 : bytes) {
    for (const uint8_t b1 : bytes) {
      for (const uint8_t b2 : bytes) {
        for (const uint8_t b3 : bytes) {
          check(b0 | b1 << 8 | b2 << 16 | static_cast<uint32_t>(b3) << 24);
        }
      }
    }
  }
  std::mt19937 random(43);
  for (int i = 0; i < 1000000; ++i) check(static_cast<uint32_t>(random()));
}

TEST_P(NextFieldTest, ShortFieldsAreResetByAPlainClear) {
  const std::string three_points = MakeShape().SerializeAsString();
  Shape six = MakeShape();
  for (int i = 4; i <= 6; ++i) *six.add_points() = MakePoint(i, i);
  static_assert(gen::kClearedInPlaceElements >= 3 && gen::kClearedInPlaceElements < 6);
  const std::string six_points = six.SerializeAsString();
  Shape msg;
  const auto plain_clears = [&msg](const std::string& bytes) {
    return ParseCounting(bytes, gen::PlainClearsForTesting(), &msg);
  };
  EXPECT_EQ(plain_clears(three_points), 1u);  // Nothing old.
  EXPECT_EQ(plain_clears(six_points), 1u);    // Three old points.
  EXPECT_EQ(plain_clears(three_points), 0u);  // Six: set aside.
  EXPECT_EQ(plain_clears(three_points), 1u);  // Three again.
  gen::PlainClearsForTesting() = 0;
  ASSERT_TRUE(MergeMessage(three_points, &msg).ok());  // A merge clears nothing.
  EXPECT_EQ(gen::PlainClearsForTesting(), 0u);
  EXPECT_EQ(msg.points_size(), 6);
}

TEST_P(NextFieldTest, OldElementsAreReused) {
  Shape six = MakeShape();
  for (int i = 4; i <= 6; ++i) *six.add_points() = MakePoint(i, i);
  const std::string six_points = six.SerializeAsString();
  const std::string three_points = MakeShape().SerializeAsString();
  Shape msg;
  const auto reused = [&msg](const std::string& bytes) {
    return ParseCounting(bytes, gen::ReusedElementsForTesting(), &msg);
  };
  EXPECT_EQ(reused(six_points), 0u);    // Nothing old.
  EXPECT_EQ(reused(six_points), 6u);    // Six old points, each reused.
  EXPECT_EQ(reused(three_points), 3u);  // Three reused, three dropped.
  EXPECT_EQ(msg.points_size(), 3);
  EXPECT_EQ(reused(three_points), 0u);  // Three are few enough for a plain Clear().
  gen::ReusedElementsForTesting() = 0;
  ASSERT_TRUE(MergeMessage(six_points, &msg).ok());  // A merge appends.
  EXPECT_EQ(gen::ReusedElementsForTesting(), 0u);
  EXPECT_EQ(msg.points_size(), 9);
}

TEST_P(NextFieldTest, StringsOfTheOldLengthAreOverwrittenInPlace) {
  // A label of each length AssignString copies its own way (1-3, 4-7, 8-16 bytes, more), more of
  // them than kClearedInPlaceElements, so that a parse in place keeps the old values to reuse.
  const std::vector<size_t> lengths = {1, 3, 4, 7, 8, 16, 17, 40};
  const auto with_labels = [&lengths](char first, size_t extra) {
    Shape s = MakeShape();
    for (size_t i = 0; i < lengths.size(); ++i) {
      std::string label;
      for (size_t j = 0; j < lengths[i] + extra; ++j) {
        label += static_cast<char>(first + (i + j) % 26);
      }
      s.add_labels(label);
    }
    return s.SerializeAsString();
  };
  const std::string lower = with_labels('a', 0);
  const std::string upper = with_labels('A', 0);
  const std::string longer = with_labels('a', 1);
  ASSERT_GT(lengths.size(), static_cast<size_t>(gen::kClearedInPlaceElements));
  Shape msg;
  // ParseCounting compares each result with upstream's: every byte written in place is checked.
  const auto overwritten = [&msg](const std::string& bytes) {
    return ParseCounting(bytes, gen::StringsOverwrittenForTesting(), &msg);
  };
  EXPECT_EQ(overwritten(lower), 0u);   // Nothing old.
  EXPECT_EQ(overwritten(upper), 8u);   // Each label its old one's length: new bytes in place.
  EXPECT_EQ(overwritten(longer), 0u);  // Each one byte longer: assigned.
  EXPECT_EQ(overwritten(lower), 0u);   // Each one byte shorter: assigned.
  EXPECT_EQ(overwritten(upper), 8u);
}

TEST_P(NextFieldTest, CordAndStreamReachTheGeneratedParser) {
  const std::string bytes = MakeShape().SerializeAsString();
  const uint64_t flat = ParseCountingJumps(bytes);
  ASSERT_GT(flat, 0u);
  absl::Cord cord;  // Fragmented: parsed by the stream parser, not in place.
  for (size_t i = 0; i < bytes.size(); i += 5) cord.Append(absl::Cord(bytes.substr(i, 5)));
  ASSERT_FALSE(cord.TryFlat().has_value());
  Shape from_cord;
  gen::PredictedTagsForTesting() = 0;
  ASSERT_TRUE(ParseMessage(cord, &from_cord).ok());
  EXPECT_EQ(gen::PredictedTagsForTesting(), flat);
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()), 3);
  Shape from_stream;
  gen::PredictedTagsForTesting() = 0;
  ASSERT_TRUE(ParseMessage(&stream, &from_stream).ok());
  EXPECT_EQ(gen::PredictedTagsForTesting(), flat);
  EXPECT_EQ(from_cord.SerializeAsString(), bytes);
  EXPECT_EQ(from_stream.SerializeAsString(), bytes);
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(NextFieldTest);

}  // namespace
}  // namespace pbaccel
