// Copyright 2026 The pbaccel Authors.
//
// upstream_merge.h: handing a range of fields to upstream protobuf's own parser. Both message
// parsers use it for whatever they leave to upstream: the reflection walk (message_parser.cc) for
// runs of fields, the generated parsers (generated_parser.cc) for single fields.

#ifndef PBACCEL_INTERNAL_UPSTREAM_MERGE_H_
#define PBACCEL_INTERNAL_UPSTREAM_MERGE_H_

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message_lite.h"

namespace pbaccel {
namespace internal {

// Upstream's default nesting limit: the budget a top-level parse (ParseFromString) starts with.
inline int DefaultRecursionBudget() {
  return google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit();
}

// Upstream merges the fields in [p, end) into `msg` (no required-field check), with `budget`
// levels of nesting left, and says whether it accepted them. At the full budget this is the
// flat-buffer parser ParseFromString uses; below it the stream parser (the only one that takes a
// budget). Either way a range that ends at an end-group tag is rejected, as inside a
// length-delimited submessage.
bool MergeWithUpstream(const char* p, const char* end, google::protobuf::MessageLite* msg,
                       int budget);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_UPSTREAM_MERGE_H_
