// Copyright 2026 The pbaccel Authors.
//
// Inputs over 2 GiB, against upstream: a 2^31 + 64-byte message of `08 01` records, which
// upstream's ParseFromString accepts, and a stream of as many bytes, which upstream's stream parser
// rejects. Manual (tags = ["manual"]): it needs about 2.5 GB of memory and a minute. Run it with
//   ./bazelw test //tests:two_gib_test

#include <algorithm>
#include <memory>
#include <string>

#include "google/protobuf/io/zero_copy_stream.h"
#include "gtest/gtest.h"
#include "pbaccel/pbaccel.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test2.pbaccel.h"
#include "tests/record_stream.h"

namespace pbaccel {
namespace {

constexpr size_t kBytes = (size_t{1} << 31) + 64;

TEST(TwoGibTest, MessageOverTwoGibIsAcceptedLikeUpstream) {
  const std::string input = RecordStream::Records(kBytes);
  test2::Everything theirs;
  ASSERT_TRUE(theirs.ParsePartialFromString(input)) << "upstream 3.21 accepts it";
  test2::Everything generated;
  EXPECT_TRUE(ParsePartialMessage(input, &generated).ok());
  EXPECT_EQ(generated.req(), theirs.req());
  test2::Everything reflection;
  EXPECT_TRUE(ParsePartialMessageByReflection(input, &reflection).ok());
  EXPECT_EQ(reflection.req(), theirs.req());
}

TEST(TwoGibTest, StreamOverTwoGibIsRejectedLikeUpstream) {
  test2::Everything theirs;
  RecordStream upstream_stream(kBytes);
  ASSERT_FALSE(theirs.ParsePartialFromZeroCopyStream(&upstream_stream));
  test2::Everything ours;
  RecordStream our_stream(kBytes);
  EXPECT_FALSE(ParsePartialMessage(&our_stream, &ours).ok());
}

}  // namespace
}  // namespace pbaccel
