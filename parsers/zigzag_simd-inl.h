// Copyright 2026 The pbaccel Authors.
//
// zigzag_simd-inl.h: protobuf's zigzag decoding (WireFormatLite::ZigZagDecode32/64) on every lane
// of a vector, for every vector width the kernels and the shared short-payload code use. One
// formula for all of them:
//
//   value = (n >> 1) ^ -(n & 1)     (logical shift; -(n & 1) is all ones for odd n)
//
// ZigZag32 works on 32-bit lanes, ZigZag64 on 64-bit lanes: SSE2's 128-bit forms (x86-64's
// baseline), AVX2's 256-bit ones (when __AVX2__ is defined), AVX-512F's 512-bit ones (when
// __AVX512F__ is), NEON's uint32x4_t and uint64x2_t forms (AArch64's baseline).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, by
// varint_format-inl.h (which every kernel and the shared decoders include), after
// pbaccel/internal/kernel_abi.h (<emmintrin.h> or <arm_neon.h>) and, for the wider forms, the
// kernel's <immintrin.h>. No include guard (see varint_format-inl.h for why each kernel gets its
// own copy).

#if defined(__SSE2__)
inline __m128i ZigZag32(__m128i n) {
  return _mm_xor_si128(_mm_srli_epi32(n, 1),
                       _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(n, _mm_set1_epi32(1))));
}
inline __m128i ZigZag64(__m128i n) {
  return _mm_xor_si128(_mm_srli_epi64(n, 1),
                       _mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(n, _mm_set1_epi64x(1))));
}
#endif  // __SSE2__

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

#if defined(__ARM_NEON)
inline uint32x4_t ZigZag32(uint32x4_t n) {
  const int32x4_t low = vreinterpretq_s32_u32(vandq_u32(n, vdupq_n_u32(1)));
  return veorq_u32(vshrq_n_u32(n, 1), vreinterpretq_u32_s32(vnegq_s32(low)));
}
inline uint64x2_t ZigZag64(uint64x2_t n) {
  const int64x2_t low = vreinterpretq_s64_u64(vandq_u64(n, vdupq_n_u64(1)));
  return veorq_u64(vshrq_n_u64(n, 1), vreinterpretq_u64_s64(vnegq_s64(low)));
}
#endif

#ifdef __ARM_FEATURE_SVE
inline svuint32_t ZigZag32(svbool_t pg, svuint32_t n) {
  return sveor_u32_x(pg, svlsr_n_u32_x(pg, n, 1), svsubr_n_u32_x(pg, svand_n_u32_x(pg, n, 1), 0));
}
inline svuint64_t ZigZag64(svbool_t pg, svuint64_t n) {
  return sveor_u64_x(pg, svlsr_n_u64_x(pg, n, 1), svsubr_n_u64_x(pg, svand_n_u64_x(pg, n, 1), 0));
}
#endif
