// Copyright 2026 The pbaccel Authors.
//
// two_byte_steps_avx2-inl.h: payloads whose varints are all one or two bytes long (values below
// 2^14: tile geometry and tags, string-table indices, most small ids) in 16-byte steps, about
// three times fewer instructions than two 8-byte steps (step8_avx2-inl.h) take for the same bytes.
//
// One step: the 16 bytes in 16-bit lanes, each lane's value computed as if its byte ended a varint
// (its low 7 bits, above the previous byte's low 7 bits when that byte continues: a varint of at
// most two bytes has nothing further back), then the lanes of the bytes that do end a varint
// gathered to the front of each 8-lane half by pshufb with two_byte_lanes-inl.h's table, keyed by
// the half's terminator bits. Each half stores eight slots, the second from the first's count on. A
// varint that crosses from one step into the next is joined through the previous step's last byte
// (palignr). No branch on the values.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after parsers/kernel_probes.h (which tests count the steps
// with), parsers/two_byte_lanes-inl.h, parsers/two_byte_steps_sse41-inl.h (a step's bytes within
// the payload, the steps over a whole payload), parsers/step8_avx2-inl.h (StoreFields) and
// parsers/store8x32_avx2-inl.h. No include guard; includes nothing (varint_format-inl.h says why).

// Stores eight values given in 16-bit lanes into out[0, 8) in the format's output type.
template <VarintFormat F, class Bits>
inline void StoreEightFrom16(__m128i v, typename FormatTraits<F>::Out* out) {
  if constexpr (sizeof(typename FormatTraits<F>::Out) == 4) {
    Store8x32<F>(_mm256_cvtepu16_epi32(v), out);
  } else {
    StoreFields<F, Bits>(
        Fields{_mm256_cvtepu16_epi64(v), _mm256_cvtepu16_epi64(_mm_srli_si128(v, 8))}, out);
  }
}

// 16-byte steps over a payload of varints of at most two bytes, storing at the values' end. Each
// step stores eight slots from its first value and eight from its second half's first: up to
// eight slots past the last value are overwritten. Not for the delta formats.
template <VarintFormat F, class Bits>
struct TwoByteSteps {
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
    const __m256i low7 = _mm256_set1_epi16(0x7F);
    const __m256i own = _mm256_and_si256(_mm256_cvtepu8_epi16(bytes), low7);
    const __m256i previous = _mm256_cvtepu8_epi16(before);
    const __m256i joined =
        _mm256_or_si256(_mm256_slli_epi16(own, 7), _mm256_and_si256(previous, low7));
    // All ones in the lanes whose previous byte continues: their varint began there.
    const __m256i continued = _mm256_srai_epi16(_mm256_slli_epi16(previous, 8), 15);
    const __m256i values = _mm256_blendv_epi8(own, joined, continued);
    const unsigned ends = ~static_cast<unsigned>(_mm_movemask_epi8(bytes)) & 0xFFFFu;
    const __m256i gather = _mm256_set_m128i(
        _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[ends >> 8].control)),
        _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[ends & 0xFF].control)));
    const __m256i gathered = _mm256_shuffle_epi8(values, gather);
    const int first_half = __builtin_popcount(ends & 0xFFu);
    StoreEightFrom16<F, Bits>(_mm256_castsi256_si128(gathered), out + count);
    StoreEightFrom16<F, Bits>(_mm256_extracti128_si256(gathered, 1), out + count + first_half);
    count += static_cast<size_t>(__builtin_popcount(ends));
  }

  // The whole payload p[0, n), 1 <= n <= 64, reading only its bytes (TwoByteStepsOverPayload).
  __attribute__((always_inline)) void Payload(const uint8_t* p, int n, uint64_t short_word) {
    TwoByteStepsOverPayload(this, p, n, short_word);
  }
};
