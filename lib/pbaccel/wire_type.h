// Copyright 2026 The pbaccel Authors.
//
// wire_type.h: the six wire types of the protobuf encoding (the low three bits of a tag), as
// google/protobuf/wire_format_lite.h numbers them.

#ifndef PBACCEL_WIRE_TYPE_H_
#define PBACCEL_WIRE_TYPE_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstdint>

namespace pbaccel {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

}  // namespace pbaccel

#endif  // PBACCEL_WIRE_TYPE_H_
