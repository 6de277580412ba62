// The foundation's smoke test: a message from proto/ that imports a well-known type is built,
// serialized and parsed back by upstream protobuf, through the Bazel wiring of the system's
// protobuf (proto_library, cc_proto_library, the well-known types) and GoogleTest.

#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/packed_fields.pb.h"

namespace pbaccel {
namespace {

TEST(ProtoRoundTripTest, PackedFieldsWithTimestampSurviveUpstreamRoundTrip) {
  test::PackedFields original;
  original.mutable_created()->set_seconds(1'795'000'000);
  original.mutable_created()->set_nanos(123'456'789);
  original.set_label("round trip");
  for (int i = -5; i < 300; ++i) {
    original.add_int32s(i * 1000);
    original.add_sint64s(-static_cast<int64_t>(i) * (int64_t{1} << 40));
    original.add_bools(i % 3 == 0);
    original.add_enums(static_cast<test::Color>(i % 5));  // 3 and 4 are unknown: kept (open enum).
  }

  const std::string bytes = original.SerializeAsString();
  // Packed encoding: int32 field 1 is one length-delimited record (tag 0x0A), not 305 varints.
  ASSERT_FALSE(bytes.empty());

  test::PackedFields parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(original, parsed));
  EXPECT_EQ(parsed.created().nanos(), 123'456'789);
  EXPECT_EQ(parsed.enums(8), 3);
  EXPECT_EQ(parsed.SerializeAsString(), bytes);
}

TEST(ProtoRoundTripTest, TruncatedInputIsRejected) {
  test::PackedFields original;
  for (int i = 0; i < 10; ++i) original.add_uint64s(uint64_t{1} << 60);
  const std::string bytes = original.SerializeAsString();
  test::PackedFields parsed;
  EXPECT_FALSE(parsed.ParseFromString(bytes.substr(0, bytes.size() - 1)));
}

}  // namespace
}  // namespace pbaccel
