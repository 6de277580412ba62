// Copyright 2026 The pbaccel Authors.
//
// parser_counters.h: counters for tests, which prove with them that a path of the generated
// parsers ran (results are equal either way). Each counts on the calling thread; tests read and
// reset them. Not part of the API: generated code includes this header only when compiled with
// PBACCEL_GEN_COUNT_FAST_PATHS (a test's build of it), and the runtime counts the rest always.

#ifndef PBACCEL_INTERNAL_PARSER_COUNTERS_H_
#define PBACCEL_INTERNAL_PARSER_COUNTERS_H_

#include <cstdint>

namespace pbaccel {
namespace gen {

// Counted by generated parsers compiled with PBACCEL_GEN_COUNT_FAST_PATHS (generated_parser.h):
// PredictedTagsForTesting: successor predictions that hit (NextTagIs true), whose jumps skip the
// switch. SlowVarintsForTesting: varints ReadVarint handed to ReadVarintSlow (longer than four
// bytes, longer than two within four bytes of the message's end, or cut by it); shorter ones must
// be read inline. PlainClearsForTesting: messages parsed in place of their old contents whose
// reusable fields were all short enough to reset with a plain Clear() (gen::ClearKeeping).
// ReusedElementsForTesting: old elements of repeated message and string fields that a parse in
// place of old contents reused (gen::ReusedElements::Next) instead of adding new ones.
// StringsOverwrittenForTesting: string values that gen::AssignString wrote over an old value of the
// same length, in place (an empty value given to a new, empty element counts too).
uint64_t& PredictedTagsForTesting();
uint64_t& SlowVarintsForTesting();
uint64_t& PlainClearsForTesting();
uint64_t& ReusedElementsForTesting();
uint64_t& StringsOverwrittenForTesting();

// The number of parses and merges on this thread whose required fields Run() checked by walking
// the whole message (IsInitialized()), not by the checks generated parsers make as they go
// (Context::MarkMaybeUninitialized): for tests, which must see that walk skipped.
uint64_t& FullRequiredFieldChecksForTesting();

// The number of submessages on this thread that generated parsers handed to MergeDeep (nested
// deeper than kGeneratedNestingLevels): for tests.
uint64_t& DeepSubmessagesForTesting();

// The number of fields on this thread that generated parsers handed to upstream's parser
// (Delegate): for tests, which prove with it that a field was parsed by generated code.
uint64_t& DelegatedFieldsForTesting();
// The number of times this thread asked the process's registry of generated parsers (under its
// lock) which parser a message's class has: the thread's recent answers (recent_lookups.h) did not
// hold the class.
uint64_t& SharedRegistryLookupsForTesting();

}  // namespace gen
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_PARSER_COUNTERS_H_
