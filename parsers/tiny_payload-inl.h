// Copyright 2026 The pbaccel Authors.
//
// tiny_payload-inl.h: every kernel's decoder for tiny packed payloads (decode_tiny in
// kernel_abi.h), at most kTinyPayloadBytes (16) bytes: most real packed fields (a tile's geometry
// holds 3 values at the median, an OSM way's refs 5), on which a kernel's setup (constants, masks,
// a count pass) costs more than their few values.
//
// With kTinyReadableBytes (24) bytes readable from the payload's start, the payload's 16 high bits
// are read at once (one SSE2 load and movemask) and so is every varint's end: bit i of `stops`
// says byte i ends a varint. A payload of one-byte varints only is widened and stored 16 at a time
// where there is room for 16 values. Each varint is then one unaligned 8-byte load at its start,
// masked to its length and its 7-bit groups packed together - one PEXT where the kernel is compiled
// with BMI2, else four shift-and-mask steps, which is why without BMI2 only varints of up to 4
// bytes are taken. The loop carries only `stops` and the start offset from one varint to the next,
// never a load, so the values decode in parallel rather than one load latency each.
//
// Also the pieces a kernel's own bounded tiny decoder (decode_tiny_bounded) builds on: the payload
// looked at whole without reading past it (ReadTinyPayloadBits: its continuation bits, its count,
// whether it must be declined or rejected) and one-byte payloads widened exactly
// (StoreOneByteRun), and decode_tiny_bounded built from them (StepBoundedTiny) with a kernel's own
// steps: whole steps on the AVX2 kernels (short_payloads_avx2-inl.h), 16-byte steps for one- and
// two-byte varints on neon (neon.cc).
//
// REQUIRES: included by varint_format-inl.h (inside an anonymous namespace within
// pbaccel::internal, after FormatTraits, OutputSink and zigzag_simd-inl.h); <emmintrin.h>
// (<arm_neon.h> on AArch64) comes with kernel_abi.h, and a kernel compiled with BMI2 has included
// <immintrin.h>. Includes nothing, no include guard.

#if defined(__ARM_NEON) && !defined(__SSE2__)
// NEON has no movemask: byte i of the result is the high bit of byte i of p[0..16) moved to bit
// i % 8 (its sign spread by a shift, masked with that bit's weight), so that adding each 8-byte
// half's bytes gives its eight high bits.
inline uint8x16_t WeightedHighBits(const uint8_t* p) {
  static constexpr uint8_t kWeights[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                           1, 2, 4, 8, 16, 32, 64, 128};
  const int8x16_t bytes = vld1q_s8(reinterpret_cast<const int8_t*>(p));
  return vandq_u8(vreinterpretq_u8_s8(vshrq_n_s8(bytes, 7)), vld1q_u8(kWeights));
}
#endif

// Bit i of the result: the high bit of byte i of p[0..16).
inline uint32_t HighBitsOf16(const uint8_t* p) {
#if defined(__SSE2__)
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif defined(__ARM_NEON)
  const uint8x16_t bits = WeightedHighBits(p);  // Each half's bytes summed.
  return vaddv_u8(vget_low_u8(bits)) | (static_cast<uint32_t>(vaddv_u8(vget_high_u8(bits))) << 8);
#else
  uint32_t bits = 0;
  for (int i = 0; i < 16; ++i) bits |= static_cast<uint32_t>(p[i] >> 7) << i;
  return bits;
#endif
}

// Bit i of the result: the high bit of byte i of p[0..64) (the continuation bits of a 64-byte
// window): two vpmovmskb with AVX2; on NEON each byte's sign masked with its bit's weight and the
// four vectors folded by three rounds of pairwise adds into the 64 bits (about half the
// instructions of HighBitsOf16 four times); else HighBitsOf16 four times.
__attribute__((always_inline)) inline uint64_t HighBitsOf64(const uint8_t* p) {
#if defined(__AVX2__)
  const auto half = [p](int i) {
    return static_cast<uint64_t>(static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i)))));
  };
  return half(0) | (half(1) << 32);
#elif defined(__ARM_NEON)
  // Each round adds neighbouring bytes: after three, byte j holds the bits of bytes 8j..8j+7.
  const uint8x16_t quarters = vpaddq_u8(WeightedHighBits(p), WeightedHighBits(p + 16));
  const uint8x16_t halves =
      vpaddq_u8(quarters, vpaddq_u8(WeightedHighBits(p + 32), WeightedHighBits(p + 48)));
  return vgetq_lane_u64(vreinterpretq_u64_u8(vpaddq_u8(halves, halves)), 0);
#else
  uint64_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= uint64_t{HighBitsOf16(p + 16 * i)} << (16 * i);
  return bits;
#endif
}

#if defined(__BMI2__)
inline constexpr int kTinyVarintMaxBytes = 8;
// The value of the varint whose `bytes` bytes (1 to 8) start w.
inline uint64_t TinyVarintValue(uint64_t w, int bytes) {
  return _pext_u64(_bzhi_u64(w, static_cast<unsigned>(8 * bytes)), 0x7F7F7F7F7F7F7F7Full);
}
#else
inline constexpr int kTinyVarintMaxBytes = 4;
// The value of the varint whose `bytes` bytes (1 to 4) start w.
inline uint64_t TinyVarintValue(uint64_t w, int bytes) {
  const uint32_t x = static_cast<uint32_t>(w & ((uint64_t{1} << (8 * bytes)) - 1));
  return (x & 0x7Fu) | ((x >> 1) & 0x3F80u) | ((x >> 2) & 0x1FC000u) | ((x >> 3) & 0xFE00000u);
}
#endif

#if defined(__SSE2__)
// Writes the first kCount (8 or 16) bytes of `bytes`, one-byte varints (all < 0x80), to
// out[0..kCount) as values of format F. REQUIRES: room for kCount values at `out`.
// Every vector is named: GCC keeps an array of vectors indexed in a loop on the stack (a store and
// a load back per vector, and room for it in the caller's frame). With AVX2, eight 32-bit or four
// 64-bit values a widening move.
template <VarintFormat F, int kCount>
inline void StoreOneByteValues(__m128i bytes, typename FormatTraits<F>::Out* out) {
  static_assert(kCount == 8 || kCount == 16, "8 or 16 values");
  using Out = typename FormatTraits<F>::Out;
  if constexpr (F == VarintFormat::kBool) {
    const __m128i flags = _mm_min_epu8(bytes, _mm_set1_epi8(1));
    if constexpr (kCount == 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), flags);
    } else {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), flags);
    }
  } else {
#if defined(__AVX2__)
    __m256i* const to = reinterpret_cast<__m256i*>(out);
    // The values whose bytes start at byte 0 of `part`, widened to a vector and zigzagged.
    const auto put = [to](int i, __m128i part) {
      __m256i x;
      if constexpr (sizeof(Out) == 4) {
        x = _mm256_cvtepu8_epi32(part);
        if constexpr (F == VarintFormat::kSInt32) x = ZigZag32(x);
      } else {
        x = _mm256_cvtepu8_epi64(part);
        if constexpr (kZigZag64<F>) x = ZigZag64(x);
      }
      _mm256_storeu_si256(to + i, x);
    };
    if constexpr (sizeof(Out) == 4) {
      put(0, bytes);
      if constexpr (kCount == 16) put(1, _mm_srli_si128(bytes, 8));
    } else {
      put(0, bytes);
      put(1, _mm_srli_si128(bytes, 4));
      if constexpr (kCount == 16) {
        put(2, _mm_srli_si128(bytes, 8));
        put(3, _mm_srli_si128(bytes, 12));
      }
    }
#else
    __m128i* const to = reinterpret_cast<__m128i*>(out);
    const __m128i zero = _mm_setzero_si128();
    // Four values in 32-bit lanes, the i-th group of four.
    const auto put = [to](int i, __m128i x) {
      if constexpr (sizeof(Out) == 4) {
        if constexpr (F == VarintFormat::kSInt32) x = ZigZag32(x);
        _mm_storeu_si128(to + i, x);
      } else {
        __m128i low = _mm_unpacklo_epi32(x, _mm_setzero_si128());
        __m128i high = _mm_unpackhi_epi32(x, _mm_setzero_si128());
        if constexpr (kZigZag64<F>) {
          low = ZigZag64(low);
          high = ZigZag64(high);
        }
        _mm_storeu_si128(to + 2 * i, low);
        _mm_storeu_si128(to + 2 * i + 1, high);
      }
    };
    const __m128i lo16 = _mm_unpacklo_epi8(bytes, zero);
    put(0, _mm_unpacklo_epi16(lo16, zero));
    put(1, _mm_unpackhi_epi16(lo16, zero));
    if constexpr (kCount == 16) {
      const __m128i hi16 = _mm_unpackhi_epi8(bytes, zero);
      put(2, _mm_unpacklo_epi16(hi16, zero));
      put(3, _mm_unpackhi_epi16(hi16, zero));
    }
#endif
  }
}
#endif

#if defined(__SSE2__) || defined(__ARM_NEON)
// The 16 one-byte varints (all < 0x80) at p to out[0..16) as values of format F (not a delta
// format): SSE2's StoreOneByteValues, or NEON's widening (UXTL) and stores.
// REQUIRES: 16 bytes readable at p; room for 16 values at `out`.
template <VarintFormat F>
inline void StoreSixteenOneByteValues(const uint8_t* p, typename FormatTraits<F>::Out* out) {
  static_assert(!FormatTraits<F>::kDelta, "values, not running sums");
#if defined(__SSE2__)
  StoreOneByteValues<F, 16>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), out);
#else
  using Out = typename FormatTraits<F>::Out;
  const uint8x16_t bytes = vld1q_u8(p);
  if constexpr (F == VarintFormat::kBool) {
    vst1q_u8(reinterpret_cast<uint8_t*>(out), vminq_u8(bytes, vdupq_n_u8(1)));
    return;
  }
  const uint16x8_t halves[2] = {vmovl_u8(vget_low_u8(bytes)), vmovl_high_u8(bytes)};
  for (int i = 0; i < 4; ++i) {
    const uint16x8_t wide = halves[i / 2];
    uint32x4_t x = i % 2 == 0 ? vmovl_u16(vget_low_u16(wide)) : vmovl_high_u16(wide);
    Out* const to = out + 4 * i;
    if constexpr (sizeof(Out) == 4) {
      if constexpr (F == VarintFormat::kSInt32) x = ZigZag32(x);
      vst1q_u32(reinterpret_cast<uint32_t*>(to), x);
    } else {
      uint64x2_t y[2] = {vmovl_u32(vget_low_u32(x)), vmovl_high_u32(x)};
      for (uint64x2_t& v : y) {
        if constexpr (kZigZag64<F>) v = ZigZag64(v);
      }
      vst1q_u64(reinterpret_cast<uint64_t*>(to), y[0]);
      vst1q_u64(reinterpret_cast<uint64_t*>(to) + 2, y[1]);
    }
  }
#endif
}
#endif

// Whether a payload whose continuation bits (bit i: byte i) are `more` holds a varint longer than
// kLongest bytes: kLongest continuation bytes in a row.
template <int kLongest>
inline bool HasVarintLongerThan(uint64_t more) {
  uint64_t run = more;
  int length = 1;  // Bit i of `run`: bits i .. i + length - 1 of `more` are all set.
  for (; 2 * length <= kLongest; length *= 2) run &= run >> length;
  if (length < kLongest) run &= run >> (kLongest - length);
  return run != 0;
}

// The start every decode_tiny shares, for the payload p[0, n), n <= 16: an empty payload (0
// values), one that ends inside a varint (kTinyMalformed) and one of one-byte varints where the
// room holds 16 values (widened 16 at once) are finished here: returns true with *result set.
// Otherwise returns false with *more = the payload's continuation bits (bit i: byte i).
template <VarintFormat F>
inline bool TinyPayloadFinished(const uint8_t* p, int n, void* out, int room, uint32_t* more,
                                int* result) {
  *result = 0;
  if (n == 0) return true;
  *more = HighBitsOf16(p) & ((1u << n) - 1);
  if ((*more >> (n - 1)) != 0) {  // The payload ends inside a varint.
    *result = kTinyMalformed;
    return true;
  }
#if defined(__SSE2__) || defined(__ARM_NEON)
  if constexpr (!FormatTraits<F>::kDelta) {
    if (*more == 0 && room >= kTinyPayloadBytes) {
      StoreSixteenOneByteValues<F>(p, static_cast<typename FormatTraits<F>::Out*>(out));
      *result = n;
      return true;
    }
  }
#endif
  return false;
}

// The values of the payload p[0, n), 1 <= n <= 16, whose continuation bits are `more` and whose
// last byte ends a varint (TinyPayloadFinished said so), one varint at a time: decode_tiny's
// result.
template <VarintFormat F>
inline int DecodeTinyVarints(const uint8_t* p, int n, uint32_t more, void* out) {
  if (HasVarintLongerThan<kTinyVarintMaxBytes>(more)) return kTinyUnhandled;
  OutputSink<F> sink(out, 0);
  uint32_t stops = ~more & ((1u << n) - 1);
  int start = 0;
  int count = 0;
  do {
    const int last = __builtin_ctz(stops);
    stops &= stops - 1;
    uint64_t w;
    std::memcpy(&w, p + start, 8);
    sink.Put(static_cast<size_t>(count++), TinyVarintValue(w, last - start + 1));
    start = last + 1;
  } while (stops != 0);
  return count;
}

template <VarintFormat F>
struct TinyDecoder {
  static int Run(const uint8_t* p, const uint8_t* end, void* out, int room) {
    const int n = static_cast<int>(end - p);
    uint32_t more;
    int result;
    if (TinyPayloadFinished<F>(p, n, out, room, &more, &result)) return result;
    return DecodeTinyVarints<F>(p, n, more, out);
  }
};

// decode_tiny (kernel_abi.h) from a kernel's steps: where the room holds kTinyPayloadBytes values,
// the payload is looked at as TinyDecoder does (TinyPayloadFinished: empty, malformed and one-byte
// payloads are done there), then Steps<F>::Tiny(p, n, more, out) decodes the rest, storing within
// those 16 values, and returns decode_tiny's result. With less room, and for the delta formats,
// TinyDecoder.
template <template <VarintFormat> class Steps>
struct StepTiny {
  template <VarintFormat F>
  struct Decoder {
    static int Run(const uint8_t* p, const uint8_t* end, void* out, int room) {
      if constexpr (FormatTraits<F>::kDelta) {
        return TinyDecoder<F>::Run(p, end, out, room);
      } else {
        if (room < kTinyPayloadBytes) return TinyDecoder<F>::Run(p, end, out, room);
        const int n = static_cast<int>(end - p);
        uint32_t more;
        int result;
        if (TinyPayloadFinished<F>(p, n, out, room, &more, &result)) return result;
        return Steps<F>::Tiny(p, n, more, static_cast<typename FormatTraits<F>::Out*>(out));
      }
    }
  };
};

#if defined(__SSE2__) || defined(__ARM_NEON)
// Bit i of the result: the high bit of byte i of the little-endian word w (SSE2's movemask, else
// the eight high bits multiplied up into the top byte: no two partial products overlap).
inline uint32_t HighBitsOf8(uint64_t w) {
#if defined(__SSE2__)
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cvtsi64_si128(static_cast<int64_t>(w)))) &
         0xFFu;
#else
  return static_cast<uint32_t>(((w & 0x8080808080808080ull) * 0x0002040810204081ull) >> 56);
#endif
}

// n one-byte varints (all < 0x80) at p to out[0, n), reading only [p, p + n) and writing only
// out[0, n) (not a delta format): 16 at a time, the last group overlapping the one before it; under
// 16, 8 at a time the same way with SSE2, else one by one.
template <VarintFormat F>
inline void StoreOneByteRun(const uint8_t* p, int n, typename FormatTraits<F>::Out* out) {
  using Out = typename FormatTraits<F>::Out;
  if (n >= 16) {
    for (int i = 0; i + 16 < n; i += 16) StoreSixteenOneByteValues<F>(p + i, out + i);
    StoreSixteenOneByteValues<F>(p + n - 16, out + n - 16);
#if defined(__SSE2__)
  } else if (n >= 8) {
    StoreOneByteValues<F, 8>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), out);
    StoreOneByteValues<F, 8>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + n - 8)),
                             out + n - 8);
#endif
  } else {
    for (int i = 0; i < n; ++i) out[i] = static_cast<Out>(FormatTraits<F>::Convert(p[i]));
  }
}

// A bounded tiny payload of up to 64 bytes, looked at whole before a value is decoded, without
// reading past it: its continuation bits 16 bytes per vector load (the last load ending at the
// payload's end, overlapping the one before it), or from two overlapping words under 16 bytes, or
// from one word put together from the bytes under 8 (`short_word`, then the whole payload, zero
// above it).
struct TinyPayloadBits {
  uint64_t more;        // Bit i: byte i has its continuation bit set.
  int count;            // Varints: the bytes without it.
  uint64_t short_word;  // Payloads of under 8 bytes: the payload.
};

// Bit i set for each byte i of a payload of n bytes, 1 <= n <= 64.
inline uint64_t PayloadBytes(int n) { return ~uint64_t{0} >> (64 - n); }

// The varints ending in the payload's n bytes (1 <= n <= 64) whose continuation bits are `more`.
inline int VarintsEndingIn(uint64_t more, int n) {
  return __builtin_popcountll(~more & PayloadBytes(n));
}

// Fills `bits` for the payload p[0, n), 1 <= n <= 64, and settles what declines or rejects it:
// returns kTinyMalformed if it ends inside a varint, kTinyUnhandled if a varint is longer than
// kLongest bytes (the most the caller's decoder takes) or there are more varints than `room`, else
// 0.
template <int kLongest>
__attribute__((always_inline)) inline int ReadTinyPayloadBits(const uint8_t* p, int n, int room,
                                                              TinyPayloadBits* bits) {
  uint64_t more = 0;
  bits->short_word = 0;
  if (n >= 16) {
#pragma GCC unroll 4
    for (int i = 0; i < 64; i += 16) {
      const int at = i < n - 16 ? i : n - 16;
      more |= uint64_t{HighBitsOf16(p + at)} << at;
    }
  } else if (n >= 8) {
    uint64_t first, last;
    std::memcpy(&first, p, 8);
    std::memcpy(&last, p + n - 8, 8);
    more = HighBitsOf8(first) | (uint64_t{HighBitsOf8(last)} << (n - 8));
  } else {
    // Bytes 0, n/2 and n-1 for n < 4; the first and last four (overlapping) for 4 to 7.
    uint64_t w;
    if (n >= 4) {
      uint32_t first, last;
      std::memcpy(&first, p, 4);
      std::memcpy(&last, p + n - 4, 4);
      w = first | (uint64_t{last} << (8 * (n - 4)));
    } else {
      w = p[0] | (uint64_t{p[n / 2]} << (8 * (n / 2))) | (uint64_t{p[n - 1]} << (8 * (n - 1)));
    }
    bits->short_word = w;
    more = HighBitsOf8(w);
  }
  if (((more >> (n - 1)) & 1) != 0) return kTinyMalformed;  // Ends inside a varint.
  if (HasVarintLongerThan<kLongest>(more)) return kTinyUnhandled;
  bits->more = more;
  bits->count = VarintsEndingIn(more, n);
  return bits->count > room ? kTinyUnhandled : 0;
}

// decode_tiny_bounded (kernel_abi.h) from a kernel's short-payload steps and its decoder: a payload
// of up to 64 bytes is looked at whole first (ReadTinyPayloadBits: declined or rejected before a
// value is written, varints of up to 10 bytes taken); one of one-byte varints is widened exactly
// (StoreOneByteRun); any other, where `room` leaves kSpare values past its count, is offered to
// Steps<F>::Payload(p, n, bits, out), which decodes it storing at most kSpare slots past its last
// value (true) or leaves it (false: a shape it does not take); where `room` holds the values but
// not the spare slots (a caller's span sized to the payload), the steps decode into a buffer on
// the stack and the values are copied out (out of line, so that only this way's frame holds the
// buffer). The rest (what the steps leave, 64-bit payloads of 65-128 bytes) goes to the kernel's
// lenient decoder Loop<F, false>, which writes only within `room`. Not for the delta formats
// (MakeKernelDescriptor gives them none).
template <template <VarintFormat> class Steps, template <VarintFormat, bool> class Loop,
          uint32_t kSpare>
struct StepBoundedTiny {
  template <VarintFormat F>
  struct Decoder {
    using Out = typename FormatTraits<F>::Out;

    // Out of line also where a kernel's own decoder that takes some payloads its own way hands it
    // the rest (short_payloads_avx2-inl.h's WholeStepBoundedTiny): one copy of it.
    __attribute__((noinline)) static int Run(const uint8_t* p, const uint8_t* end, void* out_void,
                                             int room) {
      Out* const out = static_cast<Out*>(out_void);
      const int n = static_cast<int>(end - p);
      if (n == 0) return 0;
      if (n <= 64) {
        TinyPayloadBits bits;
        if (const int declined = ReadTinyPayloadBits<10>(p, n, room, &bits); declined != 0) {
          return declined;
        }
        if (bits.more == 0) {
          StoreOneByteRun<F>(p, n, out);
          return n;
        }
        if (room - bits.count < static_cast<int>(kSpare)) {
          return ViaBuffer(p, end, out, room, bits.more, bits.short_word);
        }
        if (Steps<F>::Payload(p, n, bits, out)) return bits.count;
      } else if ((end[-1] & 0x80) != 0) {
        return kTinyMalformed;  // Ends inside a varint, whatever the room (as above).
      }
      return Lenient(p, end, out, room);
    }

    // The kernel's lenient decoder, which writes only within `room`.
    static int Lenient(const uint8_t* p, const uint8_t* end, Out* out, int room) {
      const DecodeResult r =
          Loop<F, false>::Run(p, end, out, static_cast<size_t>(room), /*delta_base=*/0);
      // Not kOk: more values than the room, or a varint over 10 bytes; the caller's way names it.
      return r.status == DecodeStatus::kOk ? static_cast<int>(r.count) : kTinyUnhandled;
    }

    // The steps into a buffer with the spare slots, then exactly the values to `out`; what the
    // steps leave, to Lenient. Given the payload's TinyPayloadBits by value (its count
    // recomputed), so that the common way keeps them in registers.
    __attribute__((noinline, cold)) static int ViaBuffer(const uint8_t* p, const uint8_t* end,
                                                         Out* out, int room, uint64_t more,
                                                         uint64_t short_word) {
      const int n = static_cast<int>(end - p);
      const TinyPayloadBits bits{more, VarintsEndingIn(more, n), short_word};
      Out buffer[64 + kSpare];
      if (!Steps<F>::Payload(p, n, bits, buffer)) return Lenient(p, end, out, room);
      std::memcpy(out, buffer, sizeof(Out) * static_cast<size_t>(bits.count));
      return bits.count;
    }

    static constexpr TinyDecodeFn kRun = &Run;
    static constexpr uint32_t kSpareValues = kSpare;
    static_assert(kSpareValues <= kBoundedTinySpareValues, "the most a caller offers");
  };
};
#endif  // defined(__SSE2__) || defined(__ARM_NEON)
