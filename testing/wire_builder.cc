// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/wire_builder.h"

#include <cstdlib>

namespace pbaccel {
namespace testing {

void AppendPaddedVarint(uint64_t value, int length, std::string* out) {
  for (int i = 0; i < length; ++i) {
    uint8_t byte = value & 0x7F;
    value = i >= 9 ? 0 : value >> 7;
    if (i + 1 < length) byte |= 0x80;
    out->push_back(static_cast<char>(byte));
  }
}

int VarintLength(uint64_t value) {
  int length = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++length;
  }
  return length;
}

void AppendVarint(uint64_t value, std::string* out) {
  AppendPaddedVarint(value, VarintLength(value), out);
}

std::string Varint(uint64_t value, int length) {
  // A value needing more bytes than asked for is a bug in the calling test.
  if (length < 10 && VarintLength(value) > length) std::abort();
  std::string out;
  AppendPaddedVarint(value, length, &out);
  return out;
}

std::string Varint(uint64_t value) {
  std::string out;
  AppendVarint(value, &out);
  return out;
}

std::string OverlongVarint(int length) {
  std::string out(static_cast<size_t>(length), '\x80');
  out.back() = 0x01;
  return out;
}

std::string TenByteVarint(uint64_t low63, uint8_t last) {
  std::string out = Varint(low63 & ((uint64_t{1} << 63) - 1), 10);
  out.back() = static_cast<char>(last);
  return out;
}

void AppendTag(uint64_t number, int wire_type, std::string* out) {
  AppendVarint((number << 3) | static_cast<uint64_t>(wire_type), out);
}

std::string EncodePacked(absl::Span<const uint64_t> values) {
  std::string out;
  out.reserve(values.size() * 2);
  for (uint64_t v : values) AppendVarint(v, &out);
  return out;
}

std::string LengthDelimitedField(int field_number, absl::string_view payload) {
  std::string out;
  AppendTag(static_cast<uint64_t>(field_number), 2, &out);
  AppendVarint(payload.size(), &out);
  out.append(payload.data(), payload.size());
  return out;
}

std::string VarintField(int field_number, uint64_t value) {
  std::string out;
  AppendTag(static_cast<uint64_t>(field_number), 0, &out);
  AppendVarint(value, &out);
  return out;
}

}  // namespace testing
}  // namespace pbaccel
