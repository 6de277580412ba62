// Copyright 2026 The pbaccel Authors.
//
// short_payloads_avx2-inl.h: the AVX2 kernels' decode_tiny and decode_tiny_bounded (kernel_abi.h),
// built from whole steps: 16-byte steps where every varint of the payload is at most two bytes
// (two_byte_steps_avx2-inl.h), for 64-bit formats 32-bit lanes where every varint is at most five
// bytes (varint_lanes_avx2-inl.h), 8-byte steps otherwise (step8_avx2-inl.h). The payload's
// continuation bits are read once up front, so a payload is checked, declined or rejected before a
// value is written, and the steps run with no branch on the values. Shared by bmi2 and
// masked_vbyte_avx2 (`Bits`: how an 8-byte step's pattern and payload bits are found).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after parsers/step8_avx2-inl.h,
// parsers/two_byte_steps_avx2-inl.h and parsers/varint_lanes_avx2-inl.h. No include guard;
// includes nothing (varint_format-inl.h says why).

// decode_tiny's steps (tiny_payload-inl.h's StepTiny), for a payload of up to 16 bytes with 16
// values of room and kTinyReadableBytes readable: one of one- and two-byte varints in one 16-byte
// step (eight slots from slot 0, eight from at most slot 8), a 64-bit one of varints of up to five
// bytes in two steps of 32-bit lanes, any other in two 8-byte steps (both: slots 0-7, then eight
// from at most slot 8); declined if a varint runs past 10 bytes.
template <class Bits>
struct WholeStepTinyPayloads {
  template <VarintFormat F>
  struct Steps {
    using Out = typename FormatTraits<F>::Out;
    __attribute__((always_inline)) static int Tiny(const uint8_t* p, int n, uint32_t more,
                                                   Out* out) {
      if (AllVarintsUpToTwoBytes(more)) {
        // 16 bytes readable: the bytes past the payload made continuations.
        TwoByteSteps<F, Bits> steps{out};
        steps.Step(PastPayloadContinues(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), n));
        return static_cast<int>(steps.count);
      }
      if constexpr (kLaneFormat<F>) {
        if (VarintLanes<F, 5>::Takes(more)) return VarintLanes<F, 5>::Tiny(p, n, more, out);
      }
      if (HasVarintLongerThan<10>(more)) return kTinyUnhandled;
      WholeSteps<F, Bits> steps{out};
      steps.Step(LoadLittleEndian64(p), n < 8 ? static_cast<unsigned>(n) : 8u);
      steps.Step(LoadLittleEndian64(p + 8), n > 8 ? static_cast<unsigned>(n - 8) : 0u);
      return static_cast<int>(steps.count);
    }
  };
};

template <class Bits>
using WholeStepTiny = StepTiny<WholeStepTinyPayloads<Bits>::template Steps>;

// decode_tiny_bounded's steps (tiny_payload-inl.h's StepBoundedTiny) in whole steps, without a
// branch on the values: 16-byte steps (one to four) when the payload's varints are all one or two
// bytes; for a 64-bit payload of 16 bytes or more whose varints are all at most five bytes, one
// step of 32-bit lanes per 8 bytes (under 16 bytes the 8-byte steps were the faster); else 8-byte
// steps (two for up to 16 bytes, four for 32, six for 48, eight for 64). Each stores at most eight
// slots past the last value (an 8-byte step or a step of lanes kSlots from the count, a 16-byte
// step eight from each half's first value). 64-bit payloads of 65-128 bytes go to the kernel's
// decoder: a loop of whole steps took longer over them.
template <class Bits>
struct WholeStepPayloads {
  template <VarintFormat F>
  struct Steps {
    __attribute__((always_inline)) static bool Payload(const uint8_t* p, int n,
                                                       const TinyPayloadBits& bits,
                                                       typename FormatTraits<F>::Out* out) {
      if (AllVarintsUpToTwoBytes(bits.more)) {
        TwoByteSteps<F, Bits>{out}.Payload(p, n, bits.short_word);
        return true;
      }
      if constexpr (kLaneFormat<F>) {
        if (n >= 16 && VarintLanes<F, 5>::Takes(bits.more)) {
          VarintLanes<F, 5>::Payload(p, n, bits.more, out);
          return true;
        }
      }
      WholeSteps<F, Bits>{out}.Payload(p, n, bits.short_word);
      return true;
    }
  };
};

template <class Bits, template <VarintFormat, bool> class Loop>
using WholeStepBoundedTiny = StepBoundedTiny<WholeStepPayloads<Bits>::template Steps, Loop, kSlots>;
