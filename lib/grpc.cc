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

#include "absl/base/attributes.h"
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

// Registered request types: blocks of entries, appended under a mutex (at static initialization,
// or when a library is loaded) and read without a lock on every request: an entry is complete
// before the count that publishes it, a block before the pointer that links it. Blocks are never
// freed, so there is no limit on the number of types.
struct RequestType {
  const std::type_info* type;
  grpc_internal::DeserializeFn deserialize;
};
struct RequestTypeBlock {
  static constexpr size_t kEntries = 64;
  std::array<RequestType, kEntries> entries{};
  std::atomic<size_t> count{0};
  std::atomic<RequestTypeBlock*> next{nullptr};
};
// Constant-initialized (every member has an initializer): other files' static initializers
// register their types into it, in any order relative to this file's.
ABSL_CONST_INIT RequestTypeBlock g_types;
std::mutex g_register_mutex;

}  // namespace

void SetGrpcSwitch(bool on) { g_switch.store(on, std::memory_order_relaxed); }
bool GrpcSwitchOn() { return g_switch.load(std::memory_order_relaxed); }
uint64_t GrpcRequestsParsed() { return g_parsed.load(std::memory_order_relaxed); }

namespace grpc_internal {

DeserializeFn FindRequestType(const std::type_info& type) {
  for (const RequestTypeBlock* block = &g_types; block != nullptr;
       block = block->next.load(std::memory_order_acquire)) {
    const size_t n = block->count.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) {
      if (*block->entries[i].type == type) return block->entries[i].deserialize;
    }
  }
  return nullptr;
}

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
  RequestTypeBlock* block = &g_types;
  while (RequestTypeBlock* next = block->next.load(std::memory_order_relaxed)) block = next;
  size_t n = block->count.load(std::memory_order_relaxed);
  if (n == RequestTypeBlock::kEntries) {
    RequestTypeBlock* added = new RequestTypeBlock();  // Never freed: readers may hold it.
    block->next.store(added, std::memory_order_release);
    block = added;
    n = 0;
  }
  block->entries[n] = {&type, fn};
  block->count.store(n + 1, std::memory_order_release);
  return true;
}

}  // namespace grpc_internal
}  // namespace pbaccel

::grpc::Status grpc::SerializationTraits<grpc::protobuf::MessageLite, void>::Deserialize(
    ::grpc::ByteBuffer* buffer, ::grpc::protobuf::MessageLite* msg) {
  if (msg != nullptr) {
    if (const pbaccel::grpc_internal::DeserializeFn fn =
            pbaccel::grpc_internal::FindRequestType(typeid(*msg))) {
      return fn(buffer, msg);
    }
  }
  return pbaccel::grpc_internal::DeserializeWithGrpc(buffer, msg);
}
