// Copyright 2026 The pbaccel Authors.
//
// avx512_clock: does 512-bit decoding lower this core's clock? (The dispatch policy vetoes the
// avx512 kernel on Intel Skylake-SP/Cascade Lake, which drop a license level while 512-bit
// instructions run and for ~2 ms after; lib/kernel_registry.cc.) For several rounds it decodes a
// len1to10 payload for 200 ms with the avx512 kernel, then with the scalar one, and right after
// each times a chain of dependent adds (one per cycle): the chain's rate is the core's clock. A
// license drop shows as a lower rate after avx512 than after scalar.
//
//   ./bazelw run //bench:avx512_clock
//
// Prints one line per measurement and the medians; exits 0 without measuring on a CPU without the
// avx512 kernel.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"

namespace pbaccel {
namespace {

// Billions of dependent adds per second over `adds` adds.
double AddChainGhz(long adds) {
  long x = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < adds / 4; ++i) {
    asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
  }
  const std::chrono::duration<double, std::nano> ns = std::chrono::steady_clock::now() - start;
  return static_cast<double>(adds) / ns.count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main() {
  const std::vector<absl::string_view> kernels = SupportedKernels();
  if (std::find(kernels.begin(), kernels.end(), "avx512") == kernels.end()) {
    std::printf("avx512_clock: this CPU has no avx512 kernel; nothing to measure\n");
    return 0;
  }
  std::mt19937_64 rng(42);
  const std::string payload = testing::EncodePacked(
      workloads::GenerateWireValues(*workloads::FindPayloadWorkload("len1to10"), 1 << 16, rng));
  RepeatedField<uint64_t> field;
  std::vector<double> after[2];
  const char* const names[2] = {"avx512", "scalar"};
  for (int round = 0; round < 8; ++round) {
    for (int k = 0; k < 2; ++k) {
      ScopedKernelOverride force(names[k]);
      const auto start = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200)) {
        field.Clear();
        if (!DecodePackedUInt64(payload, &field).ok()) return 1;
      }
      after[k].push_back(AddChainGhz(1'000'000));  // About 0.3 ms.
      std::printf("after 200 ms of %-6s: add chain at %.3f GHz\n", names[k], after[k].back());
    }
  }
  std::printf("median after avx512 %.3f GHz, after scalar %.3f GHz\n", Median(after[0]),
              Median(after[1]));
  return 0;
}

}  // namespace
}  // namespace pbaccel

int main() { return pbaccel::Main(); }
