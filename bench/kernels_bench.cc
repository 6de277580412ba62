// Copyright 2026 The pbaccel Authors.
//
// Google Benchmark suite for developers: every kernel x every workload of ../shared/WORKLOADS.md x
// sizes 8 / 64 / 4,096 / 1,048,576, beside upstream protobuf and memcpy of the output.
//
//   BM_Upstream/<workload>/<n>         ParseFromString of a message holding the packed field
//   BM_Decode/<kernel>/<workload>/<n>  pbaccel's public API (count, reserve, decode into a
//                                      RepeatedField) with <kernel> forced; "pbaccel" = auto
//   BM_Kernel/<kernel>/<workload>/<n>  the kernel's decode function alone, into a flat buffer
//   BM_Memcpy/<workload>/<n>           memcpy of the decoded output: the ceiling
//
// Items are decoded integers (SetItemsProcessed); n <= 64 runs 16,384 distinct arrays per
// iteration. Filter with --benchmark_filter, e.g. './bazelw run //bench:kernels_bench --
// --benchmark_filter=W2/64'.

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/packed_input.h"
#include "benchmark/benchmark.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/pbaccel.h"

namespace pbaccel {
namespace bench {
namespace {

// Inputs are built on first use and shared by every benchmark of the same workload and size.
const PackedInput& Input(const workloads::PayloadWorkload& w, size_t n) {
  static auto* cache = new std::map<std::pair<std::string, size_t>, std::unique_ptr<PackedInput>>;
  auto& slot = (*cache)[{std::string(w.name), n}];
  if (!slot) slot = std::make_unique<PackedInput>(MakePackedInput(w, n));
  return *slot;
}

template <typename Op>
void Run(benchmark::State& state, const PackedInput& input, Op op) {
  DecodeOutputs out;
  for (auto _ : state) benchmark::DoNotOptimize(op(input, &out));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * input.total_values()));
  state.counters["ns_per_item"] =
      benchmark::Counter(static_cast<double>(state.iterations() * input.total_values()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void RegisterAll() {
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    for (size_t n : workloads::ArraySizes()) {
      const std::string suffix = absl::StrCat(w.name, "/", n);
      const workloads::PayloadWorkload* wp = &w;
      benchmark::RegisterBenchmark(("BM_Upstream/" + suffix).c_str(), [wp, n](benchmark::State& s) {
        Run(s, Input(*wp, n), ParseWithUpstream);
      });
      benchmark::RegisterBenchmark(
          ("BM_Decode/pbaccel/" + suffix).c_str(),
          [wp, n](benchmark::State& s) { Run(s, Input(*wp, n), DecodeWithPbaccel); });
      for (absl::string_view kernel : SupportedKernels()) {
        const std::string name(kernel);
        benchmark::RegisterBenchmark(absl::StrCat("BM_Decode/", name, "/", suffix).c_str(),
                                     [wp, n, name](benchmark::State& s) {
                                       ScopedKernelOverride force(name);
                                       Run(s, Input(*wp, n), DecodeWithPbaccel);
                                     });
        const internal::KernelDescriptor* k = internal::FindKernel(name)->kernel;
        benchmark::RegisterBenchmark(
            absl::StrCat("BM_Kernel/", name, "/", suffix).c_str(), [wp, n, k](benchmark::State& s) {
              Run(s, Input(*wp, n), [k](const PackedInput& in, DecodeOutputs* out) {
                return DecodeWithKernel(*k, in, out);
              });
            });
      }
      benchmark::RegisterBenchmark(("BM_Memcpy/" + suffix).c_str(), [wp, n](benchmark::State& s) {
        Run(s, Input(*wp, n), CopyDecodedOutput);
      });
    }
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
