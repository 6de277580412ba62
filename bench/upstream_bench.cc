// Upstream protobuf's packed-field parsing, the baseline every pbaccel benchmark is compared to.

#include <cstdint>
#include <random>
#include <string>

#include "benchmark/benchmark.h"
#include "proto/packed_fields.pb.h"

namespace pbaccel {
namespace {

void BM_UpstreamParsePackedUInt32(benchmark::State& state) {
  std::mt19937_64 rng(42);
  test::PackedFields msg;
  for (int64_t i = 0; i < state.range(0); ++i) msg.add_uint32s(static_cast<uint32_t>(rng() >> 57));
  const std::string bytes = msg.SerializeAsString();
  test::PackedFields parsed;
  for (auto _ : state) {
    benchmark::DoNotOptimize(parsed.ParseFromString(bytes));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_UpstreamParsePackedUInt32)->Arg(64)->Arg(4096);

}  // namespace
}  // namespace pbaccel
