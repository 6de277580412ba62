// Copyright 2026 The pbaccel Authors.
//
// step_loop_avx2-inl.h: the block decoder of packed varints of any length in step8_avx2-inl.h's
// 8-byte steps, parameterized by how a step's pattern and payload bits are found (its `Bits`):
// bmi2's decoder (Bmi2Bits: PEXT) and masked_vbyte_avx2's (PortableBits: a movemask and
// multiply-adds; its 32-bit payloads of long varints aside). parsers/bmi2.cc's header comment
// describes the algorithm: passes of a precomputed number of 8-byte steps with no bounds check, the
// open varint carried between steps, 64-byte windows of one-byte varints widened straight to their
// slots and windows of one- and two-byte varints in 16-byte steps (lenient formats), strict mode
// (strict delta too) cut slot by slot, the rest and every malformed input finished by the bounded
// scalar reader. Lenient delta is decoded here as its gaps and summed after (running_sums-inl.h's
// SumsAfterGaps). Near the end, where the output's room is what limits the steps (a span or field
// of exactly the payload's count), and for the payload's last partial step, exact steps
// (TakeStep<true>) store only their values, so a well-formed payload's last varints do not take the
// scalar reader's byte-at-a-time branches.
//
// Bounds: the step loop runs a precomputed number of steps, each reading 8 bytes and writing at
// most kSlots slots; the window loop reads and writes 64 at a time while 64 bytes and 64 slots
// remain; a bounded step reads 8 bytes inside the payload (the last partial step: the payload's
// last 8 bytes, shifted) and writes only its values; the bounded scalar reader reads nothing past
// the payload and writes nothing past `cap`.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// compiled with -mavx2, after parsers/kernel_probes.h (tests count the steps with it),
// parsers/step8_avx2-inl.h and parsers/two_byte_steps_avx2-inl.h (and what they require). No
// include guard; includes nothing (varint_format-inl.h says why).

// The formats whose slots are written straight from the vectors: the lenient ones (no per-value
// range check). Lenient delta never comes here (Decoder's static_assert).
template <VarintFormat F, bool kStrict>
constexpr bool kVectorFanOut = !kStrict;

// Steps between looks for a run of one-byte varints (every 1 KB; more often, the step loop's exit
// mispredicts: docs/kernels.md).
constexpr size_t kRunCheckSteps = 128;

// Below this many steps' room (kSlots each) the step loop's passes, each cut short by the room,
// give way to bounded steps (TakeStep<true>): passes shrinking with the room each end in a
// mispredicted exit.
constexpr size_t kBoundedStepsBelow = 8;

// Copies from[0, count) to to[0, count), count <= kSlots, writing nothing past to[count - 1]:
// masked stores for 32- and 64-bit values (lane i kept where i < count), bytes one by one for
// bool.
template <typename Out>
inline void CopyStepValues(const Out* from, size_t count, Out* to) {
  if constexpr (sizeof(Out) == 4) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_epi32(reinterpret_cast<int*>(to), mask,
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from)));
  } else if constexpr (sizeof(Out) == 8) {
    const __m256i n = _mm256_set1_epi64x(static_cast<int64_t>(count));
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(to),
                           _mm256_cmpgt_epi64(n, _mm256_setr_epi64x(0, 1, 2, 3)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from)));
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(to + 4),
                           _mm256_cmpgt_epi64(n, _mm256_setr_epi64x(4, 5, 6, 7)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + 4)));
  } else {
    for (size_t k = 0; k < count; ++k) to[k] = from[k];
  }
}

// The 64 one-byte varints at p into out[0, 64): bools 32 at a time, the rest eight at a time by
// tiny_payload-inl.h's StoreOneByteValues (one widening move each).
template <VarintFormat F>
inline void PutOneByteWindow(const uint8_t* p, typename FormatTraits<F>::Out* out) {
  if constexpr (F == VarintFormat::kBool) {
    for (int i = 0; i < 64; i += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          _mm256_min_epu8(v, _mm256_set1_epi8(1)));
    }
    return;
  }
#pragma GCC unroll 8
  for (int i = 0; i < 64; i += 8) {
    StoreOneByteValues<F, 8>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + i)), out + i);
  }
}

template <typename Bits>
struct StepLoop {
  template <VarintFormat F, bool kStrict>
  struct Decoder {
    using Traits = FormatTraits<F>;
    using Out = typename Traits::Out;
    static_assert(!Traits::kDelta || kStrict,
                  "lenient delta decodes its gaps here and sums them after (running_sums-inl.h)");
    // Steps per pass of the step loop: formats with the short-varint run path look for a run every
    // kRunCheckSteps steps.
    static constexpr size_t kMaxSteps = kVectorFanOut<F, kStrict> ? kRunCheckSteps : SIZE_MAX;

    // The driver: alternates ShortVarintRuns (where the format has them) with passes of up to
    // kMaxSteps 8-byte steps that need no bounds check, each cutting the values ending in the step
    // out of its packed payload bits (Bits::Payload; PutStep). The varint left open at the end of a
    // step is carried in `open`. Where the room cuts the passes short, and for the last partial
    // step, bounded steps (TakeStep<true>) store only their values. A malformed end or value,
    // values past the room, and a payload shorter than a step are finished by the bounded scalar
    // reader from the start of the open varint.
    static DecodeResult Run(const uint8_t* p, const uint8_t* end, void* out_void, size_t cap,
                            uint64_t delta_base) {
      Out* const out = static_cast<Out*>(out_void);
      size_t n = 0;
      OpenVarint open;                         // The varint left open at the last step's end.
      Out sum = static_cast<Out>(delta_base);  // Delta formats: the last value kept.
      const uint8_t* const begin = p;
      for (;;) {
        if constexpr (kVectorFanOut<F, kStrict>) {
          if (open.shift == 0) ShortVarintRuns(&p, end, out, &n, cap);
        }
        // Steps that need no bounds check: each reads 8 bytes and writes at most kSlots slots.
        size_t steps = end - p >= 8 ? static_cast<size_t>(end - p - 8) / kStepBytes + 1 : 0;
        if (steps > (cap - n) / kSlots) {
          steps = (cap - n) / kSlots;
          if (steps < kBoundedStepsBelow) {
            while (end - p >= kStepBytes &&
                   TakeStep</*kBounded=*/true>(LoadLittleEndian64(p), &open, out, &n, cap, &sum)) {
              p += kStepBytes;
            }
            break;
          }
        }
        if (steps == 0) break;
        if (steps > kMaxSteps) steps = kMaxSteps;
        const uint8_t* const stop = p + steps * kStepBytes;
        bool malformed = false;
        do {
          if (!TakeStep</*kBounded=*/false>(LoadLittleEndian64(p), &open, out, &n, cap, &sum)) {
            malformed = true;
            break;
          }
          p += kStepBytes;
        } while (p != stop);
        if (malformed) break;
      }
      // The last partial step of a payload of at least one step that ends a varint where it ends
      // (else it is malformed, and the bounded reader names the error): the payload's last 8 bytes
      // shifted down, continuation bytes without payload bits above them, so that no varint ends
      // past the payload.
      const size_t left = static_cast<size_t>(end - p);
      if (left > 0 && left < kStepBytes && end - begin >= kStepBytes && end[-1] < 0x80) {
        const uint64_t w = ContinuationsPast<Bits>(
            LoadLittleEndian64(end - kStepBytes) >> (8 * (kStepBytes - left)), left);
        if (TakeStep</*kBounded=*/true>(w, &open, out, &n, cap, &sum)) {
          return {end, n, DecodeStatus::kOk};
        }
      }
      // Finish from the start of the open varint: the bounded reader decodes the rest, reads
      // nothing past `end`, and names any error at its exact offset.
      p -= open.bytes();
      OutputSink<F> sink(out, static_cast<uint64_t>(sum));
      return DecodeTail<F, kStrict>(p, end, sink, n, cap);
    }

    // One step of word `w`: the values ending in it (the first with the open varint's bits) cut
    // out and stored at out[*n] (PutStep), then *open and *n advanced. kBounded: only the values
    // are stored (through a buffer where fewer than kSlots slots are left below `cap`), so it may
    // run near `cap`, and a step whose values do not fit is declined; else kSlots slots are stored
    // (the caller counted the room). Returns false, having advanced nothing and stored nothing that
    // counts, when the step's first varint would exceed 10 bytes, strict mode rejects a value or
    // (kBounded) the values do not fit.
    template <bool kBounded>
    __attribute__((always_inline)) static bool TakeStep(uint64_t w, OpenVarint* open, Out* out,
                                                        size_t* n, size_t cap, Out* sum) {
      const StepRecipe& s = kStepRecipes.step[Bits::Pattern(w)];
      const uint64_t packed = Bits::Payload(w);
      const uint64_t first = open->First<Bits>(packed, s);
      // A varint reaching its 11th byte is malformed.
      if (__builtin_expect(open->shift + s.first_bits > 70, 0)) return false;
      if constexpr (kBounded) {
        if (s.count > cap - *n) return false;
        if (cap - *n < kSlots) {
          Out values[kSlots];
          if (!PutStep(w, packed, first, s, open->shift, values, sum)) return false;
          CopyStepValues(values, s.count, out + *n);
        } else if (!PutStep(w, packed, first, s, open->shift, out + *n, sum)) {
          return false;
        }
        PBACCEL_KERNEL_PROBE(step_loop_bounded_steps);
      } else {
        if (!PutStep(w, packed, first, s, open->shift, out + *n, sum)) return false;
        PBACCEL_KERNEL_PROBE(step_loop_steps);
      }
      open->Advance(packed, first, s);
      *n += s.count;
      return true;
    }

    // Runs of 64-byte windows of short varints, while no varint is open (the caller's REQUIRES) and
    // 64 bytes and 64 slots remain: a window without a continuation bit (small values, bools) is
    // widened straight to 64 slots; one whose varints are all one or two bytes, in four 16-byte
    // steps (two_byte_steps_avx2-inl.h: at most 48 values before the last step, which stores at
    // most 16 slots from there, so within the 64), a varint begun in its last byte left to the next
    // window; for 64-bit fields, one whose varints are all at most four bytes, else at most five,
    // in 32-bit lanes (varint_lanes_avx2-inl.h, which leaves a varint begun in its last bytes the
    // same way).
    // Advances *p and *n.
    __attribute__((always_inline)) static void ShortVarintRuns(const uint8_t** p,
                                                               const uint8_t* end, Out* out,
                                                               size_t* n, size_t cap) {
      while (end - *p >= 64 && cap - *n >= 64) {
        const uint64_t more = HighBitsOf64(*p);
        if (more == 0) {
          PutOneByteWindow<F>(*p, out + *n);
          *p += 64;
          *n += 64;
          continue;
        }
        if (!AllVarintsUpToTwoBytes(more)) {
          if constexpr (kLaneFormat<F>) {
            if (VarintLanes<F, 4>::Takes(more)) {
              VarintLanes<F, 4>::Window(p, more, out, n);
              continue;
            }
            if (VarintLanes<F, 5>::Takes(more)) {
              VarintLanes<F, 5>::Window(p, more, out, n);
              continue;
            }
          }
          return;
        }
        TwoByteSteps<F, Bits> steps{out + *n};
#pragma GCC unroll 4
        for (int j = 0; j < 64; j += 16) {
          steps.Step(_mm_loadu_si128(reinterpret_cast<const __m128i*>(*p + j)));
        }
        *p += 64 - (more >> 63);  // A varint begun in the last byte starts the next window.
        *n += steps.count;
      }
    }

    // One step's stores: the values of the step described by `s` (word `w`, payload bits `packed`,
    // its first value `first` including the open varint's earlier bytes) into out[0, kSlots) (the
    // `s.count` real ones; the rest are overwritten by the next step). Vector formats: the AVX2
    // fan-out. Strict ones (strict delta too): slot by slot (FieldOf), delta continuing from *sum.
    // Returns false, storing nothing that counts, when strict mode rejects a value.
    __attribute__((always_inline)) static bool PutStep(uint64_t w, uint64_t packed, uint64_t first,
                                                       const StepRecipe& s, unsigned open_shift,
                                                       Out* out, Out* sum) {
      if constexpr (kVectorFanOut<F, kStrict>) {
        StoreStepValues<F, Bits>(packed, first, s, out);
        return true;
      } else {
        uint64_t v[kSlots];
        v[0] = first;
#pragma GCC unroll 8
        for (int k = 1; k < kSlots; ++k) v[k] = FieldOf(packed, s, k);
        if (kStrict) {
          // Values out of range, and a 10-byte varint whose last byte carries bits past 63.
          bool bad = s.count > 0 && open_shift + s.first_bits == 70 &&
                     ((w >> (8 * (s.first_len - 1))) & 0x7F) > 1;
#pragma GCC unroll 8
          for (int k = 0; k < kSlots; ++k) bad |= k < s.count && !Traits::FitsStrict(v[k]);
          if (__builtin_expect(bad, 0)) return false;
        }
        if constexpr (Traits::kDelta) {
          Out running[kSlots];
          Out acc = *sum;
#pragma GCC unroll 8
          for (int k = 0; k < kSlots; ++k) {
            acc = WrappingAdd(acc, Traits::Convert(v[k]));
            running[k] = acc;
            out[k] = acc;
          }
          if (s.count > 0) *sum = running[s.count - 1];
        } else {
#pragma GCC unroll 8
          for (int k = 0; k < kSlots; ++k) out[k] = Traits::Convert(v[k]);
        }
        return true;
      }
    }
  };
};
