// Copyright 2026 The pbaccel Authors.
//
// varint_lanes_sse41-inl.h: the masked_vbyte kernel's (SSE4.1) form of the 64-bit varint lanes
// (varint_lanes_avx2-inl.h says what a lane is): 64-bit fields' varints of at most five bytes
// (values below 2^35: a way's refs, whose first value is a whole node id) decoded in 32-bit lanes
// eight bytes at a time, in short payloads: decode_tiny and decode_window
// (short_payloads_sse41-inl.h), where a payload holding a five-byte varint went to the block
// decoder before. Not in the block decoder's windows: there Masked VByte's blended steps read
// OSM's dense coordinates as fast or faster (docs/kernels.md).
//
// A step is two halves of four lanes, one 128-bit vector each (SSE4.1 has no lane permute across
// eight 32-bit lanes): half h's lanes begin at bytes 4h to 4h + 3. In each, one pshufb puts a
// lane's byte and the three after it in the lane, a second the fifth byte, and the AVX2 form's
// multiply-adds join the 7-bit groups; a pshufb by a 16-entry table keyed by the half's four start
// bits gathers the lanes that begin a varint to the front, and two unpacks with the high halves
// widen them to 64 bits. The first half stores four slots from the step's first value, the second
// four from the first half's last: eight slots from the step's first value at most, as the walks
// (varint_lanes-inl.h) require. Nothing branches on the values.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 and -mpopcnt, after parsers/varint_lanes-inl.h. No include guard;
// includes nothing (varint_format-inl.h says why).

// For each 4-bit mask of the lanes of a half that begin a varint: the pshufb control that gathers
// those 32-bit lanes, in order, to the front (unused lanes zero).
struct HalfLaneGathers {
  alignas(16) uint8_t control[16][16];
};

constexpr HalfLaneGathers MakeHalfLaneGathers() {
  HalfLaneGathers t{};
  for (int starts = 0; starts < 16; ++starts) {
    int slot = 0;
    for (int lane = 0; lane < 4; ++lane) {
      if (((starts >> lane) & 1) != 0) {
        for (int b = 0; b < 4; ++b) {
          t.control[starts][4 * slot + b] = static_cast<uint8_t>(4 * lane + b);
        }
        ++slot;
      }
    }
    for (int i = 4 * slot; i < 16; ++i) t.control[starts][i] = 0x80;
  }
  return t;
}

alignas(64) constexpr HalfLaneGathers kHalfLaneGathers = MakeHalfLaneGathers();

template <VarintFormat F>
struct VarintLanesSse41 : VarintLaneWalk<VarintLanesSse41<F>, F, 5> {
  using Walk = VarintLaneWalk<VarintLanesSse41<F>, F, 5>;
  using Out = typename Walk::Out;

  // One step (varint_lanes-inl.h): the varints beginning at the bytes of `bytes`[0, 8) that
  // `step_starts` marks (each ending within `bytes`), in order, into out[0, 8).
  __attribute__((always_inline)) static void Step(__m128i bytes, unsigned step_starts, Out* out) {
    constexpr char z = static_cast<char>(0x80);
    Half(bytes, _mm_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6),
         _mm_setr_epi8(4, z, z, z, 5, z, z, z, 6, z, z, z, 7, z, z, z), step_starts & 0xFu, out);
    Half(bytes, _mm_setr_epi8(4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10),
         _mm_setr_epi8(8, z, z, z, 9, z, z, z, 10, z, z, z, 11, z, z, z), step_starts >> 4,
         out + __builtin_popcount(step_starts & 0xFu));
  }

  // One half: the lanes whose first four bytes `first_four` picks from `bytes` (and whose fifth
  // `fifth_byte` does), the varints among them that `starts` (4 bits) marks into out[0, 4).
  __attribute__((always_inline)) static void Half(__m128i bytes, __m128i first_four,
                                                  __m128i fifth_byte, unsigned starts, Out* out) {
    const __m128i lanes = _mm_shuffle_epi8(bytes, first_four);
    // Bits 7, 15, 23, 31: set where the byte does not continue; the lowest one ends the varint.
    const __m128i stops = _mm_andnot_si128(lanes, _mm_set1_epi32(static_cast<int>(0x80808080u)));
    // Every bit up to the lowest stop: x ^ (x - 1).
    const __m128i own = _mm_xor_si128(stops, _mm_add_epi32(stops, _mm_set1_epi32(-1)));
    const __m128i groups = _mm_and_si128(_mm_and_si128(lanes, own), _mm_set1_epi32(0x7F7F7F7F));
    // (byte 1 << 7 | byte 0) and (byte 3 << 7 | byte 2), then the second << 14 | the first.
    const __m128i pairs = _mm_maddubs_epi16(_mm_set1_epi16(static_cast<short>(0x8001)), groups);
    __m128i low = _mm_madd_epi16(pairs, _mm_set1_epi32(0x40000001));
    // The fifth byte (< 0x80: Takes() said it ends the varint), where all four continue: its low
    // four bits to the lane's top, its three high ones to bits 32-34.
    const __m128i fifth = _mm_and_si128(_mm_shuffle_epi8(bytes, fifth_byte),
                                        _mm_cmpeq_epi32(stops, _mm_setzero_si128()));
    low = _mm_or_si128(low, _mm_slli_epi32(fifth, 28));
    __m128i high = _mm_srli_epi32(fifth, 4);
    const __m128i gather =
        _mm_load_si128(reinterpret_cast<const __m128i*>(kHalfLaneGathers.control[starts]));
    low = _mm_shuffle_epi8(low, gather);
    high = _mm_shuffle_epi8(high, gather);
    if constexpr (kZigZag64<F>) {
      // Zigzag: the value shifted down one, its bits flipped where its low bit is set.
      const __m128i sign =
          _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(low, _mm_set1_epi32(1)));
      low = _mm_xor_si128(_mm_or_si128(_mm_srli_epi32(low, 1), _mm_slli_epi32(high, 31)), sign);
      high = _mm_xor_si128(_mm_srli_epi32(high, 1), sign);
    }
    // int64 and uint64 below 2^35 are not negative: `high` is their high half as it is.
    __m128i* const to = reinterpret_cast<__m128i*>(out);
    _mm_storeu_si128(to, _mm_unpacklo_epi32(low, high));
    _mm_storeu_si128(to + 1, _mm_unpackhi_epi32(low, high));
  }
};
