// Copyright 2026 The pbaccel Authors.
//
// varint_lanes-inl.h: the walks of 64-bit fields' varint lanes over a run's 8-byte steps, shared by
// the lanes' AVX2 form (varint_lanes_avx2-inl.h: a step's eight lanes in one 256-bit vector) and
// their SSE4.1 form (varint_lanes_sse41-inl.h: two halves of four). Those files say what a lane
// is; this one says which steps a run takes and where each one's bytes and values go.
//
// A step is eight bytes that may begin a varint, given as the 16 bytes from its first (a varint of
// up to five bytes begun in its last byte ends within them), and the eight bits of `starts` that
// mark the bytes beginning a varint. Step k of a run begins at byte 8k and stores from the slot
// after the values of the steps before it, eight slots: at most slot 8k + 8, since every byte
// begins at most one varint. So a run of n bytes writes out[0, count + 8).
//
// Bounds: a lane reads only bytes up to its varint's last one, so bytes past a run (zeros or
// anything) change only lanes that no start selects. Every step of a 64-byte window but the last
// loads the 16 bytes from its first; the last takes bytes 56-63 from the load of bytes 48-63, so a
// window reads exactly its 64 bytes.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -msse4.1 (or -mavx2) and -mpopcnt, after parsers/kernel_probes.h and
// parsers/varint_format-inl.h (which brings tiny_payload-inl.h). No include guard; includes
// nothing (varint_format-inl.h says why).

// Bit i: a varint begins at byte i of a run of n bytes (1 <= n <= 64) whose continuation bits are
// `more` and whose last byte ends a varint.
inline uint64_t VarintStarts(uint64_t more, int n) { return ((~more << 1) | 1) & PayloadBytes(n); }

// The formats decoded in these lanes: 64-bit values, no running sum.
template <VarintFormat F>
inline constexpr bool kLaneFormat = sizeof(typename FormatTraits<F>::Out) == 8 &&
                                    !FormatTraits<F>::kDelta;

// The walks for a lane form `Lanes` (the class deriving from this one), which provides
//   static void Step(__m128i bytes, unsigned step_starts, Out* out):
// the varints beginning at the bytes of `bytes`[0, 8) that `step_starts` marks, in order, into
// out[0, 8).
template <class Lanes, VarintFormat F, int kMaxBytes>
struct VarintLaneWalk {
  using Out = typename FormatTraits<F>::Out;
  static_assert(kLaneFormat<F>, "64-bit formats, no running sum");
  static_assert(kMaxBytes == 4 || kMaxBytes == 5, "four or five bytes in a 32-bit lane");

  // Whether every varint of a run whose continuation bits are `more` is at most kMaxBytes long (a
  // varint still open at a window's end is checked by the next window, which begins with it).
  static bool Takes(uint64_t more) { return !HasVarintLongerThan<kMaxBytes>(more); }

  // The values ending in the 64-byte window at *p, whose continuation bits are `more`, into
  // out[*n, *n + count); advances *n by count and *p past the last of them (to the varint left open
  // in the window's last bytes, which the next window begins with). REQUIRES: a varint begins at
  // *p; Takes(more); 64 slots at out + *n (up to eight past the count are overwritten).
  __attribute__((always_inline)) static void Window(const uint8_t** p, uint64_t more, Out* out,
                                                    size_t* n) {
    if constexpr (kMaxBytes == 4) {
      PBACCEL_KERNEL_PROBE(four_byte_windows);
    } else {
      PBACCEL_KERNEL_PROBE(five_byte_windows);
    }
    const int open_bytes = __builtin_clzll(~more);
    const uint64_t starts = ((~more << 1) | 1) & (~uint64_t{0} >> open_bytes);
    const uint8_t* const window = *p;
    *n += Steps(
        8, starts, [window](int k) { return WindowStep(window, k); }, out + *n);
    *p += 64 - open_bytes;
  }

  // The payload p[0, n), 1 <= n <= 64, with 64 bytes readable from p (a window decoder's
  // contract): one step per 8 bytes, loaded as a window's. Returns the values' count. REQUIRES:
  // Takes(more), `more` the payload's continuation bits (its last byte ending a varint, none past
  // it); room for count + 8 values at `out`.
  __attribute__((always_inline)) static int Readable(const uint8_t* p, int n, uint64_t more,
                                                     Out* out) {
    PBACCEL_KERNEL_PROBE(lane_payloads);
    return static_cast<int>(
        Steps((n + 7) / 8, VarintStarts(more, n), [p](int k) { return WindowStep(p, k); }, out));
  }

  // The payload p[0, n), 1 <= n <= 16, with kTinyReadableBytes readable from p: two steps of
  // 16-byte loads. Returns the values' count. REQUIRES: as Readable's.
  __attribute__((always_inline)) static int Tiny(const uint8_t* p, int n, uint64_t more, Out* out) {
    PBACCEL_KERNEL_PROBE(lane_payloads);
    return static_cast<int>(Steps(
        2, VarintStarts(more, n),
        [p](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8 * k)); }, out));
  }

  // `steps` steps (at most 8) from out[0], step k's bytes given by bytes_of(k), its starts by bits
  // 8k to 8k+7 of `starts`. Unrolled, so that k is a constant in each step (bytes_of may pick a
  // register by it). Returns the values stored.
  template <class BytesOf>
  __attribute__((always_inline)) static size_t Steps(int steps, uint64_t starts, BytesOf bytes_of,
                                                     Out* out) {
    size_t count = 0;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      if (k == steps) break;
      const unsigned step_starts = static_cast<unsigned>(starts >> (8 * k)) & 0xFFu;
      Lanes::Step(bytes_of(k), step_starts, out + count);
      count += static_cast<size_t>(__builtin_popcount(step_starts));
    }
    return count;
  }

  // Step k's bytes in the 64 readable at `window`: the 16 from byte 8k; the last step's are bytes
  // 56 to 63, zeros above (so no load reaches past the 64).
  __attribute__((always_inline)) static __m128i WindowStep(const uint8_t* window, int k) {
    return k < 7
               ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(window + 8 * k))
               : _mm_srli_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(window + 48)), 8);
  }
};
