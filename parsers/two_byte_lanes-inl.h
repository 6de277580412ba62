// Copyright 2026 The pbaccel Authors.
//
// two_byte_lanes-inl.h: what the 16-byte steps over one- and two-byte varints share on every
// architecture (two_byte_steps_avx2-inl.h with pshufb, two_byte_steps_neon-inl.h with TBL): the
// test that a payload's varints are all at most two bytes, and the byte-shuffle table that gathers
// the 16-bit lanes of the bytes ending a varint to the front of an 8-lane half. An out-of-range
// control byte (0x80) gives 0 under both shuffles.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal. No include guard;
// includes nothing (varint_format-inl.h says why).

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

// Whether every varint of a payload whose continuation bits are `more` (bit i: byte i) is at most
// two bytes long: no two continuation bytes in a row.
inline bool AllVarintsUpToTwoBytes(uint64_t more) { return (more & (more >> 1)) == 0; }
