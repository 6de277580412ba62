// Copyright 2026 The pbaccel Authors.
//
// record_stream.h: a ZeroCopyInputStream of `bytes` bytes of `08 01` records (field 1 = 1, over
// and over), made as it is read: long inputs for the stream tests without holding them in memory.

#ifndef PBACCEL_TESTS_RECORD_STREAM_H_
#define PBACCEL_TESTS_RECORD_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "google/protobuf/io/zero_copy_stream.h"

namespace pbaccel {

class RecordStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit RecordStream(size_t bytes) : left_(bytes), chunk_(Records(size_t{1} << 20)) {}

  // `bytes` bytes of `08 01` records, in memory. REQUIRES: bytes is even.
  static std::string Records(size_t bytes) {
    std::string out(bytes, '\x01');
    for (size_t i = 0; i < bytes; i += 2) out[i] = '\x08';
    return out;
  }

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

}  // namespace pbaccel

#endif  // PBACCEL_TESTS_RECORD_STREAM_H_
