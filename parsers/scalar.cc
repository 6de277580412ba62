// Copyright 2026 The pbaccel Authors.
//
// scalar: the reference kernel. One byte at a time, written to be read and trusted rather than to
// be fast: every other kernel is tested against it. Runs on any CPU.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

#include "parsers/varint_format-inl.h"
#include "parsers/varint_size-inl.h"

template <VarintFormat F, bool kStrict>
struct ScalarDecoder {
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                          uint64_t delta_base) {
    OutputSink<F> sink(out, delta_base);
    size_t n = 0;
    while (p < end) {
      if (n == cap) return {p, n, DecodeStatus::kOutputFull};
      // Read one varint: up to 10 bytes, 7 payload bits each, least significant group first.
      uint64_t value = 0;
      size_t length = 0;
      bool more = true;
      while (more) {
        if (length == 10) return {p, n, DecodeStatus::kTooLong};
        if (p + length == end) return {p, n, DecodeStatus::kTruncated};
        const uint8_t byte = p[length];
        // Group 9 lands at bit 63: its bits past the first fall off the 64-bit value, as upstream.
        value |= static_cast<uint64_t>(byte & 0x7F) << (7 * length);
        more = (byte & 0x80) != 0;
        if (kStrict && length == 9 && !more && byte > 1) return {p, n, DecodeStatus::kOverflow};
        ++length;
      }
      if (kStrict && !FormatTraits<F>::FitsStrict(value)) {
        return {p, n, DecodeStatus::kOverflow};
      }
      sink.Put(n, value);
      ++n;
      p += length;
    }
    return {p, n, DecodeStatus::kOk};
  }
};

size_t CountTerminators(const uint8_t* p, const uint8_t* end) {
  size_t count = 0;
  for (; p < end; ++p) {
    if ((*p & 0x80) == 0) ++count;
  }
  return count;
}

}  // namespace

extern const KernelDescriptor kScalarKernel;
const KernelDescriptor kScalarKernel = MakeKernelDescriptor<ScalarDecoder, ScalarSizer>(
    "scalar", "reference: one byte at a time, every varint length handled the same way",
    &CountTerminators);

}  // namespace internal
}  // namespace pbaccel
