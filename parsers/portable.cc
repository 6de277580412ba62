// Copyright 2026 The pbaccel Authors.
//
// portable: the fast kernel for any CPU (no instruction-set extensions). Word-at-a-time decoding
// (parsers/varint_scalar-inl.h): eight one-byte varints per step when a word has no continuation
// bit, otherwise every varint ending in the word cut out with shifts and packed with three
// mask-and-shift rounds; 9- and 10-byte varints finish from the next two bytes. Payloads under 16
// bytes, and the last 15 bytes of any payload, take the bounded byte loop.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

// The word-at-a-time read of one varint (varint_scalar-inl.h builds on it).
#include "pbaccel/internal/varint_word-inl.h"

#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"
#include "parsers/varint_size-inl.h"

template <VarintFormat F, bool kStrict>
struct PortableDecoder {
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                          uint64_t delta_base) {
    OutputSink<F> sink(out, delta_base);
    return DecodeWordwise<F, kStrict>(p, end, sink, 0, cap);
  }
};

}  // namespace

extern const KernelDescriptor kPortableKernel;
const KernelDescriptor kPortableKernel = MakeKernelDescriptor<PortableDecoder, ScalarSizer>(
    "portable",
    "word at a time: 8 one-byte varints per step, otherwise every varint ending in the word; "
    "tails under 16 bytes byte by byte",
    &CountTerminatorsWordwise);

}  // namespace internal
}  // namespace pbaccel
