// Copyright 2026 The pbaccel Authors.
//
// running_sums-inl.h: the delta formats' block decoders made of their gaps' decoders
// (SumsAfterGaps, and DeltaAfterGaps, which a kernel's descriptor takes), and RunningSumsInPlace,
// their sums over gaps already stored. Wrapping sums, as the delta formats' values wrap: out[i]
// becomes *sum + out[0] + ... + out[i] modulo 2^32 (2^64).
//
// With AVX2 (a kernel compiled with -mavx2), a vector of four 64-bit or eight 32-bit gaps at a
// time: its own running sums by shifted adds (log2 of the lanes), then the carry of everything
// before it added, the carry itself advanced by the vector's total. The carry's chain is one add
// per vector, where a scalar loop's is one per value. With SSE4.1 only (masked_vbyte), the same
// with 128-bit vectors of two or four gaps. Elsewhere, and for the last few gaps, the scalar
// loop.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, by
// varint_format-inl.h after its FormatTraits, after <cstddef>, <cstdint> and, for the vector forms,
// the kernel's <immintrin.h> and parsers/kernel_probes.h (tests count its vectors). No include
// guard (see varint_format-inl.h for why each kernel gets its own copy).

template <typename Out>
inline void RunningSumsScalar(Out* out, size_t count, Out* sum) {
  Out acc = *sum;
  for (size_t i = 0; i < count; ++i) {
    acc = WrappingAdd(acc, out[i]);
    out[i] = acc;
  }
  *sum = acc;
}

// SumVector<Out>: the vector form's operations on gaps of type Out (uint32_t, uint64_t or int64_t):
// kLanes of them a vector; Sums(v), v's own running sums; Last(v), its last lane in every lane.
#ifdef __AVX2__
template <typename Out>
struct SumVector {
  using V = __m256i;
  static constexpr size_t kLanes = 32 / sizeof(Out);
  static V Broadcast(Out x) {
    return sizeof(Out) == 8 ? _mm256_set1_epi64x(static_cast<int64_t>(x))
                            : _mm256_set1_epi32(static_cast<int32_t>(x));
  }
  static V Load(const Out* p) { return _mm256_loadu_si256(reinterpret_cast<const V*>(p)); }
  static void Store(Out* p, V v) { _mm256_storeu_si256(reinterpret_cast<V*>(p), v); }
  static V Add(V a, V b) {
    return sizeof(Out) == 8 ? _mm256_add_epi64(a, b) : _mm256_add_epi32(a, b);
  }
  static V Sums(V v) {
    if constexpr (sizeof(Out) == 8) {
      // + [0, a, b, c]: lanes moved up one, lane 0 zeroed; + [0, 0, a, a+b]: the low half moved
      // up, the low half zeroed.
      v = Add(v,
              _mm256_blend_epi32(_mm256_permute4x64_epi64(v, 0x90), _mm256_setzero_si256(), 0x03));
      return Add(v, _mm256_permute2x128_si256(v, v, 0x08));
    } else {
      // Each 128-bit half's running sums by byte shifts within the halves, then the low half's
      // total (its lane 3, four times) added to the high half.
      v = Add(v, _mm256_slli_si256(v, 4));
      v = Add(v, _mm256_slli_si256(v, 8));
      const V low_total = _mm256_shuffle_epi32(v, 0xFF);
      return Add(v, _mm256_permute2x128_si256(low_total, low_total, 0x08));
    }
  }
  static V Last(V v) {
    return sizeof(Out) == 8 ? _mm256_permute4x64_epi64(v, 0xFF)
                            : _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
  }
  static Out First(V v) { return static_cast<Out>(_mm256_extract_epi64(v, 0)); }
};
#elif defined(__SSE4_1__)
template <typename Out>
struct SumVector {
  using V = __m128i;
  static constexpr size_t kLanes = 16 / sizeof(Out);
  static V Broadcast(Out x) {
    return sizeof(Out) == 8 ? _mm_set1_epi64x(static_cast<int64_t>(x))
                            : _mm_set1_epi32(static_cast<int32_t>(x));
  }
  static V Load(const Out* p) { return _mm_loadu_si128(reinterpret_cast<const V*>(p)); }
  static void Store(Out* p, V v) { _mm_storeu_si128(reinterpret_cast<V*>(p), v); }
  static V Add(V a, V b) { return sizeof(Out) == 8 ? _mm_add_epi64(a, b) : _mm_add_epi32(a, b); }
  static V Sums(V v) {
    v = Add(v, _mm_slli_si128(v, sizeof(Out)));
    if constexpr (sizeof(Out) == 4) v = Add(v, _mm_slli_si128(v, 8));
    return v;
  }
  static V Last(V v) {
    return sizeof(Out) == 8 ? _mm_unpackhi_epi64(v, v) : _mm_shuffle_epi32(v, 0xFF);
  }
  static Out First(V v) { return static_cast<Out>(_mm_cvtsi128_si64(v)); }
};
#endif

template <typename Out>
inline void RunningSumsInPlace(Out* out, size_t count, Out* sum) {
  static_assert(sizeof(Out) == 4 || sizeof(Out) == 8, "the delta formats' values");
#if defined(__AVX2__) || defined(__SSE4_1__)
  using S = SumVector<Out>;
  if (count >= S::kLanes) {
    typename S::V carry = S::Broadcast(*sum);
    size_t i = 0;
    for (; count - i >= S::kLanes; i += S::kLanes) {
      PBACCEL_KERNEL_PROBE(running_sum_vectors);
      const typename S::V sums = S::Sums(S::Load(out + i));
      S::Store(out + i, S::Add(sums, carry));
      carry = S::Add(carry, S::Last(sums));
    }
    *sum = S::First(carry);
    RunningSumsScalar(out + i, count - i, sum);
    return;
  }
#endif
  RunningSumsScalar(out, count, sum);
}

// The format whose values a delta format sums (the gaps; kernel_abi.h's GapFormat): a decoder may
// store a stretch of a delta format's gaps as this format would, then turn them into running sums
// in place (RunningSumsInPlace).
template <VarintFormat F>
constexpr VarintFormat kGapFormat = GapFormat(F);

// Values per stretch of SumsAfterGaps: 16 KiB of 64-bit sums, in the L1 cache while summed.
constexpr size_t kGapStretch = 2048;

// A lenient delta format's block decoder made of its gaps' decoder, Decoder<kGapFormat<F>, false>:
// the gaps of up to kGapStretch values at a time, each stretch then made running sums in place.
// It accepts, rejects and stops where the gaps' decoder does (a delta format converts and accepts
// values as its gap format, lenient), so its results are a fused decoder's. For kernels whose
// fused sums, slot by slot inside their steps, cost more than the gaps' vector stores and a loop
// (docs/kernels.md, "Delta formats: the gaps, then their sums").
template <template <VarintFormat, bool> class Decoder, VarintFormat F>
struct SumsAfterGaps {
  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    using Out = typename FormatTraits<F>::Out;
    Out* const out = static_cast<Out*>(out_void);
    Out sum = static_cast<Out>(delta_base);
    size_t n = 0;
    for (;;) {
      const size_t room = cap - n < kGapStretch ? cap - n : kGapStretch;
      const DecodeResult r = Decoder<kGapFormat<F>, false>::Run(p, end, out + n, room, 0);
      RunningSumsInPlace(out + n, r.count, &sum);
      n += r.count;
      if (r.status != DecodeStatus::kOutputFull || n == cap) return {r.pos, n, r.status};
      p = r.pos;
    }
  }
};

// Decoder, with its lenient delta formats made SumsAfterGaps (only those of kOnly, where it names
// any): DeltaAfterGaps<D>::Decoder is a kernel's block decoder template for MakeKernelDescriptor.
template <template <VarintFormat, bool> class D, VarintFormat... kOnly>
struct DeltaAfterGaps {
  template <VarintFormat F>
  static constexpr bool kTakes = sizeof...(kOnly) == 0 || ((F == kOnly) || ...);

  template <VarintFormat F, bool kStrict>
  struct Decoder {
    static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                            uint64_t delta_base) {
      if constexpr (FormatTraits<F>::kDelta && !kStrict && kTakes<F>) {
        return SumsAfterGaps<D, F>::Run(p, end, out, cap, delta_base);
      } else {
        return D<F, kStrict>::Run(p, end, out, cap, delta_base);
      }
    }
  };
};
