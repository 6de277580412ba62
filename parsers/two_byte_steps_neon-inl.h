// Copyright 2026 The pbaccel Authors.
//
// two_byte_steps_neon-inl.h: the neon kernel's 16-byte steps over varints of one and two bytes
// (values below 2^14: tile geometry and tags, string-table indices, small ids), the twin of
// two_byte_steps_avx2-inl.h. The Masked VByte step (neon.cc) takes at most eight such varints, at
// most 12 bytes, through the 4,096-entry shape table; this one takes all 16 bytes.
//
// One step: each byte's 16-bit lane holds its value as if it ended a varint. Its low byte is the
// previous byte's low 7 bits where that byte continues (a varint of at most two bytes has nothing
// further back), else the byte itself; its high byte is the byte itself where the previous one
// continues, else 0 (one BSL, one AND, ZIP into lanes, then neon.cc's Join14 squeezes out the
// continuation bit). TBL with two_byte_lanes-inl.h's table, keyed by each 8-byte half's varint
// ends, gathers the lanes of the bytes that end a varint to the front of the half; each half stores
// eight slots (NeonStore::Eight16), the second from the first's count on. A varint crossing from
// one step into the next is joined through the previous step's last byte (EXT). No branch on the
// values.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in neon.cc after
// parsers/kernel_probes.h (which tests count the steps with), parsers/two_byte_lanes-inl.h,
// varint_word-inl.h (LoadLittleEndian64), tiny_payload-inl.h (PayloadBytes), Join14 and NeonStore.
// No include guard; includes nothing (varint_format-inl.h says why).

// 16-byte steps over a payload of varints of at most two bytes, storing at the values' end: each
// step stores eight slots from its first value and eight from its second half's first, so up to
// eight slots past the last value are overwritten (16 past the values before the step). Not for the
// delta formats.
template <VarintFormat F>
struct NeonTwoByteSteps {
  static_assert(!FormatTraits<F>::kDelta, "values, not running sums");
  using Out = typename FormatTraits<F>::Out;
  Out* out;
  size_t count = 0;                 // Values stored.
  uint8x16_t last = vdupq_n_u8(0);  // The previous step's bytes (its last may continue).

  // `bytes`: the step's 16 bytes; `ends`: bit i set where byte i ends a varint (none for bytes
  // past the payload, whatever they hold: a lane depends only on its byte and the one before).
  // REQUIRES: the payload's varints are at most two bytes (AllVarintsUpToTwoBytes).
  __attribute__((always_inline)) void Step(uint8x16_t bytes, uint32_t ends) {
    PBACCEL_KERNEL_PROBE(two_byte_steps);
    const uint8x16_t before = vextq_u8(last, bytes, 15);  // Byte i - 1 for each byte i.
    last = bytes;
    const uint8x16_t continued = vcltzq_s8(vreinterpretq_s8_u8(before));  // All ones: it did.
    const uint8x16_t low = vbslq_u8(continued, vandq_u8(before, vdupq_n_u8(0x7F)), bytes);
    const uint8x16_t high = vandq_u8(bytes, continued);
    const uint8x16_t first = vreinterpretq_u8_u16(Join14(vzip1q_u8(low, high)));
    const uint8x16_t second = vreinterpretq_u8_u16(Join14(vzip2q_u8(low, high)));
    const uint16x8_t gathered_first =
        vreinterpretq_u16_u8(vqtbl1q_u8(first, vld1q_u8(kLaneGathers.ends[ends & 0xFF].control)));
    const uint16x8_t gathered_second =
        vreinterpretq_u16_u8(vqtbl1q_u8(second, vld1q_u8(kLaneGathers.ends[ends >> 8].control)));
    const int first_half = __builtin_popcount(ends & 0xFFu);
    NeonStore<F>::Eight16(gathered_first, 8, out + count, nullptr);
    NeonStore<F>::Eight16(gathered_second, 8, out + count + first_half, nullptr);
    count += static_cast<size_t>(__builtin_popcount(ends));
  }

  // The whole payload p[0, n), 1 <= n <= 64, whose continuation bits are `more` (bit i: byte i),
  // reading only its bytes: under 16 bytes one step over the bytes put together (`short_word`, the
  // payload under 8 bytes as ReadTinyPayloadBits assembles it; else its first 8 and its last 8
  // shifted down past them), then one step per 16 bytes, the last over the payload's last 16
  // shifted down (TBL).
  __attribute__((always_inline)) void Payload(const uint8_t* p, int n, uint64_t more,
                                              uint64_t short_word) {
    const uint64_t ends = ~more & PayloadBytes(n);
    if (n < 8) {
      Step(vcombine_u8(vcreate_u8(short_word), vdup_n_u8(0)), static_cast<uint32_t>(ends));
      return;
    }
    if (n < 16) {
      // For n = 8 the repeated bytes are past the payload: no end there.
      Step(vcombine_u8(vcreate_u8(LoadLittleEndian64(p)),
                       vcreate_u8(SecondWordOfShortPayload(p, n))),
           static_cast<uint32_t>(ends));
      return;
    }
    for (int at = 0; at < n; at += 16) {
      const int from = at < n - 16 ? at : n - 16;
      const uint8x16_t bytes =
          vqtbl1q_u8(vld1q_u8(p + from), vld1q_u8(kShiftDownControls + (at - from)));
      Step(bytes, static_cast<uint32_t>(ends >> at) & 0xFFFFu);
    }
  }
};
