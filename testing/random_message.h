// Copyright 2026 The pbaccel Authors.
//
// random_message.h: random contents for any message type, and encodings of them that upstream
// protobuf parses back to the same message, for differential tests and benchmarks.
//
// Contents: every field kind; repeated scalar fields with lengths and values drawn from the
// workloads (workloads.h); nested messages to a bounded depth; map entries; a member of each oneof;
// extensions known to the type's pool; unknown fields at numbers the type does not use.

#ifndef PBACCEL_TESTING_RANDOM_MESSAGE_H_
#define PBACCEL_TESTING_RANDOM_MESSAGE_H_

#include <random>
#include <string>

#include "google/protobuf/message.h"

namespace pbaccel {
namespace testing {

struct RandomMessageOptions {
  int max_depth = 3;       // Submessage nesting of generated messages.
  int max_repeated = 300;  // Elements of a repeated scalar field (some get 4x that).
};

// How many of `iterations` random messages a check makes (or of the inputs it derives in bulk,
// such as differential.h's truncations): all of them, unless the environment variable
// PBACCEL_TEST_ITERATIONS_PERCENT (1-100) asks for that share of them (at least one), for
// environments that run the same check slower: an emulator, a sanitizer (pbaccel's CI runs its
// qemu-aarch64 and sanitizer suites at a fraction; the plain suites run every iteration). Any
// other value of the variable is ignored.
int IterationsToRun(int iterations);

// Fills `msg` with random contents (see above). Deterministic for a given rng state.
void FillRandom(google::protobuf::Message* msg, std::mt19937_64& rng,
                const RandomMessageOptions& options);

// Upstream's serialization of `msg`, with its repeated packable fields (top level) re-encoded as a
// random interleaving of packed and unpacked records, in value order. Upstream parses the result
// back to `msg` (plus any closed-enum values added out of range, which it keeps as unknown fields).
std::string EncodeInterleaved(const google::protobuf::Message& msg, std::mt19937_64& rng);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_RANDOM_MESSAGE_H_
