// Copyright 2026 The pbaccel Authors.
//
// pbaccel.h: the one header a user includes.
//
// pbaccel parses the protobuf wire format fast where upstream protobuf is slowest, packed repeated
// scalar fields, and returns exactly what upstream protobuf would have produced.
//
//   #include "pbaccel/pbaccel.h"

#ifndef PBACCEL_PBACCEL_H_
#define PBACCEL_PBACCEL_H_

#include "pbaccel/internal/requires_cxx17.h"

#include "pbaccel/columnar.h"        // IWYU pragma: export
#include "pbaccel/cpu_features.h"    // IWYU pragma: export
#include "pbaccel/field_reader.h"    // IWYU pragma: export
#include "pbaccel/kernels.h"         // IWYU pragma: export
#include "pbaccel/message_parser.h"  // IWYU pragma: export
#include "pbaccel/packed_varint.h"   // IWYU pragma: export
#include "pbaccel/packed_view.h"     // IWYU pragma: export
#include "pbaccel/skip_size.h"       // IWYU pragma: export

#endif  // PBACCEL_PBACCEL_H_
