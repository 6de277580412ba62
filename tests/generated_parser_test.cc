// Copyright 2026 The pbaccel Authors.
//
// The generated parsers (pbaccel_cc_parser): that they are what ParseMessage runs when linked, that
// they agree with upstream on valid and malformed input for proto2, proto3 and LITE_RUNTIME types
// under every kernel, and that their errors name the innermost field.

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/cross_target.pbaccel.h"
#include "proto/parser_test2.pbaccel.h"
#include "proto/parser_test2_lite.pbaccel.h"
#include "proto/parser_test3.pbaccel.h"
#include "proto/parser_test3_lite.pbaccel.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace {

using testing::DecodeStatus;
using ::testing::HasSubstr;
using testing::VarintFormat;

// Linking the rule's library registers the parsers: ParseMessage(bytes, Message*) finds them, for
// the generated classes only.
TEST(GeneratedParserTest, RegisteredForGeneratedClassesOnly) {
  EXPECT_TRUE(HasGeneratedParser(test3::All3()));
  EXPECT_TRUE(HasGeneratedParser(test3::Level3()));
  EXPECT_TRUE(HasGeneratedParser(test2::Everything()));
  EXPECT_TRUE(HasGeneratedParser(test2::Singulars2()));
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> dynamic(
      factory.GetPrototype(test3::All3::descriptor())->New());
  EXPECT_FALSE(HasGeneratedParser(*dynamic));
  // The dynamic message still parses, by reflection.
  EXPECT_TRUE(ParseMessage(std::string("\x08\x05", 2), dynamic.get()).ok());
}

// A malformed packed payload: both paths name the innermost message's field and its byte offset
// (the generated parser as it walks, the reflection path by locating what upstream rejected), the
// same through the Message* overload and the exact-type overload, for full and lite types alike.
TEST(GeneratedParserTest, ErrorsNameTheInnermostField) {
  // All3.level1 (30) { Level1.level2 (1) { Level2.deltas (2): packed, ends inside a varint } }:
  // the deltas field starts at byte 5 (a 2-byte tag, 1-byte length, 1-byte tag, 1-byte length).
  std::string deltas;
  testing::AppendTag(2, 2, &deltas);
  deltas += "\x03\x01\x02\x80";
  std::string level2;
  testing::AppendTag(1, 2, &level2);
  testing::AppendVarint(deltas.size(), &level2);
  level2 += deltas;
  std::string input;
  testing::AppendTag(30, 2, &input);
  testing::AppendVarint(level2.size(), &input);
  input += level2;

  test3::All3 typed;
  const absl::Status by_type = ParseMessage(input, &typed);
  EXPECT_THAT(std::string(by_type.message()), HasSubstr("pbaccel.test3.Level2.deltas (field 2)"));
  EXPECT_THAT(std::string(by_type.message()), HasSubstr("at byte offset 5"));

  google::protobuf::Message* as_message = &typed;
  const absl::Status by_message = ParseMessage(input, as_message);
  EXPECT_EQ(by_message, by_type);

  const absl::Status by_reflection = ParseMessageByReflection(input, &typed);
  EXPECT_FALSE(by_reflection.ok());
  EXPECT_THAT(std::string(by_reflection.message()),
              HasSubstr("pbaccel.test3.Level2.deltas (field 2) rejected by protobuf's parser at "
                        "byte offset 5"));

  test3lite::All3 lite;
  const absl::Status lite_status = ParseMessage(input, &lite);
  EXPECT_THAT(std::string(lite_status.message()), HasSubstr("field 2 of pbaccel.test3lite.Level2"));
  EXPECT_FALSE(lite.ParseFromString(input));
}

// pbaccel.cross.Outer's submessages are of types another target generates (parser_test3): its
// parser hands them to theirs (linked here), so an error inside one is named by the inner
// message's parser (the innermost field), where upstream, given the whole field, would name
// Outer's. And random messages agree with upstream, through both overloads.
TEST(GeneratedParserTest, SubmessagesOfAnotherTargetsTypesUseTheirGeneratedParser) {
  std::string deltas;  // Level2.deltas (2): packed, ends inside a varint.
  testing::AppendTag(2, 2, &deltas);
  deltas += "\x03\x01\x02\x80";
  std::string input;  // Outer.single (2) { deltas }.
  testing::AppendTag(2, 2, &input);
  testing::AppendVarint(deltas.size(), &input);
  input += deltas;
  cross::Outer outer;
  const absl::Status s = ParseMessage(input, &outer);
  EXPECT_THAT(std::string(s.message()), HasSubstr("pbaccel.test3.Level2.deltas (field 2)")) << s;
  EXPECT_FALSE(outer.ParseFromString(input));

  testing::DifferentialOptions options;
  options.iterations = 25;
  const testing::DifferentialReport report =
      testing::RunDifferential(cross::Outer::default_instance(), options);
  EXPECT_TRUE(report.generated_parser);
  EXPECT_GT(report.valid_cases, 0u);
  for (const std::string& f : report.failures) ADD_FAILURE() << f;
}

// `levels` Recursive messages, each the `child` (field 1) of the one before (the outermost nests
// levels - 1 deep), each with `values` packed values (field 2); `cut` drops the innermost's last
// byte, leaving its packed payload inside a varint.
std::string NestedRecursive(int levels, int values, bool cut) {
  std::string input;
  for (int level = 0; level < levels; ++level) {
    std::string packed;
    for (int v = 0; v < values; ++v) testing::AppendVarint(static_cast<uint64_t>(v) * 131, &packed);
    std::string outer;
    if (!packed.empty()) outer = testing::LengthDelimitedField(2, packed);
    if (level == 0 && cut && !outer.empty()) {
      outer = outer.substr(0, outer.size() - 1);
      outer[1] = static_cast<char>(outer[1] - 1);  // The length says so too: one byte less.
    }
    if (level > 0) {
      testing::AppendTag(1, 2, &outer);
      testing::AppendVarint(input.size(), &outer);
      outer += input;
    }
    input = outer;
  }
  return input;
}

// The recursion limit is upstream's on every path: 101 levels parse, 102 fail, through the exact-
// type overload, the Message* overload and the reflection walk, full and lite. Past
// kGeneratedNestingLevels the generated parser hands the rest to MergeDeep (counted: the proof
// that ParseMessage ran generated code), which nests no further on the stack.
TEST(GeneratedParserTest, RecursionLimitOnEveryPath) {
  for (const int levels : {101, 102}) {
    const std::string input = NestedRecursive(levels, 0, false);
    const bool upstream_ok = test2::Recursive().ParseFromString(input);
    ASSERT_EQ(upstream_ok, levels == 101);
    test2::Recursive typed;
    uint64_t deep = gen::DeepSubmessagesForTesting();
    EXPECT_EQ(ParseMessage(input, &typed).ok(), upstream_ok) << levels;
    EXPECT_EQ(gen::DeepSubmessagesForTesting() - deep, 1u) << levels;
    google::protobuf::Message* as_message = &typed;
    EXPECT_EQ(ParseMessage(input, as_message).ok(), upstream_ok) << levels;
    test2lite::Recursive lite;
    deep = gen::DeepSubmessagesForTesting();
    EXPECT_EQ(ParseMessage(input, &lite).ok(), upstream_ok) << levels;
    EXPECT_EQ(gen::DeepSubmessagesForTesting() - deep, 1u) << levels;
    deep = gen::DeepSubmessagesForTesting();
    EXPECT_EQ(ParseMessageByReflection(input, &typed).ok(), upstream_ok) << levels;
    EXPECT_EQ(gen::DeepSubmessagesForTesting(), deep) << levels;
  }
}

class GeneratedDeepTest : public testing::EveryKernelTest {};

// Inputs nested around kGeneratedNestingLevels, with packed fields at every level, valid and with
// the innermost payload cut: the generated parser (to that depth) and MergeDeep (past it) agree
// with upstream on every kernel, both paths, fresh and reused messages (CompareWithUpstream), and
// lite; MergeDeep runs exactly when the input nests past the limit, once.
TEST_P(GeneratedDeepTest, AgreesWithUpstreamPastTheGeneratedNesting) {
  for (const int levels :
       {gen::kGeneratedNestingLevels, gen::kGeneratedNestingLevels + 1,
        gen::kGeneratedNestingLevels + 2, gen::kGeneratedNestingLevels + 7, 60}) {
    for (const bool cut : {false, true}) {
      const std::string input = NestedRecursive(levels, 40, cut);
      SCOPED_TRACE(absl::StrCat(levels, " levels", cut ? ", innermost payload cut" : ""));
      EXPECT_EQ(testing::CompareWithUpstream(input, test2::Recursive::default_instance()), "");
      test2lite::Recursive upstream, ours;
      const bool upstream_ok = upstream.ParseFromString(input);
      EXPECT_EQ(upstream_ok, !cut);
      const uint64_t deep = gen::DeepSubmessagesForTesting();
      ASSERT_EQ(ParseMessage(input, &ours).ok(), upstream_ok);
      // levels messages nest levels - 1 times below the outermost.
      EXPECT_EQ(gen::DeepSubmessagesForTesting() - deep,
                levels - 1 > gen::kGeneratedNestingLevels ? 1u : 0u);
      if (upstream_ok) {
        EXPECT_EQ(testing::DeterministicSerialization(ours),
                  testing::DeterministicSerialization(upstream));
      }
    }
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(GeneratedDeepTest);

TEST(GeneratedParserTest, MissingRequiredFields) {
  test2lite::Everything lite;
  const absl::Status s = ParseMessage(std::string("\x12\x01x", 3), &lite);
  EXPECT_THAT(std::string(s.message()), HasSubstr("missing required fields"));
  EXPECT_TRUE(ParsePartialMessage(std::string("\x12\x01x", 3), &lite).ok());
  EXPECT_EQ(lite.str(), "x");
  EXPECT_TRUE(MergeMessage(std::string("\x08\x01", 2), &lite).ok());
  EXPECT_EQ(lite.str(), "x");
  EXPECT_EQ(lite.req(), 1);
  EXPECT_TRUE(MergePartialMessage(std::string("\x08\x02", 2), &lite).ok());
  EXPECT_EQ(lite.req(), 2);
}

// Required fields are checked as each message's input ends; the walk over the whole message
// (IsInitialized) runs only where those checks cannot decide: a message missing a required field
// (in any piece of it), a field handed to upstream, a merge into old contents. Every answer must
// be upstream's; the counter proves the walk was skipped where it was.
TEST(GeneratedParserTest, RequiredFieldsCheckedAsTheParseGoes) {
  const auto everything = [](const std::string& body) {  // Singulars2.everything (14) { body }.
    std::string field;
    testing::AppendTag(14, 2, &field);
    testing::AppendVarint(body.size(), &field);
    return field + body;
  };
  const std::string req = std::string("\x08\x01", 2);          // Everything.req = 1.
  const std::string str = std::string("\x12\x01x", 3);         // Everything.str = "x".
  const std::string unknown = std::string("\xf8\x06\x01", 3);  // Field 111, varint 1.
  struct Case {
    const char* what;
    std::string input;
    bool walk;  // Whether the whole-message check must run.
  };
  const Case cases[] = {
      {"required field present", everything(req + str), false},
      {"two submessages, each complete", everything(req) + everything(str + req), false},
      {"required field missing", everything(str), true},
      {"empty submessage", everything(""), true},
      {"required field only in the second piece", everything(str) + everything(req), true},
      {"an unknown field (upstream's)", everything(req) + unknown, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    test2::Singulars2 upstream;
    const bool upstream_ok = upstream.ParseFromString(c.input);
    test2::Singulars2 ours;
    const uint64_t walks = gen::FullRequiredFieldChecksForTesting();
    const absl::Status s = ParseMessage(c.input, &ours);
    EXPECT_EQ(gen::FullRequiredFieldChecksForTesting() - walks, c.walk ? 1u : 0u);
    ASSERT_EQ(s.ok(), upstream_ok) << s;
    if (!s.ok()) {
      EXPECT_THAT(std::string(s.message()), HasSubstr("missing required fields"));
      continue;
    }
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(ours, upstream));
    // A merge always walks: the old contents were never checked.
    const uint64_t before_merge = gen::FullRequiredFieldChecksForTesting();
    EXPECT_TRUE(MergeMessage(c.input, &ours).ok());
    EXPECT_EQ(gen::FullRequiredFieldChecksForTesting() - before_merge, 1u);
  }
}

// A reused message's singular submessage whose parser reuses elements (Everything.middles) is set
// aside through the Clear() (KeptSubmessage): parsed in place of its old contents when the input
// has it, and cleared, as Clear() leaves it, when the input has not. What the getter shows, not
// only what has_ and serialization show, must be upstream's.
TEST(GeneratedParserTest, ReusedSingularSubmessagesEndAsAfterClear) {
  test2::Singulars2 full;
  full.mutable_everything()->set_req(1);
  full.mutable_everything()->add_middles()->mutable_leaf()->set_x(5);
  full.mutable_everything()->add_middles()->add_leaves()->set_x(6);
  full.mutable_everything()->set_str("old");
  test2::Singulars2 other;
  other.mutable_everything()->set_req(2);
  other.mutable_everything()->add_middles()->add_leaves()->set_x(7);
  test2::Singulars2 without;
  without.set_i32(9);
  const std::string inputs[] = {full.SerializeAsString(), other.SerializeAsString(),
                                without.SerializeAsString(), full.SerializeAsString()};
  test2::Singulars2 ours;
  test2::Singulars2 upstream;
  for (const std::string& input : inputs) {
    ASSERT_TRUE(ParseMessage(input, &ours).ok());
    ASSERT_TRUE(upstream.ParseFromString(input));
    EXPECT_EQ(ours.has_everything(), upstream.has_everything());
    EXPECT_EQ(ours.everything().DebugString(), upstream.everything().DebugString());
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(ours, upstream));
  }
}

// Every full type's generated parser against upstream, under every kernel (RunDifferential compares
// both of pbaccel's paths and says whether the generated one was among them).
TEST(GeneratedParserTest, DifferentialAgainstUpstream) {
  const google::protobuf::Message* types[] = {
      &test2::Everything::default_instance(), &test2::Recursive::default_instance(),
      &test2::Singulars2::default_instance(), &test3::All3::default_instance(),
      &test3::Singulars3::default_instance(), &test3::Level1::default_instance()};
  for (const google::protobuf::Message* type : types) {
    testing::DifferentialOptions options;
    options.iterations = 25;
    const testing::DifferentialReport report = testing::RunDifferential(*type, options);
    EXPECT_TRUE(report.generated_parser) << type->GetTypeName();
    EXPECT_GT(report.valid_cases, 0u);
    for (const std::string& f : report.failures) ADD_FAILURE() << f;
  }
}

// proto3 `string` fields: upstream rejects invalid UTF-8 (bytes fields are not checked), and the
// generated parser checks ASCII inline, in overlapping words, before it hands anything else to
// upstream's validator. One multi-byte sequence, valid or not, at every position of strings of
// 1-40 bytes (every word and tail alignment) must be accepted or rejected as upstream does, in a
// singular, an optional and a repeated field (parsed in place of old strings), full and lite.
TEST(GeneratedParserTest, Proto3StringsAcceptExactlyTheUtf8UpstreamAccepts) {
  const std::vector<std::string> sequences = {
      "\xC3\xA9",     "\xE2\x82\xAC", "\xF0\x9F\x98\x80",  // Valid: 2, 3, 4 bytes.
      "\x80",         "\xFF",         "\xC0\x80",          // Stray, never valid, overlong.
      "\xED\xA0\x80", "\xC3",         "\x7F"};             // Surrogate, cut, ASCII DEL.
  size_t rejected = 0, cases = 0;
  test3::Singulars3 reused;
  test3lite::Singulars3 reused_lite;
  for (int n = 0; n <= 40; ++n) {
    for (const std::string& sequence : sequences) {
      for (int at = 0; at <= n; ++at) {
        std::string text(static_cast<size_t>(n), 'a');
        text.insert(static_cast<size_t>(at), sequence);
        std::string bytes;
        for (const int number : {15, 18, 19, 19, 16, 20}) {  // str, opt_str, strs x2, raw, raws.
          testing::AppendTag(number, 2, &bytes);
          testing::AppendVarint(text.size(), &bytes);
          bytes += text;
        }
        ++cases;
        test3::Singulars3 upstream, fresh;
        const bool upstream_ok = upstream.ParseFromString(bytes);
        rejected += !upstream_ok;
        const std::string where =
            absl::StrCat("n=", n, " at=", at, " sequence ", absl::BytesToHexString(sequence));
        ASSERT_EQ(ParseMessage(bytes, &fresh).ok(), upstream_ok) << where;
        ASSERT_EQ(ParseMessage(bytes, &reused).ok(), upstream_ok) << where;
        test3lite::Singulars3 upstream_lite;
        ASSERT_EQ(upstream_lite.ParseFromString(bytes), upstream_ok) << where;
        ASSERT_EQ(ParseMessage(bytes, &reused_lite).ok(), upstream_ok) << where;
        if (upstream_ok) {
          EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(fresh, upstream)) << where;
          EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(reused, upstream))
              << where;
          EXPECT_EQ(reused_lite.SerializeAsString(), upstream_lite.SerializeAsString()) << where;
        } else {
          reused.Clear();  // A failed parse leaves the message unspecified.
          reused_lite.Clear();
        }
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_LT(rejected, cases);
}

class GeneratedLiteTest : public testing::EveryKernelTest {};

// LITE_RUNTIME types (no reflection, so only generated parsers take them): random messages of the
// full twin type, encoded with packed and unpacked records interleaved, and their mutations, parsed
// as the lite type by upstream and by pbaccel's exact-type overloads.
template <typename Full, typename Lite>
void CompareLite(int iterations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  testing::RandomMessageOptions options;
  size_t cases = 0;
  for (int i = 0; i < iterations; ++i) {
    Full full;
    testing::FillRandom(&full, rng, options);
    const std::string valid = testing::EncodeInterleaved(full, rng);
    std::vector<std::string> inputs = testing::Mutate(valid, rng, 30);
    inputs.push_back(valid);
    for (const std::string& input : inputs) {
      ++cases;
      Lite upstream, ours;
      const bool upstream_ok = upstream.ParsePartialFromString(input);
      const absl::Status s = ParsePartialMessage(input, &ours);
      ASSERT_EQ(s.ok(), upstream_ok) << Full::descriptor()->full_name() << " (lite), input "
                                     << absl::BytesToHexString(input) << ": " << s;
      if (upstream_ok) {
        ASSERT_EQ(testing::DeterministicSerialization(ours),
                  testing::DeterministicSerialization(upstream))
            << "input " << absl::BytesToHexString(input);
      }
      Lite upstream_full, ours_full;
      ASSERT_EQ(ParseMessage(input, &ours_full).ok(), upstream_full.ParseFromString(input))
          << "input " << absl::BytesToHexString(input);
    }
  }
  EXPECT_GT(cases, static_cast<size_t>(iterations));
}

TEST_P(GeneratedLiteTest, Proto2) {
  CompareLite<test2::Everything, test2lite::Everything>(30, 2);
  CompareLite<test2::Singulars2, test2lite::Singulars2>(30, 3);
}

TEST_P(GeneratedLiteTest, Proto3) {
  CompareLite<test3::All3, test3lite::All3>(30, 4);
  CompareLite<test3::Singulars3, test3lite::Singulars3>(30, 5);
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(GeneratedLiteTest);

// The packed parsers generated code calls (gen::ParsePacked*), on their own, under every kernel:
// payloads up to kShortPackedBytes take the short path (tiny ones the kernel's decode_tiny if the
// input goes on for kTinyReadableBytes, others the kernel's bounded tiny decoder where it has one,
// then the kernel itself or the generated parsers' own loop, size_policy.h), longer ones the
// public API. Each payload ends against an
// inaccessible page, or is followed by kTinyReadableBytes of the input and then the page, and goes
// into an empty field (no storage at all) and into one that already
// holds two elements, with and without spare capacity; the result must be the reference decoder's
// (varint_test_util.h), and a rejected payload must leave the field as it was.
class GeneratedPackedTest : public testing::EveryKernelTest {};

template <typename T>
using PackedParser = bool (*)(const char*, const char*, google::protobuf::RepeatedField<T>*,
                              const gen::Context&);

// `payload` is followed by `readable` bytes of the input (then the guard page).
template <typename T>
void CheckPacked(VarintFormat format, PackedParser<T> parse, absl::string_view payload,
                 size_t readable) {
  const testing::Expected expected = testing::ExpectedDecode(format, payload, /*strict=*/false);
  const gen::Context ctx(payload.data(), payload.data() + payload.size() + readable,
                         /*budget=*/0);  // A packed field nests nothing.
  for (const int before : {0, 2}) {
    for (const bool spare : {false, true}) {
      google::protobuf::RepeatedField<T> field;
      for (int i = 0; i < before; ++i) field.Add(static_cast<T>(i));
      if (spare) field.Reserve(300);
      const bool ok = parse(payload.data(), payload.data() + payload.size(), &field, ctx);
      const std::string where = absl::StrCat(
          testing::FormatName(format), ", ", payload.size(), " bytes, ", before,
          " elements before, spare capacity ", spare, ", ", readable, " bytes readable after it");
      ASSERT_EQ(ok, expected.status == DecodeStatus::kOk) << where;
      if (!ok) {
        ASSERT_EQ(field.size(), before) << where;
        continue;
      }
      ASSERT_EQ(static_cast<size_t>(field.size()), before + expected.values.size()) << where;
      for (size_t i = 0; i < expected.values.size(); ++i) {
        ASSERT_EQ(testing::OutputBits(format, field.data() + before, i), expected.values[i])
            << where << ", value " << i;
      }
    }
  }
}

TEST_P(GeneratedPackedTest, MatchesTheReferenceAroundTheShortPathLimit) {
  testing::GuardedBuffer guard(4096);
  std::mt19937_64 rng(11);
  for (const workloads::PayloadWorkload& workload : workloads::PayloadWorkloads()) {
    for (size_t n = 0; n <= 48; ++n) {
      const std::string valid =
          testing::EncodePacked(workloads::GenerateWireValues(workload, n, rng));
      // The valid payload, one with an 11-byte varint after it, and the valid one without its
      // last byte (cut inside its last varint unless that had one byte).
      std::vector<std::string> payloads = {valid, valid + testing::OverlongVarint(11)};
      if (!valid.empty()) payloads.push_back(valid.substr(0, valid.size() - 1));
      for (const std::string& bytes : payloads) {
        // At the input's end (no tiny path), and followed by enough of the input for the tiny path
        // to read whole words: continuation bytes, which would corrupt a value read past its end.
        for (const size_t readable : {size_t{0}, size_t{internal::kTinyReadableBytes}}) {
          const absl::string_view input = guard.CopyFlushEnd(bytes + std::string(readable, '\xff'));
          const absl::string_view payload = input.substr(0, bytes.size());
          CheckPacked<int32_t>(VarintFormat::kInt32, &gen::ParsePackedInt32, payload, readable);
          CheckPacked<int64_t>(VarintFormat::kInt64, &gen::ParsePackedInt64, payload, readable);
          CheckPacked<uint32_t>(VarintFormat::kUInt32, &gen::ParsePackedUInt32, payload, readable);
          CheckPacked<uint64_t>(VarintFormat::kUInt64, &gen::ParsePackedUInt64, payload, readable);
          CheckPacked<int32_t>(VarintFormat::kSInt32, &gen::ParsePackedSInt32, payload, readable);
          CheckPacked<int64_t>(VarintFormat::kSInt64, &gen::ParsePackedSInt64, payload, readable);
          CheckPacked<bool>(VarintFormat::kBool, &gen::ParsePackedBool, payload, readable);
        }
      }
    }
  }
}

// The tiny path runs: a packed field of a few bytes with the input going on for kTinyReadableBytes
// after it is decoded by the active kernel's decode_tiny (here wrapped to count its calls), and
// one at the input's end is not (it would read past the input); both parse as upstream does.
// Into a fresh field (room reserved first) and a reused one alike.
TEST_P(GeneratedPackedTest, TinyPayloadsTakeTheKernelsTinyDecoder) {
  static internal::TinyDecodeFn decode_tiny;
  static int calls;
  internal::KernelDescriptor counting = internal::ActiveKernel();
  decode_tiny = counting.TinyDecoder(VarintFormat::kUInt32);
  counting.decode_tiny[static_cast<int>(VarintFormat::kUInt32)] =
      [](const uint8_t* p, const uint8_t* end, void* out, int room) {
        ++calls;
        return decode_tiny(p, end, out, room);
      };
  const internal::ScopedActiveKernelForTesting use(counting);

  test3::All3 tiny_then_more;
  for (const uint32_t v : {1u, 300u, 70000u, 5u}) tiny_then_more.add_uint32s(v);
  tiny_then_more.add_doubles(1.5);  // Field 23 after the uint32s (field 12): 2 + 1 + 3 * 8 bytes.
  tiny_then_more.add_doubles(-2.0);
  tiny_then_more.add_doubles(3.25);
  test3::All3 tiny_at_end;
  *tiny_at_end.mutable_uint32s() = tiny_then_more.uint32s();
  for (const test3::All3* expected : {&tiny_then_more, &tiny_at_end}) {
    const std::string bytes = expected->SerializeAsString();
    test3::All3 parsed;
    // Fresh, then in place of the first parse (cleared, the field keeps its room).
    for (const bool reused : {false, true}) {
      calls = 0;
      ASSERT_TRUE(ParseMessage(bytes, &parsed).ok());
      EXPECT_EQ(parsed.SerializeAsString(), bytes);
      if (expected == &tiny_then_more) {
        EXPECT_EQ(calls, 1) << "tiny field followed by 27 bytes, reused " << reused;
      } else {
        EXPECT_EQ(calls, 0) << "tiny field last, reused " << reused;
      }
      ASSERT_GE(parsed.uint32s().Capacity(), internal::kTinyPayloadBytes);
    }
  }
}

// Payloads of kTinyPayloadBytes + 1 to kBoundedTinyPayloadBytes go to the active kernel's window
// decoder where it has one and the input goes on for kWindowReadableBytes from the payload's start
// (eight doubles after it), else to its bounded tiny decoder (ScopedCountingWindowDecoder and
// ScopedCountingBoundedTinyDecoder count the calls; where the kernel has neither, the kernel or
// the SSE2 loop decodes), at the input's end too (it reads only the payload); a longer payload
// goes to neither. All parse as upstream.
TEST_P(GeneratedPackedTest, PayloadsUpTo64BytesTakeTheWindowOrTheBoundedTinyDecoder) {
  testing::ScopedCountingBoundedTinyDecoder bounded(VarintFormat::kUInt32);
  testing::ScopedCountingWindowDecoder window(VarintFormat::kUInt32);
  const bool has_window = internal::ActiveKernel().WindowDecoder(VarintFormat::kUInt32) != nullptr;

  static_assert(internal::BoundedTinyPayloadBytes(VarintFormat::kUInt32) == 64 &&
                    internal::kWindowPayloadBytes == 64,
                "the sizes below straddle it");
  for (const int values : {12, 20, 40}) {        // 24, 40 and 80 bytes of two-byte varints.
    for (const int doubles_after : {0, 1, 8}) {  // Field 23 after the uint32s (field 12).
      test3::All3 expected;
      for (int i = 0; i < values; ++i) expected.add_uint32s(300u + static_cast<uint32_t>(i));
      for (int i = 0; i < doubles_after; ++i) expected.add_doubles(1.5 * i);
      const std::string bytes = expected.SerializeAsString();
      bounded.ResetCalls();
      window.ResetCalls();
      test3::All3 parsed;
      ASSERT_TRUE(ParseMessage(bytes, &parsed).ok());
      EXPECT_EQ(parsed.SerializeAsString(), bytes);
      const bool short_enough = 2 * values <= 64;
      const bool takes_window = has_window && short_enough && doubles_after == 8;
      SCOPED_TRACE(absl::StrCat(2 * values, "-byte field, ", doubles_after, " doubles after it"));
      EXPECT_EQ(window.calls(), takes_window ? 1 : 0);
      EXPECT_EQ(bounded.calls(), short_enough && !takes_window ? 1 : 0);
    }
  }
}

// Payloads past the bounded tiny decoder (64 bytes for 32-bit formats) and within the short path
// (gen::kShortPackedBytes, 128) go to the active kernel's block decoder where its descriptor says
// so (short_payloads_direct; here wrapped to count its calls), and to the generated parsers' SSE2
// loop where it does not. Both parse as upstream.
TEST_P(GeneratedPackedTest, ShortPayloadsPastTheBoundedTinyDecoderGoWhereTheKernelSays) {
  static internal::DecodeFn decode;
  static int calls;
  internal::KernelDescriptor counting = internal::ActiveKernel();
  decode = counting.Decoder(VarintFormat::kUInt32, /*strict=*/false);
  counting.decode[static_cast<int>(VarintFormat::kUInt32)][0] =
      [](const uint8_t* p, const uint8_t* end, void* out, size_t cap, uint64_t delta_base) {
        ++calls;
        return decode(p, end, out, cap, delta_base);
      };
  const internal::ScopedActiveKernelForTesting use(counting);

  for (const int values : {33, 60}) {  // 66 and 120 bytes of two-byte varints.
    test3::All3 expected;
    for (int i = 0; i < values; ++i) expected.add_uint32s(300u + static_cast<uint32_t>(i));
    expected.add_doubles(1.5);  // Field 23 after the uint32s (field 12).
    const std::string bytes = expected.SerializeAsString();
    calls = 0;
    test3::All3 parsed;
    ASSERT_TRUE(ParseMessage(bytes, &parsed).ok());
    EXPECT_EQ(parsed.SerializeAsString(), bytes);
    EXPECT_EQ(calls, counting.short_payloads_direct ? 1 : 0)
        << 2 * values << "-byte field, short_payloads_direct " << counting.short_payloads_direct;
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(GeneratedPackedTest);

// Fixed-width packed fields (one bulk copy, no kernel): every length 0-40 bytes against a guard
// page, into an empty field (no storage: an empty payload must not copy to a null pointer, which
// UBSan reports; the fuzzer found it) and into one holding an element; a length that is not a
// multiple of the width is rejected and leaves the field as it was.
template <typename T>
void CheckPackedFixed(testing::GuardedBuffer& guard) {
  for (size_t bytes = 0; bytes <= 40; ++bytes) {
    std::string data(bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>(i * 37 + 1);
    const absl::string_view payload = guard.CopyFlushEnd(data);
    for (const int before : {0, 1}) {
      google::protobuf::RepeatedField<T> field;
      if (before) field.Add(T{});
      const bool ok = gen::ParsePackedFixed<T>(payload.data(), payload.data() + bytes, &field);
      const std::string where =
          absl::StrCat(sizeof(T), "-byte values, ", bytes, " bytes, ", before, " elements before");
      ASSERT_EQ(ok, bytes % sizeof(T) == 0) << where;
      ASSERT_EQ(static_cast<size_t>(field.size()), before + (ok ? bytes / sizeof(T) : 0)) << where;
      if (ok && bytes) {
        ASSERT_EQ(std::memcmp(field.data() + before, data.data(), bytes), 0) << where;
      }
    }
  }
}

TEST(GeneratedPackedFixedTest, CopiesWholeValuesAndRejectsPartialOnes) {
  testing::GuardedBuffer guard(4096);
  CheckPackedFixed<uint32_t>(guard);
  CheckPackedFixed<int64_t>(guard);
  CheckPackedFixed<float>(guard);
  CheckPackedFixed<double>(guard);
}

}  // namespace
}  // namespace pbaccel
