// Copyright 2026 The pbaccel Authors.
//
// The gRPC switch for a LITE_RUNTIME request type (tests/grpc_lite.proto), with its generated
// parser. Included by the generated grpc_lite.grpc.pb.h (additional_header_includes).

#ifndef PBACCEL_TESTS_GRPC_LITE_TRAITS_H_
#define PBACCEL_TESTS_GRPC_LITE_TRAITS_H_

#include "pbaccel/grpc.h"
#include "tests/grpc_lite.pb.h"
#include "tests/grpc_lite.pbaccel.h"

PBACCEL_GRPC_USE_FOR(pbaccel::grpclite::LiteBatch);

#endif  // PBACCEL_TESTS_GRPC_LITE_TRAITS_H_
