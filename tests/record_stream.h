// Copyright 2026 The pbaccel Authors.
//
// record_stream.h: a ZeroCopyInputStream of `prefix` (a few bytes: tags and lengths that open
// submessages, say) followed by `bytes` bytes of `08 01` records (field 1 = 1, over and over),
// made as it is read: long inputs for the stream tests without holding them in memory.

#ifndef PBACCEL_TESTS_RECORD_STREAM_H_
#define PBACCEL_TESTS_RECORD_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "google/protobuf/io/zero_copy_stream.h"

namespace pbaccel {

class RecordStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit RecordStream(size_t bytes, std::string prefix = {})
      : left_(bytes), chunk_(Records(kChunkBytes)), prefix_(std::move(prefix)) {}

  // The most bytes one Next() gives.
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  // `bytes` bytes of `08 01` records, in memory. REQUIRES: bytes is even.
  static std::string Records(size_t bytes) {
    std::string out(bytes, '\x01');
    for (size_t i = 0; i < bytes; i += 2) out[i] = '\x08';
    return out;
  }

  bool Next(const void** data, int* size) override {
    if (prefix_given_ < prefix_.size()) {
      *data = prefix_.data() + prefix_given_;
      *size = static_cast<int>(prefix_.size() - prefix_given_);
      count_ += prefix_.size() - prefix_given_;
      prefix_given_ = prefix_.size();
      last_was_prefix_ = true;
      return true;
    }
    last_was_prefix_ = false;
    if (left_ == 0) return false;
    const size_t n = std::min(left_, chunk_.size());
    *data = chunk_.data();
    *size = static_cast<int>(n);
    left_ -= n;
    count_ += n;
    return true;
  }
  void BackUp(int count) override {  // Within the last chunk given.
    const size_t n = static_cast<size_t>(count);
    if (last_was_prefix_) {
      prefix_given_ -= n;
    } else {
      left_ += n;
    }
    count_ -= n;
  }
  bool Skip(int) override { return false; }
  int64_t ByteCount() const override { return static_cast<int64_t>(count_); }

 private:
  size_t left_;
  size_t count_ = 0;
  std::string chunk_;
  std::string prefix_;
  size_t prefix_given_ = 0;  // Bytes of prefix_ already given.
  bool last_was_prefix_ = false;
};

}  // namespace pbaccel

#endif  // PBACCEL_TESTS_RECORD_STREAM_H_
