// Copyright 2026 The pbaccel Authors.
//
// two_byte_lanes-inl.h: what the 16-byte steps over one- and two-byte varints share on every
// architecture (two_byte_steps_avx2-inl.h with pshufb, two_byte_steps_neon-inl.h with TBL): the
// test that a payload's varints are all at most two bytes, and the byte-shuffle table that gathers
// the 16-bit lanes of the bytes ending a varint to the front of an 8-lane half. An out-of-range
// control byte (0x80) gives 0 under both shuffles.
//
// Also the two ways both read a payload's 16-byte steps without reading past it: the last step's
// bytes shifted down, and a payload of 8 to 16 bytes put together from two words.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, after
// varint_word-inl.h (LoadLittleEndian64). No include guard; includes nothing (varint_format-inl.h
// says why).

// For each 8-bit mask of the varint ends in 8 bytes: the pshufb control that moves the 16-bit
// lanes of those bytes, in order, to the front of the 8 lanes (the rest become zero): a pshufb or
// TBL control.
struct alignas(16) LaneGather {
  uint8_t control[16];
};

struct LaneGathers {
  LaneGather ends[256];
};

constexpr LaneGathers MakeLaneGathers() {
  LaneGathers t{};
  for (int ends = 0; ends < 256; ++ends) {
    int lane = 0;
    for (int i = 0; i < 8; ++i) {
      if (((ends >> i) & 1) != 0) {
        t.ends[ends].control[2 * lane] = static_cast<uint8_t>(2 * i);
        t.ends[ends].control[2 * lane + 1] = static_cast<uint8_t>(2 * i + 1);
        ++lane;
      }
    }
    for (; lane < 8; ++lane) {
      t.ends[ends].control[2 * lane] = 0x80;
      t.ends[ends].control[2 * lane + 1] = 0x80;
    }
  }
  return t;
}

constexpr LaneGathers kLaneGathers = MakeLaneGathers();

// The controls (pshufb or TBL) that shift 16 bytes down by s, 0 <= s <= 15: the 16 bytes at
// kShiftDownControls + s. The bytes shifted in are 0.
alignas(16) constexpr uint8_t kShiftDownControls[32] = {
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

// Bytes 8 to 15 of one 16-byte step over a whole payload p[0, n), 8 <= n <= 16 (bytes 0 to 7: its
// first word): its last 8 bytes shifted down past the first 8, zero above the payload. For n = 8
// the shift is 0 and they repeat the first 8: the caller takes them as past the payload.
inline uint64_t SecondWordOfShortPayload(const uint8_t* p, int n) {
  return LoadLittleEndian64(p + n - 8) >> ((8 * (16 - n)) & 63);
}

// Whether every varint of a payload whose continuation bits are `more` (bit i: byte i) is at most
// two bytes long: no two continuation bytes in a row.
inline bool AllVarintsUpToTwoBytes(uint64_t more) { return (more & (more >> 1)) == 0; }
