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

namespace pbaccel {
namespace {

constexpr size_t kBytes = (size_t{1} << 31) + 64;

std::string Records(size_t bytes) {
  std::string out(bytes, '\x01');
  for (size_t i = 0; i < bytes; i += 2) out[i] = '\x08';
  return out;
}

TEST(TwoGibTest, MessageOverTwoGibIsAcceptedLikeUpstream) {
  const std::string input = Records(kBytes);
  test2::Everything theirs;
  ASSERT_TRUE(theirs.ParsePartialFromString(input)) << "upstream 3.21 accepts it";
  test2::Everything generated;
  EXPECT_TRUE(ParsePartialMessage(input, &generated).ok());
  EXPECT_EQ(generated.req(), theirs.req());
  test2::Everything reflection;
  EXPECT_TRUE(ParsePartialMessageByReflection(input, &reflection).ok());
  EXPECT_EQ(reflection.req(), theirs.req());
}

class RecordStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit RecordStream(size_t bytes) : left_(bytes), chunk_(Records(1 << 20)) {}
  bool Next(const void** data, int* size) override {
    if (left_ == 0) return false;
    const size_t n = std::min(left_, chunk_.size());
    *data = chunk_.data();
    *size = static_cast<int>(n);
    left_ -= n;
    count_ += n;
    return true;
  }
  void BackUp(int count) override {
    left_ += static_cast<size_t>(count);
    count_ -= static_cast<size_t>(count);
  }
  bool Skip(int) override { return false; }
  int64_t ByteCount() const override { return static_cast<int64_t>(count_); }

 private:
  size_t left_;
  size_t count_ = 0;
  std::string chunk_;
};

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
