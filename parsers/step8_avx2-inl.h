// Copyright 2026 The pbaccel Authors.
//
// step8_avx2-inl.h: packed varints in 8-byte steps cut by a compile-time table and an AVX2
// fan-out (the SFVInt idea, parsers/bmi2.cc's header comment), and those steps run whole over a
// short payload (WholeSteps, for short_payloads_avx2-inl.h's decoders). Shared by bmi2 (its step
// loop too) and masked_vbyte_avx2 (only its short-payload decoders).
//
// One step: the word `w` of 8 payload bytes gives its continuation pattern (bit i: byte i's high
// bit), which indexes kStepRecipes: for each varint ending in the step, the bit offset and length
// of its 7-bit groups within the step's payload bits (byte i's low 7 bits at bit 7i), packed once.
// The AVX2 fan-out cuts the eight slots out of those bits at once. How the pattern and the payload
// bits are found is the kernel's `Bits`:
//
//   struct Bits {
//     static uint64_t Pattern(uint64_t w);                // bit i: the high bit of byte i
//     static uint64_t Payload(uint64_t w);                // byte i's low 7 bits at bit 7i
//     static uint64_t LowBits(uint64_t x, unsigned n);    // x's low n bits (all for n >= 64)
//     static uint64_t SpreadBits8(uint64_t b);            // bit i of b (i < 8) to byte i, 0 or 1
//   };
//
// bmi2's are PEXT, PEXT, BZHI and PDEP; masked_vbyte_avx2's (no BMI2: its CPUs, AMD Zen 1/2, run
// PEXT in microcode) a movemask and shift-and-mask steps (PortableBits below).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2, after <immintrin.h>, pbaccel/internal/varint_word-inl.h,
// parsers/varint_format-inl.h (which brings zigzag_simd-inl.h and tiny_payload-inl.h) and
// parsers/store8x32_avx2-inl.h. No include guard; includes nothing (varint_format-inl.h says why).

// Bytes per step (8: 6 and 7 measured slower, docs/kernels.md) and output slots written per step.
constexpr int kStepBytes = 8;
constexpr int kSlots = 8;

// One step's decoding recipe, for each continuation pattern of 8 bytes: a varint's value is a bit
// field of the step's packed payload bits, `len` bits from bit `shift`.
struct alignas(32) StepRecipe {
  uint8_t shift[kSlots];  // 7 * (first byte) of each varint ending in the step, in order.
  uint8_t len[kSlots];    // 7 * (its bytes in the step); 0 in slots past `count` (value 0).
                          // When no varint ends in the step, slot 0 covers the whole step.
  uint8_t count;          // Varints ending in the step.
  uint8_t tail_shift;     // 7 * (first byte after the last terminator).
  uint8_t tail_bytes;     // Bytes after the last terminator (kStepBytes if count == 0).
  uint8_t first_len;      // Bytes of the first varint within the step; kStepBytes + 1 if none
                          // ends here (so open bytes + first_len > 10 flags both cases).
};

struct StepRecipes {
  StepRecipe step[1 << kStepBytes];
};

constexpr StepRecipes MakeStepRecipes() {
  StepRecipes t{};
  for (int pattern = 0; pattern < (1 << kStepBytes); ++pattern) {
    StepRecipe& s = t.step[pattern];
    int start = 0;
    int count = 0;
    for (int i = 0; i < kStepBytes; ++i) {
      if (((pattern >> i) & 1) == 0) {  // Byte i ends a varint.
        s.shift[count] = static_cast<uint8_t>(7 * start);
        s.len[count] = static_cast<uint8_t>(7 * (i + 1 - start));
        if (count == 0) s.first_len = static_cast<uint8_t>(i + 1);
        ++count;
        start = i + 1;
      }
    }
    s.count = static_cast<uint8_t>(count);
    s.tail_shift = static_cast<uint8_t>(7 * start);
    s.tail_bytes = static_cast<uint8_t>(kStepBytes - start);
    if (count == 0) {
      s.len[0] = static_cast<uint8_t>(7 * kStepBytes);
      s.first_len = kStepBytes + 1;
    }
  }
  return t;
}

constexpr StepRecipes kStepRecipes = MakeStepRecipes();

// Bit 7 (continuation) and bits 0-6 (payload) of a step's bytes.
constexpr uint64_t kContinuationMask = 0x8080808080808080ull;
constexpr uint64_t kPayloadMask = 0x7F7F7F7F7F7F7F7Full;

// Bits without BMI2: the pattern by one movemask, the payload bits packed by three
// shift-and-merge steps (7-bit groups into 14-, 28-, then 56-bit ones), the low bits by a mask,
// and eight bits spread to bytes by a multiply (each byte a copy of the bits), a mask keeping bit
// i in byte i, and an add that carries it to the byte's high bit.
struct PortableBits {
  static uint64_t Pattern(uint64_t w) { return HighBitsOf8(w); }
  static uint64_t Payload(uint64_t w) {
    uint64_t x = w & kPayloadMask;
    x = (x & 0x007F007F007F007Full) | ((x & 0x7F007F007F007F00ull) >> 1);
    x = (x & 0x00003FFF00003FFFull) | ((x & 0x3FFF00003FFF0000ull) >> 2);
    return (x & 0x000000000FFFFFFFull) | ((x & 0x0FFFFFFF00000000ull) >> 4);
  }
  static uint64_t LowBits(uint64_t x, unsigned n) {
    return n >= 64 ? x : x & ((uint64_t{1} << n) - 1);
  }
  static uint64_t SpreadBits8(uint64_t b) {
    const uint64_t x = (b * 0x0101010101010101ull) & 0x8040201008040201ull;
    return ((x + 0x7F7F7F7F7F7F7F7Full) >> 7) & 0x0101010101010101ull;
  }
};

// The step's slots 0..7 as bit fields of `packed`, in 64-bit lanes: lanes 0-3 and 4-7.
struct Fields {
  __m256i lo, hi;
};

inline Fields FanOut(uint64_t packed, const StepRecipe& s) {
  const __m256i x = _mm256_set1_epi64x(static_cast<int64_t>(packed));
  const __m128i shift = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.shift));
  const __m128i len = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.len));
  const __m256i one = _mm256_set1_epi64x(1);
  const auto field = [&](__m128i sh8, __m128i len8) {
    const __m256i mask = _mm256_sub_epi64(_mm256_sllv_epi64(one, _mm256_cvtepu8_epi64(len8)), one);
    return _mm256_and_si256(_mm256_srlv_epi64(x, _mm256_cvtepu8_epi64(sh8)), mask);
  };
  return {field(shift, len), field(_mm_srli_si128(shift, 4), _mm_srli_si128(len, 4))};
}

// The step's slots 0..7 for 32-bit outputs: the low 32 bits of each bit field, in one vector of
// 32-bit lanes (instead of two of 64-bit lanes and a repack). A field from bit `shift` (0 to 49)
// takes the low word's bits from `shift` and the high word's below them, or for a shift of 32 or
// more the high word's alone: AVX2's variable shifts give 0 for counts of 32 or more (negative
// differences included), so the three shifts below cover every case without a select, and a
// length of 32 or more masks nothing.
inline __m256i FanOut32(uint64_t packed, const StepRecipe& s) {
  const __m256i lo = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(packed)));
  const __m256i hi = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(packed >> 32)));
  const __m256i shift =
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.shift)));
  const __m256i len =
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.len)));
  const __m256i k32 = _mm256_set1_epi32(32);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i low_part = _mm256_or_si256(_mm256_srlv_epi32(lo, shift),
                                           _mm256_sllv_epi32(hi, _mm256_sub_epi32(k32, shift)));
  const __m256i field =
      _mm256_or_si256(low_part, _mm256_srlv_epi32(hi, _mm256_sub_epi32(shift, k32)));
  return _mm256_and_si256(field, _mm256_sub_epi32(_mm256_sllv_epi32(one, len), one));
}

// Stores eight slots given in 64-bit lanes in the format's output type (64-bit integers; bool:
// value != 0, one bit per slot spread to bytes).
template <VarintFormat F, class Bits>
inline void StoreFields(Fields f, typename FormatTraits<F>::Out* out) {
  if constexpr (F == VarintFormat::kBool) {
    const __m256i zero = _mm256_setzero_si256();
    const unsigned zero_lo = static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(f.lo, zero))));
    const unsigned zero_hi = static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(f.hi, zero))));
    const uint64_t bytes = Bits::SpreadBits8(~(zero_lo | (zero_hi << 4)) & 0xFF);
    std::memcpy(out, &bytes, sizeof(bytes));
  } else {
    static_assert(sizeof(typename FormatTraits<F>::Out) == 8, "32-bit outputs: FanOut32");
    if constexpr (F == VarintFormat::kSInt64) {
      f.lo = ZigZag64(f.lo);
      f.hi = ZigZag64(f.hi);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), f.lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), f.hi);
  }
}

// Stores the step's eight slots (bit fields of `packed` as `s` describes them) into out[0, 8) in
// the format's output type. Not for the delta formats (no running sum).
template <VarintFormat F, class Bits>
inline void StoreStep(uint64_t packed, const StepRecipe& s, typename FormatTraits<F>::Out* out) {
  if constexpr (sizeof(typename FormatTraits<F>::Out) == 4) {
    Store8x32<F>(FanOut32(packed, s), out);
  } else {
    StoreFields<F, Bits>(FanOut(packed, s), out);
  }
}

// Stores the step's values into out[0, 8): StoreStep, slot 0 being `first` (the step's first
// value with the open varint's bits, OpenVarint::First).
template <VarintFormat F, class Bits>
inline void StoreStepValues(uint64_t packed, uint64_t first, const StepRecipe& s,
                            typename FormatTraits<F>::Out* out) {
  StoreStep<F, Bits>(packed, s, out);
  out[0] = FormatTraits<F>::Convert(first);
}

// The varint left open at a step's end, carried into the next: its payload bits and bytes so far.
struct OpenVarint {
  uint64_t bits = 0;
  unsigned bytes = 0;

  // The step's first value: the open varint's bits, then the step's first field above them (bits
  // past 63 fall off, as upstream drops them). A real varint has at most 9 bytes open here; the
  // shift is taken modulo 64 for the whole steps' continuation bytes past a payload, whose
  // garbage lands in a slot past the values (on x86 the shift does that anyway: no instruction).
  template <class Bits>
  uint64_t First(uint64_t packed, const StepRecipe& s) const {
    return bits | (Bits::LowBits(packed, s.len[0]) << ((7 * bytes) & 63));
  }

  // After the step: its tail, or, when no varint ended in it, the same varint grown by the step.
  void Advance(uint64_t packed, uint64_t first, const StepRecipe& s) {
    const bool ended = s.count > 0;
    bits = ended ? packed >> s.tail_shift : first;
    bytes = ended ? s.tail_bytes : bytes + kStepBytes;
  }
};

// Short payloads, whole: a payload checked up front (its continuation bits known, no varint left
// open at its end) decoded in 8-byte steps with no bounds, no one-byte runs and no scalar tail.
// Bytes past the payload are replaced by continuation bytes without payload bits, so no varint
// ends there and every step past the payload stores nothing that counts; a varint crossing a step
// is carried, up to 10 bytes. Each step stores kSlots slots at the values' end: up to kSlots
// slots past the last value are overwritten (all of them by a step wholly past the payload). Not
// for the delta formats.
template <VarintFormat F, class Bits>
struct WholeSteps {
  static_assert(kBoundedTinySpareValues >= kSlots, "a step stores kSlots slots from the count");
  using Out = typename FormatTraits<F>::Out;
  Out* out;
  size_t count = 0;  // Values stored.
  OpenVarint open;

  // `w`: the step's 8 bytes; `valid`: how many are the payload's (0 to 8).
  __attribute__((always_inline)) void Step(uint64_t w, unsigned valid) {
    const uint64_t keep = Bits::LowBits(~uint64_t{0}, 8 * valid);  // All bytes for valid = 8.
    w = (w & keep) | (kContinuationMask & ~keep);
    const StepRecipe& s = kStepRecipes.step[Bits::Pattern(w)];
    const uint64_t packed = Bits::Payload(w);
    const uint64_t first = open.First<Bits>(packed, s);
    StoreStepValues<F, Bits>(packed, first, s, out + count);
    open.Advance(packed, first, s);
    count += s.count;
  }

  // kSteps steps over the payload p[0, n), 8 <= n <= 8 * kSteps, reading only the payload: a step
  // at or past the payload's last 8 bytes takes them shifted down (nothing of them, past its end).
  // No branch on n: a step wholly past the payload stores nothing that counts.
  template <int kSteps>
  __attribute__((always_inline)) void Whole(const uint8_t* p, int n) {
#pragma GCC unroll 16
    for (int j = 0; j < kSteps; ++j) {
      const int at = 8 * j < n - 8 ? 8 * j : n - 8;
      const int valid = n - 8 * j < 0 ? 0 : n - 8 * j > 8 ? 8 : n - 8 * j;
      // A step wholly past the payload shifts by anything (masked to 0-7 bytes): none is kept.
      Step(LoadLittleEndian64(p + at) >> (8 * ((8 * j - at) & 7)), static_cast<unsigned>(valid));
    }
  }

  // The whole payload p[0, n), 1 <= n <= 64, reading only its bytes: under 8, one step of
  // `short_word` (its bytes, as tiny_payload-inl.h's ReadTinyPayloadBits assembles them), else
  // two steps per 16 bytes (Whole).
  __attribute__((always_inline)) void Payload(const uint8_t* p, int n, uint64_t short_word) {
    if (n < 8) {
      Step(short_word, static_cast<unsigned>(n));
    } else if (n <= 16) {
      Whole<2>(p, n);
    } else if (n <= 32) {
      Whole<4>(p, n);
    } else if (n <= 48) {
      Whole<6>(p, n);
    } else {
      Whole<8>(p, n);
    }
  }
};
