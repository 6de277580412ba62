// Copyright 2026 The pbaccel Authors.
//
// The generated parsers' out-of-line varint read, ReadVarintSlow (pbaccel/internal/wire_reader.h):
// it may load bytes up to `readable_end`, past the field's `end` (the end of the submessage being
// parsed), but takes none at or past `end`. Checked against a byte loop over [p, end) for every
// length of varint (1 to 10 bytes, and over-long ones), cut by `end` at every byte, with every
// number of readable bytes after `end` holding bytes that would end the varint or continue it;
// each input's readable end against a guard page, so a load past it crashes the test. And that
// the word read runs: told that more bytes are readable than are, it loads them.
//
// The wire reader does not depend on the kernel: not repeated per kernel. (The generated parsers'
// use of it, against upstream under every kernel: tests/next_field_test.cc.)

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/testing/wire_builder.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace {

using internal::ReadVarintSlow;
using internal::VarintRead;

// The varint of [p, end), read byte by byte as upstream reads it (at most ten bytes, bits past 63
// dropped): {byte after it, value}, or {nullptr, 0} if none of the first ten bytes before `end`
// ends it.
VarintRead ReferenceRead(const char* p, const char* end) {
  uint64_t value = 0;
  for (int i = 0; i < 10 && p + i < end; ++i) {
    const uint8_t b = static_cast<uint8_t>(p[i]);
    value |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (b < 0x80) return {p + i + 1, value};
  }
  return {nullptr, 0};
}

TEST(ReadVarintSlowTest, TakesNothingAtOrPastTheEnd) {
  std::vector<std::string> varints;
  for (int length = 1; length <= 10; ++length) {
    for (const uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, (uint64_t{1} << 35) - 1,
                                 uint64_t{0x0123456789ABCDEF}, ~uint64_t{0}}) {
      std::string varint;
      testing::AppendPaddedVarint(value, length, &varint);  // Bits past `length` bytes dropped.
      varints.push_back(varint);
    }
  }
  // A tenth byte above 1: its bits past 63 dropped. Eleven bytes: over-long.
  varints.push_back(testing::TenByteVarint(~uint64_t{0} >> 1, 0x7F));
  varints.push_back(testing::OverlongVarint(11));
  testing::GuardedBuffer guard(64);
  int checked = 0;
  for (const std::string& varint : varints) {
    for (size_t cut = 0; cut <= varint.size(); ++cut) {  // The bytes of the varint before `end`.
      for (const char after : {'\x00', '\x01', '\x80', '\xFF'}) {  // What lies past `end`.
        for (size_t readable = 0; readable <= 12; ++readable) {    // Bytes readable past `end`.
          const std::string bytes = varint.substr(0, cut) + std::string(readable, after);
          const absl::string_view placed = guard.CopyFlushEnd(bytes);
          const char* const p = placed.data();
          const char* const end = p + cut;
          const VarintRead got = ReadVarintSlow(p, end, p + placed.size());
          const VarintRead want = ReferenceRead(p, end);
          ASSERT_EQ(got.next, want.next) << "length " << varint.size() << ", cut " << cut
                                         << ", readable past the end " << readable;
          if (want.next != nullptr) {
            ASSERT_EQ(got.value, want.value);
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// The word read itself: a five-byte varint against the guard page. Told that ten bytes are
// readable, ReadVarintSlow loads a word there and crashes; told the truth, it reads the varint.
// Skipped under an emulator (the CMake cross build's ctest sets PBACCEL_TEST_EMULATOR): under
// qemu-user a "threadsafe" death test's child dies whether or not the statement would crash
// (measured: it passed with the word read disabled), and a "fast" one's never returns.
TEST(ReadVarintSlowDeathTest, LoadsWholeWordsUpToTheReadableEnd) {
  if (std::getenv("PBACCEL_TEST_EMULATOR") != nullptr) {
    GTEST_SKIP() << "under an emulator, where death tests prove nothing";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  testing::GuardedBuffer guard(64);
  const absl::string_view placed = guard.CopyFlushEnd(testing::Varint(uint64_t{1} << 30, 5));
  const char* const p = placed.data();
  const VarintRead read = ReadVarintSlow(p, p + 5, p + 5);
  EXPECT_EQ(read.next, p + 5);
  EXPECT_EQ(read.value, uint64_t{1} << 30);
  EXPECT_DEATH(ReadVarintSlow(p, p + 5, p + 10), "");
}

}  // namespace
}  // namespace pbaccel
