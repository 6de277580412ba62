// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/formats.h"

namespace pbaccel {
namespace testing {

const std::vector<VarintFormat>& AllFormats() {
  static const auto* const formats = new std::vector<VarintFormat>{
      VarintFormat::kInt32,       VarintFormat::kUInt32,      VarintFormat::kSInt32,
      VarintFormat::kInt64,       VarintFormat::kUInt64,      VarintFormat::kSInt64,
      VarintFormat::kBool,        VarintFormat::kDeltaUInt32, VarintFormat::kDeltaUInt64,
      VarintFormat::kDeltaSInt64,
  };
  return *formats;
}

const char* FormatName(VarintFormat format) {
  switch (format) {
    case VarintFormat::kInt32: return "int32";
    case VarintFormat::kUInt32: return "uint32";
    case VarintFormat::kSInt32: return "sint32";
    case VarintFormat::kInt64: return "int64";
    case VarintFormat::kUInt64: return "uint64";
    case VarintFormat::kSInt64: return "sint64";
    case VarintFormat::kBool: return "bool";
    case VarintFormat::kDeltaUInt32: return "delta_uint32";
    case VarintFormat::kDeltaUInt64: return "delta_uint64";
    case VarintFormat::kDeltaSInt64: return "delta_sint64";
  }
  return "?";
}

size_t OutputSize(VarintFormat format) {
  switch (format) {
    case VarintFormat::kInt32:
    case VarintFormat::kUInt32:
    case VarintFormat::kSInt32:
    case VarintFormat::kDeltaUInt32: return 4;
    case VarintFormat::kBool: return 1;
    default: return 8;
  }
}

VarintFormat FormatFor(workloads::FieldType type) {
  using workloads::FieldType;
  switch (type) {
    case FieldType::kInt32: return VarintFormat::kInt32;
    case FieldType::kInt64: return VarintFormat::kInt64;
    case FieldType::kUInt32: return VarintFormat::kUInt32;
    case FieldType::kUInt64: return VarintFormat::kUInt64;
    case FieldType::kSInt32: return VarintFormat::kSInt32;
    case FieldType::kSInt64: return VarintFormat::kSInt64;
    case FieldType::kBool: return VarintFormat::kBool;
  }
  return VarintFormat::kUInt64;
}

}  // namespace testing
}  // namespace pbaccel
