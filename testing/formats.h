// Copyright 2026 The pbaccel Authors.
//
// formats.h: the kernels' output formats (pbaccel/internal/kernel_abi.h's VarintFormat) as tests
// and benchmarks name and size them, and the format that decodes each workload's field type.

#ifndef PBACCEL_TESTING_FORMATS_H_
#define PBACCEL_TESTING_FORMATS_H_

#include <cstddef>
#include <vector>

#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/testing/workloads.h"

namespace pbaccel {
namespace testing {

using internal::DecodeStatus;
using internal::VarintFormat;

// Every VarintFormat, for loops.
const std::vector<VarintFormat>& AllFormats();

// "int32", "delta_uint64", ...
const char* FormatName(VarintFormat format);

// Size in bytes of one output element of the format.
size_t OutputSize(VarintFormat format);

// The format decoding a workload's field type (int32 -> kInt32, ..., bool -> kBool).
VarintFormat FormatFor(workloads::FieldType type);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_FORMATS_H_
