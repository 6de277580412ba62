// Copyright 2026 The pbaccel Authors.
//
// neon_decoder-inl.h: the decoder of the neon kernel (neon.cc) and of the sve kernel (sve.cc: the
// same decoder with sve_runs-inl.h's one-byte runs where __ARM_FEATURE_SVE is defined): packed
// varints on ARM64's Advanced SIMD (NEON, baseline on every AArch64 CPU), in the
// Masked VByte spirit (Plaisance, Kurz and Lemire, "Vectorized VByte Decoding", 2015) with the
// same generated shape tables as the x86 masked_vbyte kernels (masked_vbyte_tables-inl.h, which
// documents the shapes). NEON's table lookup (TBL, vqtbl1q_u8) gives 0 for an out-of-range index
// as pshufb does for 0x80, so the shuffle controls serve both unchanged.
//
// The continuation bits of 64 payload bytes are gathered into one 64-bit mask (no movemask on
// NEON: each byte's sign spread by an arithmetic shift, masked with its bit's weight, each half
// summed by ADDV), and the decoder walks the mask in steps, each looking at the next 16 bytes:
//   * no continuation bit in them: sixteen one-byte varints, widened (UXTL) and stored;
//   * otherwise the step's 12-bit mask indexes the 4,096-entry table, which gives the shape, the
//     number of varints and the bytes they take; one TBL puts each varint's bytes in its own lane
//     and shift-and-insert instructions squeeze out the continuation bits (SLI: a 16-bit lane's
//     high byte inserted above its low 7 bits, then a 32-bit lane's high half above its low 14,
//     then a 64-bit lane's above its low 28; no multiply):
//       four to eight varints of 1-2 bytes in 16-bit lanes; four of 1-3 bytes in 32-bit lanes;
//       two (or one) of 1-5 bytes in 64-bit lanes;
//   * a varint of 6-10 bytes at the front (every negative int32, large 64-bit values): the
//     word-at-a-time read (varint_word-inl.h), then the walk goes on.
// Before a window (64 bytes, or 16 near the end) is walked so, one whose varints are all one or
// two bytes (tile geometry, string-table indices; not all one byte) takes 16-byte steps instead
// (two_byte_steps_neon-inl.h; the non-delta formats, strict bool excepted), as do such payloads
// of decode_tiny and of the bounded tiny decoder (up to 64 bytes, read exactly: the last step takes
// the payload's last 16 bytes shifted down).
// zigzag, bool and delta (a prefix sum over each vector, the running sum carried in a register)
// are fused into the stores, which write whole vectors: elements past a step's values are
// overwritten by the next step (kernel_abi.h allows it below `cap`; the walk keeps 16 free).
//
// Bounds: the walk runs in place while 64 bytes of payload remain (steps start at most 48 bytes
// into the window, so every load and the long read stay in it) and 16 output slots are free, then
// one step at a time while 16 bytes remain; the rest, malformed varints and strict-mode range
// failures go to the bounded scalar reader (varint_scalar-inl.h), which names errors at their
// exact offset.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, after
// parsers/kernel_probes.h and pbaccel/internal/kernel_abi.h (<arm_neon.h>; <arm_sve.h> too for
// the sve kernel). No include guard; includes the shared decoding pieces it builds on (each kernel
// gets its own copy: varint_format-inl.h says why), and sve_runs-inl.h where compiled with SVE.

// The word-at-a-time read of one varint (varint_scalar-inl.h and the long path build on it).
#include "pbaccel/internal/varint_word-inl.h"

#include "parsers/masked_vbyte_tables-inl.h"
#include "parsers/two_byte_lanes-inl.h"
#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"
#include "parsers/varint_size-inl.h"

#ifdef __ARM_FEATURE_SVE
#include "parsers/sve_runs-inl.h"
#endif

// 7-bit groups joined: byte pairs into 14 bits per 16-bit lane, 14-bit pairs into 28 bits per
// 32-bit lane, 28-bit pairs into 56 bits per 64-bit lane. Each lane's low part is already below
// its width (the groups have no continuation bits), so the high part is inserted above it.
inline uint16x8_t Join14(uint8x16_t groups) {
  const uint16x8_t x = vreinterpretq_u16_u8(groups);
  return vsliq_n_u16(x, vshrq_n_u16(x, 8), 7);
}
inline uint32x4_t Join28(uint16x8_t pairs) {
  const uint32x4_t x = vreinterpretq_u32_u16(pairs);
  return vsliq_n_u32(x, vshrq_n_u32(x, 16), 14);
}
inline uint64x2_t Join56(uint32x4_t quads) {
  const uint64x2_t x = vreinterpretq_u64_u32(quads);
  return vsliq_n_u64(x, vshrq_n_u64(x, 32), 28);
}

// The stores of one format: values given in vector lanes, the first `count` of them meaningful;
// whole vectors are written (lanes past `count` too, except where a running sum must not see
// them). `sum` is the delta formats' running sum (the last value written).
template <VarintFormat F>
struct NeonStore {
  using Out = typename FormatTraits<F>::Out;
  static constexpr bool k64 = sizeof(Out) == 8;

  // Two values in 64-bit lanes: full values (64-bit formats), or values of up to 35 bits.
  static void Two64(uint64x2_t v, int count, Out* out, Out* sum) {
    if constexpr (k64) {
      if constexpr (kZigZag64<F>) v = ZigZag64(v);  // sint64, and delta sint64's gaps.
      if constexpr (FormatTraits<F>::kDelta) {
        v = vaddq_u64(v, vextq_u64(vdupq_n_u64(0), v, 1));
        v = vaddq_u64(v, vdupq_n_u64(static_cast<uint64_t>(*sum)));
      }
      vst1q_u64(reinterpret_cast<uint64_t*>(out), v);
      if constexpr (FormatTraits<F>::kDelta) *sum = out[count - 1];
    } else if constexpr (F == VarintFormat::kBool) {
      // Truth is over all the value's bits, not its low 32.
      const uint64x2_t ones = vandq_u64(vtstq_u64(v, v), vdupq_n_u64(1));
      out[0] = vgetq_lane_u64(ones, 0) != 0;
      out[1] = vgetq_lane_u64(ones, 1) != 0;
    } else {
      Four32(vcombine_u32(vmovn_u64(v), vdup_n_u32(0)), count, out, sum);
    }
  }

  // Four values in 32-bit lanes: full values below 2^32, or the low 32 bits (32-bit formats).
  static void Four32(uint32x4_t v, int count, Out* out, Out* sum) {
    if constexpr (k64) {
      Two64(vmovl_u32(vget_low_u32(v)), count < 2 ? count : 2, out, sum);
      if (!FormatTraits<F>::kDelta || count > 2) {
        Two64(vmovl_high_u32(v), count > 2 ? count - 2 : 2, out + 2, sum);
      }
    } else if constexpr (F == VarintFormat::kBool) {
      const uint16x4_t ones = vmovn_u32(vminq_u32(v, vdupq_n_u32(1)));
      const uint32_t four =
          vget_lane_u32(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(ones, ones))), 0);
      std::memcpy(out, &four, 4);
    } else {
      if constexpr (F == VarintFormat::kSInt32) {
        v = ZigZag32(v);
      } else if constexpr (FormatTraits<F>::kDelta) {
        const uint32x4_t zero = vdupq_n_u32(0);
        v = vaddq_u32(v, vextq_u32(zero, v, 3));
        v = vaddq_u32(v, vextq_u32(zero, v, 2));
        v = vaddq_u32(v, vdupq_n_u32(*sum));
      }
      vst1q_u32(reinterpret_cast<uint32_t*>(out), v);
      if constexpr (FormatTraits<F>::kDelta) *sum = out[count - 1];
    }
  }

  // Eight values in 16-bit lanes.
  static void Eight16(uint16x8_t w, int count, Out* out, Out* sum) {
    if constexpr (F == VarintFormat::kBool) {
      const uint8x8_t eight = vmovn_u16(vminq_u16(w, vdupq_n_u16(1)));
      std::memcpy(out, &eight, 8);
    } else {
      Four32(vmovl_u16(vget_low_u16(w)), count < 4 ? count : 4, out, sum);
      if (!FormatTraits<F>::kDelta || count > 4) {
        Four32(vmovl_high_u16(w), count > 4 ? count - 4 : 4, out + 4, sum);
      }
    }
  }

  // Sixteen one-byte varints (the bytes of `in`).
  static void Sixteen(uint8x16_t in, Out* out, Out* sum) {
    if constexpr (F == VarintFormat::kBool) {
      vst1q_u8(reinterpret_cast<uint8_t*>(out), vminq_u8(in, vdupq_n_u8(1)));
    } else {
      Eight16(vmovl_u8(vget_low_u8(in)), 8, out, sum);
      Eight16(vmovl_high_u8(in), 8, out + 8, sum);
    }
  }

  // One value of any size (the long path).
  static void One(uint64_t v, Out* out, Out* sum) {
    if constexpr (FormatTraits<F>::kDelta) {
      *sum = WrappingAdd(*sum, FormatTraits<F>::Convert(v));
      *out = *sum;
    } else {
      *out = FormatTraits<F>::Convert(v);
    }
  }
};

// Uses two_byte_lanes-inl.h, Join14 and NeonStore.
#include "parsers/two_byte_steps_neon-inl.h"

// The outcome of walking one window.
struct Walk {
  size_t off;         // Bytes consumed from the window start.
  size_t count;       // Values written.
  bool needs_scalar;  // Stopped at a step that the bounded scalar reader must take.
};

template <VarintFormat F, bool kStrict>
struct NeonDecoder {
  using Out = typename FormatTraits<F>::Out;
  using Store = NeonStore<F>;

  // Strict mode: whether the first `count` values in 64-bit lanes fit the field's type.
  static bool FitStrict(uint64x2_t v, int count) {
    if (!FormatTraits<F>::FitsStrict(vgetq_lane_u64(v, 0))) return false;
    return count < 2 || FormatTraits<F>::FitsStrict(vgetq_lane_u64(v, 1));
  }

  // Walks the window at q whose continuation mask is `bits`, while the step's start is at most
  // `max_off` bytes in and at least 16 output slots remain below `room`. REQUIRES: 64 bytes
  // readable at q (16 when max_off is 0, with `bits` holding only their 16 bits).
  __attribute__((always_inline)) static Walk WalkWindow(const uint8_t* q, uint64_t bits,
                                                        size_t max_off, Out* out, size_t room,
                                                        Out* sum) {
    size_t off = 0;
    size_t k = 0;
    while (off <= max_off && room - k >= 16) {
      const uint64_t m = bits >> off;
      const uint8x16_t in = vld1q_u8(q + off);
      if ((m & 0xFFFF) == 0) {
        if (kStrict && F == VarintFormat::kBool && vmaxvq_u8(in) > 1) return {off, k, true};
        Store::Sixteen(in, out + k, sum);
        off += 16;
        k += 16;
        continue;
      }
      const MaskedVByteEntry e = kMaskedVByteTables.entry[m & 0xFFF];
      if (e.kind == kLong) {
        // A varint of 6+ bytes (10 readable: off <= 48 of 64, or 0 of 16).
        uint64_t v;
        size_t len;
        if (!ReadVarintUpTo10<kStrict>(q + off, &v, &len)) return {off, k, true};
        if (kStrict && !FormatTraits<F>::FitsStrict(v)) return {off, k, true};
        Store::One(v, out + k, sum);
        off += len;
        k += 1;
        continue;
      }
      const uint8x16_t groups = vandq_u8(
          vqtbl1q_u8(in, vld1q_u8(kMaskedVByteTables.shuffle[e.shuffle])), vdupq_n_u8(0x7F));
      const uint16x8_t w = Join14(groups);
      if (e.kind == k16) {
        if (kStrict && F == VarintFormat::kBool && vmaxvq_u16(w) > 1) return {off, k, true};
        Store::Eight16(w, e.count, out + k, sum);
      } else if (e.kind == k32) {
        const uint32x4_t d = Join28(w);
        if (kStrict && F == VarintFormat::kBool && vmaxvq_u32(d) > 1) return {off, k, true};
        Store::Four32(d, 4, out + k, sum);
      } else {  // k64: one or two varints of up to 5 bytes.
        const uint64x2_t v = Join56(Join28(w));
        if (kStrict && !FitStrict(v, e.count)) return {off, k, true};
        Store::Two64(v, e.count, out + k, sum);
      }
      off += e.consumed;
      k += e.count;
    }
    return {off, k, false};
  }

  // Whether windows of one- and two-byte varints take 16-byte steps (two_byte_steps_neon-inl.h):
  // not for running sums, nor for strict bools (a two-byte value is not 0 or 1); any other value
  // below 2^14 fits its type.
  static constexpr bool kTwoByteSteps =
      !FormatTraits<F>::kDelta && !(kStrict && F == VarintFormat::kBool);

  // The window of `bytes` bytes (64 or 16) at *p with continuation bits `bits`, if its varints are
  // all one or two bytes and not all one byte (the walk's one-byte steps are cheaper): 16-byte
  // steps, a varint begun in the window's last byte left to the next window. Room: at most
  // bytes - 16 values before the last step, which stores at most 16 slots from there. Returns
  // whether it took the window, having advanced *p and *n.
  template <int kBytes>
  __attribute__((always_inline)) static bool TwoByteWindow(const uint8_t** p, uint64_t bits,
                                                           Out* out, size_t* n, size_t cap) {
    if constexpr (kTwoByteSteps) {
      if (bits != 0 && AllVarintsUpToTwoBytes(bits) && cap - *n >= kBytes) {
        NeonTwoByteSteps<F> steps{out + *n};
#pragma GCC unroll 4
        for (int j = 0; j < kBytes; j += 16) {
          steps.Step(vld1q_u8(*p + j), ~static_cast<uint32_t>(bits >> j) & 0xFFFFu);
        }
        *p += kBytes - ((bits >> (kBytes - 1)) & 1);
        *n += steps.count;
        return true;
      }
    }
    return false;
  }

  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    Out* const out = static_cast<Out*>(out_void);
    size_t n = 0;
    Out sum = static_cast<Out>(delta_base);
    bool needs_scalar = false;
    while (end - p >= 64 && cap - n >= 16 && !needs_scalar) {
      const uint64_t bits = HighBitsOf64(p);
      if (TwoByteWindow<64>(&p, bits, out, &n, cap)) continue;
#ifdef __ARM_FEATURE_SVE
      if constexpr (SveOneByteRuns<F, kStrict>::kApplies) {
        if (bits == 0 && cap - n >= 64) {
          const size_t taken = SveOneByteRuns<F, kStrict>::Windows(p, end, out + n, cap - n);
          p += taken;
          n += taken;
          if (taken != 0) continue;
        }
      }
#endif
      const Walk w = WalkWindow(p, bits, 48, out + n, cap - n, &sum);
      p += w.off;
      n += w.count;
      needs_scalar = w.needs_scalar;
    }
    while (end - p >= 16 && cap - n >= 16 && !needs_scalar) {
      const uint64_t bits = HighBitsOf16(p);
      if (TwoByteWindow<16>(&p, bits, out, &n, cap)) continue;
      const Walk w = WalkWindow(p, bits, 0, out + n, cap - n, &sum);
      p += w.off;
      n += w.count;
      needs_scalar = w.needs_scalar;
    }
#ifdef __ARM_FEATURE_SVE
    if (!needs_scalar) SveOneByteRuns<F, kStrict>::Tail(&p, end, out, &n, cap);
#endif
    // The bounded scalar reader finishes: the tail, exact errors and offsets, strict ranges.
    OutputSink<F> sink(out, n == 0 ? delta_base : static_cast<uint64_t>(out[n - 1]));
    return DecodeTail<F, kStrict>(p, end, sink, n, cap);
  }
};

// decode_tiny's steps (tiny_payload-inl.h's StepTiny): a payload of one- and two-byte varints in
// one 16-byte step (at most 16 slots, the room; 16 bytes readable, those past the payload ending
// nothing), any other one varint at a time (DecodeTinyVarints).
template <VarintFormat F>
struct NeonTinyPayloads {
  using Out = typename FormatTraits<F>::Out;
  static int Tiny(const uint8_t* p, int n, uint32_t more, Out* out) {
    if (!AllVarintsUpToTwoBytes(more)) return DecodeTinyVarints<F>(p, n, more, out);
    NeonTwoByteSteps<F> steps{out};
    steps.Step(vld1q_u8(p), ~more & ((1u << n) - 1));
    return static_cast<int>(steps.count);
  }
};

template <VarintFormat F>
using NeonTinyDecoder = StepTiny<NeonTinyPayloads>::Decoder<F>;

// decode_tiny_bounded's steps (tiny_payload-inl.h's StepBoundedTiny): 16-byte steps for payloads
// of one- and two-byte varints (at most eight slots past the last value); the kernel's decoder
// takes the rest.
template <VarintFormat F>
struct NeonTwoBytePayloads {
  __attribute__((always_inline)) static bool Payload(const uint8_t* p, int n,
                                                     const TinyPayloadBits& bits,
                                                     typename FormatTraits<F>::Out* out) {
    if (!AllVarintsUpToTwoBytes(bits.more)) return false;
    NeonTwoByteSteps<F>{out}.Payload(p, n, bits.more, bits.short_word);
    return true;
  }
};

template <VarintFormat F>
using NeonBoundedTinyDecoder = StepBoundedTiny<NeonTwoBytePayloads, NeonDecoder, 8>::Decoder<F>;

// Bytes without a continuation bit, 16 at a time (ADDV of the high bits), the rest one by one.
inline size_t NeonCountTerminators(const uint8_t* p, const uint8_t* end) {
  size_t continuing = 0;
  const size_t total = static_cast<size_t>(end - p);
  for (; end - p >= 16; p += 16) continuing += vaddvq_u8(vshrq_n_u8(vld1q_u8(p), 7));
  for (; p < end; ++p) continuing += *p >> 7;
  return total - continuing;
}
