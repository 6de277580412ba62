// Copyright 2026 The pbaccel Authors.
//
// varint_lanes_avx2-inl.h: 64-bit fields' varints of at most four or five bytes (values below 2^28
// or 2^35: OpenStreetMap's coordinate and id deltas, a way's refs, whose first value is a whole
// node id) decoded in 32-bit lanes eight bytes at a time, instead of by 8-byte steps
// (step8_avx2-inl.h), which cut each value out of the step's packed bits with two variable shifts
// in 64-bit lanes and carry a varint from step to step. Two ways in: 64-bit windows between the
// block decoders' runs of one- and two-byte windows (step_loop_avx2-inl.h's ShortVarintRuns), and
// whole short payloads (short_payloads_avx2-inl.h's decode_tiny, decode_tiny_bounded and
// decode_window).
//
// One step (eight bytes that may begin a varint, given in a 16-byte vector whose first byte is the
// step's first): every byte's 32-bit lane is computed as if a varint began at that byte. A pshufb
// puts the byte and the three after it in the lane, lowest first; the first of them that does not
// continue ends the varint (the lowest set bit of the lane's "does not continue" bits, x ^ (x - 1)
// below it, is the mask of the varint's bytes); two multiply-adds join the 7-bit groups. For
// five-byte varints a second pshufb gives each lane the fifth byte, kept where all four continue:
// its low four bits go to the lane's top, its three high ones (bits 32-34) to a second lane. A
// vpermd by a table indexed by the step's eight bits of varint starts gathers the lanes of the
// bytes that begin a varint to the front; the values are widened to 64 bits by unpacking them with
// their high halves (the sign, for zigzag formats below 2^28), which is why the table puts them in
// the order {0, 1, 4, 5, 2, 3, 6, 7}. Eight slots are stored from the step's first value. Nothing
// branches on the values.
//
// The walks over a run's steps, and their bounds, are varint_lanes-inl.h's (shared with the SSE4.1
// form, varint_lanes_sse41-inl.h); here, one more way in: a bounded payload that comes in registers
// its reader filled without reading past it (short_payloads_avx2-inl.h's LoadWholePayload).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2 and -mpopcnt, after parsers/varint_lanes-inl.h. No include guard; includes
// nothing (varint_format-inl.h says why).

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

template <VarintFormat F, int kMaxBytes>
struct VarintLanes : VarintLaneWalk<VarintLanes<F, kMaxBytes>, F, kMaxBytes> {
  using Walk = VarintLaneWalk<VarintLanes<F, kMaxBytes>, F, kMaxBytes>;
  using Out = typename Walk::Out;

  // The whole payload of n bytes, 1 <= n <= 64 (the bounded decoder gives 16 and more, the window
  // decoder any), given in two registers (`low`: bytes 0-31, `high`: bytes 32-63, anything past
  // the payload), whose continuation bits are `more` (its last byte ending a varint; none past
  // it), into out[0, count): one step per 8 bytes, each step's 16 bytes cut from the registers
  // (step 7's upper 8 are zeros). Bytes past the payload only reach lanes that no
  // start selects. REQUIRES: Takes(more); room for count + 8 values at `out`.
  __attribute__((always_inline)) static void Payload(__m256i low, __m256i high, int n,
                                                     uint64_t more, Out* out) {
    PBACCEL_KERNEL_PROBE(lane_payloads);
    const __m128i b0 = _mm256_castsi256_si128(low), b16 = _mm256_extracti128_si256(low, 1);
    const __m128i b32 = _mm256_castsi256_si128(high), b48 = _mm256_extracti128_si256(high, 1);
    const __m128i step_bytes[8] = {
        b0,  _mm_alignr_epi8(b16, b0, 8),  b16, _mm_alignr_epi8(b32, b16, 8),
        b32, _mm_alignr_epi8(b48, b32, 8), b48, _mm_srli_si128(b48, 8)};
    Walk::Steps((n + 7) / 8, VarintStarts(more, n), [&step_bytes](int k) { return step_bytes[k]; },
                out);
  }

  // One step: the varints beginning at the bytes of `bytes`[0, 8) that `step_starts` marks (each
  // ending within `bytes`), in order, into out[0, 8).
  __attribute__((always_inline)) static void Step(__m128i bytes, unsigned step_starts, Out* out) {
    const __m256i lanes = _mm256_broadcastsi128_si256(bytes);
    __m256i low, high;
    Lanes(lanes, &low, &high);
    const __m256i gather = _mm256_cvtepu8_epi32(_mm_loadl_epi64(
        reinterpret_cast<const __m128i*>(kStartLaneGathers.starts[step_starts].lane)));
    low = _mm256_permutevar8x32_epi32(low, gather);
    if constexpr (kMaxBytes == 5) high = _mm256_permutevar8x32_epi32(high, gather);
    Store(low, high, out);
  }

  // Each lane's value if a varint begins at its lowest byte (of `lanes`, the step's 16 bytes in
  // both halves): its bytes up to the first that does not continue, their 7-bit groups joined (the
  // lowest byte lowest); bits 0-31 in *low, bits 32-34 in *high (five-byte varints only).
  __attribute__((always_inline)) static void Lanes(__m256i bytes, __m256i* low, __m256i* high) {
    const __m256i lanes = _mm256_shuffle_epi8(
        bytes, _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                                4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10));
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
    *low = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x40000001));
    if constexpr (kMaxBytes == 5) {
      constexpr char z = static_cast<char>(0x80);
      // The fifth byte (< 0x80: Takes() said it ends the varint), where all four continue.
      const __m256i fifth = _mm256_and_si256(
          _mm256_shuffle_epi8(
              bytes, _mm256_setr_epi8(4, z, z, z, 5, z, z, z, 6, z, z, z, 7, z, z, z, 8, z, z, z, 9,
                                      z, z, z, 10, z, z, z, 11, z, z, z)),
          _mm256_cmpeq_epi32(stops, _mm256_setzero_si256()));
      *low = _mm256_or_si256(*low, _mm256_slli_epi32(fifth, 28));
      *high = _mm256_srli_epi32(fifth, 4);
    } else {
      *high = _mm256_setzero_si256();
    }
  }

  // Eight gathered values (in kStartLaneGathers' slot order; bits 32-34 in `high`) into out[0, 8).
  __attribute__((always_inline)) static void Store(__m256i low, __m256i high, Out* out) {
    if constexpr (kZigZag64<F>) {
      // Zigzag: the value shifted down one, its bits flipped where its low bit is set.
      const __m256i sign =
          _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(low, _mm256_set1_epi32(1)));
      if constexpr (kMaxBytes == 5) {
        low = _mm256_or_si256(_mm256_srli_epi32(low, 1), _mm256_slli_epi32(high, 31));
        high = _mm256_xor_si256(_mm256_srli_epi32(high, 1), sign);
      } else {
        low = _mm256_srli_epi32(low, 1);  // Below 2^28: the high half is the sign.
        high = sign;
      }
      low = _mm256_xor_si256(low, sign);
    }
    // int64 and uint64 below 2^35 are not negative: `high` is their high half as it is.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi32(low, high));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), _mm256_unpackhi_epi32(low, high));
  }
};
