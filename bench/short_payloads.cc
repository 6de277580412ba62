// Copyright 2026 The pbaccel Authors.
//
// //bench:short_payloads: the real corpora's packed payloads of up to 128 bytes (where most real
// packed fields are), by field and by size, through each way a kernel decodes them: the block
// decoder (`decode`, the payload's bytes as the room), decode_tiny (payloads of up to 16 bytes,
// room for 16 values, readable slack past the payload), decode_tiny_bounded (room for the
// payload's bytes plus the kernel's bounded_tiny_spare_values, as the generated parsers offer) and
// decode_window (payloads of up to 64 bytes, the rest of the set's bytes readable past them, room
// for the payload's bytes plus kWindowSpareValues), for every kernel this CPU runs. The payloads
// are the files' own bytes, found by FieldReader. Nanoseconds per payload, every payload of a set
// decoded in turn (so branch predictors see the real mix of sizes), the best of --reps rounds with
// the ways interleaved; ratios between ways of one kernel are what a noisy machine keeps.
//
//   ./bazelw run -c opt //bench:short_payloads [-- --data=DIR --reps=N]
//
// Every way's values are checked against the scalar kernel's first; exits 1 on a difference. A way
// that declines some payloads (a tiny decoder without BMI2 takes varints of up to 4 bytes) is
// timed declining them, which is cheap: its cell says what share it declined.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/kernels.h"
#include "proto/osmformat.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "testing/corpora/page_start.h"
#include "testing/corpora/realdata_corpus.h"

namespace pbaccel {
namespace bench {
namespace {

using internal::KernelDescriptor;
using internal::VarintFormat;

// One field's payloads of one size class, laid out back to back in `bytes` (kSlack more at the
// end, so decode_tiny and decode_window may read past the last one).
struct PayloadSet {
  std::string field;
  VarintFormat format;
  int min_bytes, max_bytes;
  std::string bytes;
  std::vector<std::pair<size_t, int>> at;  // Offset and size of each payload.
};
constexpr int kSlack = internal::kWindowReadableBytes;
constexpr std::pair<int, int> kSizeClasses[] = {{1, 16}, {17, 32}, {33, 64}, {65, 128}};

// A packed field of the corpora: where it is (field numbers from the message down; every one but
// the last a submessage) and what it decodes to.
struct PackedField {
  const char* corpus;  // "osm", "mvt" or "pprof".
  const char* name;
  VarintFormat format;
  std::vector<uint32_t> path;
};
const std::vector<PackedField>& PackedFields() {
  using OSMPBF::PrimitiveBlock;
  using OSMPBF::PrimitiveGroup;
  using OSMPBF::Way;
  using vector_tile::Tile;
  using Profile = perftools::profiles::Profile;
  using Sample = perftools::profiles::Sample;
  static const auto* fields = new std::vector<PackedField>{
      {"mvt",
       "tile geometry",
       VarintFormat::kUInt32,
       {Tile::kLayersFieldNumber, Tile::Layer::kFeaturesFieldNumber,
        Tile::Feature::kGeometryFieldNumber}},
      {"mvt",
       "tile tags",
       VarintFormat::kUInt32,
       {Tile::kLayersFieldNumber, Tile::Layer::kFeaturesFieldNumber,
        Tile::Feature::kTagsFieldNumber}},
      {"osm",
       "way refs",
       VarintFormat::kSInt64,
       {PrimitiveBlock::kPrimitivegroupFieldNumber, PrimitiveGroup::kWaysFieldNumber,
        Way::kRefsFieldNumber}},
      {"osm",
       "way keys",
       VarintFormat::kUInt32,
       {PrimitiveBlock::kPrimitivegroupFieldNumber, PrimitiveGroup::kWaysFieldNumber,
        Way::kKeysFieldNumber}},
      {"osm",
       "way vals",
       VarintFormat::kUInt32,
       {PrimitiveBlock::kPrimitivegroupFieldNumber, PrimitiveGroup::kWaysFieldNumber,
        Way::kValsFieldNumber}},
      {"pprof",
       "sample location ids",
       VarintFormat::kUInt64,
       {Profile::kSampleFieldNumber, Sample::kLocationIdFieldNumber}},
  };
  return *fields;
}

// Calls `on_payload` for each length-delimited field at `path` (from `depth` on) below `bytes`,
// read by the library's FieldReader: the payloads exactly as the files hold them.
template <typename Fn>
absl::Status ForEachAt(absl::string_view bytes, const std::vector<uint32_t>& path, size_t depth,
                       Fn& on_payload) {
  FieldReader reader(bytes);
  Field f;
  while (reader.Next(&f)) {
    if (f.number != path[depth] || f.wire_type != WireType::kLengthDelimited) continue;
    if (depth + 1 == path.size()) {
      on_payload(f.data);
    } else if (absl::Status s = ForEachAt(f.data, path, depth + 1, on_payload); !s.ok()) {
      return s;
    }
  }
  return reader.status();
}

// The sets of every packed field of PackedFields() in the corpora under `dir`, by size class
// (empty sets left out).
absl::StatusOr<std::vector<PayloadSet>> CollectPayloads(const std::string& dir) {
  const std::pair<const char*, absl::StatusOr<corpora::Corpus>> corpora[] = {
      {"osm", corpora::LoadOsm(dir)},
      {"mvt", corpora::LoadMvt(dir)},
      {"pprof", corpora::LoadPprof(dir)}};
  std::vector<PayloadSet> sets;
  for (const PackedField& field : PackedFields()) {
    const size_t first = sets.size();
    for (const auto& [lo, hi] : kSizeClasses) sets.push_back({field.name, field.format, lo, hi});
    auto add = [&](absl::string_view payload) {
      const int n = static_cast<int>(payload.size());
      for (size_t i = first; i < sets.size(); ++i) {
        if (n >= sets[i].min_bytes && n <= sets[i].max_bytes) {
          sets[i].at.push_back({sets[i].bytes.size(), n});
          sets[i].bytes.append(payload.data(), payload.size());
          break;
        }
      }
    };
    for (const auto& [name, corpus] : corpora) {
      if (absl::string_view(name) != field.corpus) continue;
      if (!corpus.ok()) {
        if (field.corpus == absl::string_view("pprof")) continue;  // Optional: not in every DIR.
        return corpus.status();
      }
      for (const std::string& message : corpus->messages) {
        if (absl::Status s = ForEachAt(message, field.path, 0, add); !s.ok()) return s;
      }
    }
  }
  sets.erase(
      std::remove_if(sets.begin(), sets.end(), [](const PayloadSet& s) { return s.at.empty(); }),
      sets.end());
  for (PayloadSet& s : sets) s.bytes.append(kSlack, '\0');
  return sets;
}

size_t OutputBytes(VarintFormat f) {
  switch (f) {
    case VarintFormat::kInt64:
    case VarintFormat::kUInt64:
    case VarintFormat::kSInt64:
    case VarintFormat::kDeltaUInt64:
    case VarintFormat::kDeltaSInt64: return 8;
    case VarintFormat::kBool: return 1;
    default: return 4;
  }
}

enum Way { kDecode, kTiny, kBounded, kWindow, kWays };
volatile uint64_t g_sink;  // Keeps the decodes' results live.
const char* const kWayNames[kWays] = {"decode", "decode_tiny", "decode_tiny_bounded",
                                      "decode_window"};

// The values of payload `i` of `s` decoded `way` by `kernel` into `out` (room as the header says),
// or -1 where the way does not apply or declines.
int DecodeOne(const KernelDescriptor& kernel, Way way, const PayloadSet& s, size_t i,
              unsigned char* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.bytes.data()) + s.at[i].first;
  const int n = s.at[i].second;
  switch (way) {
    case kDecode: {
      const internal::DecodeResult r =
          kernel.Decoder(s.format, false)(p, p + n, out, static_cast<size_t>(n), 0);
      return r.status == internal::DecodeStatus::kOk ? static_cast<int>(r.count) : -1;
    }
    case kTiny:
      return n <= internal::kTinyPayloadBytes
                 ? kernel.TinyDecoder(s.format)(p, p + n, out, internal::kTinyPayloadBytes)
                 : -1;
    case kBounded:
      return kernel.DecodeTinyBounded(s.format, p, p + n, out,
                                      static_cast<size_t>(n) + kernel.bounded_tiny_spare_values);
    default: {
      const internal::TinyDecodeFn window = kernel.WindowDecoder(s.format);
      return window != nullptr && n <= internal::kWindowPayloadBytes
                 ? window(p, p + n, out, n + internal::kWindowSpareValues)
                 : -1;
    }
  }
}

int Main(int argc, char** argv) {
  std::string dir = corpora::DefaultDataDir();
  int reps = 200;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--data=")) {
      dir = std::string(a);
    } else if (!(absl::ConsumePrefix(&a, "--reps=") && absl::SimpleAtoi(a, &reps) && reps > 0)) {
      std::fprintf(stderr, "usage: short_payloads [--data=DIR] [--reps=N]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr,
                 "short_payloads: testing/data not found; run it with bazel run, or pass "
                 "--data\n");
    return 1;
  }
  const absl::StatusOr<std::vector<PayloadSet>> collected = CollectPayloads(dir);
  if (!collected.ok()) {
    std::fprintf(stderr, "short_payloads: %s\n", collected.status().ToString().c_str());
    return 1;
  }
  const std::vector<PayloadSet>& sets = *collected;
  const KernelDescriptor& reference = *internal::FindKernel("scalar")->kernel;
  std::vector<unsigned char> out_buffer, expected(256 * 8);
  unsigned char* const out = corpora::SpanFromAPage(&out_buffer, 256 * 8).data();  // page_start.h
  std::printf("%-20s %-7s %8s  %-18s %20s %20s %22s %20s\n", "field", "bytes", "payloads", "kernel",
              kWayNames[0], kWayNames[1], kWayNames[2], kWayNames[3]);
  for (const PayloadSet& s : sets) {
    const size_t elem = OutputBytes(s.format);
    for (absl::string_view name : SupportedKernels()) {
      const KernelDescriptor& kernel = *internal::FindKernel(name)->kernel;
      // Checked first: every way that takes a payload gives the reference's values.
      size_t declined[kWays] = {0, 0, 0, 0};
      for (size_t i = 0; i < s.at.size(); ++i) {
        const int want = DecodeOne(reference, kDecode, s, i, expected.data());
        for (int way = 0; way < kWays; ++way) {
          const int got = DecodeOne(kernel, static_cast<Way>(way), s, i, out);
          declined[way] += got < 0 ? 1 : 0;
          if (got >= 0 && (got != want || std::memcmp(out, expected.data(),
                                                      static_cast<size_t>(want) * elem) != 0)) {
            std::fprintf(stderr, "short_payloads: %s %s differs on a %s payload of %d bytes\n",
                         std::string(name).c_str(), kWayNames[way], s.field.c_str(),
                         s.at[i].second);
            return 1;
          }
        }
      }
      double best[kWays] = {1e30, 1e30, 1e30, 1e30};
      const bool applies[kWays] = {true, s.max_bytes <= internal::kTinyPayloadBytes,
                                   kernel.BoundedTinyDecoder(s.format) != nullptr &&
                                       s.max_bytes <= internal::BoundedTinyPayloadBytes(s.format),
                                   kernel.WindowDecoder(s.format) != nullptr &&
                                       s.max_bytes <= internal::kWindowPayloadBytes};
      uint64_t sink = 0;
      for (int rep = 0; rep < reps; ++rep) {
        for (int way = 0; way < kWays; ++way) {
          if (!applies[way]) continue;
          const auto start = std::chrono::steady_clock::now();
          for (size_t i = 0; i < s.at.size(); ++i) {
            sink += static_cast<uint64_t>(DecodeOne(kernel, static_cast<Way>(way), s, i, out));
          }
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          best[way] = std::min(best[way], seconds);
        }
      }
      char cells[kWays][32];
      for (int way = 0; way < kWays; ++way) {
        if (applies[way]) {
          const double ns = best[way] * 1e9 / static_cast<double>(s.at.size());
          if (declined[way] == 0) {
            std::snprintf(cells[way], sizeof(cells[way]), "%.1f", ns);
          } else {
            std::snprintf(
                cells[way], sizeof(cells[way]), "%.1f (%.0f%% declined)", ns,
                100.0 * static_cast<double>(declined[way]) / static_cast<double>(s.at.size()));
          }
        } else {
          std::snprintf(cells[way], sizeof(cells[way]), "-");
        }
      }
      char bytes[16];
      std::snprintf(bytes, sizeof(bytes), "%d-%d", s.min_bytes, s.max_bytes);
      g_sink = sink;
      std::printf("%-20s %-7s %8zu  %-18s %20s %20s %22s %20s\n", s.field.c_str(), bytes,
                  s.at.size(), std::string(name).c_str(), cells[0], cells[1], cells[2], cells[3]);
    }
  }
  std::printf("(ns per payload, best of %d interleaved rounds; kernel in use: %s)\n", reps,
              std::string(ActiveKernelName()).c_str());
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
