// Copyright 2026 The pbaccel Authors.
//
// Google Benchmark suite for the message parser: ParseFromString against pbaccel::ParseMessage
// (the generated parsers) and pbaccel::ParseMessageByReflection on the message workloads
// (bench/message_input.h). Items are messages.
//
//   ./bazelw run //bench:message_bench -- --benchmark_filter=msg_batch

#include "bench/message_input.h"
#include "benchmark/benchmark.h"
#include "pbaccel/message_parser.h"
#include "proto/message_workloads.pb.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pbaccel {
namespace bench {
namespace {

uint64_t ParseWithGenerated(const MessageInput& input, MessageOutputs* out) {
  return ParseMessagesWithPbaccel(input, out);
}
uint64_t ParseByReflection(const MessageInput& input, MessageOutputs* out) {
  return ParseMessagesWithPbaccel(input, out, /*by_reflection=*/true);
}

template <uint64_t (*kParse)(const MessageInput&, MessageOutputs*)>
void BM_Parse(benchmark::State& state, const MessageWorkload* w) {
  const MessageInput input = MakeMessageInput(*w);
  MessageOutputs out(*w);
  for (auto _ : state) benchmark::DoNotOptimize(kParse(input, &out));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * input.messages.size()));
  // Memory held by one parsed message (the last), as protobuf accounts it: RepeatedField
  // capacities, strings, submessages. Each parser parses into a fresh message here.
  std::unique_ptr<google::protobuf::Message> fresh(w->prototype()->New());
  MessageOutputs one(*w);
  MessageInput last;
  last.workload = w;
  last.messages.push_back(input.messages.back());
  kParse(last, &one);
  const google::protobuf::Message& parsed =
      kParse == &ParseMessagesWithUpstream ? *one.upstream : *one.pbaccel;
  state.counters["bytes_used"] = static_cast<double>(parsed.SpaceUsedLong());
}

const MessageWorkload& Workload(absl::string_view name) {
  for (const MessageWorkload& w : MessageWorkloads()) {
    if (w.name == name) return w;
  }
  std::abort();
}

template <bool kPbaccel>
bool ParseOne(const std::string& bytes, google::protobuf::Message* msg) {
  return kPbaccel ? ParseMessage(bytes, msg).ok() : msg->ParseFromString(bytes);
}

// Two small message types parsed in turn on each thread, as a server thread serving two methods
// parses, or a reader of envelopes and their payloads: no parse's type is the one before's.
// TinyPacked (msg_tinypacked's, about 60 bytes) and Person (the first of each msg_nopacked
// message's people, about 110 bytes). Run on 1 and 2 threads.
template <bool kPbaccel>
void BM_TwoTypesInTurn(benchmark::State& state) {
  constexpr size_t kEach = 256;
  const MessageInput tiny = MakeMessageInput(Workload("msg_tinypacked"), 42, kEach);
  const MessageInput nopacked = MakeMessageInput(Workload("msg_nopacked"), 43, kEach);
  std::vector<std::string> people;
  for (const std::string& bytes : nopacked.messages) {
    NoPacked m;
    if (!m.ParseFromString(bytes)) std::abort();
    people.push_back(m.people(0).SerializeAsString());
  }
  TinyPacked msg_a;
  Person msg_b;
  for (auto _ : state) {
    for (size_t i = 0; i < kEach; ++i) {
      if (!ParseOne<kPbaccel>(tiny.messages[i], &msg_a) || !ParseOne<kPbaccel>(people[i], &msg_b)) {
        state.SkipWithError("a message was rejected");
        return;
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 2 * kEach));
}

void RegisterAll() {
  benchmark::RegisterBenchmark("BM_Upstream/two_types_in_turn", BM_TwoTypesInTurn<false>)
      ->Threads(1)
      ->Threads(2);
  benchmark::RegisterBenchmark("BM_Pbaccel/two_types_in_turn", BM_TwoTypesInTurn<true>)
      ->Threads(1)
      ->Threads(2);
  for (const MessageWorkload& w : MessageWorkloads()) {
    benchmark::RegisterBenchmark((std::string("BM_Upstream/") + std::string(w.name)).c_str(),
                                 BM_Parse<ParseMessagesWithUpstream>, &w);
    benchmark::RegisterBenchmark((std::string("BM_Pbaccel/") + std::string(w.name)).c_str(),
                                 BM_Parse<ParseWithGenerated>, &w);
    benchmark::RegisterBenchmark(
        (std::string("BM_PbaccelReflection/") + std::string(w.name)).c_str(),
        BM_Parse<ParseByReflection>, &w);
  }
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) {
  pbaccel::bench::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
