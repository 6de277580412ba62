// Copyright 2026 The pbaccel Authors.
//
// The gRPC switch's run-time half (pbaccel/grpc.h): the switch, the registry of request types,
// and the deserialization shared by every PBACCEL_GRPC_USE_FOR type.

#include "pbaccel/grpc.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "grpcpp/support/slice.h"

namespace pbaccel {
namespace {

// PBACCEL_GRPC=off (or 0, false, no) turns the switch off at startup.
bool SwitchFromEnvironment() {
  const char* value = std::getenv("PBACCEL_GRPC");
  if (value == nullptr) return true;
  const std::string v = absl::AsciiStrToLower(value);
  return !(v == "off" || v == "0" || v == "false" || v == "no");
}

std::atomic<bool> g_switch{SwitchFromEnvironment()};
std::atomic<uint64_t> g_parsed{0};

// Registered request types: written under a mutex at static initialization, read without a lock
// (an entry is complete before the count that publishes it).
struct RequestType {
  const std::type_info* type;
  grpc_internal::DeserializeFn deserialize;
};
constexpr size_t kMaxRequestTypes = 256;
std::array<RequestType, kMaxRequestTypes> g_types;
std::atomic<size_t> g_type_count{0};
std::mutex g_register_mutex;

grpc_internal::DeserializeFn FindRequestType(const std::type_info& type) {
  const size_t n = g_type_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    if (*g_types[i].type == type) return g_types[i].deserialize;
  }
  return nullptr;
}

}  // namespace

void SetGrpcSwitch(bool on) { g_switch.store(on, std::memory_order_relaxed); }
bool GrpcSwitchOn() { return g_switch.load(std::memory_order_relaxed); }
uint64_t GrpcRequestsParsed() { return g_parsed.load(std::memory_order_relaxed); }

namespace grpc_internal {

::grpc::Status DeserializeWithGrpc(::grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg) {
  return ::grpc::GenericDeserialize<::grpc::ProtoBufferReader, google::protobuf::MessageLite>(
      buffer, msg);
}

::grpc::Status Deserialize(::grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg,
                           ParseFn parse, bool small_to_grpc) {
  if (!g_switch.load(std::memory_order_relaxed) || buffer == nullptr || !buffer->Valid() ||
      (small_to_grpc && buffer->Length() < kSmallMessageBytes)) {
    return DeserializeWithGrpc(buffer, msg);
  }
  g_parsed.fetch_add(1, std::memory_order_relaxed);
  absl::Status parsed;
  ::grpc::Slice single;
  if (buffer->TrySingleSlice(&single).ok()) {
    parsed =
        parse(absl::string_view(reinterpret_cast<const char*>(single.begin()), single.size()), msg);
  } else {
    // Several slices, or compressed: Dump reads them (decompressed) as gRPC's reader would.
    std::vector<::grpc::Slice> slices;
    const ::grpc::Status dumped = buffer->Dump(&slices);
    if (!dumped.ok()) return dumped;
    std::string flat;
    flat.reserve(buffer->Length());
    for (const ::grpc::Slice& slice : slices) {
      flat.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    parsed = parse(flat, msg);
  }
  buffer->Clear();
  if (parsed.ok()) return ::grpc::Status::OK;
  return ::grpc::Status(::grpc::StatusCode::INTERNAL, std::string(parsed.message()));
}

bool RegisterRequestType(const std::type_info& type, DeserializeFn fn) {
  std::lock_guard<std::mutex> lock(g_register_mutex);
  if (FindRequestType(type) != nullptr) return true;  // Declared in several libraries: one entry.
  const size_t n = g_type_count.load(std::memory_order_relaxed);
  if (n == kMaxRequestTypes) return false;
  g_types[n] = {&type, fn};
  g_type_count.store(n + 1, std::memory_order_release);
  return true;
}

}  // namespace grpc_internal
}  // namespace pbaccel

::grpc::Status grpc::SerializationTraits<grpc::protobuf::MessageLite, void>::Deserialize(
    ::grpc::ByteBuffer* buffer, ::grpc::protobuf::MessageLite* msg) {
  if (msg != nullptr) {
    if (const pbaccel::grpc_internal::DeserializeFn fn = pbaccel::FindRequestType(typeid(*msg))) {
      return fn(buffer, msg);
    }
  }
  return pbaccel::grpc_internal::DeserializeWithGrpc(buffer, msg);
}
