// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/upstream_merge.h"

#include <cstddef>
#include <cstdint>

#include "absl/base/attributes.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message_lite.h"
#include "pbaccel/internal/protobuf_compat.h"

namespace pbaccel {
namespace internal {

namespace {

// With a recursion limit of `budget`, through a stream (the flat parser has no such setting). Out
// of line: MergeWithUpstream's frame holds no CodedInputStream on the flat path.
ABSL_ATTRIBUTE_NOINLINE bool MergeWithLimit(const char* p, const char* end,
                                            google::protobuf::MessageLite* msg, int budget) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(p),
                                               static_cast<int>(end - p));
  input.SetRecursionLimit(budget);
  // ConsumedEntireMessage: the parse must end at the end of the range, not at an end-group tag.
  return msg->MergePartialFromCodedStream(&input) && input.ConsumedEntireMessage();
}

}  // namespace

bool MergeWithUpstream(const char* p, const char* end, google::protobuf::MessageLite* msg,
                       int budget) {
  using google::protobuf::MessageLite;
  // Nesting one level takes at least two bytes (a tag and a length, or a start and an end tag):
  // a range shorter than twice the budget cannot reach the limit, and the flat parser (with the
  // default budget, and a smaller frame than the stream parser's) decides it alike.
  if (budget == DefaultRecursionBudget() || end - p < 2 * static_cast<ptrdiff_t>(budget)) {
    return compat::ParseFlat<MessageLite::kMergePartial>(msg, p, static_cast<size_t>(end - p));
  }
  return MergeWithLimit(p, end, msg, budget);
}

}  // namespace internal
}  // namespace pbaccel
