// Copyright 2026 The pbaccel Authors.
//
// Google Benchmark suite for the message parser: ParseFromString against pbaccel::ParseMessage
// (the generated parsers) and pbaccel::ParseMessageByReflection on the message workloads
// (bench/message_input.h). Items are messages.
//
//   ./bazelw run //bench:message_bench -- --benchmark_filter=msg_batch

#include "bench/message_input.h"
#include "benchmark/benchmark.h"

#include <memory>

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

void RegisterAll() {
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
