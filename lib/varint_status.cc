// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/varint_status.h"

#include "absl/strings/str_cat.h"

namespace pbaccel {
namespace internal {

absl::string_view VarintFormatTypeName(VarintFormat format) {
  switch (format) {
    case VarintFormat::kInt32: return "int32";
    case VarintFormat::kUInt32:
    case VarintFormat::kDeltaUInt32: return "uint32";
    case VarintFormat::kSInt32: return "sint32";
    case VarintFormat::kInt64: return "int64";
    case VarintFormat::kUInt64:
    case VarintFormat::kDeltaUInt64: return "uint64";
    case VarintFormat::kSInt64:
    case VarintFormat::kDeltaSInt64: return "sint64";
    case VarintFormat::kBool: return "bool";
  }
  return "varint";
}

absl::Status VarintErrorStatus(DecodeStatus status, size_t offset, size_t payload_size,
                               VarintFormat format) {
  switch (status) {
    case DecodeStatus::kTruncated:
      return absl::InvalidArgumentError(
          absl::StrCat("packed varint payload of ", payload_size,
                       " bytes ends inside the varint starting at byte offset ", offset));
    case DecodeStatus::kTooLong:
      return absl::InvalidArgumentError(absl::StrCat(
          "varint at byte offset ", offset, " does not end within 10 bytes (over-long varint)"));
    case DecodeStatus::kOverflow:
      return absl::InvalidArgumentError(absl::StrCat("varint at byte offset ", offset,
                                                     " overflows ", VarintFormatTypeName(format),
                                                     " (strict mode)"));
    case DecodeStatus::kOk:
    case DecodeStatus::kOutputFull: break;
  }
  return absl::InternalError(absl::StrCat("pbaccel: unexpected decode status ",
                                          static_cast<int>(status), " at byte offset ", offset));
}

}  // namespace internal
}  // namespace pbaccel
