// Copyright 2026 The pbaccel Authors.
//
// two_byte_steps_sse41-inl.h: payloads whose varints are all one or two bytes long in 16-byte
// steps with SSE4.1 (the masked_vbyte kernel's short payloads), and what the AVX2 form of the same
// steps (two_byte_steps_avx2-inl.h) shares with it: a step's bytes read without reading past the
// payload, and the steps run over a whole payload.
//
// One step is two_byte_steps_avx2-inl.h's, in two 8-lane halves instead of one 16-lane vector: the
// 16 bytes widened to 16-bit lanes, each lane's value computed as if its byte ended a varint (its
// low 7 bits, above the previous byte's low 7 bits when that byte continues), the lanes of the
// bytes that do end a varint gathered to the front of each half by pshufb with
// two_byte_lanes-inl.h's table, each half storing eight slots, the second from the first's count
// on. A varint crossing from one step into the next is joined through the previous step's last
// byte (palignr). No branch on the values.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 (or more), after parsers/kernel_probes.h (tests count the steps with),
// parsers/varint_format-inl.h (ZigZag32/64) and parsers/two_byte_lanes-inl.h. No include guard;
// includes nothing (varint_format-inl.h says why).

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

// Stores eight values given in 16-bit lanes into out[0, 8) in the format's output type, with
// SSE4.1's widening moves (bool: value != 0, one byte each).
template <VarintFormat F>
inline void StoreEightFrom16Sse41(__m128i v, typename FormatTraits<F>::Out* out) {
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
      if constexpr (F == VarintFormat::kSInt64) lanes[i] = ZigZag64(lanes[i]);
      _mm_storeu_si128(to + i, lanes[i]);
    }
  }
}

// 16-byte steps over a payload of varints of at most two bytes, storing at the values' end, as
// two_byte_steps_avx2-inl.h's TwoByteSteps does (up to eight slots past the last value are
// overwritten). Not for the delta formats.
template <VarintFormat F>
struct TwoByteStepsSse41 {
  using Out = typename FormatTraits<F>::Out;
  Out* out;
  size_t count = 0;                    // Values stored.
  __m128i last = _mm_setzero_si128();  // The previous step's bytes (its last may continue).

  // `bytes`: the step's 16 bytes, any past the payload already made continuation bytes.
  // REQUIRES: the payload's varints are at most two bytes (AllVarintsUpToTwoBytes), and none ends
  // in a step's bytes past the payload.
  __attribute__((always_inline)) void Step(__m128i bytes) {
    PBACCEL_KERNEL_PROBE(two_byte_steps);
    const __m128i before = _mm_alignr_epi8(bytes, last, 15);  // Byte i - 1 for each byte i.
    last = bytes;
    const unsigned ends = ~static_cast<unsigned>(_mm_movemask_epi8(bytes)) & 0xFFFFu;
    const __m128i low7 = _mm_set1_epi16(0x7F);
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      const __m128i own =
          _mm_and_si128(_mm_cvtepu8_epi16(half == 0 ? bytes : _mm_srli_si128(bytes, 8)), low7);
      const __m128i previous = _mm_cvtepu8_epi16(half == 0 ? before : _mm_srli_si128(before, 8));
      const __m128i joined = _mm_or_si128(_mm_slli_epi16(own, 7), _mm_and_si128(previous, low7));
      // All ones in the lanes whose previous byte continues: their varint began there.
      const __m128i continued = _mm_srai_epi16(_mm_slli_epi16(previous, 8), 15);
      const unsigned half_ends = (ends >> (8 * half)) & 0xFFu;
      const __m128i gathered = _mm_shuffle_epi8(
          _mm_blendv_epi8(own, joined, continued),
          _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[half_ends].control)));
      StoreEightFrom16Sse41<F>(gathered, out + count);
      count += static_cast<size_t>(__builtin_popcount(half_ends));
    }
  }

  __attribute__((always_inline)) void Payload(const uint8_t* p, int n, uint64_t short_word) {
    TwoByteStepsOverPayload(this, p, n, short_word);
  }
};
