// Copyright 2026 The pbaccel Authors.
//
// generated_registry.h: how ParseMessage(bytes, google::protobuf::Message*) finds the generated
// parser of a message's type, when one is linked (pbaccel_cc_parser registers its parsers at
// static initialization; see generated_parser.h).

#ifndef PBACCEL_INTERNAL_GENERATED_REGISTRY_H_
#define PBACCEL_INTERNAL_GENERATED_REGISTRY_H_

#include "google/protobuf/message.h"
#include "pbaccel/generated_parser.h"

namespace pbaccel {
namespace gen {

// The generated parser for msg's concrete class, or nullptr if none is linked (or msg is a
// DynamicMessage, even of a type that has one). Thread-safe; after the first call per thread and
// type, one descriptor compare and one typeid compare.
MergeFn FindGeneratedParser(const google::protobuf::Message& msg);

}  // namespace gen
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_GENERATED_REGISTRY_H_
