// Copyright 2026 The pbaccel Authors.
//
// packed_input.h: benchmark inputs for packed varint decoding, and the operations every benchmark
// times on them (pbaccel's public API, a kernel called directly, upstream protobuf, memcpy), shared
// by //bench:kernels_bench and //bench:compare so both time exactly the same work.

#ifndef PBACCEL_BENCH_PACKED_INPUT_H_
#define PBACCEL_BENCH_PACKED_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/testing/formats.h"
#include "pbaccel/testing/workloads.h"
#include "proto/packed_fields.pb.h"

namespace pbaccel {
namespace bench {

// Arrays of one workload, `n` values each. Small arrays (n <= 64) come many to an input (at least
// 16,384 distinct arrays back to back, WORKLOADS.md) so the branch predictor cannot learn one.
struct PackedInput {
  const workloads::PayloadWorkload* workload = nullptr;
  size_t n = 0;
  size_t arrays = 0;
  std::string payload_bytes;            // All payloads, back to back.
  std::vector<size_t> payload_offsets;  // arrays + 1 offsets into payload_bytes.
  std::string message_bytes;            // Each payload wrapped as its PackedFields field.
  std::vector<size_t> message_offsets;  // arrays + 1 offsets into message_bytes.

  size_t total_values() const { return n * arrays; }
  absl::string_view payload(size_t i) const {
    return absl::string_view(payload_bytes)
        .substr(payload_offsets[i], payload_offsets[i + 1] - payload_offsets[i]);
  }
  absl::string_view message(size_t i) const {
    return absl::string_view(message_bytes)
        .substr(message_offsets[i], message_offsets[i + 1] - message_offsets[i]);
  }
};

// The number of distinct arrays used for `n` values per array.
size_t ArraysFor(size_t n);

PackedInput MakePackedInput(const workloads::PayloadWorkload& workload, size_t n,
                            uint64_t seed = 42);

// The PackedFields field number holding the workload's type.
int FieldNumberFor(workloads::FieldType type);
// Bytes per decoded value of the type.
size_t OutputBytes(workloads::FieldType type);

// Reusable outputs: one RepeatedField per C++ type, reused across arrays and repetitions (as a
// server reuses a request message), plus a flat buffer for direct kernel calls and memcpy.
struct DecodeOutputs {
  google::protobuf::RepeatedField<int32_t> i32;
  google::protobuf::RepeatedField<uint32_t> u32;
  google::protobuf::RepeatedField<int64_t> i64;
  google::protobuf::RepeatedField<uint64_t> u64;
  google::protobuf::RepeatedField<bool> b;
  std::vector<uint64_t> flat;  // Large enough for one array of any type.
  std::vector<uint64_t> flat_copy;
  test::PackedFields message;
};

// Each returns a checksum of what it produced (so the work cannot be optimized away), and aborts
// the process on a decode error (benchmark inputs are valid by construction).

// pbaccel's public API (DecodePacked<Type> into a RepeatedField, cleared per array), with
// whatever kernel is active.
uint64_t DecodeWithPbaccel(const PackedInput& input, DecodeOutputs* out);
// A kernel's decode function called directly into a flat buffer (no RepeatedField, no count).
uint64_t DecodeWithKernel(const internal::KernelDescriptor& kernel, const PackedInput& input,
                          DecodeOutputs* out);
// Upstream protobuf: ParseFromString of the message holding the field, per array.
uint64_t ParseWithUpstream(const PackedInput& input, DecodeOutputs* out);
// memcpy of each array's decoded output (n values of the type): the ceiling.
uint64_t CopyDecodedOutput(const PackedInput& input, DecodeOutputs* out);

// The values of array `i` decoded by the active pbaccel kernel and by upstream, widened to 64 bits;
// for verification before timing.
std::vector<uint64_t> PbaccelValues(const PackedInput& input, size_t i);
std::vector<uint64_t> UpstreamValues(const PackedInput& input, size_t i);

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_PACKED_INPUT_H_
