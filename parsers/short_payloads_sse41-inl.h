// Copyright 2026 The pbaccel Authors.
//
// short_payloads_sse41-inl.h: the masked_vbyte kernel's (SSE4.1) decode_tiny, decode_tiny_bounded
// and decode_window (kernel_abi.h). Payloads whose varints are all one or two bytes (a tile's
// geometry and tags, string-table indices, small ids): 16-byte steps (two_byte_steps_sse41-inl.h),
// as the AVX2 kernels take them (short_payloads_avx2-inl.h). 64-bit payloads (no running sum)
// whose varints are all at most five bytes (a way's refs): 32-bit lanes (varint_lanes_sse41-inl.h)
// in decode_tiny and decode_window. Other payloads: decode_tiny one varint at a time
// (tiny_payload-inl.h's DecodeTinyVarints, varints of up to 4 bytes without PEXT), the others the
// kernel's decoder.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 and -mpopcnt, after parsers/two_byte_steps_sse41-inl.h and
// parsers/varint_lanes_sse41-inl.h. No include guard; includes nothing (varint_format-inl.h says
// why).

// decode_tiny's steps (tiny_payload-inl.h's StepTiny), for a payload of up to 16 bytes with 16
// values of room and kTinyReadableBytes readable: one 16-byte step (eight slots from slot 0, eight
// from at most slot 8), or one varint at a time.
template <VarintFormat F>
struct TwoByteTinyPayloadsSse41 {
  using Out = typename FormatTraits<F>::Out;
  static int Tiny(const uint8_t* p, int n, uint32_t more, Out* out) {
    if (!AllVarintsUpToTwoBytes(more)) {
      if constexpr (kLaneFormat<F>) {
        if (VarintLanesSse41<F>::Takes(more)) return VarintLanesSse41<F>::Tiny(p, n, more, out);
      }
      return DecodeTinyVarints<F>(p, n, more, out);
    }
    // 16 bytes readable: the bytes past the payload made continuations.
    TwoByteStepsSse41<F> steps{out};
    steps.Step(PastPayloadContinues(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), n));
    return static_cast<int>(steps.count);
  }
};

template <VarintFormat F>
using TwoByteTinyDecoderSse41 = StepTiny<TwoByteTinyPayloadsSse41>::Decoder<F>;

// decode_tiny_bounded's steps (tiny_payload-inl.h's StepBoundedTiny): 16-byte steps (one to four)
// when the payload's varints are all one or two bytes; any other payload is left to the kernel's
// decoder. Stores at most eight slots past the last value.
template <VarintFormat F>
struct TwoBytePayloadsSse41 {
  __attribute__((always_inline)) static bool Payload(const uint8_t* p, int n,
                                                     const TinyPayloadBits& bits,
                                                     typename FormatTraits<F>::Out* out) {
    if (!AllVarintsUpToTwoBytes(bits.more)) return false;
    TwoByteStepsSse41<F>{out}.Payload(p, n, bits.short_word);
    return true;
  }
};

template <VarintFormat F>
using TwoByteBoundedTinyDecoderSse41 =
    StepBoundedTiny<TwoBytePayloadsSse41, MaskedVByteDecoder, kTwoByteStepSpareSlots>::Decoder<F>;

// decode_window (kernel_abi.h): a payload of 1 to 64 bytes with 64 bytes readable from its start,
// its continuation bits read from four 16-byte loads, with no test of its length or of the page.
// A payload of one- and two-byte varints in 16-byte steps, or widened where all are one byte (as
// decode_tiny, and unlike the AVX2 kernels' window decoder, which takes every 64-bit payload in
// lanes: here the steps read a profile's location ids 14-20 % faster, and the lanes a way's refs
// 5 % faster, docs/kernels.md); a 64-bit payload (no running sum) of varints of up to five bytes in
// 32-bit lanes (varint_lanes_sse41-inl.h), one step per 8 bytes. With a longer varint, a 64-bit
// payload is declined (kTinyUnhandled), as the AVX2 kernels decline it; another goes to the
// kernel's decoder (as decode_tiny_bounded hands it such a one).
template <VarintFormat F>
struct WindowDecoderSse41 {
  using Out = typename FormatTraits<F>::Out;

  static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int room) {
    const int n = static_cast<int>(end - p);
    const uint64_t more = HighBitsOf64(p) & PayloadBytes(n);
    if (((more >> (n - 1)) & 1) != 0) return kTinyMalformed;  // Ends inside a varint.
    Out* const out = static_cast<Out*>(out_void);
    if (!AllVarintsUpToTwoBytes(more)) {
      if constexpr (kLaneFormat<F>) {
        if (!VarintLanesSse41<F>::Takes(more)) return kTinyUnhandled;
        PBACCEL_KERNEL_PROBE(window_payloads);
        return VarintLanesSse41<F>::Readable(p, n, more, out);
      } else {
        // The kernel's decoder, as decode_tiny_bounded hands it such a payload.
        return TwoByteBoundedTinyDecoderSse41<F>::Lenient(p, end, out, room);
      }
    }
    PBACCEL_KERNEL_PROBE(window_payloads);
    if (more == 0) {
      StoreOneByteRun<F>(p, n, out);
    } else {
      TwoByteStepsSse41<F> steps{out};
      TwoByteStepsOverGroups(&steps, n, [p](int j) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * j));
      });
    }
    return VarintsEndingIn(more, n);
  }

  static constexpr TinyDecodeFn kRun = &Run;
};
