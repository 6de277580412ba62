// Copyright 2026 The pbaccel Authors.
//
// step8_avx2-inl.h: packed varints in 8-byte steps cut by a compile-time table and an AVX2
// fan-out (the SFVInt idea, parsers/bmi2.cc's header comment), and those steps run whole over a
// short payload (WholeSteps, for short_payloads_avx2-inl.h's decoders). Shared by bmi2 and
// masked_vbyte_avx2 (their step loops and short-payload decoders).
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
//     static uint64_t FirstBits(uint64_t packed, const StepRecipe& s);  // packed's low
//                                                         // s.first_bits bits (the first varint's)
//     static uint64_t SpreadBits8(uint64_t b);            // bit i of b (i < 8) to byte i, 0 or 1
//   };
//
// bmi2's are PEXT, PEXT, BZHI, BZHI and PDEP; masked_vbyte_avx2's (no BMI2: its CPUs, AMD Zen 1/2,
// run PEXT in microcode) a movemask, multiply-adds, masks and shifts (PortableBits below).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2, after <immintrin.h>, pbaccel/internal/varint_word-inl.h,
// parsers/varint_format-inl.h (which brings zigzag_simd-inl.h and tiny_payload-inl.h) and
// parsers/store8x32_avx2-inl.h. No include guard; includes nothing (varint_format-inl.h says why).

// Bytes per step (8: 6 and 7 measured slower, docs/kernels.md) and output slots written per step.
constexpr int kStepBytes = 8;
constexpr int kSlots = 8;

// One step's decoding recipe, for each continuation pattern of 8 bytes. Slot k (k >= 1) is the
// k-th varint ending in the step, a bit field of the step's packed payload bits cut by two shifts:
// (packed << left[k]) >> right[k]. Slot 0 is the first varint ending in the step, which may have
// begun in earlier steps: the caller assembles it (OpenVarint::First) and slot 0 takes that word
// whole (left 0, right 0). Two shifts with no mask, and the first value in a vector lane rather
// than a scalar store, are what made the fan-out fastest (docs/kernels.md, "bmi2's fan-out").
struct alignas(32) StepRecipe {
  uint8_t left[kSlots];   // 64 - (the field's last bit + 1): its top bit moved to bit 63; 0 in
                          // slot 0 and in slots past `count`.
  uint8_t right[kSlots];  // 64 - the field's bits: moved back down to bit 0; 0 in slot 0, 64 in
                          // slots past `count` (a vector lane shifted by 64 is 0).
  uint8_t count;          // Varints ending in the step.
  uint8_t tail_shift;     // 7 * (first byte after the last terminator).
  uint8_t tail_bits;      // 7 * (bytes after the last terminator): 56 if count == 0. Always
                          // 56 - tail_shift, held so that the step loads it (one instruction)
                          // rather than derives it (two).
  uint8_t first_len;      // Bytes of the first varint within the step; kStepBytes + 1 if none
                          // ends here (strict mode's test of a 10th byte finds that byte by it).
  uint8_t first_bits;     // 7 * first_len: the step's payload bits the first varint takes (63,
                          // all of them, when none ends here); OpenVarint::shift + first_bits > 70
                          // flags a varint past 10 bytes, ended here or not.
  uint64_t first_mask;    // The low first_bits bits: PortableBits::FirstBits' mask (one AND,
                          // where a mask made from first_bits takes four operations and a test
                          // without BMI2's BZHI).
};

static_assert(sizeof(StepRecipe) == 32, "a recipe is one 32-byte load's worth");

struct StepRecipes {
  StepRecipe step[1 << kStepBytes];
};

constexpr StepRecipes MakeStepRecipes() {
  StepRecipes t{};
  for (int pattern = 0; pattern < (1 << kStepBytes); ++pattern) {
    StepRecipe& s = t.step[pattern];
    int start = 0;
    int count = 0;
    for (int k = 0; k < kSlots; ++k) s.right[k] = 64;
    for (int i = 0; i < kStepBytes; ++i) {
      if (((pattern >> i) & 1) == 0) {  // Byte i ends a varint.
        if (count == 0) {
          s.first_len = static_cast<uint8_t>(i + 1);
          s.right[0] = 0;
        } else {
          s.left[count] = static_cast<uint8_t>(64 - 7 * (i + 1));
          s.right[count] = static_cast<uint8_t>(64 - 7 * (i + 1 - start));
        }
        ++count;
        start = i + 1;
      }
    }
    s.count = static_cast<uint8_t>(count);
    s.tail_shift = static_cast<uint8_t>(7 * start);
    s.tail_bits = static_cast<uint8_t>(7 * (kStepBytes - start));
    if (count == 0) {
      s.first_len = kStepBytes + 1;
      s.right[0] = 0;
    }
    s.first_bits = static_cast<uint8_t>(7 * s.first_len);
    s.first_mask = (uint64_t{1} << s.first_bits) - 1;  // first_bits <= 63.
  }
  return t;
}

constexpr StepRecipes kStepRecipes = MakeStepRecipes();

// Bit 7 (continuation) and bits 0-6 (payload) of a step's bytes.
constexpr uint64_t kContinuationMask = 0x8080808080808080ull;
constexpr uint64_t kPayloadMask = 0x7F7F7F7F7F7F7F7Full;

// Bits without BMI2: the pattern by one movemask; the payload bits packed in the same vector
// register, 7-bit groups joined into 14-bit ones by pmaddubsw (g0 + 2^7 g1), those into 28-bit
// ones by pmaddwd (h0 + 2^14 h1), and the two halves joined by shifts (no 64-bit constants, which
// scalar shift-and-merge rounds need four of: docs/kernels.md); the first varint's bits by a mask
// from the recipe; other low bits by a mask made from n; and eight bits spread to bytes by a
// multiply (each byte a copy of the bits), a mask keeping bit i in byte i, and an add that carries
// it to the byte's high bit.
struct PortableBits {
  static uint64_t Pattern(uint64_t w) { return HighBitsOf8(w); }
  static uint64_t Payload(uint64_t w) {
    const __m128i groups =
        _mm_and_si128(_mm_cvtsi64_si128(static_cast<int64_t>(w)), _mm_set1_epi8(0x7F));
    // pmaddubsw multiplies its first operand's bytes as unsigned (the weights 1 and 2^7, as bytes
    // 0x01 0x80) by its second's as signed (the groups, 0-127): at most 2^14 - 1, no saturation.
    const __m128i pairs = _mm_maddubs_epi16(_mm_set1_epi16(static_cast<int16_t>(0x8001)), groups);
    // pmaddwd: the 16-bit weights 1 and 2^14 (0x0001 0x4000), signed; at most 2^28 - 1.
    const __m128i quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x40000001));
    const uint64_t x = static_cast<uint64_t>(_mm_cvtsi128_si64(quads));
    return static_cast<uint32_t>(x) | ((x >> 32) << 28);
  }
  static uint64_t LowBits(uint64_t x, unsigned n) {
    return n >= 64 ? x : x & ((uint64_t{1} << n) - 1);
  }
  static uint64_t FirstBits(uint64_t packed, const StepRecipe& s) { return packed & s.first_mask; }
  static uint64_t SpreadBits8(uint64_t b) {
    const uint64_t x = (b * 0x0101010101010101ull) & 0x8040201008040201ull;
    return ((x + 0x7F7F7F7F7F7F7F7Full) >> 7) & 0x0101010101010101ull;
  }
};

// Slot k >= 1 of the step one value at a time (the scalar stores of the delta and strict forms):
// in slots past the count, not 0 but the whole word (the shifts are taken modulo 64, as x86's do).
inline uint64_t FieldOf(uint64_t packed, const StepRecipe& s, int k) {
  return (packed << (s.left[k] & 63)) >> (s.right[k] & 63);
}

// The step's slots 0..7 in 64-bit lanes: lanes 0-3 and 4-7.
struct Fields {
  __m256i lo, hi;
};

// Four recipe bytes from `p`, one per 64-bit lane.
inline __m256i WidenFourBytes(const uint8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof(four));
  return _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four));
}

// The step's slots as `s` cuts them: `first` in lane 0, the fields of `packed` in the rest (0 past
// the count).
inline Fields FanOut(uint64_t packed, uint64_t first, const StepRecipe& s) {
  const __m256i x = _mm256_set1_epi64x(static_cast<int64_t>(packed));
  const __m256i x0 = _mm256_blend_epi32(
      x, _mm256_castsi128_si256(_mm_cvtsi64_si128(static_cast<int64_t>(first))), 0x03);
  return {_mm256_srlv_epi64(_mm256_sllv_epi64(x0, WidenFourBytes(s.left)), WidenFourBytes(s.right)),
          _mm256_srlv_epi64(_mm256_sllv_epi64(x, WidenFourBytes(s.left + 4)),
                            WidenFourBytes(s.right + 4))};
}

// Stores eight slots given in 64-bit lanes in the format's output type: 64-bit integers; 32-bit
// ones, the lanes' low halves (a value's low 32 bits, as upstream keeps them); bool, value != 0,
// one bit per slot spread to bytes.
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
  } else if constexpr (sizeof(typename FormatTraits<F>::Out) == 4) {
    // Low halves of lanes 0, 1, 4, 5 | 2, 3, 6, 7, then the 64-bit quarters put in order.
    const __m256i halves = _mm256_castps_si256(
        _mm256_shuffle_ps(_mm256_castsi256_ps(f.lo), _mm256_castsi256_ps(f.hi), 0x88));
    Store8x32<F>(_mm256_permute4x64_epi64(halves, 0xD8), out);
  } else {
    if constexpr (kZigZag64<F>) {
      f.lo = ZigZag64(f.lo);
      f.hi = ZigZag64(f.hi);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), f.lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), f.hi);
  }
}

// Stores the step's values into out[0, 8) in the format's output type: slot 0 is `first` (the
// step's first value with the open varint's bits, OpenVarint::First), the others the fields of
// `packed` as `s` describes them (the `s.count` real ones; the rest are overwritten by the next
// step). Not for the delta formats (no running sum).
template <VarintFormat F, class Bits>
inline void StoreStepValues(uint64_t packed, uint64_t first, const StepRecipe& s,
                            typename FormatTraits<F>::Out* out) {
  StoreFields<F, Bits>(FanOut(packed, first, s), out);
}

// The varint left open at a step's end, carried into the next: its payload bits and, as 7 times its
// bytes so far, where the next byte's bits go (kept that way: the step's shift needs no multiply).
struct OpenVarint {
  uint64_t bits = 0;
  unsigned shift = 0;

  unsigned bytes() const { return shift / 7; }

  // The step's first value: the open varint's bits, then the step's first field above them (bits
  // past 63 fall off, as upstream drops them). A real varint has at most 9 bytes open here; the
  // shift is taken modulo 64 for the whole steps' continuation bytes past a payload, whose
  // garbage lands in a slot past the values (on x86 the shift does that anyway: no instruction).
  template <class Bits>
  uint64_t First(uint64_t packed, const StepRecipe& s) const {
    return bits | (Bits::FirstBits(packed, s) << (shift & 63));
  }

  // After the step: its tail, or, when no varint ended in it, the same varint grown by the step.
  void Advance(uint64_t packed, uint64_t first, const StepRecipe& s) {
    const bool ended = s.count > 0;
    bits = ended ? packed >> s.tail_shift : first;
    shift = ended ? s.tail_bits : shift + 7 * kStepBytes;
  }
};

// Step word `w` with its bytes from `valid` on (0 to 8) made continuation bytes without payload
// bits, so that no varint ends there: bytes past a payload (WholeSteps, and the step loop's last
// partial step).
template <class Bits>
__attribute__((always_inline)) inline uint64_t ContinuationsPast(uint64_t w, unsigned valid) {
  const uint64_t keep = Bits::LowBits(~uint64_t{0}, 8 * valid);  // All bytes for valid = 8.
  return (w & keep) | (kContinuationMask & ~keep);
}

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
    w = ContinuationsPast<Bits>(w, valid);
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
