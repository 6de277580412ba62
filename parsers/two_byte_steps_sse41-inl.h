// Copyright 2026 The pbaccel Authors.
//
// two_byte_steps_sse41-inl.h: payloads whose varints are all one or two bytes long (values below
// 2^14: tile geometry and tags, string-table indices, most small ids) in 16-byte steps, about three
// times fewer instructions than two 8-byte steps (step8_avx2-inl.h) take for the same bytes: the
// steps themselves, a step's bytes read without reading past the payload, the steps run over a
// whole payload, and their SSE4.1 lanes (the masked_vbyte kernel's short payloads). The AVX2
// kernels' lanes: two_byte_steps_avx2-inl.h.
//
// One step (TwoByteLaneSteps, both forms): the 16 bytes widened to 16-bit lanes, each lane's value
// computed as if its byte ended a varint (its low 7 bits, above the previous byte's low 7 bits when
// that byte continues: a varint of at most two bytes has nothing further back), the lanes of the
// bytes that do end a varint gathered to the front of each 8-lane half by pshufb with
// two_byte_lanes-inl.h's table, each half storing eight slots, the second from the first's count
// on. A varint crossing from one step into the next is joined through the previous step's last
// byte (palignr). No branch on the values. SSE4.1 computes the two halves apart, AVX2 in one
// 16-lane vector.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 and -mpopcnt (or more), after parsers/kernel_probes.h (tests count the
// steps with), parsers/varint_format-inl.h (ZigZag32/64) and parsers/two_byte_lanes-inl.h. No
// include guard; includes nothing (varint_format-inl.h says why).

// The bytes past `valid` (0 to 16) of a step made continuation bytes without payload bits.
inline __m128i PastPayloadContinues(__m128i bytes, int valid) {
  alignas(16) static constexpr uint8_t kContinuation[32] = {
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
  return _mm_or_si128(
      bytes, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kContinuation + 16 - valid)));
}

// The 16-byte step at p[at, at + 16) of the payload p[0, n), 16 <= n and at < n, reading only the
// payload: a step over the payload's end takes its last 16 bytes shifted down (pshufb), the bytes
// past the payload made continuation bytes.
inline __m128i PayloadStepBytes(const uint8_t* p, int n, int at) {
  const int from = at < n - 16 ? at : n - 16;
  const int shift = at - from;  // 0 to 15.
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + from));
  const __m128i down = _mm_shuffle_epi8(
      bytes, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShiftDownControls + shift)));
  return PastPayloadContinues(down, 16 - shift);
}

// kSteps steps over the payload p[0, n), 16 * (kSteps - 1) < n <= 16 * kSteps, reading only the
// payload (PayloadStepBytes).
template <int kSteps, class Steps>
__attribute__((always_inline)) inline void TwoByteStepsOver(Steps* steps, const uint8_t* p, int n) {
#pragma GCC unroll 4
  for (int j = 0; j < kSteps; ++j) steps->Step(PayloadStepBytes(p, n, 16 * j));
}

// The whole payload p[0, n), 1 <= n <= 64, in 16-byte steps (steps->Step(bytes) each), reading
// only its bytes: one step up to 16 bytes (the first 8 and the last 8 shifted down past them; under
// 8, `short_word`, its bytes as tiny_payload-inl.h's ReadTinyPayloadBits assembles them), then one
// step per 16 bytes, the last one's bytes past the payload made continuations.
template <class Steps>
__attribute__((always_inline)) inline void TwoByteStepsOverPayload(Steps* steps, const uint8_t* p,
                                                                   int n, uint64_t short_word) {
  if (n < 8) {
    steps->Step(PastPayloadContinues(_mm_cvtsi64_si128(static_cast<int64_t>(short_word)), n));
  } else if (n <= 16) {
    // For n = 8 the repeated bytes become continuations.
    steps->Step(
        PastPayloadContinues(_mm_set_epi64x(static_cast<int64_t>(SecondWordOfShortPayload(p, n)),
                                            static_cast<int64_t>(LoadLittleEndian64(p))),
                             n));
  } else if (n <= 32) {
    TwoByteStepsOver<2>(steps, p, n);
  } else if (n <= 48) {
    TwoByteStepsOver<3>(steps, p, n);
  } else {
    TwoByteStepsOver<4>(steps, p, n);
  }
}

// The payload of n bytes (1 <= n <= 64) in 16-byte steps (steps->Step(bytes) each), where 16 bytes
// of each step's group are readable as bytes_of(j) (j = 0 to 3: from registers, or loads with 64
// bytes readable): the last group's bytes past the payload made continuations.
template <class Steps, class BytesOf>
__attribute__((always_inline)) inline void TwoByteStepsOverGroups(Steps* steps, int n,
                                                                  BytesOf bytes_of) {
  const int last = (n - 1) / 16;
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    if (j > last) break;
    steps->Step(j < last ? bytes_of(j) : PastPayloadContinues(bytes_of(j), n - 16 * j));
  }
}

// 16-byte steps over a payload of varints of at most two bytes, storing at the values' end. Each
// step stores eight slots from its first value and eight from its second half's first: up to
// eight slots past the last value are overwritten. Not for the delta formats. How a step's lanes
// are computed and stored is `Lanes`:
//
//   struct Lanes {
//     // The step's values into out[0, 8) (bytes 0-7's) and out[first_half, first_half + 8)
//     // (bytes 8-15's), in the format's output type: the 16 bytes `bytes`, byte i - 1 at byte i in
//     // `before`, bit i of `ends` set where byte i ends a varint, first_half = those in bytes 0-7.
//     template <VarintFormat F>
//     static void Put(__m128i bytes, __m128i before, unsigned ends, int first_half,
//                     typename FormatTraits<F>::Out* out);
//   };
//
// Sse41Lanes below (two 8-lane halves); the AVX2 kernels' Avx2Lanes (two_byte_steps_avx2-inl.h,
// one 16-lane vector).
template <VarintFormat F, class Lanes>
struct TwoByteLaneSteps {
  using Out = typename FormatTraits<F>::Out;
  Out* out;
  size_t count = 0;                    // Values stored.
  __m128i last = _mm_setzero_si128();  // The previous step's bytes (its last may continue).

  // `bytes`: the step's 16 bytes, any past the payload already made continuation bytes (no varint
  // ends there). REQUIRES: the payload's varints are at most two bytes (AllVarintsUpToTwoBytes),
  // and none ends in a step's bytes past the payload.
  __attribute__((always_inline)) void Step(__m128i bytes) {
    PBACCEL_KERNEL_PROBE(two_byte_steps);
    const __m128i before = _mm_alignr_epi8(bytes, last, 15);  // Byte i - 1 for each byte i.
    last = bytes;
    const unsigned ends = ~static_cast<unsigned>(_mm_movemask_epi8(bytes)) & 0xFFFFu;
    Lanes::template Put<F>(bytes, before, ends, __builtin_popcount(ends & 0xFFu), out + count);
    count += static_cast<size_t>(__builtin_popcount(ends));
  }

  // The whole payload p[0, n), 1 <= n <= 64, reading only its bytes (TwoByteStepsOverPayload).
  __attribute__((always_inline)) void Payload(const uint8_t* p, int n, uint64_t short_word) {
    TwoByteStepsOverPayload(this, p, n, short_word);
  }
};

// SSE4.1's lanes: each 8-lane half computed and stored on its own, by SSE4.1's widening moves
// (bool: value != 0, a byte each).
struct Sse41Lanes {
  template <VarintFormat F>
  __attribute__((always_inline)) static void Put(__m128i bytes, __m128i before, unsigned ends,
                                                 int first_half,
                                                 typename FormatTraits<F>::Out* out) {
    PutHalf<F>(bytes, before, ends & 0xFFu, out);
    PutHalf<F>(_mm_srli_si128(bytes, 8), _mm_srli_si128(before, 8), ends >> 8, out + first_half);
  }

  // One half: its 8 bytes (the low ones of `bytes`, the bytes before them in `before`'s), their
  // varint ends in `ends`' low 8 bits.
  template <VarintFormat F>
  __attribute__((always_inline)) static void PutHalf(__m128i bytes, __m128i before, unsigned ends,
                                                     typename FormatTraits<F>::Out* out) {
    const __m128i low7 = _mm_set1_epi16(0x7F);
    const __m128i own = _mm_and_si128(_mm_cvtepu8_epi16(bytes), low7);
    const __m128i previous = _mm_cvtepu8_epi16(before);
    const __m128i joined = _mm_or_si128(_mm_slli_epi16(own, 7), _mm_and_si128(previous, low7));
    // All ones in the lanes whose previous byte continues: their varint began there.
    const __m128i continued = _mm_srai_epi16(_mm_slli_epi16(previous, 8), 15);
    StoreEight<F>(
        _mm_shuffle_epi8(
            _mm_blendv_epi8(own, joined, continued),
            _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[ends].control))),
        out);
  }

  // Eight 16-bit lanes to out[0, 8) in the format's output type.
  template <VarintFormat F>
  __attribute__((always_inline)) static void StoreEight(__m128i v,
                                                        typename FormatTraits<F>::Out* out) {
    using Out = typename FormatTraits<F>::Out;
    __m128i* const to = reinterpret_cast<__m128i*>(out);
    if constexpr (F == VarintFormat::kBool) {
      _mm_storel_epi64(to, _mm_packus_epi16(_mm_min_epu16(v, _mm_set1_epi16(1)), v));
    } else if constexpr (sizeof(Out) == 4) {
      __m128i lanes[2] = {_mm_cvtepu16_epi32(v), _mm_cvtepu16_epi32(_mm_srli_si128(v, 8))};
      for (int i = 0; i < 2; ++i) {
        if constexpr (F == VarintFormat::kSInt32) lanes[i] = ZigZag32(lanes[i]);
        _mm_storeu_si128(to + i, lanes[i]);
      }
    } else {
      __m128i lanes[4] = {_mm_cvtepu16_epi64(v), _mm_cvtepu16_epi64(_mm_srli_si128(v, 4)),
                          _mm_cvtepu16_epi64(_mm_srli_si128(v, 8)),
                          _mm_cvtepu16_epi64(_mm_srli_si128(v, 12))};
      for (int i = 0; i < 4; ++i) {
        if constexpr (kZigZag64<F>) lanes[i] = ZigZag64(lanes[i]);
        _mm_storeu_si128(to + i, lanes[i]);
      }
    }
  }
};

template <VarintFormat F>
using TwoByteStepsSse41 = TwoByteLaneSteps<F, Sse41Lanes>;

// The most slots a payload's steps store past its last value (decode_tiny_bounded's spare room).
inline constexpr uint32_t kTwoByteStepSpareSlots = 8;
