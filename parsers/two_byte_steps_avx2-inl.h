// Copyright 2026 The pbaccel Authors.
//
// two_byte_steps_avx2-inl.h: the AVX2 kernels' lanes for the 16-byte steps over one- and two-byte
// varints (two_byte_steps_sse41-inl.h's TwoByteLaneSteps, which says what a step does): the whole
// step in one 16-lane vector, stored in 256-bit vectors. TwoByteSteps<F, Bits> is those steps.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after parsers/kernel_probes.h (which tests count the steps
// with), parsers/two_byte_lanes-inl.h, parsers/two_byte_steps_sse41-inl.h (the steps),
// parsers/step8_avx2-inl.h (StoreFields) and parsers/store8x32_avx2-inl.h. No include guard;
// includes nothing (varint_format-inl.h says why).

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

// AVX2's lanes (two_byte_steps_sse41-inl.h's Lanes): the step in one 16-lane vector, its halves
// stored in 256-bit vectors (StoreEightFrom16).
template <class Bits>
struct Avx2Lanes {
  template <VarintFormat F>
  __attribute__((always_inline)) static void Put(__m128i bytes, __m128i before, unsigned ends,
                                                 int first_half,
                                                 typename FormatTraits<F>::Out* out) {
    const __m256i low7 = _mm256_set1_epi16(0x7F);
    const __m256i own = _mm256_and_si256(_mm256_cvtepu8_epi16(bytes), low7);
    const __m256i previous = _mm256_cvtepu8_epi16(before);
    const __m256i joined =
        _mm256_or_si256(_mm256_slli_epi16(own, 7), _mm256_and_si256(previous, low7));
    // All ones in the lanes whose previous byte continues: their varint began there.
    const __m256i continued = _mm256_srai_epi16(_mm256_slli_epi16(previous, 8), 15);
    const __m256i values = _mm256_blendv_epi8(own, joined, continued);
    const __m256i gather = _mm256_set_m128i(
        _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[ends >> 8].control)),
        _mm_load_si128(reinterpret_cast<const __m128i*>(kLaneGathers.ends[ends & 0xFF].control)));
    const __m256i gathered = _mm256_shuffle_epi8(values, gather);
    StoreEightFrom16<F, Bits>(_mm256_castsi256_si128(gathered), out);
    StoreEightFrom16<F, Bits>(_mm256_extracti128_si256(gathered, 1), out + first_half);
  }
};

template <VarintFormat F, class Bits>
using TwoByteSteps = TwoByteLaneSteps<F, Avx2Lanes<Bits>>;
