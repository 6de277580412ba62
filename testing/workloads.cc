// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/workloads.h"

#include <climits>
#include <cstdint>
#include <string>

namespace pbaccel {
namespace workloads {
namespace {

using FT = FieldType;

// docs/workloads.md's table. length_percent[i] is the share of (i + 1)-byte encodings.
const PayloadWorkload kPayloadWorkloads[] = {
    {"1byte", FT::kUInt32, {100}, false, 0, "best case, all values < 128"},
    {"W1", FT::kUInt32, {}, true, 0, "SFVInt paper, W1"},
    {"W2",
     FT::kUInt32,
     {90.08, 4.63, 3.22, 1.20, 0.88},
     false,
     0,
     "SFVInt paper, WebAssembly build suite"},
    {"W3", FT::kUInt32, {81.22, 7.31, 6.16, 4.20, 1.10}, false, 0, "SFVInt paper"},
    {"W4", FT::kUInt32, {72.13, 12.31, 8.53, 5.31, 1.72}, false, 0, "SFVInt paper"},
    {"len1to5", FT::kUInt32, {20, 20, 20, 20, 20}, false, 0, "worst case for branch prediction"},
    {"len1to10",
     FT::kUInt64,
     {10, 10, 10, 10, 10, 10, 10, 10, 10, 10},
     false,
     0,
     "64-bit worst case"},
    {"int32neg25",
     FT::kInt32,
     {90.08, 4.63, 3.22, 1.20, 0.88},
     false,
     25,
     "protobuf semantics: negative int32 = 10 bytes"},
    {"sint32W4", FT::kSInt32, {72.13, 12.31, 8.53, 5.31, 1.72}, false, 0, "zigzag path"},
    {"bool", FT::kBool, {100}, false, 0, "packed bools"},
    {"tiles", FT::kUInt32, {75, 25}, false, 0, "map vector tiles' packed geometry/tags fields"},
    {"coords", FT::kSInt64, {9, 68, 23}, false, 0, "OpenStreetMap DenseNodes' lat/lon deltas"},
};

constexpr size_t kArraySizes[] = {8, 64, 4096, 1048576};

// Uniform in [lo, hi], deterministic across standard libraries.
uint64_t UniformInRange(std::mt19937_64& rng, uint64_t lo, uint64_t hi) {
  const uint64_t span = hi - lo + 1;  // 0 means the full 64-bit range.
  return span == 0 ? rng() : lo + rng() % span;
}

// Largest wire value of the type (zigzag and unsigned 32-bit types: 2^32 - 1).
uint64_t TypeMax(FieldType type) {
  switch (type) {
    case FT::kUInt32:
    case FT::kSInt32: return UINT32_MAX;
    case FT::kInt32:  // Magnitudes; negatives are produced separately.
      return INT32_MAX;
    case FT::kBool: return 1;
    default: return UINT64_MAX;
  }
}

// A value whose encoding is exactly `length` bytes, clipped to [0, max].
uint64_t ValueOfLength(std::mt19937_64& rng, int length, uint64_t max) {
  const uint64_t lo = length == 1 ? 0 : uint64_t{1} << (7 * (length - 1));
  const uint64_t hi = length >= 10 ? UINT64_MAX : (uint64_t{1} << (7 * length)) - 1;
  return UniformInRange(rng, lo, hi < max ? hi : max);
}

int DrawLength(std::mt19937_64& rng, const double (&percent)[10]) {
  // Resolution of 1/1,000,000: finer than any percentage in the table.
  const double r = static_cast<double>(rng() % 1000000) / 10000.0;
  double cumulative = 0;
  int last_nonzero = 1;
  for (int i = 0; i < 10; ++i) {
    if (percent[i] <= 0) continue;
    last_nonzero = i + 1;
    cumulative += percent[i];
    if (r < cumulative) return i + 1;
  }
  return last_nonzero;  // Rounding in the table: the remainder goes to the longest length.
}

}  // namespace

absl::string_view FieldTypeName(FieldType type) {
  switch (type) {
    case FT::kInt32: return "int32";
    case FT::kInt64: return "int64";
    case FT::kUInt32: return "uint32";
    case FT::kUInt64: return "uint64";
    case FT::kSInt32: return "sint32";
    case FT::kSInt64: return "sint64";
    case FT::kBool: return "bool";
  }
  return "?";
}

absl::Span<const PayloadWorkload> PayloadWorkloads() { return kPayloadWorkloads; }

const PayloadWorkload* FindPayloadWorkload(absl::string_view name) {
  for (const PayloadWorkload& w : kPayloadWorkloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

absl::Span<const size_t> ArraySizes() { return kArraySizes; }

std::vector<uint64_t> GenerateWireValues(const PayloadWorkload& workload, size_t n,
                                         std::mt19937_64& rng) {
  std::vector<uint64_t> values;
  values.reserve(n);
  const uint64_t max = TypeMax(workload.type);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = workload.uniform32
                     ? rng() >> 32
                     : ValueOfLength(rng, DrawLength(rng, workload.length_percent), max);
    if (workload.negate_percent > 0) {
      // int32 magnitudes up to 2^31 - 1, some negated: the wire carries the int64 sign extension.
      const int32_t magnitude = static_cast<int32_t>(v);
      const bool negate = static_cast<double>(rng() % 10000) < workload.negate_percent * 100;
      v = static_cast<uint64_t>(static_cast<int64_t>(negate ? -magnitude : magnitude));
    }
    values.push_back(v);
  }
  return values;
}

std::vector<uint64_t> GenerateWireValues(const PayloadWorkload& workload, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return GenerateWireValues(workload, n, rng);
}

}  // namespace workloads
}  // namespace pbaccel
