// Copyright 2026 The pbaccel Authors.
//
// masked_vbyte-inl.h: the Masked VByte decoder, shared by the kernels masked_vbyte (SSE4.1,
// masked_vbyte.cc) and masked_vbyte_avx2 (AVX2, masked_vbyte_avx2.cc). Packed varints after
// Plaisance, Kurz and Lemire's Masked VByte ("Vectorized VByte Decoding", 2015), extended to
// protobuf: 64-bit outputs, varints of 6 to 10 bytes, zigzag, bool, delta and strict mode.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// file, after <immintrin.h> (or <smmintrin.h>), <algorithm>, <cstddef>, <cstdint>, <cstring>,
// pbaccel/internal/kernel_abi.h and the shared -inl.h files (masked_vbyte_tables, varint_format,
// varint_scalar, varint_size; with AVX2 also store8x32_avx2, step8_avx2 and two_byte_steps_avx2).
// Compiled with -mavx2 (__AVX2__ defined; masked_vbyte_avx2, which decodes every payload with
// step_loop_avx2-inl.h but long 32-bit ones of mostly five-byte varints, so only those come here),
// the same algorithm uses 256-bit forms where they save instructions, and one more step; the
// tables, bounds and results are the same:
//   * the 64-byte continuation mask from two vpmovmskb instead of four pmovmskb;
//   * 32-bit formats without a running sum (int32, uint32, sint32, enum): a one-byte run's values
//     widened eight at a time (vpmovzxbd ymm) into 32-byte stores, and the blended step's eight
//     slots widened (vpmovzxwd ymm), selected and stored as one 32-byte vector, instead of two
//     of each;
//   * formats without a running sum, lenient: a 64-byte window whose varints are all one or two
//     bytes in four 16-byte steps (two_byte_steps_avx2-inl.h).
// The measurements behind these choices are in docs/kernels.md.
//
// The continuation bits of 64 payload bytes are gathered with four pmovmskb into one 64-bit mask,
// off the critical path (the next window's mask is built from this one's and a look-ahead mask of
// the 64 bytes after it, computed while this one is walked); the decoder then walks the mask. The
// walk's critical path is mask, index, load of the bytes consumed (a 4 KB column of the table of
// its own), advance. Each step looks at the next 16 bytes:
//   * no continuation bit in them: sixteen one-byte varints, zero-extended (pmovzxbd);
//   * otherwise the step's 12-bit mask indexes a 4,096-entry table (masked_vbyte_tables-inl.h)
//     that says how many varints to decode in one shape and how many bytes they take; one pshufb
//     puts each varint's bytes in its own lane, pmaddubsw (b0 + 128 b1) and pmaddwd
//     (w0 + 16384 w1) squeeze out the continuation bits:
//       four to eight varints of 1-2 bytes in 16-bit lanes (the paper stops at six); four of 1-3
//       bytes in 32-bit lanes; two (or one) of 1-5 bytes in 64-bit lanes;
//   * 32-bit fields in lenient mode (int32, uint32, sint32, enum, delta) use a second table whose
//     other shape is wider than the paper's: every varint ending within the 12 bytes, up to four
//     of 1-10 bytes, one per 32-bit lane (bytes 1-4 by the control, byte 5 by the same control
//     plus one, kept where byte 4 says the varint goes on). Both shapes are computed and one is
//     selected by blend, no branch. Strict mode, bool and 64-bit fields use the paper's shapes
//     (64-bit fields in lenient mode: its k16 and k32 also selected by blend, the values widened
//     from 32-bit lanes);
//   * 32-bit fields in lenient mode, where the next 15 bytes are three five-byte varints (random
//     32-bit values are 94 % five bytes long): a fixed control decodes the three, no table;
//   * 64-bit fields (lenient mode), where the table says k64 or kLong: the pair step. Two bit
//     scans of the mask give the lengths of the next two varints (1-10 bytes each, both within
//     the step's 16 bytes, else the first alone); a generated control table indexed by the two
//     lengths gathers bytes 1-8 of each into its qword (pmaddubsw/pmaddwd pack 56 bits) and bytes
//     9-10 into a second vector moved to bits 56-63;
//   * otherwise a varint of 6-10 bytes at the front (every negative int32/int64) takes the
//     long-varint path: one 8-byte load, its terminator found with a bit scan, its groups packed
//     with three shift-and-mask rounds, bytes 9-10 added when present. It stays inside this
//     kernel, costs about one table step, and the walk continues with the next step.
// zigzag, bool and strict delta (a prefix sum over each 4-lane vector: two shift-and-add steps plus
// the running carry) are fused into the stores. Lenient delta is decoded here as its gaps and
// summed after (running_sums-inl.h's SumsAfterGaps, faster: docs/kernels.md, "Delta formats: the
// gaps, then their sums").
//
// Bounds: the in-place walk runs while 64 bytes of payload remain (its loads reach at most 64 bytes
// past the window's start; 128 with the look-ahead, which runs while 128 remain) and 16 output
// slots are free; then single steps while 16 bytes remain.
// The rest is decoded in stages of at most 48 bytes copied into a zeroed stack buffer and decoded
// into a stack output, of which exactly the complete varints are copied out: no read outside the
// payload, no write past `cap`.
// Malformed input (over-long or truncated varint) and strict-mode range failures in a step go to
// the bounded scalar reader, which names the error at its exact offset.

template <VarintFormat F>
constexpr bool k64Bit = sizeof(typename FormatTraits<F>::Out) == 8;

// Broadcasts lane `lane` (0..3) of v to all four lanes.
inline __m128i BroadcastLane32(__m128i v, int lane) {
  switch (lane) {
    case 0: return _mm_shuffle_epi32(v, 0x00);
    case 1: return _mm_shuffle_epi32(v, 0x55);
    case 2: return _mm_shuffle_epi32(v, 0xAA);
    default: return _mm_shuffle_epi32(v, 0xFF);
  }
}

// Stores two 64-bit values (lanes [0, count) are meaningful, count 1 or 2; both lanes may be
// written). REQUIRES: 2 writable output slots.
template <VarintFormat F>
inline void Put2x64(__m128i v, int count, typename FormatTraits<F>::Out* out, __m128i* carry) {
  static_assert(k64Bit<F>, "64-bit formats only");
  if constexpr (kZigZag64<F>) v = ZigZag64(v);  // sint64, and delta sint64's gaps.
  if constexpr (FormatTraits<F>::kDelta) {
    v = _mm_add_epi64(v, _mm_slli_si128(v, 8));
    v = _mm_add_epi64(v, *carry);
    *carry = count == 2 ? _mm_unpackhi_epi64(v, v) : _mm_unpacklo_epi64(v, v);
  }
  (void)count;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
}

// Stores four values given in 32-bit lanes (lanes [0, count) meaningful; values below 2^32 that
// are the varints' full values, or for 32-bit formats their low 32 bits). May write 4 slots.
template <VarintFormat F>
inline void Put4x32(__m128i v, int count, typename FormatTraits<F>::Out* out, __m128i* carry) {
  if constexpr (k64Bit<F>) {
    // Full values below 2^32 (this is only called with those): widen, then the 64-bit step.
    Put2x64<F>(_mm_cvtepu32_epi64(v), count < 2 ? count : 2, out, carry);
    if (count > 2) Put2x64<F>(_mm_cvtepu32_epi64(_mm_srli_si128(v, 8)), count - 2, out + 2, carry);
  } else if constexpr (F == VarintFormat::kBool) {
    const __m128i ones = _mm_min_epu32(v, _mm_set1_epi32(1));
    const __m128i bytes = _mm_packus_epi16(_mm_packus_epi32(ones, ones), ones);
    const int32_t four = _mm_cvtsi128_si32(bytes);
    std::memcpy(out, &four, 4);
  } else {
    if constexpr (F == VarintFormat::kSInt32) {
      v = ZigZag32(v);
    } else if constexpr (F == VarintFormat::kDeltaUInt32) {
      v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
      v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
      v = _mm_add_epi32(v, *carry);
      *carry = BroadcastLane32(v, count - 1);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
  }
}

#ifdef __AVX2__
// The formats whose slots AVX2 writes eight at a time with Store8x32 (store8x32_avx2-inl.h):
// 32-bit integers without a running sum.
template <VarintFormat F>
constexpr bool kWide32 = !k64Bit<F> && F != VarintFormat::kBool && !FormatTraits<F>::kDelta;
#endif

// Bytes of `in` placed by the pshufb control at `control` (16 bytes, 0x80 = zero), payload bits
// only (the continuation bits cleared).
inline __m128i GatherPayload(__m128i in, const uint8_t* control) {
  return _mm_and_si128(
      _mm_shuffle_epi8(in, _mm_load_si128(reinterpret_cast<const __m128i*>(control))),
      _mm_set1_epi8(0x7F));
}
// 7-bit groups joined: byte pairs into 14-bit 16-bit lanes (b0 + 128 b1), and those pairs into
// 28-bit 32-bit lanes (w0 + 16384 w1).
inline __m128i Join14(__m128i groups) {
  return _mm_maddubs_epi16(_mm_set1_epi16(static_cast<int16_t>(0x8001)), groups);
}
inline __m128i Join28(__m128i pairs) { return _mm_madd_epi16(pairs, _mm_set1_epi32(0x40000001)); }

// The outcome of walking one staged or in-place window.
struct Walk {
  size_t off;         // Bytes consumed from the window start.
  size_t count;       // Values written.
  bool needs_scalar;  // Stopped at a step that the bounded scalar reader must take (see Run).
};

// Blend masks selecting a step's 32-bit lanes by kind (index: MaskedVByteKind).
alignas(16) constexpr int32_t kSelect16[5][4] = {
    {0, 0, 0, 0}, {-1, -1, -1, -1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
alignas(16) constexpr int32_t kSelect32[5][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {-1, -1, -1, -1}, {0, 0, 0, 0}, {0, 0, 0, 0}};

// 64-bit fields, lenient mode: two varints of up to 10 bytes each in one 16-byte load (the "pair
// step", used where the 12-bit table says k64 or kLong). Their lengths come from the continuation
// mask with two bit scans; the controls for lengths (l1, l2), l2 = 0 meaning the first alone:
//   lo: bytes 0-7 of varint k at the start of qword lane k (the rest zero);
//   hi: bytes 8 and 9 of varint k at bytes 0 and 1 of lane k, when it has them.
struct PairControls {
  uint8_t lo[16];
  uint8_t hi[16];
};
struct PairTable {
  PairControls c[10][11];  // [l1 - 1][l2]
};
constexpr PairTable MakePairTable() {
  PairTable t{};
  for (int l1 = 1; l1 <= 10; ++l1) {
    for (int l2 = 0; l2 <= 10; ++l2) {
      PairControls& c = t.c[l1 - 1][l2];
      for (int i = 0; i < 16; ++i) c.lo[i] = c.hi[i] = 0x80;
      const int len[2] = {l1, l2};
      const int src[2] = {0, l1};
      for (int k = 0; k < 2; ++k) {
        for (int j = 0; j < len[k] && src[k] + j < 16; ++j) {
          if (j < 8) {
            c.lo[8 * k + j] = static_cast<uint8_t>(src[k] + j);
          } else {
            c.hi[8 * k + j - 8] = static_cast<uint8_t>(src[k] + j);
          }
        }
      }
    }
  }
  return t;
}
alignas(16) constexpr PairTable kPairTable = MakePairTable();

// 32-bit fields, lenient mode: three five-byte varints at the front of a step (the usual shape of
// uniformly random 32-bit values: 94 % of them take five bytes) are decoded without the table,
// 15 bytes at once. `bits` is their 15-bit continuation pattern; the controls put
// bytes 1-4 of varint j in dword j (lo) and byte 5 at its top byte (fifth).
struct ThreeFiveByteControls {
  uint8_t lo[16];
  uint8_t fifth[16];
  uint16_t bits;
};
constexpr ThreeFiveByteControls MakeThreeFiveByteControls() {
  ThreeFiveByteControls c{};
  for (int i = 0; i < 16; ++i) c.lo[i] = c.fifth[i] = 0x80;
  for (int j = 0; j < 3; ++j) {
    c.bits = static_cast<uint16_t>(c.bits | (0xF << (5 * j)));
    for (int b = 0; b < 4; ++b) c.lo[4 * j + b] = static_cast<uint8_t>(5 * j + b);
    c.fifth[4 * j + 3] = static_cast<uint8_t>(5 * j + 4);
  }
  return c;
}
alignas(16) constexpr ThreeFiveByteControls kThreeFiveByte = MakeThreeFiveByteControls();
static_assert(kThreeFiveByte.bits == 0x3DEF, "bytes 0-3, 5-8, 10-13 continue; 4, 9, 14 end");

// The `consumed` column of an entry table on its own, one byte per mask: the step's critical path
// (mask, index, load, advance) then reads a 4 KB table with a plain base + index address instead
// of a 6-byte-stride row (two address computations before the load). That chain bounds the table
// steps: with a constant advance in its place, three-byte varints decoded 27 % faster.
struct ConsumedTable {
  uint8_t bytes[4096];
};
constexpr ConsumedTable MakeConsumedTable(const MaskedVByteEntry (&entries)[4096]) {
  ConsumedTable t{};
  for (int i = 0; i < 4096; ++i) t.bytes[i] = entries[i].consumed;
  return t;
}
alignas(64) constexpr ConsumedTable kConsumed = MakeConsumedTable(kMaskedVByteTables.entry);
alignas(64) constexpr ConsumedTable kConsumed32 = MakeConsumedTable(kMaskedVByteTables.entry32);

template <VarintFormat F, bool kStrict>
struct MaskedVByteDecoder {
  using Out = typename FormatTraits<F>::Out;
  static_assert(!FormatTraits<F>::kDelta || kStrict,
                "lenient delta decodes its gaps here and sums them after (running_sums-inl.h)");
  // 32-bit integer formats take the blended (branch-free) step; bool and 64-bit formats branch.
  static constexpr bool kBlended = !k64Bit<F> && F != VarintFormat::kBool;
  // The entry table: lenient 32-bit integer fields read only the first five bytes of a long
  // varint, so their kDword shape takes up to four varints of up to 10 bytes (see the tables'
  // header).
  static constexpr const MaskedVByteEntry* kEntries =
      kBlended && !kStrict ? kMaskedVByteTables.entry32 : kMaskedVByteTables.entry;
  static constexpr const uint8_t* kConsumedBytes =
      kBlended && !kStrict ? kConsumed32.bytes : kConsumed.bytes;
  // 64-bit integer formats, lenient: the table's k16 and k32 steps (every other kind takes the pair
  // step) are selected by blend, no branch, their values widened from 32-bit lanes
  // (PutShortsOrDwords, PutEight).
  static constexpr bool kBlended64 = k64Bit<F> && !kStrict;

  // The window walk, one loop over five kinds of step, each picked from the next 16 bytes'
  // continuation bits: sixteen one-byte varints; (32-bit lenient) three five-byte varints; (64-bit
  // lenient) the pair step; one varint of 6+ bytes; the shuffle table's shapes. Kept as one
  // function on purpose: split into a function per step (always inlined), the same algorithm
  // compiled to a larger stack frame and other register choices, and bool n = 64 measured 1.45x
  // slower (docs/kernels.md). Inlined into its three callers: as a call it measured 5-15 % slower.
  // Walks the window at `q` whose 64-bit continuation mask is `bits`, while the step's start is at
  // most `max_off` bytes in, fewer than `max_count` values are written and at least 16 output
  // slots remain below `room`. REQUIRES: 64 bytes readable at q (16 when max_off is 0); 16
  // writable slots at out + k for every k < room.
  __attribute__((always_inline)) static Walk WalkWindow(const uint8_t* q, uint64_t bits,
                                                        size_t max_off, size_t max_count, Out* out,
                                                        size_t room, __m128i* carry) {
    size_t off = 0;
    size_t k = 0;
    // k < max_count and room - k >= 16 as one compare (max_count >= 1, room >= 16 when called).
    const size_t last_k = std::min(max_count - 1, room - 16);
    while (off <= max_off && k <= last_k) {
      const uint64_t m = bits >> off;
      const __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + off));
      if ((m & 0xFFFF) == 0) {
        if (kStrict && F == VarintFormat::kBool &&
            _mm_movemask_epi8(_mm_cmpgt_epi8(in, _mm_set1_epi8(1))) != 0) {
          return {off, k, true};
        }
        PutSixteenOneByte(in, out + k, carry);
        off += 16;
        k += 16;
        continue;
      }
      if constexpr (kBlended && !kStrict) {
        // (A branch: in W1 it mispredicts where the pattern breaks, every ~16 values, but the
        // three-varint step it takes is a third of the blended step; the branch-free and
        // table-gated alternatives measured slower: docs/kernels.md.)
        if ((m & 0x7FFF) == kThreeFiveByte.bits) {
          const __m128i d = Join28(Join14(GatherPayload(in, kThreeFiveByte.lo)));
          // Byte 5's low nibble lands at bits 28-31 (the rest lies past the field's 32 bits).
          const __m128i fifth = _mm_shuffle_epi8(
              in, _mm_load_si128(reinterpret_cast<const __m128i*>(kThreeFiveByte.fifth)));
          Put4x32<F>(_mm_or_si128(d, _mm_slli_epi32(fifth, 4)), 3, out + k, carry);
          off += 15;
          k += 3;
          continue;
        }
      }
      const MaskedVByteEntry e = kEntries[m & 0xFFF];
      const size_t consumed = kConsumedBytes[m & 0xFFF];  // = e.consumed, on the critical path.
      if constexpr (k64Bit<F> && !kStrict) {
        if (e.kind == k64 || e.kind == kLong) {
          // The pair step. m has at least 16 real bits (off <= max_off <= 48 of a 64-bit window,
          // or a 16-bit single step); bits past them read as terminators, so only lengths whose
          // bytes lie within the 16 are trusted.
          // (Bit 16 forced: a run of 16+ continuation bits gives l1 = 17, never ctz(0).)
          const unsigned l1 = static_cast<unsigned>(__builtin_ctzll(~m | (uint64_t{1} << 16))) + 1;
          if (l1 > 10) return {off, k, true};  // Over-long or truncated: the scalar reader.
          unsigned l2 = static_cast<unsigned>(__builtin_ctzll(~(m >> l1))) + 1;
          l2 = (l1 + l2 <= 16 && l2 <= 10) ? l2 : 0;  // Else the first alone.
          const PairControls& c = kPairTable.c[l1 - 1][l2];
          const __m128i d = Join28(Join14(GatherPayload(in, c.lo)));
          const __m128i v56 = _mm_or_si128(
              _mm_and_si128(d, _mm_set1_epi64x(0x0FFFFFFF)),
              _mm_and_si128(_mm_srli_epi64(d, 4), _mm_set1_epi64x(~int64_t{0x0FFFFFFF})));
          // Bytes 9 and 10: (b8 & 0x7F) + 128 (b9 & 1) in the lane's low 16 bits, moved to bit 56.
          const __m128i hi = _mm_and_si128(
              _mm_shuffle_epi8(in, _mm_load_si128(reinterpret_cast<const __m128i*>(c.hi))),
              _mm_set1_epi16(0x017F));
          const __m128i top = _mm_slli_epi64(Join14(hi), 56);
          const int count = l2 == 0 ? 1 : 2;
          Put2x64<F>(_mm_or_si128(v56, top), count, out + k, carry);
          off += l1 + l2;
          k += static_cast<size_t>(count);
          continue;
        }
      }
      if (e.kind == kLong) {
        // A varint of 6+ bytes: the whole of it is within the 64 readable bytes (off <= 48).
        uint64_t v;
        size_t len;
        if (!ReadVarintUpTo10<kStrict>(q + off, &v, &len)) return {off, k, true};
        if (kStrict && !FormatTraits<F>::FitsStrict(v)) return {off, k, true};
        PutOne(v, out + k, carry);
        off += len;
        k += 1;
        continue;
      }
      const __m128i ctrl =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(kMaskedVByteTables.shuffle[e.shuffle]));
      const __m128i x = _mm_and_si128(_mm_shuffle_epi8(in, ctrl), _mm_set1_epi8(0x7F));
      // (b0 + 128 b1) per 16-bit lane; then (w0 + 16384 w1) per 32-bit lane: 28 bits.
      const __m128i w = Join14(x);
      const __m128i d = Join28(w);
      // k64: bits 0..27 in each qword's low dword, bits 28..34 (byte 5) in its high dword.
      const __m128i v64 =
          _mm_or_si128(_mm_and_si128(d, _mm_set1_epi64x(0x0FFFFFFF)),
                       _mm_and_si128(_mm_srli_epi64(d, 4), _mm_set1_epi64x(~int64_t{0x0FFFFFFF})));
      if constexpr (kBlended && !kStrict) {
        // 32-bit formats, lenient (entry32): k16 or kDword, selected without a branch. kDword:
        // the control gathered bytes 1-4 of each varint into its dword (28 bits after the two
        // multiply-adds); byte 5 is gathered with the same control, its top byte plus one, and
        // kept where byte 4 has its continuation bit (the varint has 5+ bytes): its low nibble
        // lands at bits 28-31 after a dword shift by 4 (the rest, and bytes 6-10, are dropped).
        const __m128i raw = _mm_shuffle_epi8(in, ctrl);
        const __m128i fifth_ctrl = _mm_or_si128(_mm_add_epi32(ctrl, _mm_set1_epi32(0x01000000)),
                                                _mm_set1_epi32(0x00808080));
        const __m128i fifth =
            _mm_and_si128(_mm_shuffle_epi8(in, fifth_ctrl), _mm_srai_epi32(raw, 31));
        const __m128i dword = _mm_or_si128(d, _mm_slli_epi32(fifth, 4));
        PutShortsOrDwords(w, dword, e.kind, e.count, out + k, carry);
      } else if constexpr (kBlended) {
        // 32-bit formats: all three shapes end in 32-bit lanes, so compute each and select by
        // kind instead of branching on it (the kind changes from step to step unpredictably).
        const __m128i lo64 = _mm_shuffle_epi32(v64, 0x08);  // Low dwords of both qwords.
        const __m128i sel32 = _mm_load_si128(reinterpret_cast<const __m128i*>(kSelect32[e.kind]));
        if (kStrict && e.kind == k64 && !TwoFitStrict(v64, e.count)) return {off, k, true};
        PutShortsOrDwords(w, _mm_blendv_epi8(lo64, d, sel32), e.kind, e.count, out + k, carry);
      } else if constexpr (kBlended64) {
        // k16 or k32 (the pair step took k64 and kLong): the kind changes from step to step
        // unpredictably in real 64-bit fields (an OSM node's coordinate deltas, of two and three
        // bytes), so both are computed and one selected (docs/kernels.md).
        PutShortsOrDwords(w, d, e.kind, e.count, out + k, carry);
      } else if (e.kind == k16) {
        if (kStrict && F == VarintFormat::kBool &&
            _mm_movemask_epi8(_mm_cmpgt_epi16(w, _mm_set1_epi16(1))) != 0) {
          return {off, k, true};
        }
        Put4x32<F>(_mm_cvtepu16_epi32(w), e.count < 4 ? e.count : 4, out + k, carry);
        if (e.count > 4) {
          Put4x32<F>(_mm_cvtepu16_epi32(_mm_srli_si128(w, 8)), e.count - 4, out + k + 4, carry);
        }
      } else if (e.kind == k32) {
        if (kStrict && F == VarintFormat::kBool &&
            _mm_movemask_epi8(_mm_cmpgt_epi32(d, _mm_set1_epi32(1))) != 0) {
          return {off, k, true};
        }
        Put4x32<F>(d, 4, out + k, carry);
      } else {
        if (kStrict && !k64Bit<F> && !TwoFitStrict(v64, e.count)) return {off, k, true};
        PutTwo(v64, e.count, out + k, carry);
      }
      off += consumed;
      k += e.count;
    }
    return {off, k, false};
  }

  // A blended step's store: where `kind` is k16, the eight 16-bit values of `w` widened to 32
  // bits; otherwise the four 32-bit values of `dwords`. `count` (1..8) of them are meaningful.
  static void PutShortsOrDwords(__m128i w, __m128i dwords, int kind, int count, Out* out,
                                __m128i* carry) {
    const __m128i sel16 = _mm_load_si128(reinterpret_cast<const __m128i*>(kSelect16[kind]));
#ifdef __AVX2__
    if constexpr (kWide32<F>) {
      // One 8-lane vector (lanes 4-7 of a dword step are past `count`: overwritten later).
      Store8x32<F>(_mm256_blendv_epi8(_mm256_zextsi128_si256(dwords), _mm256_cvtepu16_epi32(w),
                                      _mm256_broadcastsi128_si256(sel16)),
                   out);
      return;
    }
#endif
    PutEight(_mm_blendv_epi8(dwords, _mm_cvtepu16_epi32(w), sel16),
             _mm_cvtepu16_epi32(_mm_srli_si128(w, 8)), count, out, carry);
  }

  // Sixteen one-byte varints (the bytes of `in`, values 0..127) into out[0, 16).
  static void PutSixteenOneByte(__m128i in, Out* out, __m128i* carry) {
#ifdef __AVX2__
    if constexpr (kWide32<F>) {
      Store8x32<F>(_mm256_cvtepu8_epi32(in), out);
      Store8x32<F>(_mm256_cvtepu8_epi32(_mm_srli_si128(in, 8)), out + 8);
      return;
    }
#endif
    PutEight(_mm_cvtepu8_epi32(in), _mm_cvtepu8_epi32(_mm_srli_si128(in, 4)), 8, out, carry);
    PutEight(_mm_cvtepu8_epi32(_mm_srli_si128(in, 8)), _mm_cvtepu8_epi32(_mm_srli_si128(in, 12)), 8,
             out + 8, carry);
  }

  // A blended step's values (or eight one-byte varints'): lanes 0-3 in `lo`, 4-7 in `hi`, `count`
  // (1..8) of them meaningful. Delta formats store exactly `count` (the running sum must not see
  // the others); the rest store all eight, and lanes past `count` are overwritten by the next
  // step. kBlended64 formats' values are below 2^28 here: sint64's zigzag is taken in the 32-bit
  // lanes (a 28-bit value's zigzag fits in 32 bits, and sign extension then gives the int64), and
  // every value is widened by sign extension (for the others the same as zero extension).
  static void PutEight(__m128i lo, __m128i hi, int count, Out* out, __m128i* carry) {
    if constexpr (FormatTraits<F>::kDelta) {
      Put4x32<F>(lo, count < 4 ? count : 4, out, carry);
      if (count > 4) Put4x32<F>(hi, count - 4, out + 4, carry);
    } else if constexpr (kBlended64) {
      if constexpr (kZigZag64<F>) {
        lo = ZigZag32(lo);
        hi = ZigZag32(hi);
      }
      __m128i* const to = reinterpret_cast<__m128i*>(out);
      _mm_storeu_si128(to, _mm_cvtepi32_epi64(lo));
      _mm_storeu_si128(to + 1, _mm_cvtepi32_epi64(_mm_srli_si128(lo, 8)));
      _mm_storeu_si128(to + 2, _mm_cvtepi32_epi64(hi));
      _mm_storeu_si128(to + 3, _mm_cvtepi32_epi64(_mm_srli_si128(hi, 8)));
    } else {
      Put4x32<F>(lo, 4, out, carry);
      Put4x32<F>(hi, 4, out + 4, carry);
    }
  }

  // Two values of up to 35 bits in 64-bit lanes, `count` (1 or 2) of them meaningful.
  static void PutTwo(__m128i v, int count, Out* out, __m128i* carry) {
    if constexpr (k64Bit<F>) {
      Put2x64<F>(v, count, out, carry);
    } else if constexpr (F == VarintFormat::kBool) {
      // Truth is over all the value's bits, not its low 32: test the 64-bit lanes.
      const __m128i zero64 = _mm_cmpeq_epi64(v, _mm_setzero_si128());
      const __m128i ones = _mm_andnot_si128(zero64, _mm_set1_epi64x(1));
      Put4x32<F>(_mm_shuffle_epi32(ones, 0x08), count, out, carry);
    } else {
      Put4x32<F>(_mm_shuffle_epi32(v, 0x08), count, out, carry);  // Low dwords of both lanes.
    }
  }

  // Strict mode, 32-bit formats: whether the first `count` values of up to 35 bits fit the type.
  static bool TwoFitStrict(__m128i v, int count) {
    uint64_t lanes[2];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes), v);
    for (int i = 0; i < count; ++i) {
      if (!FormatTraits<F>::FitsStrict(lanes[i])) return false;
    }
    return true;
  }

  // One value from the long-varint path.
  static void PutOne(uint64_t v, Out* out, __m128i* carry) {
    if constexpr (k64Bit<F>) {
      Put2x64<F>(_mm_set_epi64x(0, static_cast<int64_t>(v)), 1, out, carry);
    } else if constexpr (F == VarintFormat::kBool) {
      *out = v != 0;
    } else {
      Put4x32<F>(_mm_cvtsi32_si128(static_cast<int32_t>(v)), 1, out, carry);
    }
  }

  // Whether the 64 bytes at q all have their high bit clear (64 one-byte varints).
  static bool AllOneByte64(const uint8_t* q) {
#ifdef __AVX2__
    const auto load256 = [q](int i) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * i));
    };
    return _mm256_movemask_epi8(_mm256_or_si256(load256(0), load256(1))) == 0;
#else
    const auto load = [q](int i) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * i));
    };
    return _mm_movemask_epi8(
               _mm_or_si128(_mm_or_si128(load(0), load(1)), _mm_or_si128(load(2), load(3)))) == 0;
#endif
  }

  // The 64 one-byte varints at q (values 0..127) into out[0, 64).
  static void PutOneByteWindow(const uint8_t* q, Out* out, __m128i* carry) {
    if constexpr (F == VarintFormat::kBool) {
#pragma GCC unroll 4
      for (int i = 0; i < 64; i += 16) {
        const __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_min_epu8(in, _mm_set1_epi8(1)));
      }
    } else {
#ifdef __AVX2__
      if constexpr (kWide32<F>) {
#pragma GCC unroll 8
        for (int i = 0; i < 64; i += 8) {
          const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + i));
          Store8x32<F>(_mm256_cvtepu8_epi32(eight), out + i);
        }
        return;
      }
#endif
      if constexpr (kBlended64) {
#pragma GCC unroll 4
        for (int i = 0; i < 64; i += 16) {
          PutSixteenOneByte(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)), out + i,
                            carry);
        }
        return;
      }
#pragma GCC unroll 16
      for (int i = 0; i < 64; i += 4) {
        int32_t four;
        std::memcpy(&four, q + i, 4);
        Put4x32<F>(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(four)), 4, out + i, carry);
      }
    }
  }

  static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                          uint64_t delta_base) {
    Out* const out = static_cast<Out*>(out_void);
    size_t n = 0;
    __m128i carry = k64Bit<F> ? _mm_set1_epi64x(static_cast<int64_t>(delta_base))
                              : _mm_set1_epi32(static_cast<int32_t>(delta_base));
    bool needs_scalar = false;

    // In place, while 64 bytes remain: steps may start up to 48 bytes into each window. While 128
    // remain, the next window's mask is assembled from this one's and the mask of the 64 bytes
    // after it, computed while this window is walked (a mask computed where the walk stopped
    // waited for the walk: four loads and four pmovmskb on the critical path at every window;
    // len1to5 -5 %, W4 -8 %, W2 -3 % at n = 1M).
    uint64_t bits = end - p >= 64 ? HighBitsOf64(p) : 0;
    while (end - p >= 64 && cap - n >= 16 && !needs_scalar) {
      if (bits == 0 && cap - n >= 64 && !(kStrict && F == VarintFormat::kBool)) {
        // 64 one-byte varints (a branch taken in runs of small values, and predictably not taken
        // elsewhere: one window in 1,500 of W2 is all one-byte); then, while the run lasts, the
        // shortest loop (the next 64 bytes' high bits tested at once).
        do {
          PutOneByteWindow(p, out + n, &carry);
          p += 64;
          n += 64;
        } while (end - p >= 64 && cap - n >= 64 && AllOneByte64(p));
        if (end - p >= 64) bits = HighBitsOf64(p);
        continue;
      }
#if defined(__AVX2__)
      if constexpr (!kStrict) {
        // 64 bytes of one- and two-byte varints (tile geometry, string-table indexes): four
        // 16-byte steps (two_byte_steps_avx2-inl.h: at most 48 values before the last, which
        // stores at most 16 slots from there), a varint begun in the last byte left to the next
        // window.
        if (AllVarintsUpToTwoBytes(bits) && cap - n >= 64) {
          TwoByteSteps<F, PortableBits> steps{out + n};
#pragma GCC unroll 4
          for (int j = 0; j < 64; j += 16) {
            steps.Step(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j)));
          }
          p += 64 - (bits >> 63);
          n += steps.count;
          if (end - p >= 64) bits = HighBitsOf64(p);
          continue;
        }
      }
#endif
      const bool look_ahead = end - p >= 128;
      const uint64_t ahead = look_ahead ? HighBitsOf64(p + 64) : 0;
      const Walk w = WalkWindow(p, bits, 48, SIZE_MAX, out + n, cap - n, &carry);
      p += w.off;
      n += w.count;
      needs_scalar = w.needs_scalar;
      // The walk stops past 48 bytes (w.off 49..64) unless the output is nearly full or a step
      // needs the scalar reader; the assembled mask covers the new window only in the first case.
      if (look_ahead && w.off > 48) {
        bits = ((bits >> 48) >> (w.off - 48)) | (ahead << (64 - w.off));
      } else if (end - p >= 64) {
        bits = HighBitsOf64(p);
      }
    }

    // One step at a time while 16 bytes remain: the step's own 16-byte load gives its mask (a
    // window of one step; the walk never looks past those 16 real bytes).
    while (end - p >= 16 && cap - n >= 16 && !needs_scalar) {
      const uint64_t step_bits = static_cast<uint16_t>(
          _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
      const Walk w = WalkWindow(p, step_bits, /*max_off=*/0, SIZE_MAX, out + n, cap - n, &carry);
      p += w.off;
      n += w.count;
      needs_scalar = w.needs_scalar;
    }

    // Staged: at most 48 real bytes at a time in a zeroed buffer (zeros read as one-byte varints,
    // so the walk never trips over the padding), decoded into a stack output; only the chunk's
    // complete varints are copied out.
    while (!needs_scalar && p < end && n < cap) {
      alignas(16) uint8_t buf[128] = {};
      const size_t real = end - p < 48 ? static_cast<size_t>(end - p) : 48;
      std::memcpy(buf, p, real);
      const uint64_t buf_bits = HighBitsOf64(buf);
      const uint64_t real_mask = (uint64_t{1} << real) - 1;
      const uint64_t term = ~buf_bits & real_mask;
      const size_t terminators = static_cast<size_t>(__builtin_popcountll(term));
      if (terminators == 0) break;  // Truncated or over-long: the scalar reader names it.
      const size_t complete = terminators < cap - n ? terminators : cap - n;
      Out staged[48 + 16];
      __m128i staged_carry = carry;
      const Walk w = WalkWindow(buf, buf_bits, 48, complete, staged, sizeof(staged) / sizeof(Out),
                                &staged_carry);
      if (w.needs_scalar || w.count < complete) {
        needs_scalar = true;
        break;
      }
      std::memcpy(out + n, staged, complete * sizeof(Out));
      // Bytes of the `complete` varints: one past the complete-th terminator, which is the last
      // one unless the room cut the chunk short (then found by dropping the lowest terminators).
      size_t last = 63 - static_cast<size_t>(__builtin_clzll(term));
      if (complete < terminators) {
        uint64_t t = term;
        for (size_t i = 1; i < complete; ++i) t &= t - 1;
        last = static_cast<size_t>(__builtin_ctzll(t));
      }
      p += last + 1;
      n += complete;
      if constexpr (FormatTraits<F>::kDelta) {
        carry = k64Bit<F> ? _mm_set1_epi64x(static_cast<int64_t>(out[n - 1]))
                          : _mm_set1_epi32(static_cast<int32_t>(out[n - 1]));
      }
    }
    if (p == end) return {p, n, DecodeStatus::kOk};
    if (n == cap) return {p, n, DecodeStatus::kOutputFull};
    // The bounded scalar reader finishes: exact errors and offsets, strict-mode ranges.
    OutputSink<F> sink(out, n == 0 ? delta_base : static_cast<uint64_t>(out[n - 1]));
    return DecodeTail<F, kStrict>(p, end, sink, n, cap);
  }
};

// Encoded sizes four at a time: a 32-bit value's varint has 1 + [v >= 2^7] + [v >= 2^14] +
// [v >= 2^21] + [v >= 2^28] bytes (unsigned compares, as max_epu32(v, t) == v); a negative int32
// takes 5 more (10 in all). SSE4.1 has no unsigned 64-bit compare: 64-bit formats stay scalar.
template <SizeFormat S>
struct SseSizer {
  static size_t Run(const void* values, size_t n) {
    using In = typename SizeTraits<S>::In;
    const In* v = static_cast<const In*>(values);
    if constexpr (sizeof(In) == 8) {
      return ScalarEncodedSize<S>(v, n);
    } else {
      size_t total = 0;
      size_t i = 0;
      while (n - i >= 4) {
        // Lane counts stay far below 2^32: flush every 2^24 vectors.
        const size_t stop = i + (std::min(n - i, size_t{1} << 26) & ~size_t{3});
        __m128i acc = _mm_setzero_si128();
        for (; i < stop; i += 4) {
          __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i));
          if (S == SizeFormat::kSInt32)
            x = _mm_xor_si128(_mm_slli_epi32(x, 1), _mm_srai_epi32(x, 31));
          for (const uint32_t t : {1u << 7, 1u << 14, 1u << 21, 1u << 28}) {
            const __m128i ge =
                _mm_cmpeq_epi32(_mm_max_epu32(x, _mm_set1_epi32(static_cast<int>(t))), x);
            acc = _mm_sub_epi32(acc, ge);  // ge lanes are -1.
          }
          if (S == SizeFormat::kInt32)
            acc = _mm_add_epi32(acc, _mm_and_si128(_mm_srai_epi32(x, 31), _mm_set1_epi32(5)));
          total += 4;
        }
        uint32_t lanes[4];
        _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes), acc);
        total += size_t{lanes[0]} + lanes[1] + lanes[2] + lanes[3];
      }
      return total + ScalarEncodedSize<S>(v + i, n - i);
    }
  }
};

size_t CountTerminators(const uint8_t* p, const uint8_t* end) {
  const uint8_t* const begin = p;
  size_t count = 0;
  // 64 bytes at a time: four masks combined, one popcount.
  for (; end - p >= 64; p += 64) count += static_cast<size_t>(_mm_popcnt_u64(~HighBitsOf64(p)));
  for (; end - p >= 16; p += 16) {
    const int cont = _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    count += static_cast<size_t>(16 - _mm_popcnt_u32(static_cast<unsigned>(cont)));
  }
  const size_t rem = static_cast<size_t>(end - p);
  if (rem != 0 && end - begin >= 16) {
    // The payload's last 16 bytes, of which the top `rem` are not counted yet.
    const unsigned cont = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(end - 16))));
    return count + static_cast<size_t>(_mm_popcnt_u32(~cont & (0xFFFFu << (16 - rem)) & 0xFFFFu));
  }
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}
