// Copyright 2026 The pbaccel Authors.
//
// masked_vbyte_tables-inl.h: the lookup tables of the masked_vbyte kernel, computed at compile time
// (constexpr) from their definition below; nothing in them is typed by hand.
//
// REQUIRES: included inside an anonymous namespace, after <cstdint>. No include guard, no includes.
// (//tests:masked_vbyte_tables_test includes it too and checks every entry against an independent
// brute-force parse.)
//
// The kernel looks at 12 payload bytes at a time. Their continuation bits form a 12-bit mask
// (bit i = high bit of byte i); the mask fixes where the varints in those bytes end, so it fixes
// how to decode them. Following Plaisance, Kurz and Lemire ("Vectorized VByte Decoding", 2015),
// the decoder takes the first of these shapes that fits the leading varints:
//
//   kind kSix:  the first six varints all have at most 2 bytes: one pshufb places each in its own
//               16-bit lane (6 lanes);
//   kind kFour: the first four have at most 3 bytes: one pshufb places each in a 32-bit lane;
//   kind kTwo:  the first two have at most 5 bytes: each in a 64-bit lane (count 2); or only the
//               first does (the second is longer): count 1;
//   kind kLong: the first varint has 6 or more bytes (or does not end within the 12): decoded
//               on its own by the kernel's long-varint path.
//
// A shuffle control puts byte j of varint k at the start of lane k and fills the rest of the lane
// with 0x80 (pshufb writes zero there). There are 2^6 kSix controls (lengths 1-2 for six varints),
// 3^4 kFour controls and 5^2 kTwo controls: 170 in all, as in the paper.

enum MaskedVByteKind : uint8_t { kLong = 0, kSix = 1, kFour = 2, kTwo = 3 };

struct MaskedVByteEntry {
  uint8_t consumed;  // Bytes taken by the `count` varints decoded (0 for kLong).
  uint8_t count;     // Varints decoded (0 for kLong).
  uint8_t kind;      // A MaskedVByteKind.
  uint8_t shuffle;   // Index into the shuffle controls.
};

inline constexpr int kMaskedVByteShuffles = 64 + 81 + 25;

struct MaskedVByteTables {
  MaskedVByteEntry entry[4096];
  uint8_t shuffle[kMaskedVByteShuffles][16];
};

// The shuffle control for varints of lengths len[0..count) placed in lanes of `lane_bytes` bytes.
constexpr void FillShuffle(uint8_t (&control)[16], const int* len, int count, int lane_bytes) {
  for (int i = 0; i < 16; ++i) control[i] = 0x80;
  int src = 0;
  for (int k = 0; k < count; ++k) {
    for (int j = 0; j < len[k]; ++j) control[k * lane_bytes + j] = static_cast<uint8_t>(src + j);
    src += len[k];
  }
}

// Shuffle index of each shape: kSix lengths in {1,2} as bits (bit k set = varint k has 2 bytes);
// kFour lengths in {1,2,3} as base-3 digits; kTwo lengths in {1..5} as base-5 digits.
constexpr int SixIndex(const int* len) {
  int index = 0;
  for (int k = 0; k < 6; ++k) index |= (len[k] - 1) << k;
  return index;
}
constexpr int FourIndex(const int* len) {
  int index = 0;
  for (int k = 3; k >= 0; --k) index = index * 3 + (len[k] - 1);
  return 64 + index;
}
constexpr int TwoIndex(const int* len) { return 64 + 81 + (len[1] - 1) * 5 + (len[0] - 1); }

constexpr MaskedVByteTables MakeMaskedVByteTables() {
  MaskedVByteTables t{};
  // Every shuffle control, by enumerating the lengths of each shape.
  for (int bits = 0; bits < 64; ++bits) {
    int len[6] = {};
    for (int k = 0; k < 6; ++k) len[k] = 1 + ((bits >> k) & 1);
    FillShuffle(t.shuffle[SixIndex(len)], len, 6, 2);
  }
  for (int code = 0; code < 81; ++code) {
    int len[4] = {};
    for (int k = 0, c = code; k < 4; ++k, c /= 3) len[k] = 1 + c % 3;
    FillShuffle(t.shuffle[FourIndex(len)], len, 4, 4);
  }
  for (int code = 0; code < 25; ++code) {
    int len[2] = {1 + code % 5, 1 + code / 5};
    FillShuffle(t.shuffle[TwoIndex(len)], len, 2, 8);
  }
  // Every 12-bit continuation mask: split into varints, then take the first shape that fits.
  for (int mask = 0; mask < 4096; ++mask) {
    int len[12] = {};
    int complete = 0;
    int start = 0;
    for (int i = 0; i < 12; ++i) {
      if (((mask >> i) & 1) == 0) {
        len[complete++] = i + 1 - start;
        start = i + 1;
      }
    }
    auto all_at_most = [&](int count, int max_len) {
      if (complete < count) return false;
      for (int k = 0; k < count; ++k) {
        if (len[k] > max_len) return false;
      }
      return true;
    };
    auto sum = [&](int count) {
      int s = 0;
      for (int k = 0; k < count; ++k) s += len[k];
      return s;
    };
    MaskedVByteEntry& e = t.entry[mask];
    if (all_at_most(6, 2)) {
      e = {static_cast<uint8_t>(sum(6)), 6, kSix, static_cast<uint8_t>(SixIndex(len))};
    } else if (all_at_most(4, 3)) {
      e = {static_cast<uint8_t>(sum(4)), 4, kFour, static_cast<uint8_t>(FourIndex(len))};
    } else if (all_at_most(2, 5)) {
      e = {static_cast<uint8_t>(sum(2)), 2, kTwo, static_cast<uint8_t>(TwoIndex(len))};
    } else if (all_at_most(1, 5)) {
      // The second varint is longer than 5 bytes: decode the first alone (its shuffle's second
      // lane, length 1, is ignored).
      const int pair[2] = {len[0], 1};
      e = {static_cast<uint8_t>(len[0]), 1, kTwo, static_cast<uint8_t>(TwoIndex(pair))};
    } else {
      e = {0, 0, kLong, 0};
    }
  }
  return t;
}

inline constexpr MaskedVByteTables kMaskedVByteTables = MakeMaskedVByteTables();
