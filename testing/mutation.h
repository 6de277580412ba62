// Copyright 2026 The pbaccel Authors.
//
// mutation.h: malformed (and some still valid) variants of a valid message encoding, for
// differential tests and fuzzing seeds.

#ifndef PBACCEL_TESTING_MUTATION_H_
#define PBACCEL_TESTING_MUTATION_H_

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pbaccel {
namespace testing {

// `count` variants of `valid`: truncations, bit flips, varints stretched to 11 bytes or padded
// non-canonically, lengths past the end and near 2^31, wrong wire types, packed payloads ending
// mid-varint, inconsistent nested lengths, unterminated and mismatched groups, field numbers 0 and
// 2^29, duplicated fields and concatenations. The targeted kinds pick a top-level field found with
// the wire reader (lib/pbaccel/internal/wire_reader.h). Deterministic for a given rng state.
std::vector<std::string> Mutate(absl::string_view valid, std::mt19937_64& rng, size_t count);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_MUTATION_H_
