// Copyright 2026 The pbaccel Authors.
//
// short_payloads_avx2-inl.h: the AVX2 kernels' decode_tiny and decode_tiny_bounded (kernel_abi.h),
// built from whole steps: 16-byte steps where every varint of the payload is at most two bytes
// (two_byte_steps_avx2-inl.h), 8-byte steps otherwise (step8_avx2-inl.h). The payload's
// continuation bits are read once up front, so a payload is checked, declined or rejected before a
// value is written, and the steps run with no branch on the values. Shared by bmi2 and
// masked_vbyte_avx2 (`Bits`: how an 8-byte step's pattern and payload bits are found).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after parsers/step8_avx2-inl.h and
// parsers/two_byte_steps_avx2-inl.h. No include guard; includes nothing (varint_format-inl.h says
// why).

// decode_tiny by whole steps: the 16 high bits at once (malformed if the payload ends inside a
// varint, declined if a varint runs past 10 bytes), one-byte payloads widened 16 at a time,
// payloads of one- and two-byte varints in one 16-byte step (eight slots from slot 0, eight from
// at most slot 8), any other in two 8-byte steps (slots 0-7, then eight from at most slot 8): so
// within the 16 the caller's room holds. With less room, and for the delta formats,
// tiny_payload-inl.h's per-varint TinyDecoder.
template <class Bits>
struct WholeStepTiny {
  template <VarintFormat F>
  struct Decoder {
    static int Run(const uint8_t* p, const uint8_t* end, void* out, int room) {
      if constexpr (FormatTraits<F>::kDelta) {
        return TinyDecoder<F>::Run(p, end, out, room);
      } else {
        using Out = typename FormatTraits<F>::Out;
        if (room < kTinyPayloadBytes) return TinyDecoder<F>::Run(p, end, out, room);
        const int n = static_cast<int>(end - p);
        uint32_t more;
        int result;
        if (TinyPayloadFinished<F>(p, n, out, room, &more, &result)) return result;
        if (AllVarintsUpToTwoBytes(more)) {
          // 16 bytes readable (kTinyReadableBytes): the bytes past the payload made continuations.
          TwoByteSteps<F, Bits> steps{static_cast<Out*>(out)};
          steps.Step(PastPayloadContinues(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), n));
          return static_cast<int>(steps.count);
        }
        if (HasVarintLongerThan<10>(more)) return kTinyUnhandled;
        WholeSteps<F, Bits> steps{static_cast<Out*>(out)};
        steps.Step(LoadLittleEndian64(p), n < 8 ? static_cast<unsigned>(n) : 8u);
        steps.Step(LoadLittleEndian64(p + 8), n > 8 ? static_cast<unsigned>(n - 8) : 0u);
        return static_cast<int>(steps.count);
      }
    }
  };
};

// decode_tiny_bounded by whole steps: a payload of up to 64 bytes is looked at whole first
// (ReadTinyPayloadBits: declined or rejected before a value is written, varints of up to 10 bytes
// taken); one of one-byte varints only is widened 16 at a time; any other, where `room` leaves
// kSpareValues values past its count, in whole steps without a branch on the values: 16-byte
// steps (one to four) when its varints are all one or two bytes, else 8-byte steps (two for up to
// 16 bytes, four for 32, six for 48, eight for 64). The rest (too little room to spare, 64-bit
// payloads of 65-128 bytes, which a loop of whole steps took longer over than the kernel) goes to
// the kernel's lenient decoder Loop<F, false>, which writes only within `room`. Null for the delta
// formats.
template <class Bits, template <VarintFormat, bool> class Loop>
struct WholeStepBoundedTiny {
  template <VarintFormat F>
  struct Decoder {
    using Out = typename FormatTraits<F>::Out;

    static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int room) {
      Out* const out = static_cast<Out*>(out_void);
      const int n = static_cast<int>(end - p);
      if (n == 0) return 0;
      if (n <= 64) {
        TinyPayloadBits bits;
        if (const int declined = ReadTinyPayloadBits<10>(p, n, room, &bits); declined != 0) {
          return declined;
        }
        if (bits.more == 0) {
          StoreOneByteRun<F>(p, n, out);
          return n;
        }
        if (room - bits.count >= static_cast<int>(kSpareValues)) {
          if (AllVarintsUpToTwoBytes(bits.more)) {
            TwoByteSteps<F, Bits>{out}.Payload(p, n, bits.short_word);
          } else {
            WholeSteps<F, Bits>{out}.Payload(p, n, bits.short_word);
          }
          return bits.count;
        }
      } else if ((end[-1] & 0x80) != 0) {
        return kTinyMalformed;  // Ends inside a varint, whatever the room (as above).
      }
      const DecodeResult r =
          Loop<F, false>::Run(p, end, out, static_cast<size_t>(room), /*delta_base=*/0);
      // Not kOk: more values than the room, or a varint over 10 bytes; the caller's way names it.
      return r.status == DecodeStatus::kOk ? static_cast<int>(r.count) : kTinyUnhandled;
    }

    static constexpr TinyDecodeFn Entry() {
      if constexpr (FormatTraits<F>::kDelta) {
        return nullptr;
      } else {
        return &Run;
      }
    }
    static constexpr TinyDecodeFn kRun = Entry();
    // An 8-byte step stores kSlots slots from the count, a 16-byte step eight from each half's
    // first value: either way at most eight past the last value.
    static constexpr uint32_t kSpareValues = kSlots;
    static_assert(kSpareValues <= kBoundedTinySpareValues, "the most a caller offers");
  };
};
