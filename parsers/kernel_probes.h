// Copyright 2026 The pbaccel Authors.
//
// kernel_probes.h: counters that prove a kernel's fast path ran where its results cannot tell
// (two ways that store the same values into the same slots). PBACCEL_KERNEL_PROBE(name) counts
// into a thread-local counter in a test build of a kernel (compiled with -DPBACCEL_KERNEL_PROBES:
// the `<kernel>_probed` libraries of parsers/kernels.bzl, linked by tests/kernel_probes_test.cc,
// which defines the counters) and is nothing in every other build.

#ifndef PBACCEL_PARSERS_KERNEL_PROBES_H_
#define PBACCEL_PARSERS_KERNEL_PROBES_H_

#include <cstdint>

#if defined(PBACCEL_KERNEL_PROBES)
namespace pbaccel {
namespace internal {
namespace probes {
// 16-byte steps over one- and two-byte varints (parsers/two_byte_steps_avx2-inl.h).
extern thread_local uint64_t two_byte_steps;
// 64-byte windows of 64-bit fields' varints of at most four bytes, and of at most five
// (parsers/varint_lanes_avx2-inl.h).
extern thread_local uint64_t four_byte_windows;
extern thread_local uint64_t five_byte_windows;
// Short payloads of 64-bit fields' varints of at most five bytes in 32-bit lanes (the same file).
extern thread_local uint64_t lane_payloads;
// Short payloads of 64-bit fields (16 to 64 bytes) decoded from registers read whole by the AVX2
// kernels' bounded tiny decoder (parsers/short_payloads_avx2-inl.h).
extern thread_local uint64_t register_payloads;
// Payloads decoded by the AVX2 kernels' window decoder (parsers/short_payloads_avx2-inl.h).
extern thread_local uint64_t window_payloads;
// 8-byte steps of the block decoder's step loop (parsers/step_loop_avx2-inl.h).
extern thread_local uint64_t step_loop_steps;
// Its bounded steps, which store exactly their values: near the output's room, and the last
// partial step (the same file).
extern thread_local uint64_t step_loop_bounded_steps;
// Vectors of gaps made running sums by the vector forms (AVX2, SSE4.1) of RunningSumsInPlace
// (parsers/running_sums-inl.h: the delta formats' SumsAfterGaps).
extern thread_local uint64_t running_sum_vectors;
// Runs of one-byte varints widened by SVE's predicated loads (parsers/sve_runs-inl.h).
extern thread_local uint64_t sve_one_byte_runs;
// Short payloads of one- and two-byte varints that avx512's tiny decoders decode in 16-bit lanes
// (parsers/avx512.cc's TwoByteValues16 and TwoByteValues32).
extern thread_local uint64_t avx512_two_byte_payloads;
}  // namespace probes
}  // namespace internal
}  // namespace pbaccel
#define PBACCEL_KERNEL_PROBE(name) (++::pbaccel::internal::probes::name)
#else
#define PBACCEL_KERNEL_PROBE(name) static_cast<void>(0)
#endif

#endif  // PBACCEL_PARSERS_KERNEL_PROBES_H_
