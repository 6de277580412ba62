// Copyright 2026 The pbaccel Authors.
//
// workloads.h: the benchmark data distributions (docs/workloads.md, from ../shared/WORKLOADS.md),
// as a library shared by the benchmarks, the tests and the differential kit, so every number and
// every test input comes from the same place. Encoding the values is wire_builder.h's job.
//
// A payload workload is a distribution of encoded byte lengths: to draw a value, pick a length L
// from the distribution, then a value uniformly among those whose LEB128 encoding is exactly L
// bytes ([0, 127] for L = 1, [2^(7(L-1)), 2^(7L) - 1] above), clipped to the type's range.
// Generation is deterministic for a given seed (default 42) on every platform: it uses
// std::mt19937_64 and its own range reduction, never std::uniform_int_distribution.

#ifndef PBACCEL_TESTING_WORKLOADS_H_
#define PBACCEL_TESTING_WORKLOADS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace pbaccel {
namespace workloads {

// The protobuf field type a workload's values belong to.
enum class FieldType { kInt32, kInt64, kUInt32, kUInt64, kSInt32, kSInt64, kBool };

// "int32", "uint64", ...
absl::string_view FieldTypeName(FieldType type);

struct PayloadWorkload {
  absl::string_view name;  // As in docs/workloads.md: "1byte", "W1", "W2", ..., "tiles".
  FieldType type;
  // Percent of values encoded in 1, 2, ..., 10 bytes (sums to 100). Unused when uniform32.
  double length_percent[10];
  bool uniform32;         // W1: values uniform over [0, 2^32) instead of a length distribution.
  double negate_percent;  // int32neg25: share of values negated (encoded as 10 bytes).
  absl::string_view source;
};

// The eleven payload workloads of docs/workloads.md, in its order.
absl::Span<const PayloadWorkload> PayloadWorkloads();

// The workload named `name`, or nullptr.
const PayloadWorkload* FindPayloadWorkload(absl::string_view name);

// The array sizes every benchmark uses: 8, 64, 4,096 and 1,048,576 values.
absl::Span<const size_t> ArraySizes();

// Draws `n` wire values of the workload: the unsigned 64-bit integers that get varint-encoded
// (for int32/int64 the two's complement sign extension, for sint32/sint64 the zigzag form), so
// each one's encoded length follows the workload's distribution.
std::vector<uint64_t> GenerateWireValues(const PayloadWorkload& workload, size_t n,
                                         std::mt19937_64& rng);
std::vector<uint64_t> GenerateWireValues(const PayloadWorkload& workload, size_t n,
                                         uint64_t seed = 42);

}  // namespace workloads
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_WORKLOADS_H_
