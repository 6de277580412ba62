// Copyright 2026 The pbaccel Authors.
//
// iterative_merge.h: a merge whose nesting costs no machine stack, for the levels past those the
// generated parsers nest on the stack (generated_parser.h: kGeneratedNestingLevels).

#ifndef PBACCEL_INTERNAL_ITERATIVE_MERGE_H_
#define PBACCEL_INTERNAL_ITERATIVE_MERGE_H_

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace pbaccel {
namespace internal {

// Merges the fields of [p, end) into `msg` (no required-field check) with `budget` levels of
// nesting left: the reflection walk (message_parser.h), entering every submessage field (singular
// or repeated; maps and groups are upstream's) on a heap stack, so that the machine stack stays at
// this call's frames and one hand-over to upstream (a run of other fields) however deep the
// input nests. Packed fields are decoded by the kernels as ParseMessage decodes them. Errors are
// ParseMessage's, with byte offsets from `origin`; after one, msg holds what was merged before it.
absl::Status MergeIteratively(const char* p, const char* end, const char* origin,
                              google::protobuf::Message* msg, int budget);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_ITERATIVE_MERGE_H_
