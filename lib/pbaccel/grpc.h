// Copyright 2026 The pbaccel Authors.
//
// grpc.h: switch a gRPC C++ request type to pbaccel's parser with one line.
//
//   // In a header that every TU using the service sees: pass it to cc_grpc_library's
//   // additional_header_includes (@pbaccel//tools:grpc.bzl), which the generated .grpc.pb.h
//   // then includes.
//   #include "pbaccel/grpc.h"
//   #include "my/service.pb.h"
//   PBACCEL_GRPC_USE_FOR(my::pkg::MyRequest);
//
// This defines grpc::SerializationTraits<MyRequest>: Serialize is gRPC's own (upstream protobuf);
// Deserialize hands requests under kSmallMessageBytes to gRPC's own deserializer (pbaccel would
// pass them to upstream's parser anyway); larger ones it reads without a copy when they arrived in
// one slice
// (parsed in place), else flattens them with one copy (measured faster than parsing across slices
// through a ZeroCopyInputStream, which pbaccel would flatten anyway), and parses with
// pbaccel::ParseMessage. Errors map as gRPC's protobuf traits map them: no payload and any parse
// failure (malformed bytes, missing required fields) are StatusCode::INTERNAL, with pbaccel's
// message (what failed, at which byte offset).
//
// The specialization must be visible wherever the service's handlers are instantiated (the
// generated .grpc.pb.cc and your server), hence the header-include advice above.

#ifndef PBACCEL_GRPC_H_
#define PBACCEL_GRPC_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "grpcpp/support/status.h"
#include "pbaccel/message_parser.h"

namespace pbaccel {
namespace grpc_internal {

// Parses the ByteBuffer's bytes into msg with pbaccel; clears the buffer (as gRPC's traits do).
inline ::grpc::Status DeserializeWithPbaccel(::grpc::ByteBuffer* buffer,
                                             google::protobuf::Message* msg) {
  if (buffer == nullptr) return ::grpc::Status(::grpc::StatusCode::INTERNAL, "No payload");
  if (buffer->Length() < kSmallMessageBytes) {
    // Nothing pbaccel would accelerate (see message_parser.h): gRPC's own path, without the
    // slice inspection below.
    return ::grpc::GenericDeserialize<::grpc::ProtoBufferReader, google::protobuf::Message>(buffer,
                                                                                            msg);
  }
  absl::Status s;
  ::grpc::Slice single;
  if (buffer->TrySingleSlice(&single).ok()) {
    s = ParseMessage(
        absl::string_view(reinterpret_cast<const char*>(single.begin()), single.size()), msg);
  } else {
    std::vector<::grpc::Slice> slices;
    if (!buffer->Dump(&slices).ok())
      return ::grpc::Status(::grpc::StatusCode::INTERNAL, "No payload");
    std::string flat;
    flat.reserve(buffer->Length());
    for (const ::grpc::Slice& slice : slices) {
      flat.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    s = ParseMessage(flat, msg);
  }
  buffer->Clear();
  if (s.ok()) return ::grpc::Status::OK;
  return ::grpc::Status(::grpc::StatusCode::INTERNAL, std::string(s.message()));
}

}  // namespace grpc_internal
}  // namespace pbaccel

// Defines grpc::SerializationTraits<Type> with pbaccel's Deserialize (see above). Use at global
// scope, once per type.
#define PBACCEL_GRPC_USE_FOR(Type)                                                           \
  template <>                                                                                \
  class grpc::SerializationTraits<Type, void> {                                              \
   public:                                                                                   \
    static ::grpc::Status Serialize(const ::grpc::protobuf::MessageLite& msg,                \
                                    ::grpc::ByteBuffer* bb, bool* own_buffer) {              \
      return ::grpc::GenericSerialize<::grpc::ProtoBufferWriter, Type>(msg, bb, own_buffer); \
    }                                                                                        \
    static ::grpc::Status Deserialize(::grpc::ByteBuffer* buffer,                            \
                                      ::grpc::protobuf::MessageLite* msg) {                  \
      return ::pbaccel::grpc_internal::DeserializeWithPbaccel(                               \
          buffer, static_cast<::google::protobuf::Message*>(msg));                           \
    }                                                                                        \
  }

#endif  // PBACCEL_GRPC_H_
