// Copyright 2026 The pbaccel Authors.
//
// //bench:delta_decode: the delta decoders (DecodePackedDeltaUInt32 / DeltaUInt64 into a span)
// against what a caller without them writes: the plain decoder (DecodePackedUInt32 / UInt64) into
// the same span and a running-sum loop over it. Every kernel this CPU runs, on
//   * real payloads: every OSM DenseNodes id, lat and lon field of the corpus (--data, default
//     testing/data): long payloads of one- to five-byte varints (zigzag gaps, read here as
//     unsigned gaps: the same bytes and lengths);
//   * WORKLOADS.md's W2 (its posting lists' doc_deltas) at 512 values, 1,024 payloads.
// Nanoseconds per value, the best of --reps rounds, the two ways interleaved; each way's values
// are checked against the other's first (exits 1 on a difference).
//
//   ./bazelw run -c opt //bench:delta_decode [-- --data=DIR --reps=N]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/kernels.h"
#include "pbaccel/packed_varint.h"
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

size_t CountVarints(absl::string_view payload) {
  size_t n = 0;
  for (const char c : payload) n += static_cast<uint8_t>(c) < 0x80;
  return n;
}

void Add(PayloadSet* set, absl::string_view payload) {
  const size_t n = CountVarints(payload);
  set->payloads.emplace_back(payload);
  set->values += n;
  set->largest = std::max(set->largest, n);
}

// Every length-delimited field numbered `number` of `message`.
std::vector<absl::string_view> Fields(absl::string_view message, uint32_t number) {
  std::vector<absl::string_view> out;
  FieldReader reader(message);
  Field f;
  while (reader.Next(&f)) {
    if (f.number == number && f.wire_type == WireType::kLengthDelimited) out.push_back(f.data);
  }
  return out;
}

// DenseNodes id (1), lat (8) and lon (9) of every PrimitiveBlock's groups (2) dense (2).
absl::StatusOr<PayloadSet> DenseNodePayloads(const std::string& dir) {
  absl::StatusOr<corpora::Corpus> osm = corpora::LoadOsm(dir);
  if (!osm.ok()) return osm.status();
  PayloadSet set{"OSM dense id/lat/lon", {}, 0, 0};
  for (const std::string& block : osm->messages) {
    for (absl::string_view group : Fields(block, 2)) {
      for (absl::string_view dense : Fields(group, 2)) {
        for (const uint32_t number : {1u, 8u, 9u}) {
          for (absl::string_view payload : Fields(dense, number)) Add(&set, payload);
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

// One way of decoding a set: the last value of every payload summed, so nothing is optimized away.
template <typename T>
using Way = uint64_t (*)(const PayloadSet&, absl::Span<T>);

// The decoders a way calls: the delta ones (kDelta), or the plain ones and the running-sum loop.
template <typename T, bool kDelta>
uint64_t Decode(const PayloadSet& set, absl::Span<T> out) {
  uint64_t check = 0;
  for (const std::string& p : set.payloads) {
    absl::StatusOr<size_t> n;
    if constexpr (kDelta && sizeof(T) == 4) {
      n = DecodePackedDeltaUInt32(p, out);
    } else if constexpr (kDelta) {
      n = DecodePackedDeltaUInt64(p, out);
    } else if constexpr (sizeof(T) == 4) {
      n = DecodePackedUInt32(p, out);
    } else {
      n = DecodePackedUInt64(p, out);
    }
    if (!n.ok() || *n == 0) return 0;
    if constexpr (!kDelta) {
      T sum = 0;
      for (size_t i = 0; i < *n; ++i) out[i] = sum += out[i];
    }
    check += out[*n - 1];
  }
  return check;
}

// Best nanoseconds per value of `ways` (interleaved over `reps` rounds); false if they disagree.
template <typename T>
bool Time(const PayloadSet& set, int reps, std::vector<Way<T>> ways, std::vector<double>* best) {
  std::vector<T> buffer(set.largest + 64);
  const absl::Span<T> out(buffer);
  const uint64_t want = ways[0](set, out);
  best->assign(ways.size(), 1e30);
  for (int r = 0; r < reps; ++r) {
    for (size_t w = 0; w < ways.size(); ++w) {
      const auto start = std::chrono::steady_clock::now();
      const uint64_t got = ways[w](set, out);
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (got != want || want == 0) return false;
      (*best)[w] = std::min((*best)[w], s * 1e9 / static_cast<double>(set.values));
    }
  }
  return true;
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
  absl::StatusOr<PayloadSet> dense = DenseNodePayloads(dir);
  if (!dense.ok()) {
    std::fprintf(stderr, "%s\n", std::string(dense.status().message()).c_str());
    return 1;
  }
  const PayloadSet sets[] = {*dense, W2Payloads()};
  std::printf("ns per value, best of %d; auto-selected kernel: %s\n", reps,
              std::string(AutoSelectedKernelName()).c_str());
  std::printf("%-20s %-18s %6s %12s %14s %7s\n", "payloads", "kernel", "bits", "delta",
              "plain + loop", "ratio");
  for (const PayloadSet& set : sets) {
    std::printf("# %s: %zu payloads, %zu values\n", set.name.c_str(), set.payloads.size(),
                set.values);
    for (absl::string_view kernel : SupportedKernels()) {
      ScopedKernelOverride force(kernel);
      for (const int bits : {32, 64}) {
        std::vector<double> best;
        const bool same =
            bits == 32 ? Time<uint32_t>(set, reps,
                                        {Decode<uint32_t, true>, Decode<uint32_t, false>}, &best)
                       : Time<uint64_t>(set, reps,
                                        {Decode<uint64_t, true>, Decode<uint64_t, false>}, &best);
        if (!same) {
          std::fprintf(stderr, "%s, %s, %d-bit: the two ways' values differ\n", set.name.c_str(),
                       std::string(kernel).c_str(), bits);
          return 1;
        }
        std::printf("%-20s %-18s %6d %12.3f %14.3f %6.2fx\n", set.name.c_str(),
                    std::string(kernel).c_str(), bits, best[0], best[1], best[1] / best[0]);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
