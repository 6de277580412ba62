// Copyright 2026 The pbaccel Authors.

#include "pbaccel/packed_view.h"

#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/varint_status.h"

namespace pbaccel {
namespace internal {
namespace {

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
  const VarintFormat format = VarintFormatOf(type);
  // The bounded tiny decoder was tried inline (PackedView::Cursor::DecodeTo) for a rest of at
  // most kBoundedTinyPayloadBytes; here the kernel's block decoder takes the payload.
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
