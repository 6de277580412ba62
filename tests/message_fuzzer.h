// Copyright 2026 The pbaccel Authors.
//
// What tests/message_fuzzer.cc exports beside libFuzzer's entry points, for fuzz_corpus_main.cc.

#ifndef PBACCEL_TESTS_MESSAGE_FUZZER_H_
#define PBACCEL_TESTS_MESSAGE_FUZZER_H_

#include <cstdint>
#include <string>

// The full name of the type this build of the fuzzer parses an input as, given the input's first
// byte ("payload": a raw packed varint payload). Which types a byte can select depends on what the
// build compiled (editions 2023 and 2024: message_fuzzer.cc's file comment), so the seeds' types
// are checked against tests/fuzz_corpus_types.txt, not assumed.
std::string FuzzInputTypeName(uint8_t first);

#endif  // PBACCEL_TESTS_MESSAGE_FUZZER_H_
