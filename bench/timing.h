// Copyright 2026 The pbaccel Authors.
//
// timing.h: interleaved repetitions for side-by-side measurements on a noisy shared machine.
// Every implementation takes one sample per round (after one untimed run, as many back-to-back
// runs as fill about the same time for each), the starting one rotating, so a noise episode hits
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

// Runs of `impl` that take about `target_ns` together (at least one), from one timed run.
inline int RunsFor(const Impl& impl, double target_ns) {
  const double t0 = NowNs();
  volatile uint64_t sink = impl.run();
  (void)sink;
  return std::max(1, static_cast<int>(target_ns / std::max(NowNs() - t0, 1.0)));
}

// `reps` rounds; in each, every implementation runs once untimed, then back to back as many times
// as fill about `sample_ns` (counted per implementation): no sample includes the run that pays for
// the caches the others left cold, which would weigh most on a fast implementation over a large
// input (one or two runs per sample). Returns ns per item for each implementation and round.
inline std::vector<std::vector<double>> TimeInterleaved(const std::vector<Impl>& impls,
                                                        size_t items, int reps, double sample_ns) {
  std::vector<std::vector<double>> samples(impls.size());
  std::vector<int> runs(impls.size());
  for (size_t i = 0; i < impls.size(); ++i) {
    volatile uint64_t sink = impls[i].run();  // Warm caches and allocations.
    (void)sink;
    runs[i] = RunsFor(impls[i], sample_ns);
  }
  volatile uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    for (size_t j = 0; j < impls.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(r)) % impls.size();
      sink = sink + impls[i].run();  // Untimed: brings this implementation's data into cache.
      const double t0 = NowNs();
      for (int k = 0; k < runs[i]; ++k) sink = sink + impls[i].run();
      samples[i].push_back((NowNs() - t0) /
                           (static_cast<double>(runs[i]) * static_cast<double>(items)));
    }
  }
  return samples;
}

inline double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_TIMING_H_
