// Copyright 2026 The pbaccel Authors.
//
// Checks the editions tests (editions_test.cc, editions_2024_test.cc) make of a generated parser,
// for any message type M with one: how many parses sent a field to upstream, a parse in place of
// older contents, and the differential test's random messages.

#ifndef PBACCEL_TESTS_EDITIONS_CHECKS_H_
#define PBACCEL_TESTS_EDITIONS_CHECKS_H_

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"

namespace pbaccel {

// The number of parses of `bytes` by M's generated parser in which some field went to upstream
// (Delegate marks such a parse, whose required fields are then checked by a walk:
// gen::FullRequiredFieldChecksForTesting). M must have a required field and `bytes` set it, so
// that a parse that delegates nothing checks none by a walk.
template <typename M>
uint64_t DelegatingParses(const std::string& bytes) {
  const uint64_t before = gen::FullRequiredFieldChecksForTesting();
  M parsed;
  (void)ParseMessage(bytes, &parsed);
  return gen::FullRequiredFieldChecksForTesting() - before;
}

// pbaccel's parse of `bytes` in place of a message that held `old` gives `expected`.
template <typename M>
void ExpectSameInPlaceOf(const std::string& old, const std::string& bytes, const M& expected) {
  M reused;
  ASSERT_TRUE(ParseMessage(old, &reused).ok());
  ASSERT_TRUE(ParseMessage(bytes, &reused).ok());
  EXPECT_EQ(testing::DeterministicSerialization(reused),
            testing::DeterministicSerialization(expected));
}

// The differential test (testing/differential.h) on `iterations` random M messages: the generated
// parser took them, some were valid, and none differed from upstream.
template <typename M>
void ExpectDifferentialPasses(int iterations) {
  testing::DifferentialOptions options;
  options.iterations = iterations;
  const testing::DifferentialReport report =
      testing::RunDifferential(M::default_instance(), options);
  EXPECT_TRUE(report.generated_parser);
  EXPECT_GT(report.valid_cases, 0u);
  for (const std::string& f : report.failures) ADD_FAILURE() << f;
}

}  // namespace pbaccel

#endif  // PBACCEL_TESTS_EDITIONS_CHECKS_H_
