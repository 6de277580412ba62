// Copyright 2026 The pbaccel Authors.
//
// running_sums-inl.h: RunningSumsInPlace, the delta formats' sums over gaps already stored (the
// second half of varint_format-inl.h's SumsAfterGaps). Wrapping sums, as the delta formats' values
// wrap: out[i] becomes *sum + out[0] + ... + out[i] modulo 2^32 (2^64).
//
// With AVX2 (a kernel compiled with -mavx2), a vector of four 64-bit or eight 32-bit gaps at a
// time: its own running sums by shifted adds (log2 of the lanes), then the carry of everything
// before it added, the carry itself advanced by the vector's total. The carry's chain is one add
// per vector, where a scalar loop's is one per value. With SSE4.1 only (masked_vbyte), the same
// with 128-bit vectors of two or four gaps. Elsewhere, and for the last few gaps, the scalar
// loop.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, by
// varint_format-inl.h, after <cstddef>, <cstdint> and, for the AVX2 form, the kernel's
// <immintrin.h> and parsers/kernel_probes.h (tests count its vectors). No include guard (see
// varint_format-inl.h for why each kernel gets its own copy).

template <typename Out>
inline void RunningSumsScalar(Out* out, size_t count, Out* sum) {
  Out acc = *sum;
  for (size_t i = 0; i < count; ++i) {
    acc = static_cast<Out>(acc + out[i]);
    out[i] = acc;
  }
  *sum = acc;
}

#ifdef __AVX2__
// Four 64-bit lanes: [a, b, c, d] -> [a, a+b, a+b+c, a+b+c+d].
inline __m256i RunningSums4x64(__m256i v) {
  // + [0, a, b, c]: lanes moved up one, lane 0 zeroed.
  v = _mm256_add_epi64(
      v, _mm256_blend_epi32(_mm256_permute4x64_epi64(v, 0x90), _mm256_setzero_si256(), 0x03));
  // + [0, 0, a, a+b]: the low half moved up, the low half zeroed.
  return _mm256_add_epi64(v, _mm256_permute2x128_si256(v, v, 0x08));
}

// Eight 32-bit lanes, the same: each 128-bit half's running sums by byte shifts within the halves,
// then the low half's total added to the high half.
inline __m256i RunningSums8x32(__m256i v) {
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
  const __m256i low_total = _mm256_shuffle_epi32(v, 0xFF);  // Each half's lane 3, four times.
  return _mm256_add_epi32(v, _mm256_permute2x128_si256(low_total, low_total, 0x08));
}
#endif  // __AVX2__

#if defined(__SSE4_1__) && !defined(__AVX2__)
// Two 64-bit lanes: [a, b] -> [a, a+b].
inline __m128i RunningSums2x64(__m128i v) { return _mm_add_epi64(v, _mm_slli_si128(v, 8)); }

// Four 32-bit lanes: [a, b, c, d] -> [a, a+b, a+b+c, a+b+c+d].
inline __m128i RunningSums4x32(__m128i v) {
  v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
  return _mm_add_epi32(v, _mm_slli_si128(v, 8));
}
#endif  // __SSE4_1__ && !__AVX2__

template <typename Out>
inline void RunningSumsInPlace(Out* out, size_t count, Out* sum) {
#ifdef __AVX2__
  if constexpr (sizeof(Out) == 8 || sizeof(Out) == 4) {
    constexpr size_t kLanes = 32 / sizeof(Out);
    if (count >= kLanes) {
      __m256i carry = sizeof(Out) == 8 ? _mm256_set1_epi64x(static_cast<int64_t>(*sum))
                                       : _mm256_set1_epi32(static_cast<int32_t>(*sum));
      size_t i = 0;
      for (; count - i >= kLanes; i += kLanes) {
        __m256i* const at = reinterpret_cast<__m256i*>(out + i);
        const __m256i gaps = _mm256_loadu_si256(at);
        PBACCEL_KERNEL_PROBE(running_sum_vectors);
        if constexpr (sizeof(Out) == 8) {
          const __m256i sums = RunningSums4x64(gaps);
          _mm256_storeu_si256(at, _mm256_add_epi64(sums, carry));
          carry = _mm256_add_epi64(carry, _mm256_permute4x64_epi64(sums, 0xFF));
        } else {
          const __m256i sums = RunningSums8x32(gaps);
          _mm256_storeu_si256(at, _mm256_add_epi32(sums, carry));
          carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(sums, _mm256_set1_epi32(7)));
        }
      }
      *sum = static_cast<Out>(_mm256_extract_epi64(carry, 0));
      RunningSumsScalar(out + i, count - i, sum);
      return;
    }
  }
#elif defined(__SSE4_1__)
  if constexpr (sizeof(Out) == 8 || sizeof(Out) == 4) {
    constexpr size_t kLanes = 16 / sizeof(Out);
    if (count >= kLanes) {
      __m128i carry = sizeof(Out) == 8 ? _mm_set1_epi64x(static_cast<int64_t>(*sum))
                                       : _mm_set1_epi32(static_cast<int32_t>(*sum));
      size_t i = 0;
      for (; count - i >= kLanes; i += kLanes) {
        __m128i* const at = reinterpret_cast<__m128i*>(out + i);
        const __m128i gaps = _mm_loadu_si128(at);
        PBACCEL_KERNEL_PROBE(running_sum_vectors);
        if constexpr (sizeof(Out) == 8) {
          const __m128i sums = RunningSums2x64(gaps);
          _mm_storeu_si128(at, _mm_add_epi64(sums, carry));
          carry = _mm_add_epi64(carry, _mm_unpackhi_epi64(sums, sums));
        } else {
          const __m128i sums = RunningSums4x32(gaps);
          _mm_storeu_si128(at, _mm_add_epi32(sums, carry));
          carry = _mm_add_epi32(carry, _mm_shuffle_epi32(sums, 0xFF));
        }
      }
      *sum = static_cast<Out>(_mm_cvtsi128_si64(carry));
      RunningSumsScalar(out + i, count - i, sum);
      return;
    }
  }
#endif  // __AVX2__ / __SSE4_1__
  RunningSumsScalar(out, count, sum);
}
