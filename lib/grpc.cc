// Copyright 2026 The pbaccel Authors.
//
// The gRPC switch's run-time half (pbaccel/grpc.h): the switch, the registry of request types,
// the deserialization shared by every PBACCEL_GRPC_USE_FOR type, and the check that each switch
// is wired into its service's generated code.

#include "pbaccel/grpc.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "grpcpp/impl/server_initializer.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/slice.h"

namespace pbaccel {
namespace {

// Whether the environment variable `name` is off (or 0, false, no): PBACCEL_GRPC=off turns the
// switch off at startup, PBACCEL_GRPC_CHECK=off the wiring check.
bool OffInEnvironment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  const std::string v = absl::AsciiStrToLower(value);
  return v == "off" || v == "0" || v == "false" || v == "no";
}

std::atomic<bool> g_switch{!OffInEnvironment("PBACCEL_GRPC")};
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

// --- The wiring check
// -----------------------------------------------------------------------------

// Where each PBACCEL_GRPC_USE_FOR line was seen (NoteSwitchSeen), and what the check has reported.
// Function-local, so that other files' static initializers can note lines before this file's run.
struct Wiring {
  std::mutex mutex;
  std::vector<std::pair<const std::type_info*, std::string>> seen;  // (type, translation unit)
  bool file_unknown = false;         // A translation unit without __BASE_FILE__: no check.
  std::vector<std::string> unwired;  // Reported lines, each once.
};
Wiring& GetWiring() {
  static Wiring* wiring = new Wiring();  // Never destroyed: servers may start during exit.
  return *wiring;
}

// Whether the translation unit `generated` (a path relative to the proto import root, as the
// service's .proto file is named) saw PBACCEL_GRPC_USE_FOR(type): a noted file that is that path
// or ends in "/" followed by it (build systems compile generated code under an output directory).
bool SeenIn(const Wiring& wiring, const std::type_info& type, const std::string& generated) {
  for (const auto& [seen_type, file] : wiring.seen) {
    if (*seen_type == type && (file == generated || absl::EndsWith(file, "/" + generated))) {
      return true;
    }
  }
  return false;
}

// Checks the services of a server being started (by their full names) against the noted lines;
// reports each unwired method once.
void CheckWiring(const std::vector<std::string>& services) {
  if (OffInEnvironment("PBACCEL_GRPC_CHECK")) return;
  namespace pb = google::protobuf;
  Wiring& wiring = GetWiring();
  std::lock_guard<std::mutex> lock(wiring.mutex);
  if (wiring.file_unknown) return;
  for (const std::string& name : services) {
    const pb::ServiceDescriptor* service =
        pb::DescriptorPool::generated_pool()->FindServiceByName(name);
    if (service == nullptr) continue;  // A LITE_RUNTIME service, or a generic one.
    std::string generated(service->file()->name());
    if (absl::EndsWith(generated, ".proto")) generated.resize(generated.size() - 6);
    generated += ".grpc.pb.cc";
    for (int i = 0; i < service->method_count(); ++i) {
      const pb::MethodDescriptor* method = service->method(i);
      const pb::Message* prototype =
          pb::MessageFactory::generated_factory()->GetPrototype(method->input_type());
      if (prototype == nullptr) continue;
      const std::type_info& type = typeid(*prototype);
      if (grpc_internal::FindRequestType(type) == nullptr) continue;  // Not switched on.
      if (SeenIn(wiring, type, generated)) continue;
      std::string line = absl::StrCat(
          "/", std::string(service->full_name()), "/", std::string(method->name()), ": ",
          std::string(method->input_type()->full_name()), " reaches gRPC's own parser (", generated,
          " did not see PBACCEL_GRPC_USE_FOR)");
      bool reported = false;
      for (const std::string& r : wiring.unwired) reported = reported || r == line;
      if (reported) continue;
      std::fprintf(stderr,
                   "pbaccel: %s: put the line in a header that the service's generated code "
                   "includes (cc_grpc_library's additional_header_includes; see pbaccel/grpc.h). "
                   "PBACCEL_GRPC_CHECK=off turns this check off.\n",
                   line.c_str());
      wiring.unwired.push_back(std::move(line));
    }
  }
}

// Runs CheckWiring for every server a grpc::ServerBuilder starts, once its services are registered.
class WiringCheckPlugin final : public ::grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "pbaccel_wiring_check"; }
  void InitServer(::grpc::ServerInitializer* server) override {
    CheckWiring(*server->GetServiceList());
  }
  void Finish(::grpc::ServerInitializer*) override {}
  void ChangeArguments(const std::string&, void*) override {}
};

std::unique_ptr<::grpc::ServerBuilderPlugin> CreateWiringCheckPlugin() {
  return std::make_unique<WiringCheckPlugin>();
}

// This file is linked wherever PBACCEL_GRPC_USE_FOR is used (RegisterRequestType).
[[maybe_unused]] const bool g_wiring_check_added = [] {
  ::grpc::ServerBuilder::InternalAddPluginFactory(&CreateWiringCheckPlugin);
  return true;
}();

}  // namespace

std::vector<std::string> GrpcUnwiredMethods() {
  Wiring& wiring = GetWiring();
  std::lock_guard<std::mutex> lock(wiring.mutex);
  return wiring.unwired;
}

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

bool NoteSwitchSeen(const std::type_info& type, const char* file) {
  Wiring& wiring = GetWiring();
  std::lock_guard<std::mutex> lock(wiring.mutex);
  if (file == nullptr) {
    wiring.file_unknown = true;
  } else {
    wiring.seen.emplace_back(&type, file);
  }
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
