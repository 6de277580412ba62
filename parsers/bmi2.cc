// Copyright 2026 The pbaccel Authors.
//
// bmi2: packed varints with BMI2 PEXT, after Liao et al., "SFVInt: Simple, Fast and Generic
// Variable-Length Integer Decoding using Bit Manipulation Instructions" (DaMoN'24), with AVX2 for
// the fan-out.
//
// The payload is walked in fixed steps of kWordBytes bytes (8 here; the paper used 6: all three
// sizes measured, docs/kernels.md), so the next load never waits for decoding:
//   * PEXT of the 64-bit word with the continuation-bit mask gives the step's pattern (one bit per
//     byte, set = another byte follows);
//   * the pattern indexes a table generated at compile time (Bmi2Patterns) holding, for each of the
//     up to eight varints ending in the step, the bit offset and bit length of its 7-bit groups;
//   * where the paper extracts each varint with its own PEXT, this kernel packs the whole step's
//     payload bits with ONE PEXT (mask 0x7F per byte: byte i's group lands at bit 7i) and cuts the
//     values out of that with AVX2 variable shifts and masks, eight slots at once, stored whole
//     (the `count` real ones are kept, the rest are overwritten by the next step). One PEXT and a
//     few vector instructions per step, instead of one PEXT per varint: eight 32-bit lanes for
//     32-bit outputs (FanOut32), two vectors of 64-bit lanes for 64-bit ones (bool: value != 0 per
//     slot by one compare, spread to bytes with PDEP). Delta and strict mode cut the slots with
//     SHRX/BZHI instead (they need per-value work);
//   * first and every 128 steps (lenient, non-delta formats), where no varint is open, runs of 64
//     bytes without a continuation bit are widened straight to 64 slots (bool: min(byte, 1)), as
//     small values and bools come (the steps' eight slots per 8 bytes are the slow way to copy
//     them);
//   * a varint crossing into the next step leaves its bits in `partial` and its byte count in
//     `partial_bytes`; the next step's first varint is partial | (its bits << 7 * partial_bytes).
//     A varint longer than a step (up to 10 bytes, every negative int32) simply accumulates
//     across steps: the same code path, no special case.
// Validation is part of the step: the table also holds the first varint's length, so "does the
// varint that ends (or continues) here exceed 10 bytes" is one compare of partial_bytes plus that
// length, a branch that is never taken on valid input. Strict mode checks the kept values' ranges
// the same way. When either fires, the bounded scalar reader redoes the step from the start of its
// first varint and names the error. zigzag and bool are fused into the vector store, delta into the
// scalar stores.
//
// Short payloads (the generated parsers' tiny and short fields, decode_tiny and decode_tiny_bounded
// in kernel_abi.h) take the same steps whole (Bmi2WholeSteps): the payload's continuation bits are
// looked at once up front, so a fixed number of steps - two for 16 bytes, up to eight for 64 - runs
// with no bounds, no one-byte run check, no scalar tail and no branch on the values, bytes past
// the payload turned into continuation bytes that end no varint.
//
// The measurements behind these choices are in docs/kernels.md.
//
// Bounds: the inner loop runs a precomputed number of steps, each reading 8 bytes and writing at
// most 8 slots, so it carries no bounds check; the one-byte run loop reads and writes 64 at a time
// while 64 bytes and 64 slots remain; the last varints (and any partial one) finish in the bounded
// scalar reader, which reads nothing past the payload.

#include <immintrin.h>

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
#include "parsers/zigzag_simd-inl.h"

// Uses varint_format-inl.h.
#include "parsers/store8x32_avx2-inl.h"

// Bytes per step: 6, 7 or 8 (the header comment gives the three measured).
#ifndef PBACCEL_BMI2_WORD_BYTES
#define PBACCEL_BMI2_WORD_BYTES 8
#endif
constexpr int kWordBytes = PBACCEL_BMI2_WORD_BYTES;
static_assert(kWordBytes >= 6 && kWordBytes <= 8, "steps of 6, 7 or 8 bytes");
// Output slots written per step (whatever the step size): two vectors of four.
constexpr int kSlots = 8;

// One step's decoding recipe, for each continuation pattern of kWordBytes bytes. The step's
// payload bits are packed once (one PEXT of all its 7-bit groups: byte i's group lands at bit 7i);
// a varint's value is then a bit field of that: `len` bits from bit `shift`.
struct alignas(32) Bmi2Step {
  uint8_t shift[kSlots];  // 7 * (first byte) of each varint ending in the step, in order.
  uint8_t len[kSlots];    // 7 * (its bytes in the step); 0 in slots past `count` (value 0).
                          // When no varint ends in the step, slot 0 covers the whole step.
  uint8_t count;          // Varints ending in the step.
  uint8_t tail_shift;     // 7 * (first byte after the last terminator).
  uint8_t tail_bytes;     // Bytes after the last terminator (kWordBytes if count == 0).
  uint8_t first_len;      // Bytes of the first varint within the step; kWordBytes + 1 if none
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
        s.shift[count] = static_cast<uint8_t>(7 * start);
        s.len[count] = static_cast<uint8_t>(7 * (i + 1 - start));
        if (count == 0) s.first_len = static_cast<uint8_t>(i + 1);
        ++count;
        start = i + 1;
      }
    }
    s.count = static_cast<uint8_t>(count);
    s.tail_shift = static_cast<uint8_t>(7 * start);
    s.tail_bytes = static_cast<uint8_t>(kWordBytes - start);
    if (count == 0) {
      s.len[0] = static_cast<uint8_t>(7 * kWordBytes);
      s.first_len = kWordBytes + 1;
    }
  }
  return t;
}

constexpr Bmi2Patterns kPatterns = MakeBmi2Patterns();

// Bit 7 (continuation) and bits 0-6 (payload) of the step's bytes.
constexpr uint64_t StepMask(uint64_t per_byte) {
  uint64_t m = 0;
  for (int i = 0; i < kWordBytes; ++i) m |= per_byte << (8 * i);
  return m;
}
constexpr uint64_t kContinuationMask = StepMask(0x80);
constexpr uint64_t kPayloadMask = StepMask(0x7F);

// The formats whose slots are written straight from the vectors (no running sum, no per-value
// range check).
template <VarintFormat F, bool kStrict>
constexpr bool kVectorFanOut = !kStrict && !FormatTraits<F>::kDelta;

// The step's slots 0..7 as bit fields of `packed`, in 64-bit lanes: lanes 0-3 and 4-7.
struct Fields {
  __m256i lo, hi;
};

inline Fields FanOut(uint64_t packed, const Bmi2Step& s) {
  const __m256i x = _mm256_set1_epi64x(static_cast<int64_t>(packed));
  const __m128i shift = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.shift));
  const __m128i len = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.len));
  const __m256i one = _mm256_set1_epi64x(1);
  const auto field = [&](__m128i sh8, __m128i len8) {
    const __m256i mask = _mm256_sub_epi64(_mm256_sllv_epi64(one, _mm256_cvtepu8_epi64(len8)), one);
    return _mm256_and_si256(_mm256_srlv_epi64(x, _mm256_cvtepu8_epi64(sh8)), mask);
  };
  return {field(shift, len), field(_mm_srli_si128(shift, 4), _mm_srli_si128(len, 4))};
}

// The step's slots 0..7 for 32-bit outputs: the low 32 bits of each bit field, in one vector of
// 32-bit lanes (instead of two of 64-bit lanes and a repack). A field from bit `shift` (0 to 49)
// takes the low word's bits from `shift` and the high word's below them, or for a shift of 32 or
// more the high word's alone: AVX2's variable shifts give 0 for counts of 32 or more (negative
// differences included), so the three shifts below cover every case without a select, and a
// length of 32 or more masks nothing.
inline __m256i FanOut32(uint64_t packed, const Bmi2Step& s) {
  const __m256i lo = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(packed)));
  const __m256i hi = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(packed >> 32)));
  const __m256i shift =
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.shift)));
  const __m256i len =
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.len)));
  const __m256i k32 = _mm256_set1_epi32(32);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i low_part = _mm256_or_si256(_mm256_srlv_epi32(lo, shift),
                                           _mm256_sllv_epi32(hi, _mm256_sub_epi32(k32, shift)));
  const __m256i field =
      _mm256_or_si256(low_part, _mm256_srlv_epi32(hi, _mm256_sub_epi32(shift, k32)));
  return _mm256_and_si256(field, _mm256_sub_epi32(_mm256_sllv_epi32(one, len), one));
}

// Stores eight slots given in 64-bit lanes in the format's output type (64-bit integers; bool:
// value != 0).
template <VarintFormat F>
inline void StoreFields(Fields f, typename FormatTraits<F>::Out* out) {
  if constexpr (F == VarintFormat::kBool) {
    // One bit per zero slot, then PDEP spreads the complement to one 0/1 byte per slot.
    const __m256i zero = _mm256_setzero_si256();
    const unsigned zero_lo = static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(f.lo, zero))));
    const unsigned zero_hi = static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(f.hi, zero))));
    const uint64_t bytes = _pdep_u64(~(zero_lo | (zero_hi << 4)) & 0xFF, 0x0101010101010101ull);
    std::memcpy(out, &bytes, sizeof(bytes));
  } else {
    static_assert(sizeof(typename FormatTraits<F>::Out) == 8, "32-bit outputs: FanOut32");
    if constexpr (F == VarintFormat::kSInt64) {
      f.lo = ZigZag64(f.lo);
      f.hi = ZigZag64(f.hi);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), f.lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), f.hi);
  }
}

// Stores the step's eight slots (bit fields of `packed` as `s` describes them) into out[0, 8) in
// the format's output type.
template <VarintFormat F>
inline void StoreStep(uint64_t packed, const Bmi2Step& s, typename FormatTraits<F>::Out* out) {
  if constexpr (sizeof(typename FormatTraits<F>::Out) == 4) {
    Store8x32<F>(FanOut32(packed, s), out);
  } else {
    StoreFields<F>(FanOut(packed, s), out);
  }
}

// Steps between looks for a run of one-byte varints (every 1 KB; more often, the step loop's exit
// mispredicts: docs/kernels.md).
constexpr size_t kRunCheckSteps = 128;

// Whether the 64 bytes at p all have their high bit clear (64 one-byte varints).
inline bool AllOneByte64(const uint8_t* p) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  return _mm256_movemask_epi8(_mm256_or_si256(a, b)) == 0;
}

// The 64 one-byte varints at p into out[0, 64), eight slots at a time.
template <VarintFormat F>
inline void PutOneByteWindow(const uint8_t* p, typename FormatTraits<F>::Out* out) {
  if constexpr (F == VarintFormat::kBool) {
    for (int i = 0; i < 64; i += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          _mm256_min_epu8(v, _mm256_set1_epi8(1)));
    }
    return;
  }
#pragma GCC unroll 8
  for (int i = 0; i < 64; i += 8) {
    const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + i));
    if constexpr (sizeof(typename FormatTraits<F>::Out) == 4) {
      // Straight to 32-bit lanes: one widening instead of two to 64 bits and a repack.
      Store8x32<F>(_mm256_cvtepu8_epi32(eight), out + i);
    } else {
      StoreFields<F>({_mm256_cvtepu8_epi64(eight), _mm256_cvtepu8_epi64(_mm_srli_si128(eight, 4))},
                     out + i);
    }
  }
}

template <VarintFormat F, bool kStrict>
struct Bmi2Decoder {
  using Traits = FormatTraits<F>;
  using Out = typename Traits::Out;
  // Steps per pass of the step loop: formats with the one-byte run path look for a run every
  // kRunCheckSteps steps.
  static constexpr size_t kMaxSteps = kVectorFanOut<F, kStrict> ? kRunCheckSteps : SIZE_MAX;

  // The driver: alternates OneByteRuns (where the format has them) with passes of up to kMaxSteps
  // 8-byte steps that need no bounds check, each cutting the values ending in the step out of one
  // PEXT of its payload bits (PutStep). The varint left open at the end of a step is carried in
  // (partial, partial_bytes). Whatever no full step covers, and any malformed input, is finished
  // by the bounded scalar reader from the start of the open varint.
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    Out* const out = static_cast<Out*>(out_void);
    size_t n = 0;
    uint64_t partial = 0;
    unsigned partial_bytes = 0;
    Out sum = static_cast<Out>(delta_base);  // Delta formats: the last value kept.
    for (;;) {
      if constexpr (kVectorFanOut<F, kStrict>) {
        if (partial_bytes == 0) OneByteRuns(&p, end, out, &n, cap);
      }
      // Steps that need no bounds check: each reads 8 bytes and writes at most kSlots slots.
      size_t steps = end - p >= 8 ? static_cast<size_t>(end - p - 8) / kWordBytes + 1 : 0;
      if (steps > (cap - n) / kSlots) steps = (cap - n) / kSlots;
      if (steps == 0) break;
      if (steps > kMaxSteps) steps = kMaxSteps;
      const uint8_t* const stop = p + steps * kWordBytes;
      bool malformed = false;
      do {
        const uint64_t w = LoadLittleEndian64(p);
        const Bmi2Step& s = kPatterns.step[_pext_u64(w, kContinuationMask)];
        const uint64_t packed = _pext_u64(w, kPayloadMask);
        // The first varint: its bits so far plus this step's (bits past 63 fall off, as upstream).
        const uint64_t first = partial | (_bzhi_u64(packed, s.len[0]) << (7 * partial_bytes));
        // A varint reaching its 11th byte is malformed.
        if (__builtin_expect(partial_bytes + s.first_len > 10, 0) ||
            !PutStep(w, packed, first, s, partial_bytes, out + n, &sum)) {
          malformed = true;
          break;
        }
        // The varint left open at the step's end (or the one still open, if none ended).
        const uint64_t tail = packed >> s.tail_shift;
        const bool ended = s.count > 0;
        partial = ended ? tail : first;
        partial_bytes = ended ? s.tail_bytes : partial_bytes + kWordBytes;
        n += s.count;
        p += kWordBytes;
      } while (p != stop);
      if (malformed) break;
    }
    // Finish from the start of the open varint: the bounded reader decodes the rest, reads
    // nothing past `end`, and names any error at its exact offset.
    p -= partial_bytes;
    OutputSink<F> sink(out, static_cast<uint64_t>(sum));
    return DecodeTail<F, kStrict>(p, end, sink, n, cap);
  }

  // Runs of one-byte varints (small values, bools): while no varint is open (the caller's
  // REQUIRES), the next 64 bytes have no continuation bit and 64 slots remain, they are widened
  // straight to 64 slots at out + *n; advances *p and *n.
  __attribute__((always_inline)) static void OneByteRuns(const uint8_t** p, const uint8_t* end,
                                                         Out* out, size_t* n, size_t cap) {
    while (end - *p >= 64 && cap - *n >= 64 && AllOneByte64(*p)) {
      PutOneByteWindow<F>(*p, out + *n);
      *p += 64;
      *n += 64;
    }
  }

  // One step's stores: the values of the step described by `s` (word `w`, payload bits `packed`,
  // its first value `first` including the open varint's earlier bytes) into out[0, kSlots) (the
  // `s.count` real ones; the rest are overwritten by the next step). Vector formats: the AVX2
  // fan-out. Delta and strict: slot by slot with BZHI, delta continuing from *sum. Returns false,
  // storing nothing that counts, when strict mode rejects a value.
  __attribute__((always_inline)) static bool PutStep(uint64_t w, uint64_t packed, uint64_t first,
                                                     const Bmi2Step& s, unsigned partial_bytes,
                                                     Out* out, Out* sum) {
    if constexpr (kVectorFanOut<F, kStrict>) {
      StoreStep<F>(packed, s, out);
      out[0] = Traits::Convert(first);  // Slot 0 with the bits of earlier steps.
      return true;
    } else {
      uint64_t v[kSlots];
      v[0] = first;
#pragma GCC unroll 8
      for (int k = 1; k < kSlots; ++k) v[k] = _bzhi_u64(packed >> s.shift[k], s.len[k]);
      if (kStrict) {
        // Values out of range, and a 10-byte varint whose last byte carries bits past 63.
        bool bad = s.count > 0 && partial_bytes + s.first_len == 10 &&
                   ((w >> (8 * (s.first_len - 1))) & 0x7F) > 1;
#pragma GCC unroll 8
        for (int k = 0; k < kSlots; ++k) bad |= k < s.count && !Traits::FitsStrict(v[k]);
        if (__builtin_expect(bad, 0)) return false;
      }
      if constexpr (Traits::kDelta) {
        Out running[kSlots];
        Out acc = *sum;
#pragma GCC unroll 8
        for (int k = 0; k < kSlots; ++k) {
          acc = static_cast<Out>(acc + Traits::Convert(v[k]));
          running[k] = acc;
          out[k] = acc;
        }
        if (s.count > 0) *sum = running[s.count - 1];
      } else {
#pragma GCC unroll 8
        for (int k = 0; k < kSlots; ++k) out[k] = Traits::Convert(v[k]);
      }
      return true;
    }
  }
};

#if PBACCEL_BMI2_WORD_BYTES == 8  // Whole steps are 8 bytes; builds of other sizes go without.
// Short payloads, whole: a payload checked up front (its continuation bits known, no varint left
// open at its end) decoded in 8-byte steps with no bounds, no one-byte runs and no scalar tail.
// Bytes past the payload are replaced by continuation bytes without payload bits, so no varint
// ends there and every step past the payload stores nothing that counts; a varint crossing a step
// is carried as in the step loop, up to 10 bytes. Each step stores kSlots slots at the values'
// end: up to kSlots - 1 slots past the last value are overwritten.
template <VarintFormat F>
struct Bmi2WholeSteps {
  static_assert(kBoundedTinySpareValues >= kSlots - 1, "a step stores kSlots slots from the count");
  using Out = typename FormatTraits<F>::Out;
  Out* out;
  size_t count = 0;      // Values stored.
  uint64_t partial = 0;  // The open varint's bits and bytes so far.
  unsigned partial_bytes = 0;

  // `w`: the step's 8 bytes; `valid`: how many are the payload's (0 to 8).
  __attribute__((always_inline)) void Step(uint64_t w, unsigned valid) {
    const uint64_t keep = _bzhi_u64(~uint64_t{0}, 8 * valid);  // All bytes for valid = 8.
    w = (w & keep) | (kContinuationMask & ~keep);
    const Bmi2Step& s = kPatterns.step[_pext_u64(w, kContinuationMask)];
    const uint64_t packed = _pext_u64(w, kPayloadMask);
    // A real varint has at most 9 bytes before this step; past the payload the open "varint" of
    // continuation bytes grows by 8 a step, and its garbage (shift taken modulo 64) lands in a
    // slot past the values.
    const uint64_t first = partial | (_bzhi_u64(packed, s.len[0]) << ((7 * partial_bytes) & 63));
    StoreStep<F>(packed, s, out + count);
    out[count] = FormatTraits<F>::Convert(first);
    const bool ended = s.count > 0;
    partial = ended ? packed >> s.tail_shift : first;
    partial_bytes = ended ? s.tail_bytes : partial_bytes + kWordBytes;
    count += s.count;
  }

  // kSteps steps over the payload p[0, n), 8 <= n <= 8 * kSteps, reading only the payload: a step
  // at or past the payload's last 8 bytes takes them shifted down (nothing of them, past its end).
  // No branch on n: a step wholly past the payload stores nothing that counts.
  template <int kSteps>
  __attribute__((always_inline)) void Whole(const uint8_t* p, int n) {
#pragma GCC unroll 16
    for (int j = 0; j < kSteps; ++j) {
      const int at = 8 * j < n - 8 ? 8 * j : n - 8;
      const int valid = n - 8 * j < 0 ? 0 : n - 8 * j > 8 ? 8 : n - 8 * j;
      // A step wholly past the payload shifts by anything (masked to 0-7 bytes): none is kept.
      Step(LoadLittleEndian64(p + at) >> (8 * ((8 * j - at) & 7)), static_cast<unsigned>(valid));
    }
  }
};

// Bits i..i+9 of `more` all set, for some i: a varint of 11 bytes or more.
inline bool HasOverlongVarint(uint64_t more) {
  uint64_t run = more & (more >> 1);  // 2 in a row
  run &= run >> 2;                    // 4
  run &= run >> 4;                    // 8
  return (run & (run >> 2)) != 0;     // 10
}

// decode_tiny (kernel_abi.h) by whole steps: the 16 high bits at once (malformed if the payload
// ends inside a varint, declined if a varint runs past 10 bytes), one-byte payloads widened 16 at
// a time, any other in two steps with no branch on the values: the first writes slots 0-7, the
// second eight slots from at most slot 8, so within the 16 the caller's room holds.
template <VarintFormat F>
struct Bmi2TinyDecoder {
  static int Run(const uint8_t* p, const uint8_t* end, void* out, int room) {
    const int n = static_cast<int>(end - p);
    if (n == 0) return 0;
    const uint32_t in = (1u << n) - 1;  // n <= 16.
    const uint32_t more = HighBitsOf16(p) & in;
    if ((more >> (n - 1)) != 0) return kTinyMalformed;
    if constexpr (!FormatTraits<F>::kDelta) {
      if (more == 0 && room >= kTinyPayloadBytes) {
        StoreOneByteValues<F, 16>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                                  static_cast<typename FormatTraits<F>::Out*>(out));
        return n;
      }
    }
    if (room < kTinyPayloadBytes) return TinyDecoder<F>::Run(p, end, out, room);
    if (HasOverlongVarint(more)) return kTinyUnhandled;
    if constexpr (FormatTraits<F>::kDelta) {
      return TinyDecoder<F>::Run(p, end, out, room);
    } else {
      Bmi2WholeSteps<F> steps{static_cast<typename FormatTraits<F>::Out*>(out)};
      steps.Step(LoadLittleEndian64(p), n < 8 ? static_cast<unsigned>(n) : 8u);
      steps.Step(LoadLittleEndian64(p + 8), n > 8 ? static_cast<unsigned>(n - 8) : 0u);
      return static_cast<int>(steps.count);
    }
  }
};

// decode_tiny_bounded (kernel_abi.h): a payload of up to 64 bytes is looked at whole first
// (ReadTinyPayloadBits: declined or rejected before a value is written); one of one-byte varints
// only is widened 16 at a time; any other, where `room` leaves kSlots - 1 values to spare past its
// count, in whole steps - two for up to 16 bytes, four for 32, six for 48, eight for 64, without a
// branch on the values. The rest (too little room to spare, 64-bit payloads of 65-128 bytes) goes
// to the step loop itself, which writes only within `room`.
template <VarintFormat F>
struct Bmi2BoundedTinyDecoderImpl {
  using Out = typename FormatTraits<F>::Out;

  static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int room) {
    Out* const out = static_cast<Out*>(out_void);
    const int n = static_cast<int>(end - p);
    if (n == 0) return 0;
    if (n <= 64) {
      TinyPayloadBits bits;
      if (const int declined = ReadTinyPayloadBits(p, n, room, &bits); declined != 0) {
        return declined;
      }
      if (bits.more == 0) {
        StoreOneByteRun<F>(p, n, out);
        return n;
      }
      if (room - bits.count >= kSlots - 1) {
        Bmi2WholeSteps<F> steps{out};
        if (n < 8) {
          steps.Step(bits.short_word, static_cast<unsigned>(n));
        } else if (n <= 16) {
          steps.template Whole<2>(p, n);
        } else if (n <= 32) {
          steps.template Whole<4>(p, n);
        } else if (n <= 48) {
          steps.template Whole<6>(p, n);
        } else {
          steps.template Whole<8>(p, n);
        }
        return bits.count;
      }
    }
    if ((end[-1] & 0x80) != 0) return kTinyMalformed;  // Ends inside a varint, whatever the room.
    const DecodeResult r =
        Bmi2Decoder<F, false>::Run(p, end, out, static_cast<size_t>(room), /*delta_base=*/0);
    // Not kOk: more values than the room, or a varint over 10 bytes; the caller's way names it.
    return r.status == DecodeStatus::kOk ? static_cast<int>(r.count) : kTinyUnhandled;
  }
};

template <VarintFormat F>
struct Bmi2BoundedTinyDecoder {
  static constexpr TinyDecodeFn Entry() {
    if constexpr (FormatTraits<F>::kDelta) {
      return nullptr;
    } else {
      return &Bmi2BoundedTinyDecoderImpl<F>::Run;
    }
  }
  static constexpr TinyDecodeFn kRun = Entry();
};

#endif  // PBACCEL_BMI2_WORD_BYTES == 8

size_t CountTerminatorsPopcnt(const uint8_t* p, const uint8_t* end) {
  const uint8_t* const begin = p;
  size_t count = 0;
  // 64 bytes at a time with AVX2: two masks combined, one popcount.
  for (; end - p >= 64; p += 64) {
    const auto mask = [p](int i) {
      return static_cast<uint64_t>(static_cast<uint32_t>(
          _mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i)))));
    };
    count += static_cast<size_t>(_mm_popcnt_u64(~(mask(0) | (mask(1) << 32))));
  }
  for (; end - p >= 8; p += 8) {
    count += static_cast<size_t>(_mm_popcnt_u64(~LoadLittleEndian64(p) & kHighBits));
  }
  const size_t rem = static_cast<size_t>(end - p);
  if (rem != 0 && end - begin >= 8) {
    // The payload's last 8 bytes, of which the top `rem` are not counted yet.
    const uint64_t last = ~LoadLittleEndian64(end - 8) & kHighBits;
    return count + static_cast<size_t>(_mm_popcnt_u64(last >> (8 * (8 - rem))));
  }
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}

}  // namespace

extern const KernelDescriptor kBmi2Kernel;
const KernelDescriptor kBmi2Kernel = MakeKernelDescriptor<Bmi2Decoder, ScalarSizer,
#if PBACCEL_BMI2_WORD_BYTES == 8
                                                          Bmi2TinyDecoder, Bmi2BoundedTinyDecoder
#else
                                                          TinyDecoder, NoBoundedTinyDecoder
#endif
                                                          >(
    "bmi2",
    "BMI2 SFVInt: fixed 8-byte steps, PEXT of the continuation bits indexes a compile-time table "
    "of bit fields, one PEXT packs the step's payload, AVX2 shifts cut 8 slots; varints up to 10 "
    "bytes accumulate across steps",
    &CountTerminatorsPopcnt, kDefaultInlineBelowBytes,
    // Generated parsers' short fields (up to 128 bytes): the kernel beat their SSE2 loop on each
    // kind of real field (docs/kernels.md, "Size thresholds").
    /*short_payloads_direct=*/true);

}  // namespace internal
}  // namespace pbaccel
