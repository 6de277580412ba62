// Copyright 2026 The pbaccel Authors.
//
// The masked_vbyte tables are generated at compile time; this test regenerates their meaning
// independently. For every 12-bit continuation mask it splits the bytes into varints by brute force
// and checks the entry (shape, count, bytes consumed) and its shuffle control (which byte lands in
// which lane) against the split, for both entry tables (the general one, and the 32-bit lenient
// one with its kDword shape).

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace pbaccel {
namespace internal {
namespace {

#include "parsers/masked_vbyte_tables-inl.h"

// Lengths of the complete varints within the 12 bytes described by `mask`.
std::vector<int> Split(int mask) {
  std::vector<int> lengths;
  int start = 0;
  for (int i = 0; i < 12; ++i) {
    if (((mask >> i) & 1) == 0) {
      lengths.push_back(i + 1 - start);
      start = i + 1;
    }
  }
  return lengths;
}

// Checks that `control` gathers varint k's first `gather` bytes into lane k of `lane_bytes` and
// zeroes (0x80) the rest of the lane.
void CheckControl(const uint8_t (&control)[16], const std::vector<int>& lengths, int count,
                  int lane_bytes, int max_gather) {
  int src = 0;
  for (int k = 0; k < count; ++k) {
    const int gather = lengths[k] < max_gather ? lengths[k] : max_gather;
    for (int j = 0; j < lane_bytes; ++j) {
      const uint8_t expected = j < gather ? static_cast<uint8_t>(src + j) : 0x80;
      ASSERT_EQ(control[k * lane_bytes + j], expected) << "lane " << k << " byte " << j;
    }
    src += lengths[k];
  }
}

void CheckEntry(int mask, const MaskedVByteEntry& e, bool long32) {
  SCOPED_TRACE(testing::Message() << "mask=" << mask << " long32=" << long32);
  const std::vector<int> len = Split(mask);
  const int n = static_cast<int>(len.size());
  auto leading = [&](int max_len, int limit) {
    int c = 0;
    while (c < n && c < limit && len[c] <= max_len) ++c;
    return c;
  };
  int expected_kind, expected_count;
  if (leading(2, 8) >= 4) {
    expected_kind = k16;
    expected_count = leading(2, 8);
  } else if (long32 && leading(10, 4) >= 1) {
    expected_kind = kDword;
    expected_count = leading(10, 4);
  } else if (!long32 && leading(3, 4) == 4) {
    expected_kind = k32;
    expected_count = 4;
  } else if (!long32 && leading(5, 2) >= 1) {
    expected_kind = k64;
    expected_count = leading(5, 2);
  } else {
    expected_kind = kLong;
    expected_count = 0;
  }
  ASSERT_EQ(e.kind, expected_kind);
  ASSERT_EQ(e.count, expected_count);
  int consumed = 0;
  for (int k = 0; k < expected_count; ++k) consumed += len[k];
  ASSERT_EQ(e.consumed, consumed);
  ASSERT_LE(consumed, 12);
  if (e.kind == kLong) return;
  ASSERT_LT(e.shuffle, kMaskedVByteShuffles);
  const uint8_t(&control)[16] = kMaskedVByteTables.shuffle[e.shuffle];
  if (e.kind == k16) CheckControl(control, len, e.count, 2, 16);
  if (e.kind == k32) CheckControl(control, len, 4, 4, 16);
  if (e.kind == k64) CheckControl(control, len, e.count, 8, 5);
  if (e.kind == kDword) CheckControl(control, len, e.count, 4, 4);
}

TEST(MaskedVByteTablesTest, EveryEntryMatchesABruteForceSplit) {
  for (int mask = 0; mask < 4096; ++mask) {
    CheckEntry(mask, kMaskedVByteTables.entry[mask], false);
    CheckEntry(mask, kMaskedVByteTables.entry32[mask], true);
  }
}

TEST(MaskedVByteTablesTest, SpotChecks) {
  // Mask 0: twelve one-byte varints, of which the 16-bit shape takes eight.
  EXPECT_EQ(kMaskedVByteTables.entry[0].kind, k16);
  EXPECT_EQ(kMaskedVByteTables.entry[0].count, 8);
  // A 10-byte varint (nine continuation bits) then two one-byte ones: the long path in the
  // general table; in the 32-bit lenient table a kDword entry taking all three (12 bytes).
  EXPECT_EQ(kMaskedVByteTables.entry[0x1FF].kind, kLong);
  EXPECT_EQ(kMaskedVByteTables.entry32[0x1FF].kind, kDword);
  EXPECT_EQ(kMaskedVByteTables.entry32[0x1FF].count, 3);
  EXPECT_EQ(kMaskedVByteTables.entry32[0x1FF].consumed, 12);
  // Three 4-byte varints: kDword takes all three where the paper's shapes take two.
  EXPECT_EQ(kMaskedVByteTables.entry32[0x777].kind, kDword);
  EXPECT_EQ(kMaskedVByteTables.entry32[0x777].count, 3);
  EXPECT_EQ(kMaskedVByteTables.entry[0x777].count, 2);
}

}  // namespace
}  // namespace internal
}  // namespace pbaccel
