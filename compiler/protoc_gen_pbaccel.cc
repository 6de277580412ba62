// Copyright 2026 The pbaccel Authors.
//
// protoc-gen-pbaccel: the protoc plugin that writes pbaccel's generated parsers
// (compiler/parser_generator.h). Run by pbaccel_cc_parser (tools/defs.bzl); by hand:
//   protoc --plugin=protoc-gen-pbaccel=<this binary> --pbaccel_out=<dir> foo.proto

#include "compiler/parser_generator.h"
#include "google/protobuf/compiler/plugin.h"

int main(int argc, char* argv[]) {
  pbaccel::compiler::ParserGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
