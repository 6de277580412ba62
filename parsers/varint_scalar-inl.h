// Copyright 2026 The pbaccel Authors.
//
// varint_scalar-inl.h: portable varint decoding, the word-at-a-time loop and the bounded tail that
// every kernel uses for the bytes its vector loop leaves over.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, after <cstddef>,
// <cstdint>, <cstring>, pbaccel/internal/kernel_abi.h, parsers/varint_format-inl.h (see the note
// there on why each kernel compiles its own copy) and pbaccel/internal/varint_word-inl.h (the
// word-at-a-time read of one varint, and CountHighBits). No include guard, no includes.

// Decodes the one varint at p, reading no byte at or past `end`.
// On kOk sets *value (bits past 63 dropped) and *next. In strict mode a 10th byte above 1 (bits
// past 63) is kOverflow; the type's own range is checked by the caller.
template <bool kStrict>
inline DecodeStatus ReadVarintBounded(const uint8_t* p, const uint8_t* end, uint64_t* value,
                                      const uint8_t** next) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    if (p + i == end) return DecodeStatus::kTruncated;
    const uint8_t byte = p[i];
    v |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);  // i == 9: only bit 0 survives.
    if (byte < 0x80) {
      if (kStrict && i == 9 && byte > 1) return DecodeStatus::kOverflow;
      *value = v;
      *next = p + i + 1;
      return DecodeStatus::kOk;
    }
  }
  return DecodeStatus::kTooLong;
}

// Decodes a varint of up to 10 bytes at q, with 10 bytes readable there (the table kernels' long
// path: a word-at-a-time read, bytes 9 and 10 added when present). False if it does not end within
// 10 bytes, or (strict mode) its 10th byte carries bits past bit 63.
template <bool kStrict>
inline bool ReadVarintUpTo10(const uint8_t* q, uint64_t* value, size_t* length) {
  const uint64_t w = LoadLittleEndian64(q);
  if (const int in_word = VarintInWord(w, value)) {
    *length = static_cast<size_t>(in_word);
    return true;
  }
  const uint64_t v = Compact7x8(w) | (static_cast<uint64_t>(q[8] & 0x7F) << 56);
  if (q[8] < 0x80) {
    *value = v;
    *length = 9;
    return true;
  }
  if (q[9] >= 0x80 || (kStrict && q[9] > 1)) return false;
  *value = v | (static_cast<uint64_t>(q[9]) << 63);
  *length = 10;
  return true;
}

// Decodes [p, end) one bounded varint at a time into sink slots [n, cap). The tail loop of every
// kernel; also the whole of the portable kernel's work below 16 bytes.
template <VarintFormat F, bool kStrict>
inline DecodeResult DecodeTail(const uint8_t* p, const uint8_t* end, OutputSink<F>& sink, size_t n,
                               size_t cap) {
  while (p < end) {
    if (n == cap) return {p, n, DecodeStatus::kOutputFull};
    uint64_t v;
    const uint8_t* next;
    const DecodeStatus s = ReadVarintBounded<kStrict>(p, end, &v, &next);
    if (s != DecodeStatus::kOk) return {p, n, s};
    if (kStrict && !FormatTraits<F>::FitsStrict(v)) return {p, n, DecodeStatus::kOverflow};
    sink.Put(n++, v);
    p = next;
  }
  return {p, n, DecodeStatus::kOk};
}

// The portable kernel's main loop: one 8-byte load yields every varint that ends inside it.
//
// While at least 16 bytes remain (so a varint of up to 10 bytes starting anywhere in the word, and
// the 8-byte load, stay inside the payload) and at least 8 output slots are free:
//   * no continuation bit in the word: eight one-byte varints, stored directly;
//   * otherwise each terminator (a byte with the high bit clear) ends one varint, whose bytes are
//     cut out of the word with two shifts and packed by Compact7x8;
//   * no terminator in the word: the varint is 9 or 10 bytes (or over-long), finished from the
//     next two bytes.
// The rest goes to DecodeTail.
template <VarintFormat F, bool kStrict>
inline DecodeResult DecodeWordwise(const uint8_t* p, const uint8_t* end, OutputSink<F>& sink,
                                   size_t n, size_t cap) {
  while (end - p >= 16 && cap - n >= 8) {
    const uint64_t w = LoadLittleEndian64(p);
    uint64_t stops = ~w & kHighBits;
    // Eight one-byte varints. Strict bool must still see each value (only 0 and 1 fit), so it
    // takes the general path below when any byte is above 1.
    if (stops == kHighBits &&
        !(kStrict && F == VarintFormat::kBool && (w & 0x7E7E7E7E7E7E7E7Eull))) {
      for (int i = 0; i < 8; ++i) sink.Put(n + i, (w >> (8 * i)) & 0x7F);
      n += 8;
      p += 8;
      continue;
    }
    if (stops == 0) {
      // Eight continuation bytes: a 9- or 10-byte varint (or an over-long one).
      uint64_t v = Compact7x8(w);
      const uint8_t b8 = p[8];
      v |= static_cast<uint64_t>(b8 & 0x7F) << 56;
      size_t len = 9;
      if (b8 >= 0x80) {
        const uint8_t b9 = p[9];
        if (b9 >= 0x80) return {p, n, DecodeStatus::kTooLong};
        if (kStrict && b9 > 1) return {p, n, DecodeStatus::kOverflow};
        v |= static_cast<uint64_t>(b9) << 63;
        len = 10;
      }
      if (kStrict && !FormatTraits<F>::FitsStrict(v)) return {p, n, DecodeStatus::kOverflow};
      sink.Put(n++, v);
      p += len;
      continue;
    }
    unsigned start = 0;  // Bit offset in w of the current varint's first byte.
    do {
      const unsigned stop = static_cast<unsigned>(__builtin_ctzll(stops));  // 8k + 7.
      // Keep bits [start, stop]: shift the terminator to bit 63, then the first byte to bit 0.
      const uint64_t bytes = (w << (63 - stop)) >> (63 - stop + start);
      const uint64_t v = Compact7x8(bytes);
      if (kStrict && !FormatTraits<F>::FitsStrict(v)) {
        return {p + start / 8, n, DecodeStatus::kOverflow};
      }
      sink.Put(n++, v);
      start = stop + 1;
      stops &= stops - 1;
    } while (stops != 0);
    p += start / 8;
  }
  return DecodeTail<F, kStrict>(p, end, sink, n, cap);
}

// Counts terminator bytes eight at a time; the reference for every kernel's count.
inline size_t CountTerminatorsWordwise(const uint8_t* p, const uint8_t* end) {
  size_t count = 0;
  for (; end - p >= 8; p += 8) count += CountHighBits(~LoadLittleEndian64(p) & kHighBits);
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}
