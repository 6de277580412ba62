// Copyright 2026 The pbaccel Authors.
//
// sve: the neon kernel's decoder (neon_decoder-inl.h) with SVE's predicated loads and stores for
// runs of one-byte varints (sve_runs-inl.h): 64-byte windows without a continuation bit, and the
// payload's last bytes when they are all one-byte varints, widened at the CPU's vector length and
// bounded to the byte; terminators counted by predicate.

#include <arm_neon.h>
#include <arm_sve.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parsers/kernel_probes.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace {

// The neon kernel's decoder; compiled with SVE, it includes and calls sve_runs-inl.h.
#include "parsers/neon_decoder-inl.h"

}  // namespace

extern const KernelDescriptor kSveKernel;
const KernelDescriptor kSveKernel =
    MakeKernelDescriptor<NeonDecoder, ScalarSizer, NeonTinyDecoder, NeonBoundedTinyDecoder>(
        "sve",
        "NEON Masked VByte (the neon kernel) with SVE for one-byte varints: 64-byte windows and "
        "payload tails without a continuation bit widened by predicated LD1B at the vector length; "
        "terminators counted by CNTP",
        &SveCountTerminators);

}  // namespace internal
}  // namespace pbaccel
