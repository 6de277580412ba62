// Copyright 2026 The pbaccel Authors.

#include "pbaccel/packed_view.h"

#include "parsers/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/varint_status.h"

namespace pbaccel {
namespace internal {
namespace {

VarintFormat FormatOf(PackedType type) {
  switch (type) {
    case PackedType::kInt32:
    case PackedType::kEnum: return VarintFormat::kInt32;
    case PackedType::kInt64: return VarintFormat::kInt64;
    case PackedType::kUInt32: return VarintFormat::kUInt32;
    case PackedType::kUInt64: return VarintFormat::kUInt64;
    case PackedType::kSInt32: return VarintFormat::kSInt32;
    case PackedType::kSInt64: return VarintFormat::kSInt64;
    case PackedType::kBool: return VarintFormat::kBool;
    default: return VarintFormat::kUInt64;
  }
}

size_t FixedSize(PackedType type) {
  switch (type) {
    case PackedType::kFixed32:
    case PackedType::kSFixed32:
    case PackedType::kFloat: return 4;
    case PackedType::kFixed64:
    case PackedType::kSFixed64:
    case PackedType::kDouble: return 8;
    default: return 0;
  }
}

}  // namespace

absl::StatusOr<size_t> DecodePackedChunk(PackedType type, absl::string_view payload, size_t* pos,
                                         void* out, size_t out_cap) {
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = begin + payload.size();
  if (*pos >= payload.size() || out_cap == 0) return size_t{0};
  const KernelDescriptor& kernel = ActiveKernel();
  const VarintFormat format = FormatOf(type);
  // The rest of a payload, when at most kBoundedTinyPayloadBytes: the kernel's bounded tiny decoder
  // if it has one (as DecodeInto in packed_varint.cc); what it declines, the kernel decodes.
  const int n = kernel.DecodeTinyBounded(format, begin + *pos, end, out, out_cap);
  if (n >= 0) {
    *pos = payload.size();
    return static_cast<size_t>(n);
  }
  const DecodeResult r = kernel.Decoder(format, false)(begin + *pos, end, out, out_cap, 0);
  if (r.status != DecodeStatus::kOk && r.status != DecodeStatus::kOutputFull) {
    return VarintErrorStatus(r.status, static_cast<size_t>(r.pos - begin), payload.size(), format);
  }
  *pos = static_cast<size_t>(r.pos - begin);
  return r.count;
}

size_t PackedCount(PackedType type, absl::string_view payload) {
  const size_t fixed = FixedSize(type);
  if (fixed != 0) return payload.size() / fixed;
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(payload.data());
  return ActiveKernel().count_terminators(begin, begin + payload.size());
}

}  // namespace internal
}  // namespace pbaccel
