// Copyright 2026 The pbaccel Authors.
//
// message_input.h: the message workloads of docs/workloads.md (proto/message_workloads.proto)
// and the operations timed on them, shared by //bench:compare and //bench:message_bench.
//
//   msg_batch       Batch: 8 postings x (512 W2 doc_deltas + 512 1byte freqs), 4,096 sint32W4
//                   scores, 1,024 floats, 2,048 len1to10 int64 ids, 1,024 bools, 4 labels
//   msg_nopacked    NoPacked: strings, scalars, 16 nested people: no packed field anywhere
//   msg_tinypacked  TinyPacked: packed fields of 4 elements each, two levels

#ifndef PBACCEL_BENCH_MESSAGE_INPUT_H_
#define PBACCEL_BENCH_MESSAGE_INPUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/message.h"

namespace pbaccel {
namespace bench {

struct MessageWorkload {
  absl::string_view name;
  size_t count;  // Messages per input (distinct, back to back).
  const google::protobuf::Message* (*prototype)();
};

absl::Span<const MessageWorkload> MessageWorkloads();

struct MessageInput {
  const MessageWorkload* workload = nullptr;
  std::vector<std::string> messages;  // Serialized by upstream.
};

// `count` overrides workload.count when non-zero.
MessageInput MakeMessageInput(const MessageWorkload& workload, uint64_t seed = 42,
                              size_t count = 0);

// One reusable message per parser, as a server reuses its request objects.
struct MessageOutputs {
  explicit MessageOutputs(const MessageWorkload& workload);
  std::unique_ptr<google::protobuf::Message> upstream;
  std::unique_ptr<google::protobuf::Message> pbaccel;
};

// Each parses every message of the input once and returns a checksum; aborts on a parse error.
// ParseMessagesWithPbaccel: pbaccel::ParseMessage, which runs the generated parser (the message
// workloads' is linked); by_reflection: pbaccel::ParseMessageByReflection, the path without one.
uint64_t ParseMessagesWithUpstream(const MessageInput& input, MessageOutputs* out);
uint64_t ParseMessagesWithPbaccel(const MessageInput& input, MessageOutputs* out,
                                  bool by_reflection = false);

// "" if pbaccel (active kernel) parses every message of the input to upstream's result on both
// paths, else what differs.
std::string VerifyMessages(const MessageInput& input);

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_MESSAGE_INPUT_H_
