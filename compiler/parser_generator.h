// Copyright 2026 The pbaccel Authors.
//
// parser_generator.h: the code generator behind protoc-gen-pbaccel (the protoc plugin that
// pbaccel_cc_parser in tools/defs.bzl runs).
//
// For each foo.proto it is asked to generate, it writes
//   foo.pbaccel.h   declarations of pbaccel::gen::MergeFields for every message type, and the
//                   public pbaccel::ParseMessage / ParsePartialMessage / MergeMessage /
//                   MergePartialMessage overloads for each (PBACCEL_GENERATED_PARSER_OVERLOADS);
//   foo.pbaccel.cc  the MergeFields definitions, and the registration that lets
//                   ParseMessage(bytes, google::protobuf::Message*) find them.
// Each MergeFields is a loop over the input's tags with one `case` per (field, wire type) it
// parses itself through the generated class's accessors; lib/pbaccel/generated_parser.h documents
// the runtime it calls and what it leaves to upstream.
//
// The types parsed recursively are those of the files generated in the same run (protoc's
// file_to_generate, which is every .proto of the rule's srcs); a submessage of any other type is
// handed to upstream whole.
//
// Every decision it makes about a field comes from the descriptor's resolved semantics (enum
// closedness, UTF-8 validation, packedness, presence, delimited encoding, the C++ string storage):
// the same code serves proto2, proto3 and, with protobuf 27 and later, editions files (it declares
// editions support up to edition 2023, or 2024 built against protobuf 32 and later, with
// protobuf's C++ feature extension `pb.cpp`).
//
// Parameters: none.

#ifndef PBACCEL_COMPILER_PARSER_GENERATOR_H_
#define PBACCEL_COMPILER_PARSER_GENERATOR_H_

#include <string>
#include <vector>

#include "google/protobuf/compiler/code_generator.h"
#include "google/protobuf/descriptor.h"
#include "pbaccel/internal/protobuf_compat.h"

namespace pbaccel {
namespace compiler {

class ParserGenerator : public google::protobuf::compiler::CodeGenerator {
 public:
  bool Generate(const google::protobuf::FileDescriptor* file, const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;

  bool GenerateAll(const std::vector<const google::protobuf::FileDescriptor*>& files,
                   const std::string& parameter,
                   google::protobuf::compiler::GeneratorContext* context,
                   std::string* error) const override;

  uint64_t GetSupportedFeatures() const override;

#if PBACCEL_PROTOBUF_HAS_EDITIONS
  google::protobuf::Edition GetMinimumEdition() const override;
  google::protobuf::Edition GetMaximumEdition() const override;
  std::vector<const google::protobuf::FieldDescriptor*> GetFeatureExtensions() const override;
#endif
};

}  // namespace compiler
}  // namespace pbaccel

#endif  // PBACCEL_COMPILER_PARSER_GENERATOR_H_
