// Copyright 2026 The pbaccel Authors.
//
// //bench:compare, pbaccel's main command: every workload and array size of docs/workloads.md,
// decoded by upstream protobuf, by pbaccel (automatic kernel), by each kernel this CPU supports,
// and by Stream VByte (a different, byte-oriented format: the speed reference, not a protobuf
// parser), beside memcpy of the decoded output (the ceiling). Side by side, in one run:
//
//   * every pbaccel row is first verified equal to upstream's result for every array of the input;
//     a mismatch aborts (exit 1) naming the workload, size and kernel;
//   * the implementations' repetitions are interleaved (A B C ... A B C ..., the starting one
//     rotating), each repetition short, so the noise episodes of a shared machine (one-sided, tens
//     of seconds long) hit all alike;
//   * ns_per_item is the minimum over the repetitions (the quiet estimate); the table shows the
//     median beside it.
//
//   ./bazelw run //bench:compare               # table, about 2 minutes
//   ./bazelw run //bench:compare -- --quick    # table, under 20 s
//   ./bazelw run //bench:compare -- --csv      # workload,n,implementation,ns_per_item
//   options: --reps=N (default 21, quick 15), --workloads=W2,W4 --sizes=64,4096
//
// Message workloads (msg_batch, msg_nopacked, msg_tinypacked: bench/message_input.h) compare
// ParseFromString with pbaccel::ParseMessage; an item is one message, n the number of messages.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/message_input.h"
#include "bench/packed_input.h"
#include "bench/realdata_bench.h"
#include "bench/timing.h"
#include "pbaccel/pbaccel.h"
#include "streamvbyte.h"
#include "testing/corpora/realdata_corpus.h"

namespace pbaccel {
namespace bench {
namespace {

using corpora::DefaultDataDir;

struct Options {
  bool csv = false;
  bool quick = false;
  int reps = 21;
  std::vector<std::string> workloads;  // Empty: all.
  std::vector<size_t> sizes;           // Empty: all.
};

struct Row {
  std::string workload;
  size_t n;
  std::string implementation;
  double min_ns;
  double median_ns;
};

[[noreturn]] void Mismatch(absl::string_view workload, size_t n, absl::string_view impl,
                           const std::string& what) {
  std::fprintf(stderr, "compare: MISMATCH on workload %.*s n=%zu implementation %.*s: %s\n",
               static_cast<int>(workload.size()), workload.data(), n, static_cast<int>(impl.size()),
               impl.data(), what.c_str());
  std::exit(1);
}

// The pbaccel rows of one workload: "pbaccel" (the automatic choice) and one row per kernel this
// CPU supports, forced. Each row gets its own output (`fresh` makes one): sharing outputs would let
// one row find them still in cache from the row before it (and another pay for evicting a
// different one), which at n = 1,048,576 (4-8 MB of output) skews rows by 2x by their order.
template <typename Output>
void AddPbaccelRows(const std::function<Output*()>& fresh,
                    const std::function<uint64_t(Output*)>& run, std::vector<Impl>* impls) {
  impls->push_back({"pbaccel", [run, out = fresh()] { return run(out); }});
  for (absl::string_view kernel : SupportedKernels()) {
    impls->push_back({std::string(kernel), [run, out = fresh(), k = std::string(kernel)] {
                        ScopedKernelOverride force(k);
                        return run(out);
                      }});
  }
}

// Runs `diff` (empty when pbaccel's result equals upstream's) under the automatic choice and under
// each supported kernel, before anything is timed; a difference ends the program.
void VerifyEveryKernel(absl::string_view workload, size_t n,
                       const std::function<std::string()>& diff) {
  std::vector<std::string> kernels{""};  // "" = automatic choice.
  for (absl::string_view k : SupportedKernels()) kernels.emplace_back(k);
  for (const std::string& k : kernels) {
    std::unique_ptr<ScopedKernelOverride> force;
    if (!k.empty()) force = std::make_unique<ScopedKernelOverride>(k);
    const std::string what = diff();
    if (!what.empty()) Mismatch(workload, n, k.empty() ? "pbaccel" : k, what);
  }
}

// Times `impls` interleaved and returns their rows.
std::vector<Row> TimeRows(absl::string_view workload, size_t n, size_t items,
                          const std::vector<Impl>& impls, const Options& opt) {
  const auto samples = TimeInterleaved(impls, items, opt.reps, opt.quick ? 0.3e6 : 2e6);
  std::vector<Row> rows;
  for (size_t i = 0; i < impls.size(); ++i) {
    rows.push_back({std::string(workload), n, impls[i].name, Min(samples[i]), Median(samples[i])});
  }
  return rows;
}

std::vector<Row> RunPayloadWorkload(const workloads::PayloadWorkload& w, size_t n,
                                    const Options& opt) {
  const PackedInput input = MakePackedInput(w, n);
  std::vector<std::unique_ptr<DecodeOutputs>> outs;
  const std::function<DecodeOutputs*()> fresh = [&outs] {
    outs.push_back(std::make_unique<DecodeOutputs>());
    return outs.back().get();
  };
  std::vector<Impl> impls;
  impls.push_back({"protobuf", [&input, out = fresh()] { return ParseWithUpstream(input, out); }});
  AddPbaccelRows<DecodeOutputs>(
      fresh, [&input](DecodeOutputs* out) { return DecodeWithPbaccel(input, out); }, &impls);
  impls.push_back({"memcpy", [&input, out = fresh()] { return CopyDecodedOutput(input, out); }});

  // Stream VByte on the same integers (32-bit types only; it has no 64-bit format).
  std::string svb_bytes;
  std::vector<size_t> svb_offsets{0};
  std::vector<uint32_t> svb_out(n + 64);
  const bool svb = OutputBytes(w.type) <= 4;
  if (svb) {
    for (size_t a = 0; a < input.arrays; ++a) {
      const std::vector<uint64_t> values = UpstreamValues(input, a);
      std::vector<uint32_t> v32(values.begin(), values.end());
      std::string enc(streamvbyte_max_compressedbytes(static_cast<uint32_t>(n)), '\0');
      enc.resize(streamvbyte_encode(v32.data(), static_cast<uint32_t>(n),
                                    reinterpret_cast<uint8_t*>(&enc[0])));
      svb_bytes += enc;
      svb_offsets.push_back(svb_bytes.size());
    }
    impls.push_back({"streamvbyte", [&] {
                       uint64_t sum = 0;
                       for (size_t a = 0; a < input.arrays; ++a) {
                         sum += streamvbyte_decode(
                             reinterpret_cast<const uint8_t*>(svb_bytes.data()) + svb_offsets[a],
                             svb_out.data(), static_cast<uint32_t>(n));
                       }
                       return sum + svb_out[0];
                     }});
  }

  // Verify every pbaccel row against upstream on every array before timing anything.
  std::vector<std::vector<uint64_t>> expected(input.arrays);
  for (size_t a = 0; a < input.arrays; ++a) expected[a] = UpstreamValues(input, a);
  VerifyEveryKernel(w.name, n, [&]() -> std::string {
    for (size_t a = 0; a < input.arrays; ++a) {
      if (PbaccelValues(input, a) != expected[a]) return absl::StrCat("array ", a, " differs");
    }
    return "";
  });
  if (svb) {
    for (size_t a = 0; a < input.arrays; ++a) {
      streamvbyte_decode(reinterpret_cast<const uint8_t*>(svb_bytes.data()) + svb_offsets[a],
                         svb_out.data(), static_cast<uint32_t>(n));
      for (size_t i = 0; i < n; ++i) {
        if (svb_out[i] != static_cast<uint32_t>(expected[a][i])) {
          Mismatch(w.name, n, "streamvbyte", "round trip differs");
        }
      }
    }
  }

  return TimeRows(w.name, n, input.total_values(), impls, opt);
}

std::vector<Row> RunMessageWorkload(const MessageWorkload& mw, const Options& opt) {
  // --quick: an eighth of the messages.
  const MessageInput input =
      MakeMessageInput(mw, 42, opt.quick ? std::max<size_t>(8, mw.count / 8) : 0);
  std::vector<std::unique_ptr<MessageOutputs>> outs;
  const std::function<MessageOutputs*()> fresh = [&outs, &mw] {
    outs.push_back(std::make_unique<MessageOutputs>(mw));
    return outs.back().get();
  };
  std::vector<Impl> impls;
  impls.push_back(
      {"protobuf", [&input, out = fresh()] { return ParseMessagesWithUpstream(input, out); }});
  AddPbaccelRows<MessageOutputs>(
      fresh, [&input](MessageOutputs* out) { return ParseMessagesWithPbaccel(input, out); },
      &impls);
  // The path a type without a linked generated parser takes (automatic kernel).
  impls.push_back({"pbaccel_reflection", [&input, out = fresh()] {
                     return ParseMessagesWithPbaccel(input, out, /*by_reflection=*/true);
                   }});
  VerifyEveryKernel(mw.name, input.messages.size(), [&input] { return VerifyMessages(input); });
  return TimeRows(mw.name, input.messages.size(), input.messages.size(), impls, opt);
}

void PrintTable(const std::vector<Row>& rows) {
  // Rows of one (workload, n) are contiguous; protobuf first. The first column ("workload n=N",
  // on each group's header line) is as wide as its longest label (msg_tinypacked n=4096), the
  // implementation column as its longest name (masked_vbyte_avx2, pbaccel_reflection).
  const auto label = [](const Row& r) { return absl::StrCat(r.workload, " n=", r.n); };
  int label_width = 0;
  int width = static_cast<int>(std::strlen("implementation"));
  for (const Row& r : rows) {
    label_width = std::max(label_width, static_cast<int>(label(r).size()));
    width = std::max(width, static_cast<int>(r.implementation.size()));
  }
  double protobuf = 0, memcpy_ns = 0;
  std::string current;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const std::string key = absl::StrCat(r.workload, "/", r.n);
    if (key != current) {
      current = key;
      protobuf = r.min_ns;
      memcpy_ns = 0;
      for (size_t j = i; j < rows.size() && rows[j].workload == r.workload && rows[j].n == r.n;
           ++j) {
        if (rows[j].implementation == "memcpy") memcpy_ns = rows[j].min_ns;
      }
      const bool messages = absl::StartsWith(r.workload, "msg_");
      std::printf("\n%-*s %-*s %11s %11s %10s %10s\n", label_width, label(r).c_str(), width,
                  "implementation", messages ? "ns/msg min" : "ns/int min", "median", "x protobuf",
                  "memcpy/x");
    }
    std::printf("%-*s %-*s %11.3f %11.3f %9.2fx %10s\n", label_width, "", width,
                r.implementation.c_str(), r.min_ns, r.median_ns, protobuf / r.min_ns,
                memcpy_ns > 0 ? absl::StrFormat("%.3g", memcpy_ns / r.min_ns).c_str() : "-");
  }
}

// The closing lines: pbaccel (automatic kernel) against protobuf, geometric mean and range of the
// speedups over the payload rows and over the message rows of this run.
void PrintSummary(const std::vector<Row>& rows) {
  struct Tally {
    double log_sum = 0, low = 0, high = 0;
    int n = 0;
  } payload, message;
  double protobuf = 0;
  for (const Row& r : rows) {
    if (r.implementation == "protobuf") protobuf = r.min_ns;
    if (r.implementation != "pbaccel" || protobuf <= 0) continue;
    const double x = protobuf / r.min_ns;
    Tally& t = absl::StartsWith(r.workload, "msg_") ? message : payload;
    t.log_sum += std::log(x);
    t.low = t.n == 0 ? x : std::min(t.low, x);
    t.high = t.n == 0 ? x : std::max(t.high, x);
    ++t.n;
  }
  std::printf("\n== Summary: pbaccel (automatic kernel %s) against protobuf, this run\n",
              std::string(ActiveKernelName()).c_str());
  for (const auto& [name, t] : {std::pair<const char*, Tally>{"payload rows", payload},
                                std::pair<const char*, Tally>{"message rows", message}}) {
    if (t.n == 0) continue;
    std::printf("%-13s %3d rows: geometric mean %.2fx, from %.2fx to %.2fx\n", name, t.n,
                std::exp(t.log_sum / t.n), t.low, t.high);
  }
}

bool Wanted(const std::vector<std::string>& list, absl::string_view name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

int Main(int argc, char** argv) {
  Options opt;
  bool reps_set = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--csv") {
      opt.csv = true;
    } else if (a == "--quick") {
      opt.quick = true;
    } else if (absl::ConsumePrefix(&a, "--reps=")) {
      if (!absl::SimpleAtoi(a, &opt.reps) || opt.reps < 1) {
        std::fprintf(stderr, "compare: bad --reps\n");
        return 2;
      }
      reps_set = true;
    } else if (absl::StartsWith(a, "--workloads=")) {
      opt.workloads = absl::StrSplit(a.substr(12), ',');
    } else if (absl::StartsWith(a, "--sizes=")) {
      for (absl::string_view s : absl::StrSplit(a.substr(8), ',')) {
        size_t v;
        if (!absl::SimpleAtoi(s, &v)) {
          std::fprintf(stderr, "compare: bad --sizes\n");
          return 2;
        }
        opt.sizes.push_back(v);
      }
    } else {
      std::fprintf(stderr,
                   "usage: compare [--csv] [--quick] [--reps=N] [--workloads=a,b] [--sizes=n,m]\n");
      return 2;
    }
  }
  if (opt.quick && !reps_set) opt.reps = 15;

  if (!opt.csv) {
    std::fputs(DescribeCpu(DetectedCpu()).c_str(), stdout);
    const absl::string_view active = ActiveKernelName();
    std::printf("Kernel in use: %.*s   Kernels supported: ", static_cast<int>(active.size()),
                active.data());
    for (absl::string_view k : SupportedKernels())
      std::printf("%.*s ", static_cast<int>(k.size()), k.data());
    // Why: PBACCEL_KERNEL, or the kernels before it in priority order and what ruled each out.
    if (active != AutoSelectedKernelName()) {
      std::printf("\nWhy: PBACCEL_KERNEL=%.*s (the automatic choice would be %s)",
                  static_cast<int>(active.size()), active.data(),
                  std::string(AutoSelectedKernelName()).c_str());
    } else {
      std::printf("\nWhy: the first kernel in priority order this CPU runs and no rule vetoes");
      for (const KernelInfo& k : DescribeKernels()) {
        if (k.name == active) break;
        std::printf("; %.*s: %s", static_cast<int>(k.name.size()), k.name.data(),
                    !k.supported ? absl::StrCat("CPU lacks ", k.missing_features).c_str()
                                 : absl::StrCat("vetoed: ", k.veto).c_str());
      }
    }
    std::printf(
        "\nns/int: per decoded integer (payload workloads); ns/msg: per message (msg_*). Minimum "
        "over %d interleaved repetitions (median beside it). streamvbyte is a different format "
        "(speed reference, not a protobuf parser).\n",
        opt.reps);
  } else {
    std::printf("workload,n,implementation,ns_per_item\n");
  }
  std::fflush(stdout);

  // Real data first (the table only: --csv keeps the synthetic rows' format, and //bench:realdata
  // has its own --csv); left out when the run is narrowed to some workloads or sizes.
  if (!opt.csv && opt.workloads.empty() && opt.sizes.empty()) {
    RealDataOptions real;
    real.data_dir = DefaultDataDir();
    real.reps = opt.quick ? 5 : 15;
    real.pprof = true;
    std::printf(
        "\n== Real data: OpenStreetMap PBF blocks, Mapbox vector tiles and pprof profiles "
        "(testing/data), MB/s\n");
    const absl::StatusOr<RealDataResult> result =
        real.data_dir.empty() ? absl::NotFoundError("testing/data not found") : RunRealData(real);
    if (!result.ok()) {
      std::fprintf(stderr, "compare: real data: %s\n",
                   std::string(result.status().message()).c_str());
      return 1;
    }
    std::fputs(RealDataTable(*result).c_str(), stdout);
    std::printf("\n== Synthetic workloads (docs/workloads.md)\n");
    std::fflush(stdout);
  }

  std::vector<Row> all;
  auto emit = [&](const std::vector<Row>& rows) {
    if (opt.csv) {
      for (const Row& r : rows) {
        std::printf("%s,%zu,%s,%.4f\n", r.workload.c_str(), r.n, r.implementation.c_str(),
                    r.min_ns);
      }
    } else {
      PrintTable(rows);
    }
    std::fflush(stdout);
    all.insert(all.end(), rows.begin(), rows.end());
  };
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    if (!Wanted(opt.workloads, w.name)) continue;
    for (size_t n : workloads::ArraySizes()) {
      if (!opt.sizes.empty() &&
          std::find(opt.sizes.begin(), opt.sizes.end(), n) == opt.sizes.end()) {
        continue;
      }
      if (opt.quick && n == 1048576 && w.name != "W2") continue;  // --quick: one bulk row.
      emit(RunPayloadWorkload(w, n, opt));
    }
  }
  for (const MessageWorkload& mw : MessageWorkloads()) {
    if (!Wanted(opt.workloads, mw.name)) continue;
    emit(RunMessageWorkload(mw, opt));
  }
  if (!opt.csv) PrintSummary(all);
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
