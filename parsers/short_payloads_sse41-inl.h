// Copyright 2026 The pbaccel Authors.
//
// short_payloads_sse41-inl.h: the masked_vbyte kernel's (SSE4.1) decode_tiny and
// decode_tiny_bounded (kernel_abi.h) for payloads whose varints are all one or two bytes (a tile's
// geometry and tags, string-table indices, small ids): 16-byte steps (two_byte_steps_sse41-inl.h),
// as the AVX2 kernels take them (short_payloads_avx2-inl.h). Other payloads: decode_tiny one
// varint at a time (tiny_payload-inl.h's DecodeTinyVarints, varints of up to 4 bytes without
// PEXT), decode_tiny_bounded the kernel's decoder.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 and -mpopcnt, after parsers/two_byte_steps_sse41-inl.h. No include guard;
// includes nothing (varint_format-inl.h says why).

// decode_tiny's steps (tiny_payload-inl.h's StepTiny), for a payload of up to 16 bytes with 16
// values of room and kTinyReadableBytes readable: one 16-byte step (eight slots from slot 0, eight
// from at most slot 8), or one varint at a time.
template <VarintFormat F>
struct TwoByteTinyPayloadsSse41 {
  using Out = typename FormatTraits<F>::Out;
  static int Tiny(const uint8_t* p, int n, uint32_t more, Out* out) {
    if (!AllVarintsUpToTwoBytes(more)) return DecodeTinyVarints<F>(p, n, more, out);
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
