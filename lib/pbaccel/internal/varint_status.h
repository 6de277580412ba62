// Copyright 2026 The pbaccel Authors.
//
// Turning a kernel's DecodeStatus into the absl::Status users see.

#ifndef PBACCEL_INTERNAL_VARINT_STATUS_H_
#define PBACCEL_INTERNAL_VARINT_STATUS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {

// The field type's name as protobuf spells it ("int32", "sint64", "bool", ...).
absl::string_view VarintFormatTypeName(VarintFormat format);

// kInvalidArgument naming the problem, the byte offset of the offending varint within a payload
// of `payload_size` bytes, and (for kOverflow) the type. REQUIRES: status is an error status
// (not kOk, not kOutputFull).
absl::Status VarintErrorStatus(DecodeStatus status, size_t offset, size_t payload_size,
                               VarintFormat format);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_VARINT_STATUS_H_
