// Copyright 2026 The pbaccel Authors.
//
// //bench:delta_decode: the delta decoders (DecodePackedDeltaUInt32 / DeltaUInt64 / DeltaSInt64
// into a span) against what a caller without them writes: the plain decoder (DecodePackedUInt32 /
// UInt64 / SInt64) into the same span and a running-sum loop over it. Every kernel this CPU runs,
// on
//   * real payloads: every OSM DenseNodes id, lat and lon field of the corpus (--data, default
//     testing/data): long payloads of one- to five-byte varints (zigzag gaps: sint64 reads them as
//     OSM does; uint32 and uint64 as unsigned gaps, the same bytes and lengths);
//   * WORKLOADS.md's W2 (its posting lists' doc_deltas) at 512 values, 1,024 payloads.
// Nanoseconds per value, the best of --reps rounds, the two ways interleaved (bench/timing.h);
// every value of the two ways is compared first (exits 1 on a difference).
//
//   ./bazelw run -c opt //bench:delta_decode [-- --data=DIR --reps=N]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "bench/timing.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/kernels.h"
#include "pbaccel/packed_varint.h"
#include "pbaccel/skip_size.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "testing/corpora/realdata_corpus.h"

namespace pbaccel {
namespace bench {
namespace {

struct PayloadSet {
  std::string name;
  std::vector<std::string> payloads;
  size_t values = 0;   // Varints in all payloads.
  size_t largest = 0;  // Varints in the largest payload.
};

void Add(PayloadSet* set, absl::string_view payload) {
  const size_t n = CountVarints(payload).count;
  set->payloads.emplace_back(payload);
  set->values += n;
  set->largest = std::max(set->largest, n);
}

// The payloads of the length-delimited fields numbered `number` of `message`.
absl::StatusOr<std::vector<absl::string_view>> Payloads(absl::string_view message,
                                                        uint32_t number) {
  absl::StatusOr<std::vector<Field>> fields = FindField(message, number);
  if (!fields.ok()) return fields.status();
  std::vector<absl::string_view> out;
  for (const Field& f : *fields) {
    if (f.wire_type == WireType::kLengthDelimited) out.push_back(f.data);
  }
  return out;
}

// DenseNodes id (1), lat (8) and lon (9) of every PrimitiveBlock's groups (2) dense (2).
absl::StatusOr<PayloadSet> DenseNodePayloads(const std::string& dir) {
  absl::StatusOr<corpora::Corpus> osm = corpora::LoadOsm(dir);
  if (!osm.ok()) return osm.status();
  PayloadSet set{"OSM dense id/lat/lon", {}, 0, 0};
  for (const std::string& block : osm->messages) {
    absl::StatusOr<std::vector<absl::string_view>> groups = Payloads(block, 2);
    if (!groups.ok()) return groups.status();
    for (absl::string_view group : *groups) {
      absl::StatusOr<std::vector<absl::string_view>> dense = Payloads(group, 2);
      if (!dense.ok()) return dense.status();
      for (absl::string_view d : *dense) {
        for (const uint32_t number : {1u, 8u, 9u}) {
          absl::StatusOr<std::vector<absl::string_view>> payloads = Payloads(d, number);
          if (!payloads.ok()) return payloads.status();
          for (absl::string_view payload : *payloads) Add(&set, payload);
        }
      }
    }
  }
  return set;
}

PayloadSet W2Payloads() {
  PayloadSet set{"W2 x 512", {}, 0, 0};
  const workloads::PayloadWorkload& w2 = *workloads::FindPayloadWorkload("W2");
  std::mt19937_64 rng(2);
  for (int i = 0; i < 1024; ++i) {
    Add(&set, testing::EncodePacked(workloads::GenerateWireValues(w2, 512, rng)));
  }
  return set;
}

// Decodes payload `p` into `out` with the delta decoder (kDelta), or with the plain one and a
// running-sum loop; returns the count, or 0 on an error.
template <typename T, bool kDelta>
size_t DecodeOne(absl::string_view p, absl::Span<T> out) {
  absl::StatusOr<size_t> n;
  if constexpr (kDelta && std::is_same_v<T, uint32_t>) {
    n = DecodePackedDeltaUInt32(p, out);
  } else if constexpr (kDelta && std::is_same_v<T, uint64_t>) {
    n = DecodePackedDeltaUInt64(p, out);
  } else if constexpr (kDelta) {
    n = DecodePackedDeltaSInt64(p, out);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    n = DecodePackedUInt32(p, out);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    n = DecodePackedUInt64(p, out);
  } else {
    n = DecodePackedSInt64(p, out);
  }
  if (!n.ok()) return 0;
  if constexpr (!kDelta) {
    uint64_t sum = 0;  // Wrapping, as the delta decoders' sums do (an int64 too).
    for (size_t i = 0; i < *n; ++i) out[i] = static_cast<T>(sum += static_cast<uint64_t>(out[i]));
  }
  return *n;
}

// Nanoseconds per value of the two ways over `set` (delta, then plain + loop), the minimum over
// `reps` interleaved rounds; nullopt if their values differ anywhere.
template <typename T>
std::optional<std::pair<double, double>> Time(const PayloadSet& set, int reps) {
  std::vector<T> a(set.largest + 64), b(set.largest + 64);
  for (const std::string& p : set.payloads) {
    const size_t n = DecodeOne<T, true>(p, absl::MakeSpan(a));
    if (n == 0 || DecodeOne<T, false>(p, absl::MakeSpan(b)) != n ||
        !std::equal(a.begin(), a.begin() + n, b.begin())) {
      return std::nullopt;
    }
  }
  const auto way = [&set, &a](auto decode) {
    return [&set, &a, decode] {
      uint64_t check = 0;  // The last value of every payload, so nothing is optimized away.
      for (const std::string& p : set.payloads) check += a[decode(p, absl::MakeSpan(a)) - 1];
      return check;
    };
  };
  const std::vector<Impl> impls = {{"delta", way(DecodeOne<T, true>)},
                                   {"plain + loop", way(DecodeOne<T, false>)}};
  const std::vector<std::vector<double>> ns = TimeInterleaved(impls, set.values, reps, 2e6);
  return std::make_pair(Min(ns[0]), Min(ns[1]));
}

int Main(int argc, char** argv) {
  std::string dir = corpora::DefaultDataDir();
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--data=")) {
      dir = std::string(arg);
    } else if (!absl::ConsumePrefix(&arg, "--reps=") || !absl::SimpleAtoi(arg, &reps) || reps < 1) {
      std::fprintf(stderr, "usage: delta_decode [--data=DIR] [--reps=N]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr,
                 "delta_decode: testing/data not found; run it with bazel run, or pass --data\n");
    return 2;
  }
  absl::StatusOr<PayloadSet> dense = DenseNodePayloads(dir);
  if (!dense.ok()) {
    std::fprintf(stderr, "%s\n", std::string(dense.status().message()).c_str());
    return 1;
  }
  const PayloadSet sets[] = {*dense, W2Payloads()};
  std::printf("ns per value, best of %d; auto-selected kernel: %s\n", reps,
              std::string(AutoSelectedKernelName()).c_str());
  std::printf("%-20s %-18s %6s %12s %14s %7s\n", "payloads", "kernel", "type", "delta",
              "plain + loop", "ratio");
  for (const PayloadSet& set : sets) {
    std::printf("# %s: %zu payloads, %zu values\n", set.name.c_str(), set.payloads.size(),
                set.values);
    for (absl::string_view kernel : SupportedKernels()) {
      ScopedKernelOverride force(kernel);
      for (const char* type : {"uint32", "uint64", "sint64"}) {
        const absl::string_view t = type;
        const std::optional<std::pair<double, double>> ns =
            t == "uint32"   ? Time<uint32_t>(set, reps)
            : t == "uint64" ? Time<uint64_t>(set, reps)
                            : Time<int64_t>(set, reps);
        if (!ns) {
          std::fprintf(stderr, "%s, %s, %s: the two ways' values differ\n", set.name.c_str(),
                       std::string(kernel).c_str(), type);
          return 1;
        }
        std::printf("%-20s %-18s %6s %12.3f %14.3f %6.2fx\n", set.name.c_str(),
                    std::string(kernel).c_str(), type, ns->first, ns->second,
                    ns->second / ns->first);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
