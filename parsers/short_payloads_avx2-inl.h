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
// compiled with -mavx2 and -mpopcnt, after parsers/kernel_probes.h, parsers/step8_avx2-inl.h,
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
// bytes, else 8-byte steps (two for up to 16 bytes, four for 32, six for 48, eight for 64). Each
// stores at most eight slots past the last value (an 8-byte step kSlots from the count, a 16-byte
// step eight from each half's first value). 64-bit payloads of 65-128 bytes go to the kernel's
// decoder: a loop of whole steps took longer over them. (WholeStepBoundedTiny below takes most
// 64-bit payloads of 16-64 bytes from registers before they get here.)
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
      WholeSteps<F, Bits>{out}.Payload(p, n, bits.short_word);
      return true;
    }
  };
};

// A payload of 16 to 64 bytes in two registers, read without reading past it.
struct WholePayload {
  __m256i low;    // Bytes 0-31.
  __m256i high;   // Bytes 32-63; zeros past the payload in both.
  uint64_t more;  // Bit i: byte i has its continuation bit set.
};

// Whether LoadWholePayload's two 32-byte masked loads from p touch a single 4 KB page, so none of
// them touches a page that holds no byte of the payload. Intel's manual says a masked-off word
// never faults; AMD's leaves it to the implementation. (About 1 payload in 65 starts too close to
// its page's end, and takes the general way.)
inline bool LoadsStayOnOnePage(const uint8_t* p) {
  return (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 64;
}

// Reads the payload p[0, n), 16 <= n <= 64, into a WholePayload: its n / 4 whole 4-byte words by
// masked loads (vpmaskmovd, which reads nothing of the words it masks off), its last n % 4 bytes
// from the 4-byte word ending at its end, shifted down and put in as word n / 4 (zero when there
// are none). REQUIRES: LoadsStayOnOnePage(p).
__attribute__((always_inline)) inline WholePayload LoadWholePayload(const uint8_t* p, int n) {
  const __m256i low_words = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i high_words = _mm256_add_epi32(low_words, _mm256_set1_epi32(8));
  const __m256i whole_words = _mm256_set1_epi32(n >> 2);  // Also the tail's word.
  __m256i low = _mm256_maskload_epi32(reinterpret_cast<const int*>(p),
                                      _mm256_cmpgt_epi32(whole_words, low_words));
  __m256i high = _mm256_maskload_epi32(reinterpret_cast<const int*>(p + 32),
                                       _mm256_cmpgt_epi32(whole_words, high_words));
  uint32_t last;
  std::memcpy(&last, p + n - 4, 4);
  const __m256i tail = _mm256_set1_epi32(static_cast<int>(uint64_t{last} >> (8 * (4 - (n & 3)))));
  low = _mm256_blendv_epi8(low, tail, _mm256_cmpeq_epi32(low_words, whole_words));
  high = _mm256_blendv_epi8(high, tail, _mm256_cmpeq_epi32(high_words, whole_words));
  return {low, high,
          static_cast<uint32_t>(_mm256_movemask_epi8(low)) |
              (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(high))} << 32)};
}

// The payload of n bytes (1 <= n <= 64) whose varints are all one or two bytes, given in two
// registers (`low`: bytes 0-31, `high`: bytes 32-63, anything past the payload), in 16-byte steps
// (two_byte_steps_avx2-inl.h), the bytes past it made continuations. Stores as TwoByteSteps does.
template <VarintFormat F, class Bits>
__attribute__((always_inline)) inline void TwoByteStepsFromRegisters(
    __m256i low, __m256i high, int n, typename FormatTraits<F>::Out* out) {
  const __m128i bytes[4] = {_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1),
                            _mm256_castsi256_si128(high), _mm256_extracti128_si256(high, 1)};
  TwoByteSteps<F, Bits> steps{out};
  TwoByteStepsOverGroups(&steps, n, [&bytes](int j) { return bytes[j]; });
}

// decode_tiny_bounded: StepBoundedTiny over WholeStepPayloads, except for 64-bit payloads (no
// running sum) of 16 to 64 bytes whose varints are all at most five bytes, where the caller offers
// the spare slots: those are read once into registers (LoadWholePayload) and decoded from them,
// where some varint is over two bytes (an OSM way's refs, whose first value is a whole node id) in
// 32-bit lanes, one step per 8 bytes (varint_lanes_avx2-inl.h), else in 16-byte steps, or widened
// where all are one byte. Reading such a payload once and cutting the steps from registers took
// less time than reading its continuation bits and then each step's bytes from memory
// (docs/kernels.md). Every other payload goes to StepBoundedTiny's decoder, which reads it again
// its own way.
template <class Bits, template <VarintFormat, bool> class Loop>
struct WholeStepBoundedTiny {
  using General = StepBoundedTiny<WholeStepPayloads<Bits>::template Steps, Loop, kSlots>;

  template <VarintFormat F>
  struct Decoder : General::template Decoder<F> {
    using Base = typename General::template Decoder<F>;
    using Out = typename FormatTraits<F>::Out;

    static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int room) {
      const int n = static_cast<int>(end - p);
      if (n >= 16 && n <= 64 && LoadsStayOnOnePage(p)) {
        const WholePayload whole = LoadWholePayload(p, n);
        const uint64_t more = whole.more;
        const int count = VarintsEndingIn(more, n);
        Out* const out = static_cast<Out*>(out_void);
        // Not ending inside a varint, no varint over five bytes, and the spare slots.
        if (((more >> (n - 1)) & 1) == 0 && VarintLanes<F, 5>::Takes(more) &&
            room - count >= static_cast<int>(kSlots)) {
          PBACCEL_KERNEL_PROBE(register_payloads);
          if (more == 0) {
            StoreOneByteRun<F>(p, n, out);
          } else if (AllVarintsUpToTwoBytes(more)) {
            TwoByteStepsFromRegisters<F, Bits>(whole.low, whole.high, n, out);
          } else {
            VarintLanes<F, 5>::Payload(whole.low, whole.high, n, more, out);
          }
          return count;
        }
      }
      return Base::Run(p, end, out_void, room);
    }

    static constexpr TinyDecodeFn Entry() {
      if constexpr (kLaneFormat<F>) {
        return &Run;
      } else {
        return Base::kRun;
      }
    }
    static constexpr TinyDecodeFn kRun = Entry();
  };
};

// decode_window (kernel_abi.h): the 64 bytes from the payload's start in two loads, their
// continuation bits cut to the payload's, then the payload decoded from those registers the ways
// WholeStepBoundedTiny's registers are: a 64-bit format's varints of at most five bytes in 32-bit
// lanes, every such payload (also one of one- and two-byte varints: one way for all of OSM's refs,
// no branch on their shape); another format's one-byte varints widened, one- and two-byte ones in
// 16-byte steps, others in 8-byte steps (from memory, reading only the payload). Bytes past the
// payload reach only lanes and slots that no value takes. Declines a 64-bit payload with a varint
// over five bytes and any other with one over ten. No reading the payload exactly, no page test:
// that is what it saves the bounded decoder's callers that can vouch for 64 bytes.
template <class Bits>
struct WholeStepWindow {
  template <VarintFormat F>
  struct Decoder {
    using Out = typename FormatTraits<F>::Out;

    static int Run(const uint8_t* p, const uint8_t* end, void* out_void, int /*room*/) {
      const int n = static_cast<int>(end - p);
      const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
      const uint64_t more = (static_cast<uint32_t>(_mm256_movemask_epi8(low)) |
                             (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(high))} << 32)) &
                            PayloadBytes(n);
      if (((more >> (n - 1)) & 1) != 0) return kTinyMalformed;  // Ends inside a varint.
      Out* const out = static_cast<Out*>(out_void);
      if constexpr (kLaneFormat<F>) {
        if (!VarintLanes<F, 5>::Takes(more)) return kTinyUnhandled;
        PBACCEL_KERNEL_PROBE(window_payloads);
        VarintLanes<F, 5>::Payload(low, high, n, more, out);
      } else {
        if (HasVarintLongerThan<10>(more)) return kTinyUnhandled;
        PBACCEL_KERNEL_PROBE(window_payloads);
        if (more == 0) {
          StoreOneByteRun<F>(p, n, out);
        } else if (AllVarintsUpToTwoBytes(more)) {
          TwoByteStepsFromRegisters<F, Bits>(low, high, n, out);
        } else {
          WholeSteps<F, Bits>{out}.Payload(p, n, LoadLittleEndian64(p));
        }
      }
      return VarintsEndingIn(more, n);
    }

    static constexpr TinyDecodeFn kRun = &Run;
  };
};
