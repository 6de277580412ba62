// Copyright 2026 The pbaccel Authors.
//
// field_errors.h: the words both message parsers (the generated one and the reflection walk) use
// to name the field a parse failed at.

#ifndef PBACCEL_INTERNAL_FIELD_ERRORS_H_
#define PBACCEL_INTERNAL_FIELD_ERRORS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message_lite.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {
namespace internal {

// "pkg.Msg.field (field 3)" when msg is a full Message whose descriptor knows field 3 (or its
// pool an extension numbered 3: "pkg.ext (field 3)"), else "field 3 of pkg.Msg" (lite messages,
// unknown fields).
std::string FieldLabel(const google::protobuf::MessageLite& msg, uint32_t number);
// The same for a type known by its descriptor (the columnar decoder's).
std::string FieldLabel(const google::protobuf::Descriptor* type, uint32_t number);

// What the wire walk found wrong at field `number` of msg: "malformed varint in pkg.Msg.x
// (field 1)"; a tag error names no field ("malformed tag"). REQUIRES: error != kNone.
std::string WireErrorAt(WireError error, const google::protobuf::MessageLite& msg, uint32_t number);

// The error of a parse that leaves required fields of msg unset: "pkg.Msg: missing required
// fields: a, b.c".
absl::Status MissingRequiredFields(const google::protobuf::MessageLite& msg);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_FIELD_ERRORS_H_
