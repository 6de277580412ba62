// Copyright 2026 The pbaccel Authors.
//
// timing.h: interleaved repetitions for side-by-side measurements on a noisy shared machine.
// Every implementation runs once per round, the starting one rotating, so a noise episode hits
// all of them alike; the quiet estimate is the minimum over the rounds (the median is reported
// beside it).

#ifndef PBACCEL_BENCH_TIMING_H_
#define PBACCEL_BENCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pbaccel {
namespace bench {

// An implementation under test: one run over the whole input, returning a checksum.
struct Impl {
  std::string name;
  std::function<uint64_t()> run;
};

inline double NowNs() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

// `reps` rounds, each running every implementation `inner` times; ns per item for each
// implementation and round.
inline std::vector<std::vector<double>> TimeInterleaved(const std::vector<Impl>& impls,
                                                        size_t items, int reps, int inner) {
  std::vector<std::vector<double>> samples(impls.size());
  volatile uint64_t sink = 0;
  for (const Impl& impl : impls) sink = sink + impl.run();  // Warm caches and allocations.
  for (int r = 0; r < reps; ++r) {
    for (size_t j = 0; j < impls.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(r)) % impls.size();
      const double t0 = NowNs();
      for (int k = 0; k < inner; ++k) sink = sink + impls[i].run();
      samples[i].push_back((NowNs() - t0) / (static_cast<double>(inner) * static_cast<double>(items)));
    }
  }
  return samples;
}

inline double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs per round so one round of `slowest` takes about target_ns.
inline int InnerFor(const std::function<uint64_t()>& slowest, double target_ns) {
  const double t0 = NowNs();
  volatile uint64_t sink = slowest();
  (void)sink;
  return std::max(1, static_cast<int>(target_ns / std::max(NowNs() - t0, 1.0)));
}

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_TIMING_H_
