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
//   kind k16:   at least four leading varints of at most 2 bytes end within the 12 bytes: up to
//               eight of them (the paper stops at six) go in 16-bit lanes;
//   kind k32:   the first four have at most 3 bytes: one per 32-bit lane;
//   kind k64:   the first two have at most 5 bytes: one per 64-bit lane (count 2); or only the
//               first does (the second is longer): count 1;
//   kind kLong: the first varint has 6 or more bytes (or does not end within the 12): decoded
//               on its own by the kernel's long-varint path.
//
// A second entry table (`entry32`) serves 32-bit fields in lenient mode, where only a varint's
// first five bytes carry bits that are kept (bits past 31 are dropped, as upstream drops them). It
// has k16 as above and, for everything else, one wider shape:
//
//   kind kDword: every varint that ends within the 12 bytes, up to four, each of 1 to 10 bytes
//               (every negative int32 and enum is 10), one per 32-bit lane: bytes 1-4 of each by
//               the control, byte 5 by the kernel from the same control (see masked_vbyte.cc).
//               Where the paper's shapes take two varints of 4-5 bytes, this takes up to four
//               (3.3 on average in len1to5 instead of 2).
//   kind kLong: no varint ends within the 12 bytes, or the first is 11+ bytes: malformed.
//
// A shuffle control puts byte j of varint k at the start of lane k and fills the rest of the lane
// with 0x80 (pshufb writes zero there). There are 2^4 + ... + 2^8 = 496 k16 controls (lengths 1-2
// for four to eight varints), 3^4 = 81 k32 controls, 5^2 = 25 k64 controls and one kDword control
// per sequence of 1-4 lengths (1-10 each, at most 12 in all): 789.

enum MaskedVByteKind : uint8_t { kLong = 0, k16 = 1, k32 = 2, k64 = 3, kDword = 4 };

struct MaskedVByteEntry {
  uint8_t consumed;  // Bytes taken by the `count` varints decoded (0 for kLong).
  uint8_t count;     // Varints decoded (0 for kLong).
  uint8_t kind;      // A MaskedVByteKind.
  uint8_t unused;
  uint16_t shuffle;  // Index into the shuffle controls.
};

inline constexpr int kMaskedVByteShuffles16 = 496;
inline constexpr int kMaskedVByteShufflesDword = 789;
inline constexpr int kMaskedVByteShuffles =
    kMaskedVByteShuffles16 + 81 + 25 + kMaskedVByteShufflesDword;

struct MaskedVByteTables {
  MaskedVByteEntry entry[4096];    // Every field type and mode.
  MaskedVByteEntry entry32[4096];  // 32-bit fields, lenient mode: k16, kDword, kLong.
  uint8_t shuffle[kMaskedVByteShuffles][16];
};

// The shuffle control for varints of lengths len[0..count) placed in lanes of `lane_bytes` bytes,
// gathering at most `max_gather` bytes of each.
constexpr void FillShuffle(uint8_t (&control)[16], const int* len, int count, int lane_bytes,
                           int max_gather = 16) {
  for (int i = 0; i < 16; ++i) control[i] = 0x80;
  int src = 0;
  for (int k = 0; k < count; ++k) {
    const int gather = len[k] < max_gather ? len[k] : max_gather;
    for (int j = 0; j < gather; ++j) control[k * lane_bytes + j] = static_cast<uint8_t>(src + j);
    src += len[k];
  }
}

// Shuffle index of each shape. k16 with `count` (4..8) varints: the 2^count length patterns (bit k
// set = varint k has 2 bytes) after the 2^4 + ... + 2^(count-1) = 2^count - 16 of smaller counts.
// k32: lengths in {1,2,3} as base-3 digits. k64: lengths in {1..5} as base-5 digits.
constexpr int Index16(const int* len, int count) {
  int bits = 0;
  for (int k = 0; k < count; ++k) bits |= (len[k] - 1) << k;
  return (1 << count) - 16 + bits;
}
constexpr int Index32(const int* len) {
  int index = 0;
  for (int k = 3; k >= 0; --k) index = index * 3 + (len[k] - 1);
  return kMaskedVByteShuffles16 + index;
}
constexpr int Index64(const int* len) {
  return kMaskedVByteShuffles16 + 81 + (len[1] - 1) * 5 + (len[0] - 1);
}
// kDword: the lengths as base-11 digits (0 = no varint) index a ranking of the sequences, built
// while enumerating them in MakeMaskedVByteTables.
constexpr int DwordCode(const int* len, int count) {
  int code = 0;
  for (int k = count - 1; k >= 0; --k) code = code * 11 + len[k];
  return code;
}
inline constexpr int kDwordCodes = 11 * 11 * 11 * 11;

constexpr MaskedVByteTables MakeMaskedVByteTables() {
  MaskedVByteTables t{};
  // Every shuffle control, by enumerating the lengths of each shape.
  for (int count = 4; count <= 8; ++count) {
    for (int bits = 0; bits < (1 << count); ++bits) {
      int len[8] = {};
      for (int k = 0; k < count; ++k) len[k] = 1 + ((bits >> k) & 1);
      FillShuffle(t.shuffle[Index16(len, count)], len, count, 2);
    }
  }
  for (int code = 0; code < 81; ++code) {
    int len[4] = {};
    for (int k = 0, c = code; k < 4; ++k, c /= 3) len[k] = 1 + c % 3;
    FillShuffle(t.shuffle[Index32(len)], len, 4, 4);
  }
  for (int code = 0; code < 25; ++code) {
    int len[2] = {1 + code % 5, 1 + code / 5};
    FillShuffle(t.shuffle[Index64(len)], len, 2, 8);
  }
  // kDword controls: every sequence of 1-4 lengths of 1-10 bytes, at most 12 bytes in all, in the
  // order of their codes; dword_rank maps a code to its control.
  int16_t dword_rank[kDwordCodes] = {};
  int dword_controls = 0;
  for (int code = 0; code < kDwordCodes; ++code) {
    int len[4] = {};
    int count = 0;
    int total = 0;
    bool valid = true;
    for (int k = 0, c = code; k < 4; ++k, c /= 11) {
      len[k] = c % 11;
      if (len[k] == 0) {
        valid = valid && c == 0;  // No gaps: lengths, then zeros.
        break;
      }
      ++count;
      total += len[k];
    }
    if (!valid || count == 0 || total > 12) continue;
    dword_rank[code] = static_cast<int16_t>(dword_controls);
    FillShuffle(t.shuffle[kMaskedVByteShuffles16 + 81 + 25 + dword_controls], len, count, 4,
                /*max_gather=*/4);
    ++dword_controls;
  }
  // (A count other than kMaskedVByteShufflesDword is a compile error: throw is not constant.)
  if (dword_controls != kMaskedVByteShufflesDword) throw "kMaskedVByteShufflesDword is wrong";
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
    int short2 = 0;  // Leading varints of at most 2 bytes, up to 8.
    while (short2 < complete && short2 < 8 && len[short2] <= 2) ++short2;
    MaskedVByteEntry& e = t.entry[mask];
    if (short2 >= 4) {
      e = {static_cast<uint8_t>(sum(short2)), static_cast<uint8_t>(short2), k16, 0,
           static_cast<uint16_t>(Index16(len, short2))};
    } else if (all_at_most(4, 3)) {
      e = {static_cast<uint8_t>(sum(4)), 4, k32, 0, static_cast<uint16_t>(Index32(len))};
    } else if (all_at_most(2, 5)) {
      e = {static_cast<uint8_t>(sum(2)), 2, k64, 0, static_cast<uint16_t>(Index64(len))};
    } else if (all_at_most(1, 5)) {
      // The second varint is longer than 5 bytes: decode the first alone (its shuffle's second
      // lane, length 1, is ignored).
      const int pair[2] = {len[0], 1};
      e = {static_cast<uint8_t>(len[0]), 1, k64, 0, static_cast<uint16_t>(Index64(pair))};
    } else {
      e = {0, 0, kLong, 0, 0};
    }
    MaskedVByteEntry& e32 = t.entry32[mask];
    int dwords = 0;  // Leading varints of at most 10 bytes, up to 4.
    while (dwords < complete && dwords < 4 && len[dwords] <= 10) ++dwords;
    if (short2 >= 4) {
      e32 = e;
    } else if (dwords >= 1) {
      e32 = {static_cast<uint8_t>(sum(dwords)), static_cast<uint8_t>(dwords), kDword, 0,
             static_cast<uint16_t>(kMaskedVByteShuffles16 + 81 + 25 +
                                   dword_rank[DwordCode(len, dwords)])};
    } else {
      e32 = {0, 0, kLong, 0, 0};
    }
  }
  return t;
}

inline constexpr MaskedVByteTables kMaskedVByteTables = MakeMaskedVByteTables();
