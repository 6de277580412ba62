// Copyright 2026 The pbaccel Authors.
//
// avx512: packed varints sixteen at a time with AVX-512 VBMI/VBMI2 (and BMI2 for bit positions).
//
// The payload is read in 64-byte blocks at fixed offsets (so no block's load waits for the previous
// block's decoding). Per block:
//   1. One load (a masked load for the last, partial block: masked-out bytes never fault and read
//      as zero) and one vpmovb2m give the continuation bits of 64 bytes; their complement, limited
//      to the payload, marks the bytes where varints end ("terminators").
//   2. Validation from the same mask, before any decoding: a run of ten continuation bits (inside
//      the block, or continuing the varint left open by the previous block) is a varint that does
//      not end within 10 bytes; a payload ending inside a varint leaves it open. Either hands the
//      rest to the bounded scalar loop, which reports the exact error and offset (and decodes the
//      good varints before it).
//   3. The block decodes the varints that END in it; the first may have started up to nine bytes
//      back in the previous block, so the gathers index the 128-byte window [previous block,
//      block] with vpermt2b. If every decoded byte is a one-byte varint (no continuation bit), the
//      values are a plain zero extension of the bytes, sixteen (eight) per instruction.
//   4. Otherwise vpcompressb (register form) of the window offsets 64..127 under the terminator
//      mask lists the varints' end offsets in order; varint j starts one past the end of varint
//      j-1. Per group of 16 varints (8 for 64-bit outputs): each lane holds its varint's end and
//      its predecessor's; one vpermt2b gathers bytes start..start+3 (start+7) into the lane,
//      zeroing (by a byte compare of offset against end) the bytes past the varint's terminator;
//      vpmaddubsw (b0 + 128 b1) and vpmaddwd (w0 + 16384 w1) squeeze the 7-bit groups together.
//      Byte 5 of a 32-bit value and bytes 9-10 of a 64-bit value come from one more gather, for
//      every group, without a branch. Bytes 6-10 of a 32-bit field's varint carry bits past bit
//      31: they are dropped, as upstream drops them. In a payload of 1,024 bytes or more whose
//      512 bytes after the first 64 hold no varint of 5+ bytes, the blocks whose varints are all at
//      most four bytes long skip that gather and, for 64-bit outputs, decode 16 per group in 32-bit
//      lanes, widened as they are stored.
//   5. zigzag, bool (value != 0, narrowed to bytes) and delta (an in-register prefix sum over the
//      group, shift-and-add in four steps, plus the running carry) are fused into the store; the
//      last, partial group stores under a mask, so nothing past the last value is written.
//
// Paths (every pattern is decoded in this kernel; the scalar loop is used only as stated):
//   * strict mode, a group holding a 32-bit-field varint of 5+ bytes or an out-of-range bool: that
//     group's varints go through the bounded scalar reader, which applies the range rules;
//   * bool fields, a group holding a varint of 5+ bytes: the same (the truth of such a value
//     depends on bits past 32);
//   * malformed input (over-long or truncated varint): the rest of the payload goes to the bounded
//     scalar reader, which names the error.

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parsers/kernel_probes.h"
#include "pbaccel/internal/kernel_abi.h"

// GCC 12's AVX-512 intrinsics build their results on _mm512_undefined_*(), whose
// `__m512i __Y = __Y` its -Wuninitialized and -Wmaybe-uninitialized then report at every inlined
// use in this file (GCC bug 105593, fixed in GCC 13): 88 false reports in a plain build, hundreds
// under -Werror. GCC checks these two after inlining, so a push/pop around the #include does not
// reach them: they are off for this file with GCC 12 and older only. clang (--config=clang, ubsan,
// fuzz) compiles this file with both warnings on, and with -Werror in CI.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace pbaccel {
namespace internal {
namespace {

// The word-at-a-time read of one varint (varint_scalar-inl.h builds on it).
#include "pbaccel/internal/varint_word-inl.h"

#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"
#include "parsers/varint_size-inl.h"

// How many of a 16-lane group's values to store: `left` clamped to [0, 16]. Local, not
// std::clamp: that template from a shared header, left out of line (clang -O1 with ASan and
// UBSan did), was a weak symbol compiled with this file's AVX-512 flags, which the linker may pick
// for every caller (kernel_symbols_test failed on it).
inline int LaneCount(int left) { return left < 0 ? 0 : left > 16 ? 16 : left; }

// Bit i set iff bits i..i+3 of `cont` are all set: a varint of five or more bytes.
inline uint64_t RunsOf4(uint64_t cont) {
  const uint64_t r = cont & (cont >> 1);  // runs of 2
  return r & (r >> 2);                    // runs of 4
}

// Bit i set iff bits i..i+9 of `cont` are all set: a varint that has not ended after 10 bytes.
inline uint64_t RunsOfTen(uint64_t cont) {
  const uint64_t r4 = RunsOf4(cont);
  const uint64_t r8 = r4 & (r4 >> 4);  // runs of 8
  return r8 & (r8 >> 2);               // runs of 10
}

// Offset one past the k-th (0-based) set bit of `mask`. REQUIRES: mask has more than k set bits.
inline size_t EndOfNth(uint64_t mask, size_t k) {
  return static_cast<size_t>(_tzcnt_u64(_pdep_u64(uint64_t{1} << k, mask))) + 1;
}

// Per-format lane layout and the fused output step.
template <VarintFormat F>
struct Lanes {
  using Out = typename FormatTraits<F>::Out;
  static constexpr bool k64 = sizeof(Out) == 8;
  static constexpr size_t kPerGroup = k64 ? 8 : 16;
};

// One group's values and what the lanes need beyond the vector path.
struct Packed {
  __m512i v;
  // 32-bit lanes: lanes whose varint has 5+ bytes (bits 28..31 came from byte 5; bytes 6-10 were
  // dropped). 64-bit lanes: lanes whose 10-byte varint's last byte is above 1 (bits past 63).
  uint32_t wide;
};

// 32-bit lanes (int32, uint32, sint32, bool, delta-uint32): packs one varint per dword lane into
// the low 32 bits of its value. The 128-byte window is `prev` (bytes 0..63) then `block` (bytes
// 64..127); every byte of lane j of `pe` holds the window offset of the byte before varint j (its
// predecessor's terminator). Indices past 127 wrap into `prev`: they only ever select bytes past
// the varint's terminator, which are masked off.
//
// Pack32UpTo4 is the first half: all of the value for varints of at most four bytes (blocks the
// driver found to hold only such varints, and tiny payloads, take just this half).
inline __m512i Pack32UpTo4(__m512i prev, __m512i block, __m512i pe, __m512i eb) {
  // Window offsets of bytes 1-4 of each varint (byte arithmetic: at most 127 + 5, no wrap past
  // 255); the gather keeps only those at or before the varint's own terminator (`eb`), zeroing
  // the rest, so no byte of the next varint leaks in.
  const __m512i idx = _mm512_add_epi8(pe, _mm512_set1_epi32(0x04030201));
  const __mmask64 mine = _mm512_cmple_epu8_mask(idx, eb);
  const __m512i raw = _mm512_and_si512(_mm512_maskz_permutex2var_epi8(mine, prev, idx, block),
                                       _mm512_set1_epi8(0x7F));
  // (b0 + 128 b1) per 16 bits, then (w0 + 16384 w1) per 32: 28 bits of value.
  const __m512i w = _mm512_maddubs_epi16(_mm512_set1_epi16(static_cast<int16_t>(0x8001)), raw);
  return _mm512_madd_epi16(w, _mm512_set1_epi32(0x40000001));
}

inline Packed Pack32(__m512i prev, __m512i block, __m512i pe, __m512i eb) {
  const __m512i v = Pack32UpTo4(prev, block, pe, eb);
  // Varints of 5+ bytes (each byte of eb - pe is the lane's length, so the dword compares as the
  // length does): bits 28..31 are the low nibble of byte 5 (a dword shift by 28 keeps just that
  // nibble). Done for every group without a branch: a group holding one is common enough (13 % of
  // W2's groups) that a mispredicted branch costs more than these instructions.
  const __mmask16 long5 =
      _mm512_cmpge_epu32_mask(_mm512_sub_epi8(eb, pe), _mm512_set1_epi32(0x05050505));
  const __m512i b4 =
      _mm512_permutex2var_epi8(prev, _mm512_add_epi8(pe, _mm512_set1_epi32(5)), block);
  return {_mm512_mask_or_epi32(v, long5, v, _mm512_slli_epi32(b4, 28)), long5};
}

// 64-bit lanes (int64, uint64, sint64, delta-uint64): packs one varint per qword lane into its
// 64-bit value; `pe` as for Pack32, per qword.
//
// Pack64UpTo8 is the first half: all of the value for varints of at most eight bytes.
inline __m512i Pack64UpTo8(__m512i prev, __m512i block, __m512i pe, __m512i eb) {
  // Bytes 1-8 of each varint, only those at or before its terminator (see Pack32).
  const __m512i idx = _mm512_add_epi8(pe, _mm512_set1_epi64(0x0807060504030201));
  const __m512i raw = _mm512_and_si512(
      _mm512_maskz_permutex2var_epi8(_mm512_cmple_epu8_mask(idx, eb), prev, idx, block),
      _mm512_set1_epi8(0x7F));
  const __m512i w = _mm512_maddubs_epi16(_mm512_set1_epi16(static_cast<int16_t>(0x8001)), raw);
  const __m512i d = _mm512_madd_epi16(w, _mm512_set1_epi32(0x40000001));
  // d: low dword = bits 0..27 (bytes 1-4), high dword = bits 28..55 (bytes 5-8). Move the high
  // dword down by 4 bits and select: bits 0..27 from d, bits 28..63 from d >> 4.
  return _mm512_ternarylogic_epi64(_mm512_set1_epi64(0x0FFFFFFF), d, _mm512_srli_epi64(d, 4),
                                   0xCA);  // a ? b : c
}

inline Packed Pack64(__m512i prev, __m512i block, __m512i pe, __m512i eb) {
  const __m512i v = Pack64UpTo8(prev, block, pe, eb);
  // Bytes 9 and 10 where the varint has them (the same compare zeroes the others): bits 56..62
  // from byte 9, bit 63 from byte 10 (its other bits dropped): (b9 & 0x7F) + 128 (b10 & 1) as
  // the qword's low 16 bits, shifted up by 56. Branch-free: in uint64 len1to10 most groups of
  // eight hold a 9- or 10-byte varint.
  const __m512i idx89 = _mm512_add_epi8(pe, _mm512_set1_epi64(0x0A09));
  const __m512i b89 = _mm512_maskz_permutex2var_epi8(
      _mm512_cmple_epu8_mask(idx89, eb) & 0x0303030303030303ull, prev, idx89, block);
  const __m512i hi =
      _mm512_slli_epi64(_mm512_maddubs_epi16(_mm512_set1_epi16(static_cast<int16_t>(0x8001)),
                                             _mm512_and_si512(b89, _mm512_set1_epi64(0x017F))),
                        56);
  // Strict mode: a 10th byte above 1 carries bits past 63.
  const uint32_t wide = _mm512_cmpgt_epu64_mask(b89, _mm512_set1_epi64(0x1FF));
  return {_mm512_or_si512(v, hi), wide};
}

// Whether any of the first lanes (`lane_mask`) must go through the bounded scalar reader instead:
// in strict mode, a value outside the type's range; for bool in both modes, a 5+-byte varint,
// whose truth depends on bits this path did not read.
template <VarintFormat F, bool kStrict>
inline bool NeedsScalar(const Packed& p, uint32_t lane_mask) {
  const uint32_t wide = p.wide & lane_mask;
  if constexpr (Lanes<F>::k64) {
    return kStrict && wide != 0;
  } else if constexpr (F == VarintFormat::kBool) {
    if (wide != 0) return true;
    return kStrict && (_mm512_cmpgt_epu32_mask(p.v, _mm512_set1_epi32(1)) & lane_mask) != 0;
  } else {
    return kStrict && wide != 0;
  }
}

// Applies the format's transform to `cnt` lanes of `v` and stores them at out + n. For delta
// formats `carry` holds the previous value in every lane and is updated.
//
// whole: store every lane, not just the first `cnt` (the block decoder, where the output has room
// for them; see Walk): a store under a partial mask costs more than a whole one.
template <VarintFormat F>
inline void Emit(__m512i v, size_t cnt, typename Lanes<F>::Out* out, __m512i* carry,
                 bool whole = false) {
  const __m512i zero = _mm512_setzero_si512();
  if constexpr (Lanes<F>::k64) {
    if constexpr (kZigZag64<F>) v = ZigZag64(v);  // sint64, and delta sint64's gaps.
    if constexpr (FormatTraits<F>::kDelta) {
      v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 7));
      v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 6));
      v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 4));
      v = _mm512_add_epi64(v, *carry);
      *carry = _mm512_permutexvar_epi64(_mm512_set1_epi64(static_cast<int64_t>(cnt - 1)), v);
    }
    // Otherwise a masked store: no branch on whether the group is full.
    if (whole) {
      _mm512_storeu_si512(out, v);
    } else {
      _mm512_mask_storeu_epi64(out, static_cast<__mmask8>((1u << cnt) - 1), v);
    }
  } else {
    if constexpr (F == VarintFormat::kSInt32) {
      v = ZigZag32(v);
    } else if constexpr (F == VarintFormat::kDeltaUInt32) {
      v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 15));
      v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 14));
      v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 12));
      v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 8));
      v = _mm512_add_epi32(v, *carry);
      *carry = _mm512_permutexvar_epi32(_mm512_set1_epi32(static_cast<int32_t>(cnt - 1)), v);
    }
    const __mmask16 m = static_cast<__mmask16>(whole ? 0xFFFF : (1u << cnt) - 1);
    if constexpr (F == VarintFormat::kBool) {
      const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_min_epu32(v, _mm512_set1_epi32(1)));
      _mm_mask_storeu_epi8(out, m, bytes);
    } else if (whole) {
      _mm512_storeu_si512(out, v);
    } else {
      _mm512_mask_storeu_epi32(out, m, v);
    }
  }
}

// Emits the first `cnt` (at most 16) values of the 32-bit lanes of `v`, values of at most 28 bits,
// for a 64-bit format: each half widened to eight 64-bit lanes and stored under a mask (the
// second half's mask is empty for eight values or fewer: no branch on the count). sint64's zigzag
// is applied to all 16 lanes at once before widening (a 28-bit value's zigzag fits in 32 bits,
// and sign extension then gives the int64) instead of to each half: OSM's coordinate and id
// deltas decode about 10% faster so. Delta formats go through Emit, half by half, for their carry.
template <VarintFormat F>
__attribute__((always_inline)) inline void EmitShort64(__m512i v, size_t cnt,
                                                       typename Lanes<F>::Out* out, __m512i* carry,
                                                       bool whole = false) {
  static_assert(Lanes<F>::k64, "64-bit formats only");
  if constexpr (FormatTraits<F>::kDelta) {
    Emit<F>(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(v)), cnt < 8 ? cnt : 8, out, carry, whole);
    if (cnt > 8) {
      Emit<F>(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1)), cnt - 8, out + 8, carry,
              whole);
    }
  } else {
    // Values below 2^28 (and their zigzag decodings) sign-extend to their 64-bit selves.
    const __m512i w = kZigZag64<F> ? ZigZag32(v) : v;
    const __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(w));
    const __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(w, 1));
    if (whole) {
      _mm512_storeu_si512(out, lo);
      _mm512_storeu_si512(out + 8, hi);
    } else {
      const uint32_t lanes = (1u << cnt) - 1;
      _mm512_mask_storeu_epi64(out, static_cast<__mmask8>(lanes), lo);
      _mm512_mask_storeu_epi64(out + 8, static_cast<__mmask8>(lanes >> 8), hi);
    }
  }
}

// Emits 16 one-byte varints (the 16 bytes of `b`) for a non-bool format.
template <VarintFormat F>
inline void EmitBytes(__m128i b, typename Lanes<F>::Out* out, __m512i* carry) {
  if constexpr (Lanes<F>::k64) {
    Emit<F>(_mm512_cvtepu8_epi64(b), 8, out, carry);
    Emit<F>(_mm512_cvtepu8_epi64(_mm_srli_si128(b, 8)), 8, out + 8, carry);
  } else {
    Emit<F>(_mm512_cvtepu8_epi32(b), 16, out, carry);
  }
}

// Emits the 64 one-byte varints of `block` (values 0..127): bool as the bytes clamped to 0/1.
template <VarintFormat F>
inline void EmitOneByteBlock(__m512i block, typename Lanes<F>::Out* out, __m512i* carry) {
  if constexpr (F == VarintFormat::kBool) {
    _mm512_storeu_si512(out, _mm512_min_epu8(block, _mm512_set1_epi8(1)));
  } else {
    EmitBytes<F>(_mm512_extracti32x4_epi32(block, 0), out, carry);
    EmitBytes<F>(_mm512_extracti32x4_epi32(block, 1), out + 16, carry);
    EmitBytes<F>(_mm512_extracti32x4_epi32(block, 2), out + 32, carry);
    EmitBytes<F>(_mm512_extracti32x4_epi32(block, 3), out + 48, carry);
  }
}

// A 64-byte vector constant, built by a constexpr function (no hand-typed lanes).
struct alignas(64) ByteVector {
  uint8_t b[64];
  __m512i Load() const { return _mm512_load_si512(b); }
};

// Byte i holds 64 + i: the window offsets of the current block's bytes (the previous block's are
// 0..63), which vpcompressb turns into the list of the block's terminator offsets.
constexpr ByteVector MakeBlockOffsets() {
  ByteVector v{};
  for (int i = 0; i < 64; ++i) v.b[i] = static_cast<uint8_t>(64 + i);
  return v;
}
constexpr ByteVector kBlockOffsets = MakeBlockOffsets();

// Every byte of lane j (lanes of `lane_bytes` bytes) holds j: a vpermb control that copies element
// j of a byte list into the whole of lane j. Adding the group size to every byte moves it to the
// next group.
constexpr ByteVector MakeLaneIndex(int lane_bytes) {
  ByteVector v{};
  for (int i = 0; i < 64; ++i) v.b[i] = static_cast<uint8_t>(i / lane_bytes);
  return v;
}
constexpr ByteVector kLaneIndex8 = MakeLaneIndex(1);  // Byte i holds i.
constexpr ByteVector kLaneIndex32 = MakeLaneIndex(4);
constexpr ByteVector kLaneIndex64 = MakeLaneIndex(8);

template <VarintFormat F, bool kStrict>
struct Avx512Decoder {
  using L = Lanes<F>;
  using Out = typename L::Out;

  // The driver. The payload is read in 64-byte blocks at fixed offsets (p, p + 64, ...), so each
  // block's load and masks do not wait for the previous block's decoding. Block k decodes the
  // varints that END in it; the first of them may have started in block k - 1 (at most nine bytes
  // back), which is why the gathers index the 128-byte window [block k - 1, block k]. Per block:
  // validate, clip to the output's capacity, then one of two steps: OneByteStep (every varint in
  // the block is one byte long) or GroupSteps (GroupSteps<true> for blocks of short varints, in
  // payloads that WalkMostlyShort takes).
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    if (F != VarintFormat::kBool && end - p >= kShortPayloadScanBytes &&
        !LongVarintIn(p + 64, p + 64 + kShortPayloadSampleBytes)) {
      return WalkMostlyShort(p, end, out_void, cap, delta_base);
    }
    return Walk<false>(p, end, out_void, cap, delta_base);
  }

  // In payloads of at least kShortPayloadScanBytes whose kShortPayloadSampleBytes after the first
  // block hold no varint of five or more bytes (real fields of small values: coordinate and id
  // deltas, whose first value, in the first block, is absolute and long; tile geometry), each
  // block is tested and those without one take GroupSteps<true>. Elsewhere (W2, W4, 64-bit
  // fields of large values), where long varints are scattered and the per-block test would
  // mispredict, the sample's first long varint ends the look at once (docs/kernels.md). Not for
  // bool fields, whose values are one byte long.
  static constexpr ptrdiff_t kShortPayloadScanBytes = 1024;
  static constexpr ptrdiff_t kShortPayloadSampleBytes = 512;

  // Whether the 64-byte blocks of [p, end) hold a run of four continuation bytes: a varint of five
  // or more bytes, inside a block or across two. REQUIRES: [p, end) inside the payload, its length
  // a multiple of 64.
  static bool LongVarintIn(const uint8_t* p, const uint8_t* end) {
    uint64_t prev_cont = 0;
    for (; p < end; p += 64) {
      const uint64_t cont = _mm512_movepi8_mask(_mm512_loadu_si512(p));
      // The previous block's trailing continuation bytes and this block's leading ones.
      const uint64_t across = _lzcnt_u64(~prev_cont) + _tzcnt_u64(~cont);
      if ((RunsOf4(cont) | static_cast<uint64_t>(across >= 4)) != 0) return true;
      prev_cont = cont;
    }
    return false;
  }

  // Out of line: most payloads (short ones) pay only Run's length test.
  __attribute__((noinline)) static DecodeResult WalkMostlyShort(const uint8_t* p,
                                                                const uint8_t* end, void* out_void,
                                                                size_t cap, uint64_t delta_base) {
    return Walk<true>(p, end, out_void, cap, delta_base);
  }

  // kShortBlocks: blocks whose varints are all at most four bytes take GroupSteps<true>.
  template <bool kShortBlocks>
  __attribute__((always_inline)) static DecodeResult Walk(const uint8_t* p, const uint8_t* end,
                                                          void* out_void, size_t cap,
                                                          uint64_t delta_base) {
    Out* const out = static_cast<Out*>(out_void);
    size_t n = 0;
    __m512i carry = L::k64 ? _mm512_set1_epi64(static_cast<int64_t>(delta_base))
                           : _mm512_set1_epi32(static_cast<int32_t>(delta_base));
    __m512i prev_block = _mm512_setzero_si512();
    // Window offset (0..63, in the previous block) of the byte before the block's first varint:
    // the previous block's last terminator; 63 when the block starts a varint.
    uint32_t prev_end = 63;
    // The first byte of the first varint not yet decoded.
    const uint8_t* start = p;
    for (; p < end; p += 64) {
      // Continuation bytes of the varint left open by the previous block (after its terminator).
      const uint32_t open = 63 - prev_end;
      const size_t avail = static_cast<size_t>(end - p);
      const uint64_t valid = avail >= 64 ? ~uint64_t{0} : (uint64_t{1} << avail) - 1;
      __m512i block = avail >= 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(valid, p);
      const uint64_t cont = _mm512_movepi8_mask(block);  // Masked-out bytes read as 0.
      uint64_t term = ~cont & valid;
      // Malformed (a varint with ten continuation bytes, inside the block or continuing the open
      // one; or the payload ending inside a varint): the scalar reader names it from `start`.
      if (RunsOfTen(cont) != 0 || open + _tzcnt_u64(term) >= 10) break;
      size_t nvar = static_cast<size_t>(_mm_popcnt_u64(term));
      const bool output_full = nvar > cap - n;
      if (output_full) {
        if (cap == n) return {start, n, DecodeStatus::kOutputFull};
        nvar = cap - n;
        term = _pdep_u64((uint64_t{1} << nvar) - 1, term);
      }
      const uint32_t last = 63 - static_cast<uint32_t>(_lzcnt_u64(term));
      const uint64_t consumed_mask = (uint64_t{2} << last) - 1;  // last == 63: wraps to all ones.

      // In payloads of short varints, whole groups are stored where the output has room for a
      // last group's extra lanes (out[n + nvar, cap) may be overwritten: kernel_abi.h): a store
      // under a partial mask costs more. DenseNodes' deltas decode 8% faster, the tiles workload
      // 7-13%. Not in Walk<false>, where the test alone slowed W1 and int32neg25.
      const bool whole = kShortBlocks && cap - n >= nvar + 16;
      if (open == 0 && (cont & consumed_mask) == 0) {
        if (kStrict && F == VarintFormat::kBool &&
            _mm512_mask_cmpgt_epu8_mask(consumed_mask, block, _mm512_set1_epi8(1))) {
          return ScalarGroup(p, start, 0, nvar, term, out, n, delta_base);  // Names the overflow.
        }
        OneByteStep(&p, end, &block, nvar, consumed_mask, out, &n, cap, &carry, whole);
      } else {
        // Every varint ending here at most four bytes long: the first (the open one's bytes and
        // its continuation bytes here) and those starting here (no run of four continuation bits).
        // One branch (the runs and the open varint's length in one word): a short-circuit would
        // be a second, unpredictable one.
        const bool short_varints =
            kShortBlocks && ((RunsOf4(cont) & consumed_mask) |
                             static_cast<uint64_t>(open + _tzcnt_u64(term) >= 4)) == 0;
        const DecodeResult r = short_varints
                                   ? GroupSteps<true>(p, start, prev_block, block, prev_end, term,
                                                      nvar, out, n, delta_base, &carry, whole)
                                   : GroupSteps<false>(p, start, prev_block, block, prev_end, term,
                                                       nvar, out, n, delta_base, &carry, whole);
        if (r.status != DecodeStatus::kOk) return r;
      }
      // Here term != 0 (the check above), so nvar >= 1.
      n += nvar;
      start = p + last + 1;
      prev_end = last;
      if (output_full) return {start, n, DecodeStatus::kOutputFull};
      prev_block = block;
    }
    if (start == end) return {start, n, DecodeStatus::kOk};
    // Malformed input at or after start: the bounded reader decodes what is good and names the
    // error.
    const uint64_t last_value = n == 0 ? delta_base : static_cast<uint64_t>(out[n - 1]);
    OutputSink<F> sink(out, last_value);
    return DecodeTail<F, kStrict>(start, end, sink, n, cap);
  }

  // Step for a block whose `nvar` varints (in bytes `consumed_mask` of *block, at *p) are all one
  // byte long: the values are the bytes, zero-extended, stored at out + *n (in whole groups if
  // `whole`: see Walk). When the whole block is such varints, following
  // blocks that are too are taken by the shortest loop (load, test, store; docs/kernels.md has its
  // gain), which advances *p, *n and *block past them (strict bool checks each block's values
  // first, so it stays on the driver's loop). REQUIRES: *n + nvar <= cap.
  __attribute__((always_inline)) static void OneByteStep(const uint8_t** p, const uint8_t* end,
                                                         __m512i* block, size_t nvar,
                                                         uint64_t consumed_mask, Out* out,
                                                         size_t* n, size_t cap, __m512i* carry,
                                                         bool whole) {
    if (nvar == 64) {
      EmitOneByteBlock<F>(*block, out + *n, carry);
      while (!(kStrict && F == VarintFormat::kBool) && end - *p >= 128 && cap - *n - 64 >= 64) {
        const __m512i next = _mm512_loadu_si512(*p + 64);
        if (_mm512_movepi8_mask(next) != 0) break;
        *p += 64;
        *n += 64;
        *block = next;
        EmitOneByteBlock<F>(*block, out + *n, carry);
      }
    } else if constexpr (F == VarintFormat::kBool) {
      _mm512_mask_storeu_epi8(out + *n, consumed_mask,
                              _mm512_min_epu8(*block, _mm512_set1_epi8(1)));
    } else {
      __m512i bytes = *block;
      for (size_t g = 0; g < nvar; g += L::kPerGroup) {
        const size_t cnt = nvar - g < L::kPerGroup ? nvar - g : L::kPerGroup;
        const __m128i b16 = _mm512_castsi512_si128(bytes);
        Emit<F>(L::k64 ? _mm512_cvtepu8_epi64(b16) : _mm512_cvtepu8_epi32(b16), cnt, out + *n + g,
                carry, whole);
        bytes = _mm512_alignr_epi64(_mm512_setzero_si512(), bytes, L::k64 ? 1 : 2);
      }
    }
  }

  // Step for a block holding varints longer than one byte: the `nvar` varints ending in `block`
  // (terminators `term`; the first starts after window offset `prev_end`, in `prev_block` when
  // below 64), in groups of 16 (8 for 64-bit outputs). vpcompressb of kBlockOffsets under `term`
  // lists their end offsets; per group, one vpermb spreads each varint's end, and its
  // predecessor's, into its lane, Pack32/Pack64 gather and join its bytes, and Emit stores. A group
  // NeedsScalar rejects goes through the bounded scalar reader. Writes out[n, n + nvar) (whole
  // groups if `whole`: up to 15 elements past them too); returns kOk, or the scalar reader's error.
  //
  // kShort: every varint is at most four bytes long (the driver checked), so Pack32UpTo4's 28 bits
  // are the whole value: groups of 16 in 32-bit lanes for every format, widened to two halves of
  // eight for 64-bit outputs by EmitShort64 (OSM's coordinate and id deltas are such blocks).
  template <bool kShort>
  __attribute__((always_inline)) static DecodeResult GroupSteps(
      const uint8_t* p, const uint8_t* start, __m512i prev_block, __m512i block, uint32_t prev_end,
      uint64_t term, size_t nvar, Out* out, size_t n, uint64_t delta_base, __m512i* carry,
      bool whole) {
    constexpr bool kLanes32 = kShort || !L::k64;
    constexpr size_t kPerGroup = kLanes32 ? 16 : 8;
    // Window offsets of the terminators of the block's varints, in order.
    const __m512i ends = _mm512_maskz_compress_epi8(term, kBlockOffsets.Load());
    // rep picks the group's end offsets into every byte of their lanes: lane j of group g gets
    // ends[kPerGroup * g + j].
    __m512i rep = kLanes32 ? kLaneIndex32.Load() : kLaneIndex64.Load();
    const __m512i rep_step = _mm512_set1_epi8(static_cast<char>(kPerGroup));
    // The last lane of `pe_prev` holds the terminator before the group.
    __m512i pe_prev = _mm512_set1_epi8(static_cast<char>(prev_end));
    for (size_t g = 0; g < nvar; g += kPerGroup) {
      const size_t cnt = nvar - g < kPerGroup ? nvar - g : kPerGroup;
      const __m512i eb = _mm512_permutexvar_epi8(rep, ends);
      const __m512i pe =
          kLanes32 ? _mm512_alignr_epi32(eb, pe_prev, 15) : _mm512_alignr_epi64(eb, pe_prev, 7);
      Packed packed;
      if constexpr (kShort) {
        packed = {Pack32UpTo4(prev_block, block, pe, eb), 0};
      } else {
        packed = L::k64 ? Pack64(prev_block, block, pe, eb) : Pack32(prev_block, block, pe, eb);
      }
      if (NeedsScalar<F, kStrict>(packed, (1u << cnt) - 1)) {
        // Decode the group with the bounded reader, then pick the delta carry up again.
        const DecodeResult r = ScalarGroup(p, start, g, cnt, term, out, n + g, delta_base);
        if (r.status != DecodeStatus::kOk) return r;
        if constexpr (FormatTraits<F>::kDelta) {
          *carry = L::k64 ? _mm512_set1_epi64(static_cast<int64_t>(out[n + g + cnt - 1]))
                          : _mm512_set1_epi32(static_cast<int32_t>(out[n + g + cnt - 1]));
        }
      } else if constexpr (kShort && L::k64) {
        EmitShort64<F>(packed.v, cnt, out + n + g, carry, whole);
      } else {
        Emit<F>(packed.v, cnt, out + n + g, carry, whole);
      }
      pe_prev = eb;
      rep = _mm512_add_epi8(rep, rep_step);
    }
    return {p, nvar, DecodeStatus::kOk};
  }

  // Decodes varints [first, first + cnt) of those ending in the block at p (whose terminators are
  // `term`; the first of them starts at `start`) with the bounded scalar reader into
  // out[at, at + cnt); delta formats continue from out[at - 1] (delta_base when at == 0).
  static DecodeResult ScalarGroup(const uint8_t* p, const uint8_t* start, size_t first, size_t cnt,
                                  uint64_t term, Out* out, size_t at, uint64_t delta_base) {
    const uint8_t* begin = first == 0 ? start : p + EndOfNth(term, first - 1);
    const uint8_t* stop = p + EndOfNth(term, first + cnt - 1);
    OutputSink<F> sink(out, at == 0 ? delta_base : static_cast<uint64_t>(out[at - 1]));
    return DecodeTail<F, kStrict>(begin, stop, sink, at, at + cnt);
  }
};

// The values of a payload of at most 16 bytes (`bytes`, zero past it) whose varints are all one or
// two bytes long, in order, one per 16-bit lane from lane 0: each terminator's 7 bits, above its
// predecessor's 7 bits where that byte continues (`cont`), kept at the terminators (`term`) by one
// vpcompressw. A short chain (no end offsets, no gather), where the general steps below take
// several dependent permutes. Its own 256-bit form: TwoByteValues32 on the payload zero-extended
// took 10 % longer on the profiles' location lists (//bench:short_payloads).
inline __m256i TwoByteValues16(__m128i bytes, uint32_t cont, uint32_t term) {
  const __m256i low7 = _mm256_set1_epi16(0x7F);
  const __m256i own = _mm256_and_si256(_mm256_cvtepu8_epi16(bytes), low7);
  const __m256i before = _mm256_and_si256(_mm256_cvtepu8_epi16(_mm_bslli_si128(bytes, 1)), low7);
  const __m256i joined = _mm256_or_si256(_mm256_slli_epi16(own, 7), before);
  const __m256i values = _mm256_mask_blend_epi16(static_cast<__mmask16>(cont << 1), own, joined);
  PBACCEL_KERNEL_PROBE(avx512_two_byte_payloads);
  return _mm256_maskz_compress_epi16(static_cast<__mmask16>(term), values);
}

// The same for a payload of at most 32 bytes: up to 32 values in the 16-bit lanes of the result.
inline __m512i TwoByteValues32(__m256i bytes, uint32_t cont, uint32_t term) {
  const __m512i low7 = _mm512_set1_epi16(0x7F);
  const __m512i own = _mm512_and_si512(_mm512_cvtepu8_epi16(bytes), low7);
  // bytes moved up one byte across the 128-bit halves: byte i holds byte i - 1 (byte 0 zero).
  const __m256i shifted =
      _mm256_alignr_epi8(bytes, _mm256_permute2x128_si256(bytes, bytes, 0x08), 15);
  const __m512i before = _mm512_and_si512(_mm512_cvtepu8_epi16(shifted), low7);
  const __m512i joined = _mm512_or_si512(_mm512_slli_epi16(own, 7), before);
  const __m512i values = _mm512_mask_blend_epi16(cont << 1, own, joined);
  PBACCEL_KERNEL_PROBE(avx512_two_byte_payloads);
  return _mm512_maskz_compress_epi16(term, values);
}

// decode_tiny (kernel_abi.h) without a loop: the payload's (at most 16) bytes are one masked load,
// and when its varints are all at most four bytes long (eight for 64-bit outputs) they decode as
// one group of GroupSteps does (two of eight 64-bit lanes for more than eight varints), at once -
// vpcompressb lists their ends, vpermb spreads each end and its predecessor's into the varint's
// lane, Pack32UpTo4 (Pack64UpTo8) gathers and joins the bytes, the payload standing for both
// blocks of the window - and one store (two for 64-bit outputs) writes them: a whole one where the
// room holds its lanes (decode_tiny's callers all give 16 values), else under a mask. No branch
// depends on the varints' lengths, where the generic decoder's loop runs (and mispredicts its exit)
// once per varint. A payload whose varints are all one or two bytes (most short real fields) takes
// a shorter chain, TwoByteValues16 (TwoByteValues32 for the bounded decoder's payloads of up to 32
// bytes). Whole stores, not masked ones, because on AMD Zen 5 a store under a partial mask into a
// line not in cache holds up the loads after it: in a reused message, the first touch of the next
// element (docs/kernels.md, "Whole stores on Zen 5"). A payload of one-byte varints only is its
// bytes widened and always stored under a mask (EmitOneByteLanes32), so only the n values' bytes
// are written: measured the faster on Zen 4, where the message tree, larger than L2, has gone cold
// (Zen 5 measured the other way: docs/kernels.md). A payload holding a longer varint (a negative
// int32's ten bytes, say), and the delta formats (not used by generated parsers), go to the
// generic decoder.
//
// kBounded: the bounded tiny decoder (kernel_abi.h) - the same steps, which read only the
// payload's bytes and write only within `room` (the same stores, whole where the room left holds
// their lanes, so its callers are asked for kBoundedTinySpareValues more); where the generic
// decoder would take over (it reads and writes past them) it returns kTinyUnhandled, as it does for
// more values than `room`. For 64-bit outputs every payload of up to 64 bytes takes RunUpTo64, so
// no branch chooses a path by its length: OSM ways' refs (sint64, 21 bytes on average, about half
// of them at most 16) mispredicted the 16- and 32-byte tests, and one path read OSM 5% faster;
// RunUpTo128 takes 65-128 bytes. 32-bit outputs keep the three paths (the tiles read 2% slower
// through one path) and stop at 64 bytes.
template <VarintFormat F, bool kBounded>
struct Avx512TinyDecoderImpl {
  using Out = typename FormatTraits<F>::Out;

  static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int room) {
    if constexpr (FormatTraits<F>::kDelta) {
      static_assert(!kBounded, "no bounded tiny decoder for the delta formats");
      return TinyDecoder<F>::Run(p, end, out_void, room);
    } else {
      Out* const out = static_cast<Out*>(out_void);
      const int n = static_cast<int>(end - p);
      if (n == 0) return 0;
      if constexpr (kBounded && sizeof(Out) == 8) {  // See above.
        return n <= 64 ? RunUpTo64(p, n, out, room) : RunUpTo128(p, n, out, room);
      }
      if (kBounded && n > kTinyPayloadBytes) {
        if (n > BoundedTinyPayloadBytes(F)) return kTinyUnhandled;
        return n <= 32 ? RunUpTo32(p, n, out, room) : RunUpTo64(p, n, out, room);
      }
      const uint32_t in = (1u << n) - 1;  // n <= 16.
      const __m128i bytes = _mm_maskz_loadu_epi8(static_cast<__mmask16>(in), p);
      const uint32_t cont = _mm_movepi8_mask(bytes);
      if ((cont >> (n - 1)) != 0) return kTinyMalformed;  // The payload ends inside a varint.
      if (cont == 0) {
        // One-byte varints only: the bytes are the values; stores cover just the n values.
        if (kBounded && n > room) return kTinyUnhandled;
        __m512i unused;
        if constexpr (F == VarintFormat::kBool) {
          _mm_mask_storeu_epi8(out, static_cast<__mmask16>(in),
                               _mm_min_epu8(bytes, _mm_set1_epi8(1)));
        } else if constexpr (sizeof(Out) == 8) {
          Emit<F>(_mm512_cvtepu8_epi64(bytes), n < 8 ? n : 8, out, &unused);
          if (n > 8)
            Emit<F>(_mm512_cvtepu8_epi64(_mm_srli_si128(bytes, 8)), n - 8, out + 8, &unused);
        } else {
          EmitOneByteLanes32(_mm512_cvtepu8_epi32(bytes), n, out);
        }
        return n;
      }
      const uint32_t term = ~cont & in;
      const int count = _mm_popcnt_u32(term);
      if (kBounded && count > room) return kTinyUnhandled;
      if (!HasVarintLongerThan<2>(cont)) {
        EmitLanes32(_mm512_cvtepu16_epi32(TwoByteValues16(bytes, cont, term)), count, out, room);
        return count;
      }
      // The payload is both blocks of GroupSteps' window, its bytes at window offsets 64..79:
      // each varint's end offset, in order (kBlockOffsets' first 16), spread below into its lane
      // with lane j - 1's as its predecessor (63 for lane 0, as for a block starting a varint).
      const __m512i ends = _mm512_zextsi128_si512(_mm_maskz_compress_epi8(
          static_cast<__mmask16>(term), _mm512_castsi512_si128(kBlockOffsets.Load())));
      const __m512i window = _mm512_zextsi128_si512(bytes);
      const uint64_t runs4 = RunsOf4(cont);
      if (runs4 != 0) {
        // A varint of 5+ bytes: 64-bit outputs take up to 8 bytes in 64-bit lanes (two groups of
        // eight, the second only when there are more than eight varints, as in a 5-byte value
        // among one-byte ones); the rest (a run of eight continuation bytes: 9+) goes to the
        // generic decoder.
        if (sizeof(Out) != 8 || (runs4 & (runs4 >> 4)) != 0) {
          return kBounded ? kTinyUnhandled : TinyDecoder<F>::Run(p, end, out_void, room);
        }
        const __m512i eb0 = _mm512_permutexvar_epi8(kLaneIndex64.Load(), ends);
        const __m512i pe0 = _mm512_alignr_epi64(eb0, _mm512_set1_epi8(63), 7);
        EmitLanes64(Pack64UpTo8(window, window, pe0, eb0), count < 8 ? count : 8, out, room);
        if (count > 8) {
          const __m512i eb1 = _mm512_permutexvar_epi8(
              _mm512_add_epi8(kLaneIndex64.Load(), _mm512_set1_epi8(8)), ends);
          const __m512i pe1 = _mm512_alignr_epi64(eb1, eb0, 7);
          EmitLanes64(Pack64UpTo8(window, window, pe1, eb1), count - 8, out + 8, room - 8);
        }
        return count;
      }
      const __m512i eb = _mm512_permutexvar_epi8(kLaneIndex32.Load(), ends);
      const __m512i pe = _mm512_alignr_epi32(eb, _mm512_set1_epi8(63), 15);
      EmitLanes32(Pack32UpTo4(window, window, pe, eb), count, out, room);
      return count;
    }
  }

  // The bounded decoder's payloads of kTinyPayloadBytes + 1 to 32 bytes for 32-bit and bool
  // outputs (the median tile geometry is 17 bytes): the same steps over a 32-byte window, the
  // second group's predecessors the first's ends. Varints of up to four bytes decode in up to two
  // groups of 16 32-bit lanes. A longer varint (5+ bytes), or more values than `room`, declines
  // (kTinyUnhandled, nothing written).
  // REQUIRES: kTinyPayloadBytes < n <= 32; [p, p + n) readable; a 32-bit or bool format.
  static int RunUpTo32(const uint8_t* p, int n, Out* out, int room) {
    const uint32_t in = n == 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1;
    const __m256i bytes = _mm256_maskz_loadu_epi8(in, p);
    const uint32_t cont = _mm256_movepi8_mask(bytes);
    if ((cont >> (n - 1)) != 0) return kTinyMalformed;  // The payload ends inside a varint.
    const uint32_t term = ~cont & in;
    const int count = _mm_popcnt_u32(term);
    if (count > room) return kTinyUnhandled;
    if (cont == 0) {
      // One-byte varints only: the bytes are the values (count == n), stored under a mask.
      if constexpr (F == VarintFormat::kBool) {
        _mm256_mask_storeu_epi8(out, in, _mm256_min_epu8(bytes, _mm256_set1_epi8(1)));
      } else {
        EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm256_castsi256_si128(bytes)), 16, out);
        EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm256_extracti128_si256(bytes, 1)), count - 16,
                           out + 16);
      }
      return count;
    }
    if (!HasVarintLongerThan<2>(cont)) {
      EmitTwoByteValues32(TwoByteValues32(bytes, cont, term), count, out, room);
      return count;
    }
    // The payload at window offsets 64..95 (both blocks of GroupSteps' window, as above).
    const __m512i ends = _mm512_maskz_compress_epi8(term, kBlockOffsets.Load());
    const __m512i window = _mm512_zextsi256_si512(bytes);
    const uint64_t runs4 = RunsOf4(cont);
    if (runs4 != 0) {
      if (sizeof(Out) != 8 || (runs4 & (runs4 >> 4)) != 0) return kTinyUnhandled;
      EmitGroupsOf8(window, ends, count, out, room);
      return count;
    }
    const __m512i eb0 = _mm512_permutexvar_epi8(kLaneIndex32.Load(), ends);
    const __m512i pe0 = _mm512_alignr_epi32(eb0, _mm512_set1_epi8(63), 15);
    EmitLanes32(Pack32UpTo4(window, window, pe0, eb0), count < 16 ? count : 16, out, room);
    if (count > 16) {
      const __m512i eb1 =
          _mm512_permutexvar_epi8(_mm512_add_epi8(kLaneIndex32.Load(), _mm512_set1_epi8(16)), ends);
      const __m512i pe1 = _mm512_alignr_epi32(eb1, eb0, 15);
      EmitLanes32(Pack32UpTo4(window, window, pe1, eb1), count - 16, out + 16, room - 16);
    }
    return count;
  }

  // The bounded decoder's payloads of 33 to 64 bytes (longer tile geometries), and all of them, 1
  // to 64 bytes, for 64-bit outputs (OSM ways' refs): the same steps over a window of one masked
  // 64-byte load, each group's predecessors the previous group's ends. Varints of up to four bytes
  // decode in groups of 16 32-bit lanes; for 64-bit outputs, a payload holding one of five to eight
  // bytes (an OSM way's refs start with an absolute node id of five bytes) decodes in groups of
  // eight 64-bit lanes (EmitGroupsOf8). A longer varint (9+ bytes; 5+ for 32-bit outputs), or more
  // values than `room`, declines (kTinyUnhandled, nothing written). REQUIRES: 0 < n <= 64 (32 < n
  // for 32-bit and bool formats); [p, p + n) readable.
  static int RunUpTo64(const uint8_t* p, int n, Out* out, int room) {
    const uint64_t in = _bzhi_u64(~uint64_t{0}, static_cast<uint32_t>(n));
    const __m512i bytes = _mm512_maskz_loadu_epi8(in, p);
    const uint64_t cont = _mm512_movepi8_mask(bytes);
    if ((cont >> (n - 1)) != 0) return kTinyMalformed;  // The payload ends inside a varint.
    const uint64_t term = ~cont & in;
    const int count = static_cast<int>(_mm_popcnt_u64(term));
    if (count > room) return kTinyUnhandled;
    if (cont == 0) {
      // One-byte varints only: the bytes are the values (count == n), stored under a mask.
      if constexpr (F == VarintFormat::kBool) {
        _mm512_mask_storeu_epi8(out, in, _mm512_min_epu8(bytes, _mm512_set1_epi8(1)));
      } else {
        // count == n (the first two quarters full for n > 32, the case of 32-bit formats).
        EmitOneByteWindow(bytes, count, out);
      }
      return count;
    }
    if (n <= 32 && !HasVarintLongerThan<2>(cont)) {
      EmitTwoByteValues32(TwoByteValues32(_mm512_castsi512_si256(bytes),
                                          static_cast<uint32_t>(cont), static_cast<uint32_t>(term)),
                          count, out, room);
      return count;
    }
    // The payload at window offsets 64..127 (both blocks of GroupSteps' window, as above).
    const __m512i ends = _mm512_maskz_compress_epi8(term, kBlockOffsets.Load());
    const uint64_t runs4 = RunsOf4(cont);
    if (runs4 != 0) {
      if (sizeof(Out) != 8 || (runs4 & (runs4 >> 4)) != 0) return kTinyUnhandled;
      EmitGroupsOf8(bytes, ends, count, out, room);
      return count;
    }
    __m512i rep = kLaneIndex32.Load();
    __m512i pe_prev = _mm512_set1_epi8(63);
    for (int g = 0; g < count; g += 16) {
      const __m512i eb = _mm512_permutexvar_epi8(rep, ends);
      const __m512i pe = _mm512_alignr_epi32(eb, pe_prev, 15);
      EmitLanes32(Pack32UpTo4(bytes, bytes, pe, eb), std::min(count - g, 16), out + g, room - g);
      pe_prev = eb;
      rep = _mm512_add_epi8(rep, _mm512_set1_epi8(16));
    }
    return count;
  }

  // The bounded decoder's payloads of 65 to 128 bytes for 64-bit outputs (OSM ways with many refs):
  // a window of two 64-byte loads (the first whole, the second masked), the payload at window
  // offsets 0..127, each half's terminator offsets compressed and the two lists joined into one
  // (the first varint's predecessor is offset 255, one before 0 in byte arithmetic), then groups
  // of eight 64-bit lanes as in EmitGroupsOf8. A payload of one-byte varints only is its bytes,
  // widened. Declines (kTinyUnhandled, nothing written) a varint of 9+ bytes, more values than
  // `room`, and more than 64 values that are not all one byte long (one list of ends holds 64).
  // REQUIRES: 64 < n <= 128; [p, p + n) readable; a 64-bit format.
  static int RunUpTo128(const uint8_t* p, int n, Out* out, int room) {
    const uint64_t in_hi = _bzhi_u64(~uint64_t{0}, static_cast<uint32_t>(n - 64));
    const __m512i lo = _mm512_loadu_si512(p);
    const __m512i hi = _mm512_maskz_loadu_epi8(in_hi, p + 64);
    const uint64_t cont_lo = _mm512_movepi8_mask(lo);
    const uint64_t cont_hi = _mm512_movepi8_mask(hi);
    if ((cont_hi >> (n - 65)) != 0) return kTinyMalformed;  // The payload ends inside a varint.
    const uint64_t term_hi = ~cont_hi & in_hi;
    const int count_lo = static_cast<int>(_mm_popcnt_u64(~cont_lo));
    const int count = count_lo + static_cast<int>(_mm_popcnt_u64(term_hi));
    if (count > room) return kTinyUnhandled;
    if ((cont_lo | cont_hi) == 0) {
      // One-byte varints only (count == n): the first 64 values, then the rest.
      EmitOneByteWindow(lo, 64, out);
      EmitOneByteWindow(hi, count - 64, out + 64);
      return count;
    }
    if (count > 64) return kTinyUnhandled;
    // A varint of 9+ bytes: a run of eight continuation bytes in either half, or across them.
    const uint64_t r4_lo = RunsOf4(cont_lo);
    const uint64_t r4_hi = RunsOf4(cont_hi);
    const uint64_t across = _lzcnt_u64(~cont_lo) + _tzcnt_u64(~cont_hi);
    if (((r4_lo & (r4_lo >> 4)) | (r4_hi & (r4_hi >> 4)) | static_cast<uint64_t>(across >= 8)) !=
        0) {
      return kTinyUnhandled;
    }
    // The terminators' window offsets, in order: the first half's (0..63), then the second's.
    const __m512i iota = kLaneIndex8.Load();
    const __m512i ends_lo = _mm512_maskz_compress_epi8(~cont_lo, iota);
    const __m512i ends_hi = _mm512_maskz_compress_epi8(term_hi, kBlockOffsets.Load());
    const __mmask64 from_hi = ~_bzhi_u64(~uint64_t{0}, static_cast<uint32_t>(count_lo));
    const __m512i pick = _mm512_mask_add_epi8(iota, from_hi, iota,
                                              _mm512_set1_epi8(static_cast<char>(64 - count_lo)));
    const __m512i ends = _mm512_permutex2var_epi8(ends_lo, pick, ends_hi);
    __m512i rep = kLaneIndex64.Load();
    __m512i pe_prev = _mm512_set1_epi8(-1);
    for (int g = 0; g < count; g += 8) {
      const __m512i eb = _mm512_permutexvar_epi8(rep, ends);
      const __m512i pe = _mm512_alignr_epi64(eb, pe_prev, 7);
      // EmitLanes64's store, written out: through it, GCC 12 saves four callee-saved registers on
      // every bounded 64-bit payload instead of on this path's only (docs/kernels.md).
      __m512i unused_carry;
      Emit<F>(Pack64UpTo8(lo, hi, pe, eb), static_cast<size_t>(std::min(count - g, 8)), out + g,
              &unused_carry, /*whole=*/room - g >= 8);
      pe_prev = eb;
      rep = _mm512_add_epi8(rep, _mm512_set1_epi8(8));
    }
    return count;
  }

  // The payload's `count` varints (of at most eight bytes; `window` holds its bytes, `ends` their
  // end offsets as GroupSteps' window has them) in groups of eight 64-bit lanes, each group's
  // predecessors the previous group's ends, stored at out[0, count) for a 64-bit format (room for
  // `room` values).
  static void EmitGroupsOf8(__m512i window, __m512i ends, int count, Out* out, int room) {
    __m512i rep = kLaneIndex64.Load();
    __m512i pe_prev = _mm512_set1_epi8(63);
    for (int g = 0; g < count; g += 8) {
      const __m512i eb = _mm512_permutexvar_epi8(rep, ends);
      const __m512i pe = _mm512_alignr_epi64(eb, pe_prev, 7);
      EmitLanes64(Pack64UpTo8(window, window, pe, eb), std::min(count - g, 8), out + g, room - g);
      pe_prev = eb;
      rep = _mm512_add_epi8(rep, _mm512_set1_epi8(8));
    }
  }

  // Stores the first `count` (at most 32) of the values in the 16-bit lanes of `v`
  // (TwoByteValues32), with room for `room` values.
  static void EmitTwoByteValues32(__m512i v, int count, Out* out, int room) {
    EmitLanes32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)), count < 16 ? count : 16, out,
                room);
    if (count > 16) {
      EmitLanes32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)), count - 16, out + 16,
                  room - 16);
    }
  }

  // The stores of the values decoded above. Each is whole where `room_left`, the values of room
  // from `out`, holds its lanes, else under a mask (see above); the one-byte paths' always under a
  // mask.
  //
  // The first `count` (at most 16) of the values in the 32-bit lanes of `v` (values of at most 28
  // bits), widened to 64 bits for 64-bit formats: 16 lanes.
  static void EmitLanes32(__m512i v, int count, Out* out, int room_left) {
    __m512i unused_carry;
    const bool whole = room_left >= 16;
    if constexpr (sizeof(Out) == 8) {
      EmitShort64<F>(v, static_cast<size_t>(count), out, &unused_carry, whole);
    } else {
      Emit<F>(v, static_cast<size_t>(count), out, &unused_carry, whole);
    }
  }
  // No room counted past the values: always under a mask.
  static void EmitOneByteLanes32(__m512i v, int count, Out* out) {
    EmitLanes32(v, count, out, /*room_left=*/0);
  }
  // The first `count` (at most 64) of the 64 one-byte values that are the bytes of `bytes`: each
  // quarter of 16 widened and stored under its own clamped count, with no branch. Inlined, so that
  // a constant count folds (RunUpTo128's first 64).
  __attribute__((always_inline)) static void EmitOneByteWindow(__m512i bytes, int count, Out* out) {
    EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 0)), LaneCount(count),
                       out);
    EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 1)),
                       LaneCount(count - 16), out + 16);
    EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 2)),
                       LaneCount(count - 32), out + 32);
    EmitOneByteLanes32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 3)),
                       LaneCount(count - 48), out + 48);
  }
  // The first `count` (at most 8) of the values in the 64-bit lanes of `v`, for a 64-bit format:
  // 8 lanes.
  static void EmitLanes64(__m512i v, int count, Out* out, int room_left) {
    __m512i unused_carry;
    Emit<F>(v, static_cast<size_t>(count), out, &unused_carry, /*whole=*/room_left >= 8);
  }
};

template <VarintFormat F>
struct Avx512TinyDecoder : Avx512TinyDecoderImpl<F, /*kBounded=*/false> {};
template <VarintFormat F>
struct Avx512BoundedTinyDecoder {
  static constexpr TinyDecodeFn kRun = &Avx512TinyDecoderImpl<F, /*kBounded=*/true>::Run;
  // Stores whole vectors where the room left holds them (see Avx512TinyDecoderImpl).
  static constexpr uint32_t kSpareValues = kBoundedTinySpareValues;
};

// Encoded sizes with vplzcntd/q (AVX512CD): log2 = width - 1 - lzcnt(v | 1), then upstream's
// (log2 * 9 + 73) / 64, sixteen (eight) lanes at a time; a negative int32 adds 5 (10 bytes in all).
template <SizeFormat S>
struct Avx512Sizer {
  static size_t Run(const void* values, size_t n) {
    using In = typename SizeTraits<S>::In;
    const In* v = static_cast<const In*>(values);
    constexpr size_t kLanes = 64 / sizeof(In);
    size_t total = 0;
    size_t i = 0;
    while (n - i >= kLanes) {
      const size_t stop = i + (std::min(n - i, size_t{1} << 26) / kLanes * kLanes);
      __m512i acc = _mm512_setzero_si512();
      for (; i < stop; i += kLanes) {
        __m512i x = _mm512_loadu_si512(v + i);
        if constexpr (sizeof(In) == 8) {
          if (S == SizeFormat::kSInt64)
            x = _mm512_xor_si512(_mm512_slli_epi64(x, 1), _mm512_srai_epi64(x, 63));
          const __m512i log2 = _mm512_sub_epi64(
              _mm512_set1_epi64(63), _mm512_lzcnt_epi64(_mm512_or_si512(x, _mm512_set1_epi64(1))));
          const __m512i nine = _mm512_add_epi64(_mm512_slli_epi64(log2, 3), log2);
          acc = _mm512_add_epi64(
              acc, _mm512_srli_epi64(_mm512_add_epi64(nine, _mm512_set1_epi64(73)), 6));
        } else {
          if (S == SizeFormat::kSInt32)
            x = _mm512_xor_si512(_mm512_slli_epi32(x, 1), _mm512_srai_epi32(x, 31));
          const __m512i log2 = _mm512_sub_epi32(
              _mm512_set1_epi32(31), _mm512_lzcnt_epi32(_mm512_or_si512(x, _mm512_set1_epi32(1))));
          const __m512i nine = _mm512_add_epi32(_mm512_slli_epi32(log2, 3), log2);
          __m512i bytes = _mm512_srli_epi32(_mm512_add_epi32(nine, _mm512_set1_epi32(73)), 6);
          if (S == SizeFormat::kInt32) {
            bytes = _mm512_add_epi32(
                bytes, _mm512_and_si512(_mm512_srai_epi32(x, 31), _mm512_set1_epi32(5)));
          }
          acc = _mm512_add_epi32(acc, bytes);
        }
      }
      total += sizeof(In) == 8
                   ? static_cast<size_t>(_mm512_reduce_add_epi64(acc))
                   : static_cast<size_t>(static_cast<uint32_t>(_mm512_reduce_add_epi32(acc)));
    }
    return total + ScalarEncodedSize<S>(v + i, n - i);
  }
};

size_t CountTerminatorsAvx512(const uint8_t* p, const uint8_t* end) {
  size_t count = 0;
  for (; end - p >= 64; p += 64) {
    count += static_cast<size_t>(
        _mm_popcnt_u64(~static_cast<uint64_t>(_mm512_movepi8_mask(_mm512_loadu_si512(p)))));
  }
  const size_t avail = static_cast<size_t>(end - p);
  if (avail > 0) {
    const uint64_t valid = (uint64_t{1} << avail) - 1;
    const uint64_t cont = _mm512_movepi8_mask(_mm512_maskz_loadu_epi8(valid, p));
    count += static_cast<size_t>(_mm_popcnt_u64(~cont & valid));
  }
  return count;
}

}  // namespace

extern const KernelDescriptor kAvx512Kernel;
// Lenient delta sint64 as its gaps, then their sums: faster than the sums fused into Emit on OSM's
// dense ids and coordinates (docs/kernels.md, "Delta sint64: OSM's zigzag gaps").
const KernelDescriptor kAvx512Kernel = MakeKernelDescriptor<
    DeltaAfterGaps<Avx512Decoder, VarintFormat::kDeltaSInt64>::Decoder, Avx512Sizer,
    Avx512TinyDecoder, Avx512BoundedTinyDecoder, Avx512BoundedTinyDecoder>(
    "avx512",
    "AVX-512 VBMI/VBMI2: 64-byte blocks, vpcompressb end offsets, vpermb gather, 16 (8) varints "
    "per step; all-one-byte blocks zero-extended; strict-mode range failures and 5+-byte bools "
    "per group through the bounded scalar reader",
    &CountTerminatorsAvx512,
    // No inline loop: one masked 64-byte load decodes a tiny payload without a branch per
    // varint; generated parsers' short fields too (docs/kernels.md, "Size thresholds").
    /*inline_below_bytes=*/0,
    /*short_payloads_direct=*/true);

}  // namespace internal
}  // namespace pbaccel
