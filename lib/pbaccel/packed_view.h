// Copyright 2026 The pbaccel Authors.
//
// packed_view.h: a lazy view of a packed repeated field, without materializing it.
//
//   // The payload of a packed uint32 field (or PackedView::Find(msg, 3)):
//   pbaccel::PackedView<pbaccel::PackedType::kUInt32> ids(payload);
//   size_t n = ids.size();           // bulk count, no decoding
//   for (uint32_t id : ids) { ... }  // decodes 64 values at a time, on the stack
//   absl::Status s = ids.ForEach([&](uint32_t id) { ... });  // the same, faster
//   // Chunked decoding:
//   std::vector<uint32_t> chunk(1024);
//   auto cursor = ids.cursor();
//   while (true) { auto got = cursor.DecodeTo(absl::MakeSpan(chunk)); ... }
//
// Fixed-width fields (fixed32/64, sfixed32/64, float, double) also give AsSpan(): the payload
// itself as absl::Span<const T> when its address is aligned for T (zero copy), or nullopt (then
// CopyTo). Upstream C++ has no such view (protobuf issue #1896, open since 2016).
//
// Errors are those of pbaccel/packed_varint.h (byte offsets within the payload); iteration stops
// at the first malformed varint and error() says why.

#ifndef PBACCEL_PACKED_VIEW_H_
#define PBACCEL_PACKED_VIEW_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/packed_varint.h"

namespace pbaccel {

enum class PackedType {
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kSInt32,
  kSInt64,
  kBool,
  kEnum,
  kFixed32,
  kFixed64,
  kSFixed32,
  kSFixed64,
  kFloat,
  kDouble,
};

namespace internal {

template <PackedType kType>
struct PackedTypeInfo;
#define PBACCEL_PACKED_TYPE(kind, cpp, fixed) \
  template <>                                 \
  struct PackedTypeInfo<PackedType::kind> {   \
    using type = cpp;                         \
    static constexpr bool kFixed = fixed;     \
  }
PBACCEL_PACKED_TYPE(kInt32, int32_t, false);
PBACCEL_PACKED_TYPE(kInt64, int64_t, false);
PBACCEL_PACKED_TYPE(kUInt32, uint32_t, false);
PBACCEL_PACKED_TYPE(kUInt64, uint64_t, false);
PBACCEL_PACKED_TYPE(kSInt32, int32_t, false);
PBACCEL_PACKED_TYPE(kSInt64, int64_t, false);
PBACCEL_PACKED_TYPE(kBool, bool, false);
PBACCEL_PACKED_TYPE(kEnum, int, false);
PBACCEL_PACKED_TYPE(kFixed32, uint32_t, true);
PBACCEL_PACKED_TYPE(kFixed64, uint64_t, true);
PBACCEL_PACKED_TYPE(kSFixed32, int32_t, true);
PBACCEL_PACKED_TYPE(kSFixed64, int64_t, true);
PBACCEL_PACKED_TYPE(kFloat, float, true);
PBACCEL_PACKED_TYPE(kDouble, double, true);
#undef PBACCEL_PACKED_TYPE

// The kernel format each varint type decodes with (fixed types have none: kUInt64, never used).
constexpr VarintFormat VarintFormatOf(PackedType type) {
  switch (type) {
    case PackedType::kInt32:
    case PackedType::kEnum: return VarintFormat::kInt32;
    case PackedType::kInt64: return VarintFormat::kInt64;
    case PackedType::kUInt32: return VarintFormat::kUInt32;
    case PackedType::kUInt64: return VarintFormat::kUInt64;
    case PackedType::kSInt32: return VarintFormat::kSInt32;
    case PackedType::kSInt64: return VarintFormat::kSInt64;
    case PackedType::kBool: return VarintFormat::kBool;
    default: return VarintFormat::kUInt64;
  }
}

// Decodes up to out_cap values of a varint type from payload[*pos, end) into out, advancing *pos.
// Returns the number decoded (0 at the end), or the payload's error.
absl::StatusOr<size_t> DecodePackedChunk(PackedType type, absl::string_view payload, size_t* pos,
                                         void* out, size_t out_cap);
// Number of values in the payload (terminators for varint types, bytes / size for fixed types).
size_t PackedCount(PackedType type, absl::string_view payload);

}  // namespace internal

template <PackedType kType>
class PackedView {
 public:
  using value_type = typename internal::PackedTypeInfo<kType>::type;
  static constexpr bool kFixed = internal::PackedTypeInfo<kType>::kFixed;
  // Values decoded per step by ForEach and the iterator (a short field's are one step).
  static constexpr size_t kChunkValues = 64;

  explicit PackedView(absl::string_view payload) : payload_(payload) {}

  // Number of values. Varint types: a bulk count of terminator bytes (exact for a well-formed
  // payload). Fixed types: bytes / sizeof(value_type) (a payload whose length is not a multiple is
  // malformed: valid() says so).
  size_t size() const { return internal::PackedCount(kType, payload_); }
  absl::string_view payload() const { return payload_; }

  // Fixed types only: whether the length is a whole number of values.
  bool valid() const { return !kFixed || payload_.size() % sizeof(value_type) == 0; }

  // Fixed types: the values in place, when the payload is aligned for value_type; else nullopt.
  std::optional<absl::Span<const value_type>> AsSpan() const {
    static_assert(kFixed, "AsSpan() is for fixed-width types");
    if (!valid() || reinterpret_cast<uintptr_t>(payload_.data()) % alignof(value_type) != 0) {
      return std::nullopt;
    }
    return absl::Span<const value_type>(reinterpret_cast<const value_type*>(payload_.data()),
                                        payload_.size() / sizeof(value_type));
  }

  // A resumable decoder: each DecodeTo fills up to out.size() values and returns how many (0 at
  // the end), or the payload's error.
  class Cursor {
   public:
    explicit Cursor(absl::string_view payload) : payload_(payload) {}
    absl::StatusOr<size_t> DecodeTo(absl::Span<value_type> out) {
      if constexpr (kFixed) {
        if (payload_.size() % sizeof(value_type) != 0) {
          return absl::InvalidArgumentError(
              "packed fixed-width payload length is not a multiple of the value size");
        }
        const size_t n = std::min(out.size(), (payload_.size() - pos_) / sizeof(value_type));
        if (n != 0) std::memcpy(out.data(), payload_.data() + pos_, n * sizeof(value_type));
        pos_ += n * sizeof(value_type);
        return n;
      } else {
        // At the end no call: a short field's ForEach or iteration takes one, not two. A rest of
        // at most BoundedTinyPayloadBytes (64; 128 for 64-bit types) tries the kernel's bounded
        // tiny decoder inline, as the span decoders do (packed_varint.h); what it declines the
        // library decodes and names.
        if (pos_ >= payload_.size()) return size_t{0};
        const int n =
            internal::TryDecodeTinyInline(internal::VarintFormatOf(kType), payload_.substr(pos_),
                                          out.data(), out.size(), DecodeOptions());
        if (n >= 0) {
          pos_ = payload_.size();
          return static_cast<size_t>(n);
        }
        return internal::DecodePackedChunk(kType, payload_, &pos_, out.data(), out.size());
      }
    }
    size_t position() const { return pos_; }

   private:
    absl::string_view payload_;
    size_t pos_ = 0;
  };
  Cursor cursor() const { return Cursor(payload_); }

  // Calls fn(value) for every value, in order, and returns OkStatus; or, at the first malformed
  // varint, the payload's error (fn has then seen a prefix of the values before it: the whole
  // chunks decoded before the malformed one). The fastest way to consume a view: values are
  // decoded kChunkValues at a time into a stack buffer and handed to fn from a plain loop over it
  // (fn inlines there), with no per-value state kept in memory.
  template <typename Fn>
  absl::Status ForEach(Fn&& fn) const {
    value_type chunk[kChunkValues];
    Cursor c(payload_);
    while (true) {
      absl::StatusOr<size_t> n = c.DecodeTo(absl::MakeSpan(chunk, kChunkValues));
      if (!n.ok()) return n.status();
      if (*n == 0) return absl::OkStatus();
      for (size_t i = 0; i < *n; ++i) fn(chunk[i]);
    }
  }

  // Input iteration, kChunkValues values decoded at a time into the iterator. Stops early at a
  // malformed varint; the iterator's error() then says why. Neither begin() nor end() zeroes the
  // buffer (a short payload's iteration costs its decode, not the iterator's size); ForEach is
  // faster still where a callback fits.
  class iterator {
   public:
    // An input iterator (single pass), usable with standard algorithms and containers.
    using iterator_category = std::input_iterator_tag;
    using value_type = PackedView::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = value_type;
    iterator() {}  // The end; user-provided so that iterator() leaves buffer_ uninitialized.
    explicit iterator(absl::string_view payload) : cursor_(payload) { Refill(); }
    value_type operator*() const { return buffer_[index_]; }
    iterator& operator++() {
      if (++index_ == filled_) Refill();
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const iterator& other) const {
      return done() == other.done() && (done() || index_ == other.index_);
    }
    bool operator!=(const iterator& other) const { return !(*this == other); }
    const absl::Status& error() const { return error_; }

   private:
    bool done() const { return filled_ == 0; }
    void Refill() {
      index_ = 0;
      absl::StatusOr<size_t> n = cursor_.DecodeTo(absl::MakeSpan(buffer_, kChunkValues));
      if (ABSL_PREDICT_TRUE(n.ok())) {
        filled_ = *n;
      } else {
        error_ = n.status();
        filled_ = 0;
      }
    }
    Cursor cursor_{absl::string_view()};
    size_t index_ = 0;
    size_t filled_ = 0;  // Values in buffer_; 0 at the end (or after an error).
    absl::Status error_;
    value_type buffer_[kChunkValues];  // [0, filled_) decoded; the rest never read.
  };
  iterator begin() const { return iterator(payload_); }
  iterator end() const { return iterator(); }

  // All values into `out` (which must hold size()); returns the count or the payload's error.
  absl::StatusOr<size_t> CopyTo(absl::Span<value_type> out) const {
    Cursor c(payload_);
    size_t total = 0;
    while (true) {
      absl::StatusOr<size_t> n = c.DecodeTo(out.subspan(total));
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      total += *n;
    }
    if (c.position() != payload_.size()) {
      return absl::ResourceExhaustedError("output too small for the packed field");
    }
    return total;
  }

 private:
  absl::string_view payload_;
};

}  // namespace pbaccel

#endif  // PBACCEL_PACKED_VIEW_H_
