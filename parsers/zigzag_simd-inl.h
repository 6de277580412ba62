// Copyright 2026 The pbaccel Authors.
//
// zigzag_simd-inl.h: protobuf's zigzag decoding (WireFormatLite::ZigZagDecode32/64) on every lane
// of a vector, for every vector width the kernels use. One formula for all of them:
//
//   value = (n >> 1) ^ -(n & 1)     (logical shift; -(n & 1) is all ones for odd n)
//
// ZigZag32 works on 32-bit lanes, ZigZag64 on 64-bit lanes. The 128-bit forms need SSE2, the
// 256-bit ones AVX2 (defined when __AVX2__ is), the 512-bit ones AVX-512F (when __AVX512F__ is).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// file, after <immintrin.h> (or <smmintrin.h>). No include guard (see varint_format-inl.h for why
// each kernel gets its own copy).

inline __m128i ZigZag32(__m128i n) {
  return _mm_xor_si128(_mm_srli_epi32(n, 1),
                       _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(n, _mm_set1_epi32(1))));
}
inline __m128i ZigZag64(__m128i n) {
  return _mm_xor_si128(_mm_srli_epi64(n, 1),
                       _mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(n, _mm_set1_epi64x(1))));
}

#ifdef __AVX2__
inline __m256i ZigZag32(__m256i n) {
  return _mm256_xor_si256(
      _mm256_srli_epi32(n, 1),
      _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(n, _mm256_set1_epi32(1))));
}
inline __m256i ZigZag64(__m256i n) {
  return _mm256_xor_si256(
      _mm256_srli_epi64(n, 1),
      _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(n, _mm256_set1_epi64x(1))));
}
#endif

#ifdef __AVX512F__
inline __m512i ZigZag32(__m512i n) {
  return _mm512_xor_si512(
      _mm512_srli_epi32(n, 1),
      _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_and_si512(n, _mm512_set1_epi32(1))));
}
inline __m512i ZigZag64(__m512i n) {
  return _mm512_xor_si512(
      _mm512_srli_epi64(n, 1),
      _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_and_si512(n, _mm512_set1_epi64(1))));
}
#endif
