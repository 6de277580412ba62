// Copyright 2026 The pbaccel Authors.
//
// differential.h: proves, for a message type, that pbaccel parses exactly as upstream protobuf.
//
// For users' test suites (see //tools:defs.bzl, pbaccel_differential_test) and pbaccel's own. For a
// message type it generates random messages (random_message.h), re-encodes their repeated packable
// fields as an interleaving of packed and unpacked records (plus, for closed enums, out-of-range
// values), derives malformed inputs from each valid one (mutation.h), and for every input
// compares upstream's ParseFromString / ParsePartialFromString with pbaccel's ParseMessage /
// ParsePartialMessage under every kernel this CPU supports, through both of pbaccel's paths (the
// type's generated parser when its pbaccel_cc_parser library is linked, and the reflection walk):
// the same accept/reject decision and, when accepted, MessageDifferencer::Equals and byte-identical
// re-serialization.
//
// Upstream logs some of the malformed inputs' outcomes (invalid UTF-8, missing required fields) by
// the hundred; the comparisons drop those lines and the runs count them (DifferentialReport). On
// protobuf 22 and later that holds once absl::InitializeLog() has run (before it, Abseil writes
// every line to stderr as well): call it in your test's main, as pbaccel_differential_test's does.

#ifndef PBACCEL_TESTING_DIFFERENTIAL_H_
#define PBACCEL_TESTING_DIFFERENTIAL_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "google/protobuf/message_lite.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/testing/mutation.h"        // IWYU pragma: export
#include "pbaccel/testing/random_message.h"  // IWYU pragma: export

namespace pbaccel {
namespace testing {

// The random messages' shape (max_depth, max_repeated: random_message.h), and how many of them.
struct DifferentialOptions : RandomMessageOptions {
  uint64_t seed = 42;
  int iterations = 100;            // Random valid messages per type (see IterationsToRun).
  int mutations_per_message = 40;  // Malformed variants derived from each valid message.
};

struct DifferentialReport {
  int random_messages = 0;        // Random valid messages made (IterationsToRun(iterations)).
  size_t valid_cases = 0;         // Valid encodings compared.
  size_t malformed_cases = 0;     // Mutated encodings compared.
  size_t rejected = 0;            // Of all cases, how many upstream rejected (pbaccel must too).
  bool generated_parser = false;  // The type's generated parser is linked and was compared too.
  std::vector<std::string> kernels_run;      // Every case ran under each of these kernels.
  std::vector<std::string> kernels_skipped;  // Registered kernels this CPU cannot run, each with
                                             // the features it lacks: "avx512 (avx512vbmi2)".
  std::vector<std::string> failures;         // Each: what differed, with the input in hex.
  // Lines upstream logged while the run asked it which inputs it rejects (a malformed proto3
  // string logs "invalid UTF-8 data": hundreds per run), counted here instead of printed (a fatal
  // one is printed too); the first of them as "file:line: message", or "".
  int upstream_log_lines = 0;
  std::string first_upstream_log_line;
};

// `msg` serialized with map entries sorted by key: protobuf 3.21 randomizes each map's iteration
// order per instance, so the default serialization of equal messages may differ.
std::string DeterministicSerialization(const google::protobuf::MessageLite& msg);

// Compares upstream and pbaccel on `bytes` for the type of `prototype`, under every supported
// kernel. Returns "" when they agree, else a description of the first difference.
std::string CompareWithUpstream(absl::string_view bytes,
                                const google::protobuf::Message& prototype);

// Compares upstream and pbaccel on `bytes` for a LITE_RUNTIME type (which has no reflection: the
// messages are compared by their deterministic re-serialization) parsed by `merge`, its generated
// parser (gen::FindLiteParser, or &gen::MergeThunk<T>), under every supported kernel: partial and
// full parses into a fresh message, and in place of a message holding `bytes`' own parse (reused
// elements). Returns "" when they agree, else the first difference.
std::string CompareLiteWithUpstream(absl::string_view bytes,
                                    const google::protobuf::MessageLite& prototype,
                                    gen::MergeFn merge);

// Runs the whole check for the type of `prototype`.
DifferentialReport RunDifferential(const google::protobuf::Message& prototype,
                                   const DifferentialOptions& options);

// The same for a LITE_RUNTIME type (`prototype`, parsed by `merge`), whose inputs are built from
// `twin`: a full-runtime message of the same schema (a DynamicMessage of the .proto's descriptor,
// as pbaccel_differential_test builds from its descriptor set).
DifferentialReport RunLiteDifferential(const google::protobuf::Message& twin,
                                       const google::protobuf::MessageLite& prototype,
                                       gen::MergeFn merge, const DifferentialOptions& options);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_DIFFERENTIAL_H_
