// Copyright 2026 The pbaccel Authors.
//
// store8x32_avx2-inl.h: the AVX2 store of eight decoded values into a 32-bit integer field (int32,
// uint32, sint32, enum), shared by the kernels that write eight 32-bit slots at a time (bmi2,
// masked_vbyte_avx2).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// file compiled with -mavx2, after <immintrin.h> and parsers/varint_format-inl.h (which brings
// zigzag_simd-inl.h). No include guard; includes nothing (see varint_format-inl.h for why
// each kernel gets its own copy).

// Stores eight values given in 32-bit lanes (their low 32 bits are the field values; sint32
// values are zigzag-decoded here) into out[0, 8). No running sum: delta formats cannot use it.
template <VarintFormat F>
inline void Store8x32(__m256i v, typename FormatTraits<F>::Out* out) {
  static_assert(sizeof(typename FormatTraits<F>::Out) == 4 && F != VarintFormat::kBool &&
                    !FormatTraits<F>::kDelta,
                "32-bit integer formats without a running sum only");
  if constexpr (F == VarintFormat::kSInt32) {
    v = ZigZag32(v);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
}
