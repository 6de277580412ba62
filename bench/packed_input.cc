// Copyright 2026 The pbaccel Authors.

#include "bench/packed_input.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "pbaccel/packed_varint.h"
#include "pbaccel/testing/wire_builder.h"

namespace pbaccel {
namespace bench {
namespace {

using testing::FormatFor;
using workloads::FieldType;

[[noreturn]] void Die(const char* what, const PackedInput& input, const std::string& detail) {
  std::fprintf(stderr, "bench: %s failed on workload %.*s n=%zu: %s\n", what,
               static_cast<int>(input.workload->name.size()), input.workload->name.data(), input.n,
               detail.c_str());
  std::abort();
}

template <typename T>
uint64_t Checksum(const google::protobuf::RepeatedField<T>& f) {
  return f.empty() ? 0 : static_cast<uint64_t>(f.Get(f.size() - 1)) + f.size();
}

template <typename T, typename Decode>
uint64_t DecodeAll(const PackedInput& input, google::protobuf::RepeatedField<T>* field,
                   Decode decode) {
  uint64_t sum = 0;
  for (size_t i = 0; i < input.arrays; ++i) {
    field->Clear();
    const absl::Status s = decode(input.payload(i), field, DecodeOptions{});
    if (!s.ok()) Die("pbaccel decode", input, s.ToString());
    sum += Checksum(*field);
  }
  return sum;
}

// Elements in the message's field of `type`: a cheap use of the parse result.
size_t FieldSize(const test::PackedFields& m, FieldType type) {
  switch (type) {
    case FieldType::kInt32: return m.int32s_size();
    case FieldType::kInt64: return m.int64s_size();
    case FieldType::kUInt32: return m.uint32s_size();
    case FieldType::kUInt64: return m.uint64s_size();
    case FieldType::kSInt32: return m.sint32s_size();
    case FieldType::kSInt64: return m.sint64s_size();
    case FieldType::kBool: return m.bools_size();
  }
  return 0;
}

}  // namespace

size_t ArraysFor(size_t n) { return n <= 64 ? 16384 : 1; }

int FieldNumberFor(FieldType type) {
  switch (type) {
    case FieldType::kInt32: return 1;
    case FieldType::kInt64: return 2;
    case FieldType::kUInt32: return 3;
    case FieldType::kUInt64: return 4;
    case FieldType::kSInt32: return 5;
    case FieldType::kSInt64: return 6;
    case FieldType::kBool: return 7;
  }
  return 0;
}

size_t OutputBytes(FieldType type) {
  switch (type) {
    case FieldType::kInt64:
    case FieldType::kUInt64:
    case FieldType::kSInt64: return 8;
    case FieldType::kBool: return 1;
    default: return 4;
  }
}

PackedInput MakePackedInput(const workloads::PayloadWorkload& workload, size_t n, uint64_t seed) {
  PackedInput input;
  input.workload = &workload;
  input.n = n;
  input.arrays = ArraysFor(n);
  std::mt19937_64 rng(seed);
  const int field = FieldNumberFor(workload.type);
  input.payload_offsets.push_back(0);
  input.message_offsets.push_back(0);
  for (size_t a = 0; a < input.arrays; ++a) {
    const std::string payload =
        testing::EncodePacked(workloads::GenerateWireValues(workload, n, rng));
    input.payload_bytes += payload;
    input.message_bytes += testing::LengthDelimitedField(field, payload);
    input.payload_offsets.push_back(input.payload_bytes.size());
    input.message_offsets.push_back(input.message_bytes.size());
  }
  return input;
}

uint64_t DecodeWithPbaccel(const PackedInput& input, DecodeOutputs* out) {
  switch (input.workload->type) {
    case FieldType::kInt32:
      return DecodeAll(input, &out->i32,
                       [](auto p, auto* f, auto o) { return DecodePackedInt32(p, f, o); });
    case FieldType::kUInt32:
      return DecodeAll(input, &out->u32,
                       [](auto p, auto* f, auto o) { return DecodePackedUInt32(p, f, o); });
    case FieldType::kSInt32:
      return DecodeAll(input, &out->i32,
                       [](auto p, auto* f, auto o) { return DecodePackedSInt32(p, f, o); });
    case FieldType::kInt64:
      return DecodeAll(input, &out->i64,
                       [](auto p, auto* f, auto o) { return DecodePackedInt64(p, f, o); });
    case FieldType::kUInt64:
      return DecodeAll(input, &out->u64,
                       [](auto p, auto* f, auto o) { return DecodePackedUInt64(p, f, o); });
    case FieldType::kSInt64:
      return DecodeAll(input, &out->i64,
                       [](auto p, auto* f, auto o) { return DecodePackedSInt64(p, f, o); });
    case FieldType::kBool:
      return DecodeAll(input, &out->b,
                       [](auto p, auto* f, auto o) { return DecodePackedBool(p, f, o); });
  }
  return 0;
}

uint64_t DecodeWithKernel(const internal::KernelDescriptor& kernel, const PackedInput& input,
                          DecodeOutputs* out) {
  const internal::DecodeFn decode = kernel.Decoder(FormatFor(input.workload->type), false);
  if (out->flat.size() < input.n) out->flat.resize(input.n);
  uint64_t sum = 0;
  for (size_t i = 0; i < input.arrays; ++i) {
    const absl::string_view p = input.payload(i);
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(p.data());
    const internal::DecodeResult r = decode(begin, begin + p.size(), out->flat.data(), input.n, 0);
    if (r.status != internal::DecodeStatus::kOk) Die(kernel.name, input, "kernel error");
    sum += r.count + out->flat[0];
  }
  return sum;
}

uint64_t ParseWithUpstream(const PackedInput& input, DecodeOutputs* out) {
  uint64_t sum = 0;
  for (size_t i = 0; i < input.arrays; ++i) {
    const absl::string_view m = input.message(i);
    if (!out->message.ParseFromArray(m.data(), static_cast<int>(m.size()))) {
      Die("upstream ParseFromString", input, "rejected");
    }
    sum += FieldSize(out->message, input.workload->type);
  }
  return sum;
}

uint64_t CopyDecodedOutput(const PackedInput& input, DecodeOutputs* out) {
  const size_t bytes = input.n * OutputBytes(input.workload->type);
  if (out->flat.size() < input.n) out->flat.resize(input.n);
  if (out->flat_copy.size() < input.n) out->flat_copy.resize(input.n);
  uint64_t sum = 0;
  for (size_t i = 0; i < input.arrays; ++i) {
    // Copy from a different position per array so the copy cannot be hoisted out of the loop.
    std::memcpy(out->flat_copy.data(), out->flat.data(), bytes);
    sum += out->flat_copy[i % input.n];
  }
  return sum;
}

std::vector<uint64_t> PbaccelValues(const PackedInput& input, size_t i) {
  DecodeOutputs out;
  const absl::string_view payload = input.payload(i);
  const auto check = [&](const absl::Status& s) {
    if (!s.ok()) Die("pbaccel decode", input, s.ToString());
  };
  switch (input.workload->type) {
    case FieldType::kInt32: check(DecodePackedInt32(payload, &out.i32)); break;
    case FieldType::kSInt32: check(DecodePackedSInt32(payload, &out.i32)); break;
    case FieldType::kUInt32: check(DecodePackedUInt32(payload, &out.u32)); break;
    case FieldType::kInt64: check(DecodePackedInt64(payload, &out.i64)); break;
    case FieldType::kSInt64: check(DecodePackedSInt64(payload, &out.i64)); break;
    case FieldType::kUInt64: check(DecodePackedUInt64(payload, &out.u64)); break;
    case FieldType::kBool: check(DecodePackedBool(payload, &out.b)); break;
  }
  std::vector<uint64_t> v;
  switch (input.workload->type) {
    case FieldType::kInt32:
    case FieldType::kSInt32:
      for (int32_t x : out.i32) v.push_back(static_cast<uint64_t>(static_cast<int64_t>(x)));
      break;
    case FieldType::kUInt32:
      for (uint32_t x : out.u32) v.push_back(x);
      break;
    case FieldType::kInt64:
    case FieldType::kSInt64:
      for (int64_t x : out.i64) v.push_back(static_cast<uint64_t>(x));
      break;
    case FieldType::kUInt64:
      for (uint64_t x : out.u64) v.push_back(x);
      break;
    case FieldType::kBool:
      for (bool x : out.b) v.push_back(x);
      break;
  }
  return v;
}

std::vector<uint64_t> UpstreamValues(const PackedInput& input, size_t i) {
  test::PackedFields msg;
  const absl::string_view m = input.message(i);
  if (!msg.ParseFromArray(m.data(), static_cast<int>(m.size()))) Die("upstream", input, "rejected");
  std::vector<uint64_t> v;
  switch (input.workload->type) {
    case FieldType::kInt32:
      for (int32_t x : msg.int32s()) v.push_back(static_cast<uint64_t>(static_cast<int64_t>(x)));
      break;
    case FieldType::kSInt32:
      for (int32_t x : msg.sint32s()) v.push_back(static_cast<uint64_t>(static_cast<int64_t>(x)));
      break;
    case FieldType::kUInt32:
      for (uint32_t x : msg.uint32s()) v.push_back(x);
      break;
    case FieldType::kInt64:
      for (int64_t x : msg.int64s()) v.push_back(static_cast<uint64_t>(x));
      break;
    case FieldType::kSInt64:
      for (int64_t x : msg.sint64s()) v.push_back(static_cast<uint64_t>(x));
      break;
    case FieldType::kUInt64:
      for (uint64_t x : msg.uint64s()) v.push_back(x);
      break;
    case FieldType::kBool:
      for (bool x : msg.bools()) v.push_back(x);
      break;
  }
  return v;
}

}  // namespace bench
}  // namespace pbaccel
