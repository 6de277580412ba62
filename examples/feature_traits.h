// Copyright 2026 The pbaccel Authors.
//
// The lines that switch FeatureBatch and vector_tile.Tile requests to pbaccel, with their
// generated parsers. Included by the generated feature_service.grpc.pb.h (cc_grpc_library's
// additional_header_includes in examples/BUILD), so the generated service code sees them.

#ifndef PBACCEL_EXAMPLES_FEATURE_TRAITS_H_
#define PBACCEL_EXAMPLES_FEATURE_TRAITS_H_

#include "examples/feature_service.pb.h"
#include "examples/feature_service.pbaccel.h"
#include "pbaccel/grpc.h"
#include "proto/vector_tile.pb.h"
#include "proto/vector_tile.pbaccel.h"

PBACCEL_GRPC_USE_FOR(pbaccel::examples::FeatureBatch);
PBACCEL_GRPC_USE_FOR(vector_tile::Tile);

#endif  // PBACCEL_EXAMPLES_FEATURE_TRAITS_H_
