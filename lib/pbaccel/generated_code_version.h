// Copyright 2026 The pbaccel Authors.
//
// generated_code_version.h: the version of the contract between the code protoc-gen-pbaccel writes
// (foo.pbaccel.h/.cc) and the runtime it calls, pbaccel/generated_parser.h.
//
// A generated header checks, when compiled, that the runtime it is compiled against implements the
// version it was generated for, so that a .pbaccel.h left over from another pbaccel release fails
// with a message saying to regenerate it instead of with errors inside generated code. The number
// changes whenever generated code would no longer compile or behave the same against the runtime:
// a helper it calls is renamed, removed or changes its contract. It says nothing about the public
// API (pbaccel/pbaccel.h), which users call directly.

#ifndef PBACCEL_GENERATED_CODE_VERSION_H_
#define PBACCEL_GENERATED_CODE_VERSION_H_

#define PBACCEL_GENERATED_CODE_VERSION 4

#endif  // PBACCEL_GENERATED_CODE_VERSION_H_
