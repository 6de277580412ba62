// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/upstream_merge.h"

#include <cstddef>
#include <cstdint>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message_lite.h"
#include "pbaccel/internal/protobuf_compat.h"

namespace pbaccel {
namespace internal {

bool MergeWithUpstream(const char* p, const char* end, google::protobuf::MessageLite* msg,
                       int budget) {
  using google::protobuf::MessageLite;
  if (budget == DefaultRecursionBudget()) {
    return compat::ParseFlat<MessageLite::kMergePartial>(msg, p, static_cast<size_t>(end - p));
  }
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(p),
                                               static_cast<int>(end - p));
  input.SetRecursionLimit(budget);
  // ConsumedEntireMessage: the parse must end at the end of the range, not at an end-group tag.
  return msg->MergePartialFromCodedStream(&input) && input.ConsumedEntireMessage();
}

}  // namespace internal
}  // namespace pbaccel
