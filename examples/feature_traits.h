// Copyright 2026 The pbaccel Authors.
//
// The one line that switches FeatureBatch requests to pbaccel. Included by the generated
// feature_service.grpc.pb.h (cc_grpc_library's additional_header_includes in examples/BUILD).

#ifndef PBACCEL_EXAMPLES_FEATURE_TRAITS_H_
#define PBACCEL_EXAMPLES_FEATURE_TRAITS_H_

#include "examples/feature_service.pb.h"
#include "pbaccel/grpc.h"

PBACCEL_GRPC_USE_FOR(pbaccel::examples::FeatureBatch);

#endif  // PBACCEL_EXAMPLES_FEATURE_TRAITS_H_
