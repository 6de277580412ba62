// Copyright 2026 The pbaccel Authors.
//
// varint_word-inl.h: reading varints eight bytes at a time, the one text of the word-at-a-time
// varint read. A little-endian word of the eight bytes at a varint's first byte holds the whole
// varint when it has at most eight bytes: its length is found from the word's continuation bits
// and its 7-bit groups joined with three shift-and-mask rounds, without a branch per byte (a byte
// loop mispredicts its exit whenever lengths vary, as ids and timestamps do).
//
// Included twice over, as the other -inl.h files are: by each kernel inside its anonymous
// namespace (compiled with its own instruction-set flags, so a kernel shares no inline function
// with the rest of the program), and by the wire reader (pbaccel/internal/wire_reader.h) inside
// pbaccel::internal::word, for everything compiled with baseline flags.
//
// REQUIRES: included inside a namespace, after <cstdint> and <cstring>. No include guard, no
// includes.

// High bit of every byte: the continuation bits of eight varint bytes in a little-endian word.
constexpr uint64_t kHighBits = 0x8080808080808080ull;

// Number of bytes of a little-endian word whose bit 7 is set in `byte_high_bits` (a subset of
// kHighBits), without a popcount instruction: each byte of (m >> 7) is 0 or 1, and multiplying by
// 0x0101...01 sums all eight into the top byte.
inline unsigned CountHighBits(uint64_t byte_high_bits) {
  return static_cast<unsigned>(((byte_high_bits >> 7) * 0x0101010101010101ull) >> 56);
}

inline uint64_t LoadLittleEndian64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

// Packs the 7-bit groups of up to eight varint bytes (little-endian in `w`, continuation bits
// ignored: the first round's masks drop them) into one integer of up to 56 bits: three rounds of
// merging neighbouring groups.
inline uint64_t Compact7x8(uint64_t w) {
  uint64_t x = (w & 0x007F007F007F007Full) | ((w & 0x7F007F007F007F00ull) >> 1);  // 14 per 16.
  x = (x & 0x00003FFF00003FFFull) | ((x & 0x3FFF00003FFF0000ull) >> 2);           // 28 bits per 32.
  x = (x & 0x000000000FFFFFFFull) | ((x & 0x0FFFFFFF00000000ull) >> 4);           // 56 bits.
  return x;
}

// The varint at the start of `w` (the eight bytes at its first byte, LoadLittleEndian64): its
// length in bytes (1 to 8), its value in *value; or 0, *value untouched, when none of the eight
// bytes ends it (a varint of nine or ten bytes, or an over-long one: the caller reads on).
inline int VarintInWord(uint64_t w, uint64_t* value) {
  const uint64_t stops = ~w & kHighBits;
  if (stops == 0) return 0;
  // The ending byte's index + 1: 1 to 8, as the compiler sees too (no test of the result for 0).
  const int length = (__builtin_ctzll(stops) >> 3) + 1;
  *value = Compact7x8(length == 8 ? w : w & ((uint64_t{1} << (8 * length)) - 1));
  return length;
}

// VarintInWord on four bytes (a little-endian word of the four at the varint's first byte): its
// length (1 to 4) and value, or 0 when none of the four bytes ends it. The generated parsers'
// inline read of three- and four-byte values (pbaccel/internal/wire_reader.h, ReadVarint), in
// 32-bit operations whose masks are short immediates, so that each call site stays small.
inline int VarintInWord32(uint32_t w, uint64_t* value) {
  const uint32_t stops = ~w & 0x80808080u;
  if (stops == 0) return 0;
  // The bytes through the ending one (stops ^ (stops - 1): the bits up to its bit 7), without
  // their continuation bits; then two rounds, each shifting every lane's high half down onto its
  // low half (14 bits per 16, then 28 in all).
  uint32_t x = w & (stops ^ (stops - 1)) & 0x7F7F7F7Fu;
  uint32_t low = x & 0x00FF00FFu;
  x = low + ((x - low) >> 1);
  low = x & 0x0000FFFFu;
  *value = low + ((x - low) >> 2);
  return (__builtin_ctz(stops) >> 3) + 1;
}

// A varint of nine or ten bytes whose first eight bytes, none ending it, are the word `w` and whose
// ninth and tenth are `b8` and `b9`: its length (9 or 10) and value (bits past 63 dropped, as
// upstream drops them); or 0, *value untouched, when the tenth byte does not end it either.
inline int VarintAfterWord(uint64_t w, uint8_t b8, uint8_t b9, uint64_t* value) {
  const uint64_t low = Compact7x8(w);
  if (b8 < 0x80) {
    *value = low | uint64_t{b8} << 56;
    return 9;
  }
  if (b9 >= 0x80) return 0;
  *value = low | uint64_t{b8 & 0x7Fu} << 56 | uint64_t{b9} << 63;
  return 10;
}
