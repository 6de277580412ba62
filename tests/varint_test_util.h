// Copyright 2026 The pbaccel Authors.
//
// varint_test_util.h: what the decoding tests share.
//
//   * the oracle: upstream protobuf's ParseFromString of the payload as a packed field of
//     proto/packed_fields.proto, plus an independent varint splitter that says where and why a
//     payload is malformed (upstream only says whether) and applies strict mode's rules;
//   * memory with an inaccessible page flush against the data, so any over- or under-read faults;
//   * a bounded tiny decoder that counts its calls, for tests proving that path runs.

#ifndef PBACCEL_TESTS_VARINT_TEST_UTIL_H_
#define PBACCEL_TESTS_VARINT_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/testing/formats.h"       // IWYU pragma: export
#include "pbaccel/testing/wire_builder.h"  // IWYU pragma: export

namespace pbaccel {
namespace testing {

// The expected outcome of decoding a payload in a format, as every kernel must report it.
struct Expected {
  DecodeStatus status;           // kOk, kTruncated, kTooLong or kOverflow.
  size_t error_offset = 0;       // Byte offset of the offending varint when status != kOk.
  std::vector<uint64_t> values;  // Values before the error (all of them when kOk), each as the
                                 // output type's bits widened to 64 (see OutputBits).
};

// The independent reference: splits the payload into varints by the rules in
// pbaccel/internal/kernel_abi.h and converts them (delta formats start from `delta_base`).
Expected ExpectedDecode(VarintFormat format, absl::string_view payload, bool strict,
                        uint64_t delta_base = 0);

// Upstream protobuf's verdict: the values ParseFromString puts in the packed field of the
// format's type (as OutputBits), or nullopt when it rejects the message. Delta formats: the
// uint32/uint64 field's values, prefix-summed from `delta_base`.
std::optional<std::vector<uint64_t>> UpstreamDecode(VarintFormat format, absl::string_view payload,
                                                    uint64_t delta_base = 0);

// Element i of an output array of the format, as its bits widened to uint64 (signed types
// sign-extended, bool as 0/1).
uint64_t OutputBits(VarintFormat format, const void* out, size_t i);

// Bytes with an inaccessible (PROT_NONE) page right after them and another right before them.
// Data placed with CopyFlushEnd ends exactly at the trailing guard page; data placed with
// CopyFlushStart starts exactly at the end of the leading guard page. Any read outside the data
// crashes the test.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t capacity);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  // Copies `data` against the trailing guard and returns the copy.
  absl::string_view CopyFlushEnd(absl::string_view data);
  // Copies `data` against the leading guard and returns the copy.
  absl::string_view CopyFlushStart(absl::string_view data);

 private:
  size_t usable_;
  char* mapping_;
  size_t mapping_size_;
  char* usable_begin_;
};

// The tiny decoders a test may count the calls of (kernel_abi.h).
enum class TinyEntry { kBounded, kWindow };

// While it lives, the active kernel is a copy of the one active before, whose bounded tiny decoder
// (kBounded) or window decoder (kWindow) for `format` counts its calls and then runs the kernel's
// own. Where the kernel has no bounded one, the counting one declines (kTinyUnhandled), as a
// kernel's own does for what it cannot take, so the kernel decodes; where it has no window
// decoder, none is put in (its callers would take another way). One of each at a time (the count
// is a static); not thread-safe.
template <TinyEntry kEntry>
class ScopedCountingTinyDecoder {
 public:
  explicit ScopedCountingTinyDecoder(VarintFormat format);
  ScopedCountingTinyDecoder(const ScopedCountingTinyDecoder&) = delete;
  ScopedCountingTinyDecoder& operator=(const ScopedCountingTinyDecoder&) = delete;

  // Since construction or the last ResetCalls(): the calls; those the decoder took (a count
  // returned, not declined nor malformed); the least room any call was offered (INT_MAX if none).
  int calls() const { return calls_; }
  int taken() const { return taken_; }
  int least_room() const { return least_room_; }
  void ResetCalls() {
    calls_ = 0;
    taken_ = 0;
    least_room_ = std::numeric_limits<int>::max();
  }

 private:
  static int Counting(const uint8_t* p, const uint8_t* end, void* out, int room);

  static internal::TinyDecodeFn own_;
  static int calls_;
  static int taken_;
  static int least_room_;
  internal::KernelDescriptor counting_;
  std::optional<internal::ScopedActiveKernelForTesting> use_;
};
// Both are instantiated in varint_test_util.cc.
extern template class ScopedCountingTinyDecoder<TinyEntry::kBounded>;
extern template class ScopedCountingTinyDecoder<TinyEntry::kWindow>;
using ScopedCountingBoundedTinyDecoder = ScopedCountingTinyDecoder<TinyEntry::kBounded>;
using ScopedCountingWindowDecoder = ScopedCountingTinyDecoder<TinyEntry::kWindow>;

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTS_VARINT_TEST_UTIL_H_
