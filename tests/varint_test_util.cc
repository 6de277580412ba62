// Copyright 2026 The pbaccel Authors.

#include "tests/varint_test_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/packed_fields.pb.h"

namespace pbaccel {
namespace testing {

namespace {

// Converts a 64-bit varint value to the format's output bits (see OutputBits).
uint64_t Convert(VarintFormat format, uint64_t v) {
  switch (format) {
    case VarintFormat::kInt32:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
    case VarintFormat::kUInt32:
    case VarintFormat::kDeltaUInt32: return static_cast<uint32_t>(v);
    case VarintFormat::kSInt32:
      return static_cast<uint64_t>(static_cast<int64_t>(testing::ZigZagDecode32(v)));
    case VarintFormat::kSInt64: return static_cast<uint64_t>(testing::ZigZagDecode64(v));
    case VarintFormat::kBool: return v != 0;
    default: return v;
  }
}

bool FitsStrict(VarintFormat format, uint64_t v) {
  switch (format) {
    case VarintFormat::kInt32: return v <= 0x7FFFFFFFu || v >= 0xFFFFFFFF80000000ull;
    case VarintFormat::kUInt32:
    case VarintFormat::kSInt32:
    case VarintFormat::kDeltaUInt32: return v <= 0xFFFFFFFFu;
    case VarintFormat::kBool: return v <= 1;
    default: return true;
  }
}

// A delta format's gap for the varint value v, as 64 bits: delta sint64's is v's zigzag decoding.
uint64_t Gap(VarintFormat f, uint64_t v) {
  return f == VarintFormat::kDeltaSInt64 ? static_cast<uint64_t>(testing::ZigZagDecode64(v)) : v;
}

}  // namespace

Expected ExpectedDecode(VarintFormat format, absl::string_view payload, bool strict,
                        uint64_t delta_base) {
  Expected e;
  e.status = DecodeStatus::kOk;
  uint64_t sum = delta_base;
  size_t i = 0;
  while (i < payload.size()) {
    uint64_t value = 0;
    bool beyond64 = false;
    size_t len = 0;
    bool ended = false;
    while (!ended) {
      if (len == 10) {
        e.status = DecodeStatus::kTooLong;
        break;
      }
      if (i + len == payload.size()) {
        e.status = DecodeStatus::kTruncated;
        break;
      }
      const uint8_t b = static_cast<uint8_t>(payload[i + len]);
      if (len < 9) {
        value += static_cast<uint64_t>(b & 0x7F) << (7 * len);
      } else {
        value += static_cast<uint64_t>(b & 1) << 63;
        beyond64 = (b & 0x7E) != 0;
      }
      ended = (b & 0x80) == 0;
      ++len;
    }
    if (e.status == DecodeStatus::kOk && strict && (beyond64 || !FitsStrict(format, value))) {
      e.status = DecodeStatus::kOverflow;
    }
    if (e.status != DecodeStatus::kOk) {
      e.error_offset = i;
      return e;
    }
    if (internal::IsDeltaFormat(format)) {
      sum = Convert(format, sum + Gap(format, value));
      e.values.push_back(sum);
    } else {
      e.values.push_back(Convert(format, value));
    }
    i += len;
  }
  return e;
}

std::optional<std::vector<uint64_t>> UpstreamDecode(VarintFormat format, absl::string_view payload,
                                                    uint64_t delta_base) {
  int field_number = 0;
  switch (format) {
    case VarintFormat::kInt32: field_number = 1; break;
    case VarintFormat::kInt64: field_number = 2; break;
    case VarintFormat::kUInt32:
    case VarintFormat::kDeltaUInt32: field_number = 3; break;
    case VarintFormat::kUInt64:
    case VarintFormat::kDeltaUInt64: field_number = 4; break;
    case VarintFormat::kSInt32: field_number = 5; break;
    case VarintFormat::kSInt64:
    case VarintFormat::kDeltaSInt64: field_number = 6; break;
    case VarintFormat::kBool: field_number = 7; break;
  }
  test::PackedFields msg;
  if (!msg.ParseFromString(testing::LengthDelimitedField(field_number, payload))) {
    return std::nullopt;
  }
  std::vector<uint64_t> out;
  uint64_t sum = delta_base;
  auto push = [&](uint64_t bits) {
    if (internal::IsDeltaFormat(format)) {
      sum = Convert(format, sum + bits);
      out.push_back(sum);
    } else {
      out.push_back(bits);
    }
  };
  switch (format) {
    case VarintFormat::kInt32:
      for (int32_t v : msg.int32s()) push(static_cast<uint64_t>(static_cast<int64_t>(v)));
      break;
    case VarintFormat::kInt64:
      for (int64_t v : msg.int64s()) push(static_cast<uint64_t>(v));
      break;
    case VarintFormat::kUInt32:
    case VarintFormat::kDeltaUInt32:
      for (uint32_t v : msg.uint32s()) push(v);
      break;
    case VarintFormat::kUInt64:
    case VarintFormat::kDeltaUInt64:
      for (uint64_t v : msg.uint64s()) push(v);
      break;
    case VarintFormat::kSInt32:
      for (int32_t v : msg.sint32s()) push(static_cast<uint64_t>(static_cast<int64_t>(v)));
      break;
    case VarintFormat::kSInt64:
    case VarintFormat::kDeltaSInt64:  // The gaps: upstream's values.
      for (int64_t v : msg.sint64s()) push(static_cast<uint64_t>(v));
      break;
    case VarintFormat::kBool:
      for (bool v : msg.bools()) push(v ? 1 : 0);
      break;
  }
  return out;
}

uint64_t OutputBits(VarintFormat format, const void* out, size_t i) {
  switch (format) {
    case VarintFormat::kInt32:
    case VarintFormat::kSInt32:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int32_t*>(out)[i]));
    case VarintFormat::kUInt32:
    case VarintFormat::kDeltaUInt32: return static_cast<const uint32_t*>(out)[i];
    case VarintFormat::kBool: {
      uint8_t byte;  // Read the byte, not a bool: a kernel storing 2 must be caught, not UB.
      std::memcpy(&byte, static_cast<const char*>(out) + i, 1);
      return byte;
    }
    default: return static_cast<const uint64_t*>(out)[i];
  }
}

GuardedBuffer::GuardedBuffer(size_t capacity) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  usable_ = (capacity + page - 1) / page * page;
  if (usable_ == 0) usable_ = page;
  mapping_size_ = usable_ + 2 * page;
  void* m =
      mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) std::abort();
  mapping_ = static_cast<char*>(m);
  usable_begin_ = mapping_ + page;
  if (mprotect(mapping_, page, PROT_NONE) != 0) std::abort();
  if (mprotect(usable_begin_ + usable_, page, PROT_NONE) != 0) std::abort();
}

GuardedBuffer::~GuardedBuffer() { munmap(mapping_, mapping_size_); }

absl::string_view GuardedBuffer::CopyFlushEnd(absl::string_view data) {
  if (data.size() > usable_) std::abort();
  char* dst = usable_begin_ + usable_ - data.size();
  if (!data.empty()) std::memcpy(dst, data.data(), data.size());
  return absl::string_view(dst, data.size());
}

absl::string_view GuardedBuffer::CopyFlushStart(absl::string_view data) {
  if (data.size() > usable_) std::abort();
  if (!data.empty()) std::memcpy(usable_begin_, data.data(), data.size());
  return absl::string_view(usable_begin_, data.size());
}

template <TinyEntry kEntry>
internal::TinyDecodeFn ScopedCountingTinyDecoder<kEntry>::own_ = nullptr;
template <TinyEntry kEntry>
int ScopedCountingTinyDecoder<kEntry>::calls_ = 0;
template <TinyEntry kEntry>
int ScopedCountingTinyDecoder<kEntry>::taken_ = 0;
template <TinyEntry kEntry>
int ScopedCountingTinyDecoder<kEntry>::least_room_ = std::numeric_limits<int>::max();

template <TinyEntry kEntry>
ScopedCountingTinyDecoder<kEntry>::ScopedCountingTinyDecoder(VarintFormat format)
    : counting_(internal::ActiveKernel()) {
  internal::TinyDecodeFn& entry = kEntry == TinyEntry::kBounded
                                      ? counting_.decode_tiny_bounded[static_cast<int>(format)]
                                      : counting_.decode_window[static_cast<int>(format)];
  own_ = entry;
  ResetCalls();
  if (kEntry == TinyEntry::kBounded || own_ != nullptr) entry = &Counting;
  use_.emplace(counting_);
}

template <TinyEntry kEntry>
int ScopedCountingTinyDecoder<kEntry>::Counting(const uint8_t* p, const uint8_t* end, void* out,
                                                int room) {
  ++calls_;
  if (room < least_room_) least_room_ = room;
  const int result = own_ != nullptr ? own_(p, end, out, room) : internal::kTinyUnhandled;
  if (result >= 0) ++taken_;
  return result;
}

template class ScopedCountingTinyDecoder<TinyEntry::kBounded>;
template class ScopedCountingTinyDecoder<TinyEntry::kWindow>;

}  // namespace testing
}  // namespace pbaccel
