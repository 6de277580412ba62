// Copyright 2026 The pbaccel Authors.
//
// grpc.h: switch a gRPC C++ request type to pbaccel's parser with one line.
//
//   // In a header that the generated service code includes: pass it to cc_grpc_library's
//   // additional_header_includes (@pbaccel//tools:grpc.bzl), which the generated .grpc.pb.h
//   // then includes, so the generated .grpc.pb.cc and your server see it.
//   #include "pbaccel/grpc.h"
//   #include "my/service.pb.h"
//   #include "my/service.pbaccel.h"   // optional: the generated parsers (pbaccel_cc_parser)
//   PBACCEL_GRPC_USE_FOR(my::pkg::MyRequest);
//
// What then parses a MyRequest a server receives: pbaccel::ParseMessage for MyRequest, that is
// its generated parser if its .pbaccel.h is included above (any size, LITE_RUNTIME types too),
// else the reflection parser (which leaves requests under kSmallMessageBytes to gRPC's own path,
// since it would hand them to upstream's parser anyway). Responses and every type not named keep
// gRPC's own (de)serialization. Errors are gRPC's: no payload and any parse failure (malformed
// bytes, missing required fields) are StatusCode::INTERNAL, with pbaccel's message (what failed,
// at which byte offset) where gRPC's is empty.
//
// How it reaches every method kind. gRPC C++ deserializes a request through
// grpc::SerializationTraits<T>::Deserialize, where T is
//   * grpc::protobuf::MessageLite for synchronous unary methods: the code that grpc_cpp_plugin
//     generates (since gRPC 1.38) instantiates RpcMethodHandler<Service, Req, Resp, MessageLite,
//     MessageLite>, to share one deserializer between all types;
//   * the request type itself for everything else: client-streaming, server-streaming and
//     bidirectional sync handlers (ServerReader/ServerWriter/ServerReaderWriter read through
//     CallOpRecvMessage<Req>), all callback-API handlers and the async API.
// So this header defines both: PBACCEL_GRPC_USE_FOR(T) specializes SerializationTraits<T> and
// registers T, and the explicit specialization SerializationTraits<MessageLite> below looks up
// the message's dynamic type among the registered ones (a typeid comparison per registered type)
// and otherwise does exactly what gRPC's own does. Both are the customization point gRPC
// documents (grpcpp/impl/codegen/serialization_traits.h), so the switch depends on no gRPC
// internals; a gRPC that stops using MessageLite for unary methods goes through the per-type
// specialization instead. Tested with Debian's gRPC 1.51.1 (libgrpc++-dev, grpc_cpp_plugin), sync
// and callback servers, all four method kinds (//tests:grpc_loopback_test).
//
// Where it must be visible. SerializationTraits<MessageLite> must be declared before gRPC's own is
// instantiated in any translation unit that instantiates a service's handlers, in practice the
// generated .grpc.pb.cc: hence additional_header_includes. Its Deserialize is defined out of line
// in //lib:grpc, so a translation unit that never saw this header (another service's code) links
// against it as well wherever gRPC's copy was not inlined; for unregistered types both do the same.
//
// A switch that is not wired in is reported. Every PBACCEL_GRPC_USE_FOR(T) notes the translation
// unit that sees it (its main source file, __BASE_FILE__); when a server starts
// (grpc::ServerBuilder::BuildAndStart, through a ServerBuilderPlugin that //lib:grpc adds), each of
// its services found in the generated descriptor pool is checked: a method whose request type is a
// PBACCEL_GRPC_USE_FOR type but whose generated handlers (the service's .grpc.pb.cc, named after
// its .proto file) were compiled without seeing that line gets gRPC's own parser, and is printed
// once to stderr and listed by GrpcUnwiredMethods(). Not checked: LITE_RUNTIME services (they have
// no descriptors) and compilers without __BASE_FILE__ (GCC and Clang have it).
// PBACCEL_GRPC_CHECK=off in the environment turns the check off (for a build that compiles
// generated code under other file names, such as a unity build).
//
// At run time: SetGrpcSwitch(false), or PBACCEL_GRPC=off in the environment at startup, sends
// every request back to gRPC's own path (a kill switch needing no rebuild), and
// GrpcRequestsParsed() counts the requests pbaccel parsed (for monitoring, and for tests proving
// that the switch took effect).
//
// Compile-time errors: PBACCEL_GRPC_USE_FOR(T) names T in a static_assert when T is not a
// protobuf message, or is a LITE_RUNTIME message (not a google::protobuf::Message) whose generated
// parser header is not included before it.

#ifndef PBACCEL_GRPC_H_
#define PBACCEL_GRPC_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "google/protobuf/message_lite.h"
// SerializationTraits for protobuf messages: grpcpp/impl/proto_utils.h from gRPC 1.52 on (where
// the codegen/ path is a forwarding header, later removed), codegen/ before.
#if __has_include("grpcpp/impl/proto_utils.h")
#include "grpcpp/impl/proto_utils.h"
#else
#include "grpcpp/impl/codegen/proto_utils.h"
#endif
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/message_parser.h"

namespace pbaccel {

// Turns the switch on (the default) or off for every PBACCEL_GRPC_USE_FOR type, effective for the
// next request deserialized. Off: gRPC's own deserialization. Thread-safe.
void SetGrpcSwitch(bool on);
bool GrpcSwitchOn();

// How many requests pbaccel has parsed (accepted or rejected) since the process started.
uint64_t GrpcRequestsParsed();

// The methods of the servers started so far whose request type is switched on by
// PBACCEL_GRPC_USE_FOR but whose generated service code was compiled without seeing that line
// (see above), one line each: "/pkg.Service/Method: pkg.Request reaches gRPC's own parser
// (pkg/service.grpc.pb.cc did not see PBACCEL_GRPC_USE_FOR)". Each is printed once to stderr when
// the first server with it starts. Empty when every switch is wired in.
std::vector<std::string> GrpcUnwiredMethods();

namespace grpc_internal {

using ParseFn = absl::Status (*)(absl::string_view bytes, google::protobuf::MessageLite* msg);
using DeserializeFn = ::grpc::Status (*)(::grpc::ByteBuffer* buffer,
                                         google::protobuf::MessageLite* msg);

// gRPC's own deserialization (its protobuf SerializationTraits): upstream protobuf reading the
// buffer through a ZeroCopyInputStream.
::grpc::Status DeserializeWithGrpc(::grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg);

// Deserializes with `parse` (pbaccel::ParseMessage for msg's type), the buffer read in place when
// it is one uncompressed slice, else copied into one string first; clears the buffer. Goes to
// DeserializeWithGrpc instead when the switch is off, when there is no valid buffer (for gRPC's
// exact status), or when `small_to_grpc` and the request is under kSmallMessageBytes.
::grpc::Status Deserialize(::grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg,
                           ParseFn parse, bool small_to_grpc);

// Records that requests of the type `type` deserialize with `fn` (any number of types; a type
// registered again keeps its first entry). Returns true.
bool RegisterRequestType(const std::type_info& type, DeserializeFn fn);

// The DeserializeFn registered for `type`, or nullptr.
DeserializeFn FindRequestType(const std::type_info& type);

// Notes that the translation unit whose main source file is `file` (nullptr: unknown, which turns
// the wiring check off) sees PBACCEL_GRPC_USE_FOR(type). Returns true.
bool NoteSwitchSeen(const std::type_info& type, const char* file);

// What PBACCEL_GRPC_USE_FOR(T) can take: a google::protobuf::Message (reflection parser, or its
// generated parser where linked), or any MessageLite with its generated header included.
template <typename T>
constexpr bool kParsable = std::is_base_of<google::protobuf::Message, T>::value ||
                           (std::is_base_of<google::protobuf::MessageLite, T>::value &&
                            gen::HasGeneratedOverloads<T>::value);

// `msg` as the argument pbaccel::ParseMessage takes for T; for a T it cannot take (the
// static_assert in PBACCEL_GRPC_USE_FOR has failed) a null Message*, so that the only error the
// compiler reports is that static_assert.
template <typename T>
auto ParseTarget(google::protobuf::MessageLite* msg) {
  if constexpr (kParsable<T>) {
    return static_cast<T*>(msg);
  } else {
    return static_cast<google::protobuf::Message*>(nullptr);
  }
}

}  // namespace grpc_internal
}  // namespace pbaccel

// gRPC's synchronous unary handlers deserialize every request type through this one (see above).
template <>
class grpc::SerializationTraits<grpc::protobuf::MessageLite, void> {
 public:
  // As gRPC's own.
  static ::grpc::Status Serialize(const ::grpc::protobuf::MessageLite& msg, ::grpc::ByteBuffer* bb,
                                  bool* own_buffer) {
    return ::grpc::GenericSerialize<::grpc::ProtoBufferWriter, ::grpc::protobuf::MessageLite>(
        msg, bb, own_buffer);
  }
  // A registered type's Deserialize; for every other type gRPC's own. Defined in grpc.cc.
  static ::grpc::Status Deserialize(::grpc::ByteBuffer* buffer, ::grpc::protobuf::MessageLite* msg);
};

// The main source file of the translation unit being compiled, for the wiring check.
#ifdef __BASE_FILE__
#define PBACCEL_GRPC_INTERNAL_THIS_FILE __BASE_FILE__
#else
#define PBACCEL_GRPC_INTERNAL_THIS_FILE nullptr
#endif
#define PBACCEL_GRPC_INTERNAL_CONCAT2(a, b) a##b
#define PBACCEL_GRPC_INTERNAL_CONCAT(a, b) PBACCEL_GRPC_INTERNAL_CONCAT2(a, b)

// Defines grpc::SerializationTraits<Type> with pbaccel's Deserialize, registers Type for the
// MessageLite path and notes this translation unit for the wiring check (see above). Use at global
// scope, once per type per header, after Type's .pb.h (and its .pbaccel.h if it has generated
// parsers).
#define PBACCEL_GRPC_USE_FOR(Type)                                                              \
  [[maybe_unused]] static const bool PBACCEL_GRPC_INTERNAL_CONCAT(pbaccel_grpc_seen_,           \
                                                                  __COUNTER__) =                \
      ::pbaccel::grpc_internal::NoteSwitchSeen(typeid(Type), PBACCEL_GRPC_INTERNAL_THIS_FILE);  \
  template <>                                                                                   \
  class grpc::SerializationTraits<Type, void> {                                                 \
    static_assert(std::is_base_of<::google::protobuf::MessageLite, Type>::value,                \
                  "PBACCEL_GRPC_USE_FOR(" #Type "): " #Type " is not a protobuf message type"); \
    static_assert(!std::is_base_of<::google::protobuf::MessageLite, Type>::value ||             \
                      ::pbaccel::grpc_internal::kParsable<Type>,                                \
                  "PBACCEL_GRPC_USE_FOR(" #Type "): " #Type                                     \
                  " is a LITE_RUNTIME message and pbaccel has no parser for it here: link its " \
                  "pbaccel_cc_parser library and include its .pbaccel.h before this line");     \
                                                                                                \
   public:                                                                                      \
    static ::grpc::Status Serialize(const ::grpc::protobuf::MessageLite& msg,                   \
                                    ::grpc::ByteBuffer* bb, bool* own_buffer) {                 \
      return ::grpc::GenericSerialize<::grpc::ProtoBufferWriter, Type>(msg, bb, own_buffer);    \
    }                                                                                           \
    static ::grpc::Status Deserialize(::grpc::ByteBuffer* buffer,                               \
                                      ::grpc::protobuf::MessageLite* msg) {                     \
      return ::pbaccel::grpc_internal::Deserialize(                                             \
          buffer, msg, &PbaccelParse, !::pbaccel::gen::HasGeneratedOverloads<Type>::value);     \
    }                                                                                           \
                                                                                                \
   private:                                                                                     \
    static ::absl::Status PbaccelParse(::absl::string_view bytes,                               \
                                       ::grpc::protobuf::MessageLite* msg) {                    \
      return ::pbaccel::ParseMessage(bytes, ::pbaccel::grpc_internal::ParseTarget<Type>(msg));  \
    }                                                                                           \
    static inline const bool pbaccel_registered_ =                                              \
        ::pbaccel::grpc_internal::RegisterRequestType(typeid(Type), &Deserialize);              \
  }

#endif  // PBACCEL_GRPC_H_
