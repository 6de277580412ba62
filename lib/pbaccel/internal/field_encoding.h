// Copyright 2026 The pbaccel Authors.
//
// field_encoding.h: how a scalar field type's values are encoded on the wire, for the parts of
// pbaccel that decide by descriptor how to read them (the reflection walk's plans, the columnar
// decoder): a varint in one of the kernels' formats, or a fixed-width value.
//
// Internal: not part of pbaccel's API.

#ifndef PBACCEL_INTERNAL_FIELD_ENCODING_H_
#define PBACCEL_INTERNAL_FIELD_ENCODING_H_

#include <cstdint>

#include "google/protobuf/descriptor.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {

struct ScalarEncoding {
  enum Kind : uint8_t {
    kNone,    // Strings, bytes, messages, groups.
    kVarint,  // `format` says how the kernels decode it (enums as kInt32, open or closed).
    kFixed,   // `fixed_bytes` (4 or 8) little-endian bytes.
  };
  Kind kind = kNone;
  VarintFormat format = VarintFormat::kUInt64;
  uint8_t fixed_bytes = 0;
};

inline ScalarEncoding ScalarEncodingOf(google::protobuf::FieldDescriptor::Type type) {
  using F = google::protobuf::FieldDescriptor;
  switch (type) {
    case F::TYPE_INT32:
    case F::TYPE_ENUM: return {ScalarEncoding::kVarint, VarintFormat::kInt32, 0};
    case F::TYPE_INT64: return {ScalarEncoding::kVarint, VarintFormat::kInt64, 0};
    case F::TYPE_UINT32: return {ScalarEncoding::kVarint, VarintFormat::kUInt32, 0};
    case F::TYPE_UINT64: return {ScalarEncoding::kVarint, VarintFormat::kUInt64, 0};
    case F::TYPE_SINT32: return {ScalarEncoding::kVarint, VarintFormat::kSInt32, 0};
    case F::TYPE_SINT64: return {ScalarEncoding::kVarint, VarintFormat::kSInt64, 0};
    case F::TYPE_BOOL: return {ScalarEncoding::kVarint, VarintFormat::kBool, 0};
    case F::TYPE_FIXED32:
    case F::TYPE_SFIXED32:
    case F::TYPE_FLOAT: return {ScalarEncoding::kFixed, VarintFormat::kUInt64, 4};
    case F::TYPE_FIXED64:
    case F::TYPE_SFIXED64:
    case F::TYPE_DOUBLE: return {ScalarEncoding::kFixed, VarintFormat::kUInt64, 8};
    default: return {};
  }
}

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_FIELD_ENCODING_H_
