// Copyright 2026 The pbaccel Authors.
//
// differential.h: proves, for a message type, that pbaccel parses exactly as upstream protobuf.
//
// For users' test suites (see //tools:defs.bzl, pbaccel_differential_test) and pbaccel's own. For a
// message type it generates random messages (every field kind; repeated scalar fields with lengths
// and values drawn from the workloads of WORKLOADS.md; nested messages to a bounded depth; map
// entries; a member of each oneof; unknown fields), serializes them with upstream, re-encodes the
// repeated packable fields as an interleaving of packed and unpacked records (plus, for closed
// enums, out-of-range values), derives malformed inputs from each valid one, and for every input
// compares upstream's ParseFromString / ParsePartialFromString with pbaccel's ParseMessage /
// ParsePartialMessage under every kernel this CPU supports: the same accept/reject decision and,
// when accepted, MessageDifferencer::Equals and byte-identical re-serialization.

#ifndef PBACCEL_TESTING_DIFFERENTIAL_H_
#define PBACCEL_TESTING_DIFFERENTIAL_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace pbaccel {
namespace testing {

struct DifferentialOptions {
  uint64_t seed = 42;
  int iterations = 100;           // Random valid messages per type.
  int max_depth = 3;              // Submessage nesting of generated messages.
  int max_repeated = 300;         // Elements of a repeated scalar field (some get 4x that).
  int mutations_per_message = 40; // Malformed variants derived from each valid message.
};

struct DifferentialReport {
  size_t valid_cases = 0;      // Valid encodings compared.
  size_t malformed_cases = 0;  // Mutated encodings compared.
  size_t rejected = 0;         // Of all cases, how many upstream rejected (pbaccel must too).
  std::vector<std::string> failures;  // Each: what differed, with the input in hex.
};

// `msg` serialized with map entries sorted by key: protobuf 3.21 randomizes each map's iteration
// order per instance, so the default serialization of equal messages may differ.
std::string DeterministicSerialization(const google::protobuf::Message& msg);

// Compares upstream and pbaccel on `bytes` for the type of `prototype`, under every supported
// kernel. Returns "" when they agree, else a description of the first difference.
std::string CompareWithUpstream(absl::string_view bytes, const google::protobuf::Message& prototype);

// Fills `msg` with random contents (see above). Deterministic for a given rng state.
void FillRandom(google::protobuf::Message* msg, std::mt19937_64& rng, const DifferentialOptions& options);

// Upstream's serialization of `msg`, with its repeated packable fields (top level) re-encoded as a
// random interleaving of packed and unpacked records, in value order. Upstream parses the result
// back to `msg` (plus any closed-enum values added out of range, which it keeps as unknown fields).
std::string EncodeInterleaved(const google::protobuf::Message& msg, std::mt19937_64& rng);

// Malformed (and some still valid) variants of a valid encoding: truncations, bit flips, varints
// stretched to 11 bytes or padded non-canonically, lengths past the end and near 2^31, wrong wire
// types, packed payloads ending mid-varint, inconsistent nested lengths, unterminated and mismatched
// groups, field numbers 0 and 2^29, nesting past the recursion limit.
std::vector<std::string> Mutate(absl::string_view valid, std::mt19937_64& rng, size_t count);

// Runs the whole check for the type of `prototype`.
DifferentialReport RunDifferential(const google::protobuf::Message& prototype,
                                   const DifferentialOptions& options);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_DIFFERENTIAL_H_
