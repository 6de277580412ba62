// Copyright 2026 The pbaccel Authors.
//
// four_byte_windows_avx2-inl.h: 64-byte windows of 64-bit fields whose varints are all at most
// four bytes long (values below 2^28: OpenStreetMap's coordinate deltas, most id deltas), decoded
// in 32-bit lanes eight bytes at a time instead of by 8-byte steps (step8_avx2-inl.h), which cut
// each value out of the step's packed bits with two variable shifts in 64-bit lanes. The AVX2
// kernels' block decoders take such windows between their runs of one- and two-byte windows
// (step_loop_avx2-inl.h's ShortVarintRuns).
//
// One step (bytes 8k to 8k + 7 of the window): every byte's 32-bit lane is computed as if a varint
// began at that byte. A pshufb puts the byte and the three after it in the lane, lowest first; the
// first of them that does not continue ends the varint (the lowest set bit of the lane's "does not
// continue" bits, x ^ (x - 1) below it, is the mask of the varint's bytes); two multiply-adds join
// the 7-bit groups. A vpermd by a table indexed by the step's eight bits of varint starts gathers
// the lanes of the bytes that begin a varint ending in the window to the front; the 32-bit values
// are widened by unpacking them with their sign (zigzag formats) or with zero, which is why the
// table puts them in the order {0, 1, 4, 5, 2, 3, 6, 7}. Eight slots are stored from the step's
// first value. Nothing branches on the values.
//
// Bounds: a window reads exactly its 64 bytes (the last step's lanes take zeros, bytes that do not
// continue, past the window; the varint they would cut short is the one left to the next window)
// and writes out[0, 64): step k begins at a slot of at most 8k, since every byte begins at most one
// varint.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after
// parsers/kernel_probes.h (tests count the windows with it) and parsers/varint_format-inl.h. No
// include guard; includes nothing (varint_format-inl.h says why).

// Whether no varint of a window whose continuation bits are `more` (bit i: byte i) is longer than
// four bytes: no four continuation bytes in a row. A varint still open at the window's end is
// checked by the next window, which begins with it.
inline bool AllVarintsUpToFourBytes(uint64_t more) {
  const uint64_t two_in_a_row = more & (more >> 1);
  return (two_in_a_row & (two_in_a_row >> 2)) == 0;
}

// For each 8-bit mask of the bytes beginning a varint in a step: the vpermd indices that gather
// those bytes' lanes, in order, to the slots {0, 1, 4, 5, 2, 3, 6, 7} (unpacking the low and high
// halves of each 128-bit lane then gives values 0-3 and 4-7 in order). Unused slots take lane 0.
// Bytes, widened when loaded (vpmovzxbd): 2 KB a kernel instead of 8, as fast in whole reads.
struct alignas(8) StartLaneGather {
  uint8_t lane[8];
};

struct StartLaneGathers {
  StartLaneGather starts[256];
};

constexpr StartLaneGathers MakeStartLaneGathers() {
  constexpr int kSlotOfValue[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  StartLaneGathers t{};
  for (int starts = 0; starts < 256; ++starts) {
    int value = 0;
    for (int byte = 0; byte < 8; ++byte) {
      if (((starts >> byte) & 1) != 0) {
        t.starts[starts].lane[kSlotOfValue[value++]] = static_cast<uint8_t>(byte);
      }
    }
  }
  return t;
}

alignas(64) constexpr StartLaneGathers kStartLaneGathers = MakeStartLaneGathers();

template <VarintFormat F>
struct FourByteWindow {
  using Out = typename FormatTraits<F>::Out;
  static_assert(sizeof(Out) == 8 && !FormatTraits<F>::kDelta, "64-bit formats, no running sum");

  // The values ending in the 64-byte window at *p, whose continuation bits are `more`, into
  // out[*n, *n + count); advances *n by count and *p past the last of them (to the varint left open
  // in the window's last one to three bytes, which the next window begins with). REQUIRES: a varint
  // begins at *p; AllVarintsUpToFourBytes(more); 64 slots at out + *n (up to eight past the count
  // are overwritten).
  __attribute__((always_inline)) static void Put(const uint8_t** p, uint64_t more, Out* out,
                                                 size_t* n) {
    PBACCEL_KERNEL_PROBE(four_byte_windows);
    const int open_bytes = __builtin_clzll(~more);  // Continuation bytes at the top.
    // Bit i: a varint begins at byte i and ends in the window.
    const uint64_t starts = ((~more << 1) | 1) & (~uint64_t{0} >> open_bytes);
    const uint8_t* const window = *p;
    Out* const to = out + *n;
    size_t count = 0;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      // The step's bytes and the eight after them; the last step's are bytes 48 to 63.
      const __m256i bytes = _mm256_broadcastsi128_si256(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(window + (k < 7 ? 8 * k : 48))));
      const unsigned step_starts = static_cast<unsigned>(starts >> (8 * k)) & 0xFFu;
      const __m256i values = Lanes(_mm256_shuffle_epi8(bytes, k < 7 ? Control() : LastControl()));
      Store(_mm256_permutevar8x32_epi32(
                values, _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(
                            kStartLaneGathers.starts[step_starts].lane)))),
            to + count);
      count += static_cast<size_t>(__builtin_popcount(step_starts));
    }
    *n += count;
    *p += 64 - open_bytes;
  }

  // The pshufb control putting, in lane j, byte j of 16 bytes and the three after it (lowest
  // first).
  static __m256i Control() {
    return _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                            4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
  }

  // The same for the window's last step, bytes 8 to 15 of its 16: zero (a byte that does not
  // continue) in place of the bytes past the window.
  static __m256i LastControl() {
    constexpr char z = static_cast<char>(0x80);
    return _mm256_setr_epi8(8, 9, 10, 11, 9, 10, 11, 12, 10, 11, 12, 13, 11, 12, 13, 14,  //
                            12, 13, 14, 15, 13, 14, 15, z, 14, 15, z, z, 15, z, z, z);
  }

  // Each lane's value if a varint begins at its lowest byte: its bytes up to the first that does
  // not continue, their 7-bit groups joined (the lowest byte lowest).
  __attribute__((always_inline)) static __m256i Lanes(__m256i lanes) {
    // Bits 7, 15, 23, 31: set where the byte does not continue; the lowest one ends the varint.
    const __m256i stops =
        _mm256_andnot_si256(lanes, _mm256_set1_epi32(static_cast<int>(0x80808080u)));
    // Every bit up to the lowest stop: x ^ (x - 1).
    const __m256i own = _mm256_xor_si256(stops, _mm256_add_epi32(stops, _mm256_set1_epi32(-1)));
    const __m256i groups =
        _mm256_and_si256(_mm256_and_si256(lanes, own), _mm256_set1_epi32(0x7F7F7F7F));
    // (byte 1 << 7 | byte 0) and (byte 3 << 7 | byte 2) (the weights unsigned, 1 and 128), then
    // the second << 14 | the first.
    const __m256i pairs =
        _mm256_maddubs_epi16(_mm256_set1_epi16(static_cast<short>(0x8001)), groups);
    return _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x40000001));
  }

  // Eight gathered 32-bit values (in kStartLaneGathers' slot order) into out[0, 8) as 64-bit ones.
  __attribute__((always_inline)) static void Store(__m256i v, Out* out) {
    __m256i high;
    if constexpr (F == VarintFormat::kSInt64) {
      // Zigzag; below 2^28, the value's sign is its low bit, so -(v & 1) is its high half too.
      high = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(v, _mm256_set1_epi32(1)));
      v = _mm256_xor_si256(_mm256_srli_epi32(v, 1), high);
    } else {
      high = _mm256_setzero_si256();  // int64 and uint64 below 2^28 are not negative.
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi32(v, high));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), _mm256_unpackhi_epi32(v, high));
  }
};
