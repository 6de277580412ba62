// Copyright 2026 The pbaccel Authors.
//
// bmi2: packed varints with BMI2 PEXT, after Liao et al., "SFVInt: Simple, Fast and Generic
// Variable-Length Integer Decoding using Bit Manipulation Instructions" (DaMoN'24).
//
// The payload is walked in fixed steps of kWordBytes bytes (6, the paper's choice and the best on
// this project's machines; see bmi2_word_bytes below), so the next load never waits for decoding:
//   * PEXT of the 64-bit word with the continuation-bit mask gives the step's pattern (one bit per
//     byte, set = another byte follows);
//   * the pattern indexes a table generated at compile time (Bmi2Patterns below) holding, for each
//     of the kWordBytes possible varints ending in the step, the PEXT mask of its 7-bit groups; all
//     kWordBytes PEXTs run without a branch and all slots are stored, of which `count` are kept
//     (the rest are overwritten by the next step);
//   * a varint crossing into the next step leaves its bits in `partial` and its byte count in
//     `partial_bytes`; the next step's first varint is partial | (its bits << 7 * partial_bytes).
//     A varint longer than a step (up to 10 bytes, every negative int32) simply accumulates
//     across steps: the same code path, no special case.
// Validation is part of the step: the table also holds the first varint's length, so "does the
// varint that ends (or continues) here exceed 10 bytes" is one compare of partial_bytes plus that
// length, a branch that is never taken on valid input. Strict mode checks the kept values' ranges
// the same way. When either fires, the bounded scalar reader redoes the step from the start of its
// first varint and names the error. zigzag, bool and delta are fused into the stores.
//
// Bounds: steps run while 8 bytes remain (one unaligned 64-bit load; bytes past the step are not
// used) and kWordBytes output slots are free; the last varints (and any partial one) finish in the
// bounded scalar reader, which reads nothing past the payload.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parsers/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

#include "parsers/varint_format-inl.h"
#include "parsers/varint_size-inl.h"
#include "parsers/varint_scalar-inl.h"

// Bytes per step. The paper measured 6, 7 and 8 and kept 6; measured here with
// //bench:kernels_bench (see the closing note of the SFVInt issue), 6 is also the best.
#ifndef PBACCEL_BMI2_WORD_BYTES
#define PBACCEL_BMI2_WORD_BYTES 6
#endif
constexpr int kWordBytes = PBACCEL_BMI2_WORD_BYTES;
static_assert(kWordBytes >= 6 && kWordBytes <= 8, "steps of 6, 7 or 8 bytes");

// The 7-bit payload groups of bytes [first, last] of a little-endian word.
constexpr uint64_t GroupMask(int first, int last) {
  uint64_t m = 0;
  for (int i = first; i <= last; ++i) m |= uint64_t{0x7F} << (8 * i);
  return m;
}

// One step's decoding recipe, for each continuation pattern of kWordBytes bytes.
struct Bmi2Step {
  uint64_t mask[kWordBytes];  // PEXT masks of the varints ending in the step, in order. mask[0]
                              // covers the whole step when no varint ends in it.
  uint64_t tail_mask;         // Groups after the last terminator (a varint continuing past).
  uint8_t count;              // Varints ending in the step.
  uint8_t tail_bytes;         // Bytes after the last terminator (kWordBytes if count == 0).
  uint8_t first_len;          // Bytes of the first varint within the step; kWordBytes + 1 if none
                              // ends here (so partial_bytes + first_len > 10 flags both cases).
};

struct Bmi2Patterns {
  Bmi2Step step[1 << kWordBytes];
};

constexpr Bmi2Patterns MakeBmi2Patterns() {
  Bmi2Patterns t{};
  for (int pattern = 0; pattern < (1 << kWordBytes); ++pattern) {
    Bmi2Step& s = t.step[pattern];
    int start = 0;
    int count = 0;
    for (int i = 0; i < kWordBytes; ++i) {
      if (((pattern >> i) & 1) == 0) {  // Byte i ends a varint.
        s.mask[count] = GroupMask(start, i);
        if (count == 0) s.first_len = static_cast<uint8_t>(i + 1);
        ++count;
        start = i + 1;
      }
    }
    s.count = static_cast<uint8_t>(count);
    s.tail_bytes = static_cast<uint8_t>(kWordBytes - start);
    s.tail_mask = start < kWordBytes ? GroupMask(start, kWordBytes - 1) : 0;
    if (count == 0) {
      s.mask[0] = GroupMask(0, kWordBytes - 1);
      s.first_len = kWordBytes + 1;
    }
  }
  return t;
}

constexpr Bmi2Patterns kPatterns = MakeBmi2Patterns();

// Continuation bits (bit 7) of the step's bytes.
constexpr uint64_t ContinuationMask() {
  uint64_t m = 0;
  for (int i = 0; i < kWordBytes; ++i) m |= uint64_t{0x80} << (8 * i);
  return m;
}
constexpr uint64_t kContinuationMask = ContinuationMask();

template <VarintFormat F, bool kStrict>
struct Bmi2Decoder {
  using Traits = FormatTraits<F>;
  using Out = typename Traits::Out;

  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    Out* const out = static_cast<Out*>(out_void);
    size_t n = 0;
    uint64_t partial = 0;
    unsigned partial_bytes = 0;
    Out sum = static_cast<Out>(delta_base);  // Delta formats: the last value kept.
    while (end - p >= 8 && cap - n >= static_cast<size_t>(kWordBytes)) {
      const uint64_t w = LoadLittleEndian64(p);
      const Bmi2Step& s = kPatterns.step[_pext_u64(w, kContinuationMask)];
      // The first varint: its bits so far plus this step's (bits past 63 fall off, as upstream).
      const uint64_t first = partial | (_pext_u64(w, s.mask[0]) << (7 * partial_bytes));
      // A varint reaching its 11th byte is malformed.
      if (__builtin_expect(partial_bytes + s.first_len > 10, 0)) break;
      if (!kStrict && !Traits::kDelta && s.count <= 2) {
        // Steps ending at most two varints (long varints: W1, negative int32s) need two PEXTs,
        // not kWordBytes: a branch that is predictable exactly in the data where it saves most.
        out[n] = Traits::Convert(first);
        out[n + 1] = Traits::Convert(_pext_u64(w, s.mask[1]));
      } else {
        uint64_t v[kWordBytes];
        v[0] = first;
#pragma GCC unroll 8
        for (int k = 1; k < kWordBytes; ++k) v[k] = _pext_u64(w, s.mask[k]);
        if (kStrict) {
          // Values out of range, and a 10-byte varint whose last byte carries bits past 63.
          bool bad = s.count > 0 && partial_bytes + s.first_len == 10 &&
                     ((w >> (8 * (s.first_len - 1))) & 0x7F) > 1;
#pragma GCC unroll 8
          for (int k = 0; k < kWordBytes; ++k) bad |= k < s.count && !Traits::FitsStrict(v[k]);
          if (__builtin_expect(bad, 0)) break;
        }
        if constexpr (Traits::kDelta) {
          Out running[kWordBytes];
          Out acc = sum;
#pragma GCC unroll 8
          for (int k = 0; k < kWordBytes; ++k) {
            acc = static_cast<Out>(acc + Traits::Convert(v[k]));
            running[k] = acc;
            out[n + k] = acc;
          }
          if (s.count > 0) sum = running[s.count - 1];
        } else {
#pragma GCC unroll 8
          for (int k = 0; k < kWordBytes; ++k) out[n + k] = Traits::Convert(v[k]);
        }
      }
      // The varint left open at the step's end (or the one still open, if none ended).
      // Selects, not branches: a step with no terminator is common in long-varint data.
      const uint64_t tail = _pext_u64(w, s.tail_mask);
      const bool ended = s.count > 0;
      partial = ended ? tail : first;
      partial_bytes = ended ? s.tail_bytes : partial_bytes + kWordBytes;
      n += s.count;
      p += kWordBytes;
    }
    // Finish from the start of the open varint: the bounded reader decodes the rest, reads
    // nothing past `end`, and names any error at its exact offset.
    p -= partial_bytes;
    OutputSink<F> sink(out, static_cast<uint64_t>(sum));
    return DecodeTail<F, kStrict>(p, end, sink, n, cap);
  }
};

size_t CountTerminatorsPopcnt(const uint8_t* p, const uint8_t* end) {
  size_t count = 0;
  for (; end - p >= 8; p += 8) {
    count += static_cast<size_t>(_mm_popcnt_u64(~LoadLittleEndian64(p) & kHighBits));
  }
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}

}  // namespace

extern const KernelDescriptor kBmi2Kernel;
const KernelDescriptor kBmi2Kernel = MakeKernelDescriptor<Bmi2Decoder, ScalarSizer>(
    "bmi2",
    "BMI2 SFVInt: fixed 6-byte steps, PEXT of the continuation bits indexes a compile-time table "
    "of PEXT masks, branch-free per step; varints up to 10 bytes accumulate across steps",
    &CountTerminatorsPopcnt);

}  // namespace internal
}  // namespace pbaccel
