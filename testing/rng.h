// Copyright 2026 The pbaccel Authors.
//
// rng.h: the two draws the random-message and mutation code make, on std::mt19937_64 with their
// own range reduction (never std::uniform_int_distribution), so a seed gives the same inputs on
// every platform and standard library.

#ifndef PBACCEL_TESTING_RNG_H_
#define PBACCEL_TESTING_RNG_H_

#include <cstdint>
#include <random>

namespace pbaccel {
namespace testing {

// Uniform in [0, n) (0 when n == 0). The modulo bias is below 2^-40 for the small n used here.
inline uint64_t Uniform(std::mt19937_64& rng, uint64_t n) { return n == 0 ? 0 : rng() % n; }

// True with probability percent / 100.
inline bool Chance(std::mt19937_64& rng, int percent) {
  return static_cast<int>(rng() % 100) < percent;
}

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_RNG_H_
