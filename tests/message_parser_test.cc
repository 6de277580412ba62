// Copyright 2026 The pbaccel Authors.
//
// pbaccel::ParseMessage against upstream's ParseFromString, for every kernel (CompareWithUpstream
// runs each case under every supported kernel): random messages of every test type in proto/
// (proto2 and proto3: every packed and unpacked repeated scalar type, nesting three deep, oneofs,
// maps, closed and open enums, extensions, groups, unknown fields) with contents from every
// workload, their malformed mutations, and targeted cases.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/cord.h"
#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/message_plan.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/message_workloads.pb.h"
#include "proto/packed_fields.pb.h"
#include "proto/packed_fields.pbaccel.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test3.pb.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

void ExpectAgrees(const google::protobuf::Message& prototype, int iterations, uint64_t seed) {
  DifferentialOptions options;
  options.iterations = iterations;
  options.seed = seed;
  const DifferentialReport report = RunDifferential(prototype, options);
  EXPECT_GT(report.valid_cases, 0u);
  EXPECT_GT(report.rejected, 0u) << "the mutations should produce rejected inputs";
  for (const std::string& f : report.failures) ADD_FAILURE() << f;
}

TEST(MessageParserTest, Proto2EverythingAgreesWithUpstream) {
  ExpectAgrees(test2::Everything(), 60, 1);
}
TEST(MessageParserTest, Proto2RecursiveAgreesWithUpstream) {
  ExpectAgrees(test2::Recursive(), 30, 2);
}
TEST(MessageParserTest, Proto3AllAgreesWithUpstream) { ExpectAgrees(test3::All3(), 60, 3); }
TEST(MessageParserTest, WorkloadMessagesAgreeWithUpstream) {
  ExpectAgrees(bench::Batch(), 20, 4);
  ExpectAgrees(bench::NoPacked(), 20, 5);
  ExpectAgrees(bench::TinyPacked(), 20, 6);
}

// An empty packed payload of every scalar type, alone (the field has no storage yet) and after a
// non-empty one, through the generated and the reflection paths (CompareWithUpstream runs both
// under every kernel). The fuzzer found an empty fixed-width payload copied to a null pointer.
TEST(MessageParserTest, EmptyPackedPayloadsOfEveryTypeAgreeWithUpstream) {
  for (int field = 1; field <= 14; ++field) {
    const std::string tag(1, static_cast<char>(field << 3 | 2));
    const std::string empty = tag + std::string(1, '\0');
    const std::string eight_bytes = tag + std::string(1, '\x08') + std::string(8, '\x01');
    for (const std::string& bytes : {empty, empty + empty, eight_bytes + empty}) {
      const std::string failure = CompareWithUpstream(bytes, test::PackedFields());
      EXPECT_EQ(failure, "") << "field " << field;
    }
  }
}

TEST(MessageParserTest, ClosedEnumOutOfRangeGoesToUnknownFieldsLikeUpstream) {
  // Closed-enum records between packed fields the kernels take (the message is large enough to be
  // walked), so the hand-over to upstream must keep their unknown values in wire order.
  std::string enums;
  for (int v : {0, 1, 5, 2, 1000, 5, 1, 0, 7, 1}) testing::AppendVarint(v, &enums);
  const std::string ints(200, '\x05');  // p_int32: 200 values, taken by a kernel.
  std::string bytes;
  for (int i = 0; i < 3; ++i) {
    bytes += testing::LengthDelimitedField(10, ints) + testing::LengthDelimitedField(17, enums);
  }
  ASSERT_GE(bytes.size(), kSmallMessageBytes);
  EXPECT_EQ(CompareWithUpstream(bytes, test2::Everything()), "");
  test2::Everything ours;
  ASSERT_TRUE(ParsePartialMessage(bytes, &ours).ok());
  EXPECT_EQ(ours.p_int32_size(), 600);
  EXPECT_EQ(ours.unknown_fields().field_count(), 9);  // 2, 1000 and 7, three times.
}

TEST(MessageParserTest, RequiredFieldsAreChecked) {
  test2::Everything msg;
  const absl::Status s = ParseMessage("", &msg);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("req"));
  EXPECT_TRUE(ParsePartialMessage("", &msg).ok());
}

TEST(MessageParserTest, MergeAppendsAndOverwrites) {
  bench::Batch a, b;
  a.set_name("a");
  for (int i = 0; i < 100; ++i) a.add_scores(i);
  b.set_name("b");
  for (int i = 0; i < 100; ++i) b.add_scores(-i);
  bench::Batch upstream = a;
  ASSERT_TRUE(upstream.MergeFromString(b.SerializeAsString()));
  bench::Batch ours = a;
  ASSERT_TRUE(MergeMessage(b.SerializeAsString(), &ours).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(upstream, ours));
  EXPECT_EQ(ours.scores_size(), 200);
  EXPECT_EQ(ours.name(), "b");
}

bench::Batch MakeBatch() {
  bench::Batch batch;
  batch.set_name("batch");
  for (int p = 0; p < 8; ++p) {
    bench::Posting* posting = batch.add_postings();
    posting->set_term_id(p);
    for (uint64_t v :
         workloads::GenerateWireValues(*workloads::FindPayloadWorkload("W2"), 512, p)) {
      posting->add_doc_deltas(static_cast<uint32_t>(v));
    }
  }
  for (int i = 0; i < 4096; ++i) batch.add_scores(i * 37 - 100000);
  return batch;
}

TEST(MessageParserTest, ArenaDynamicCordAndStream) {
  const bench::Batch batch = MakeBatch();
  const std::string bytes = batch.SerializeAsString();
  // Arena.
  google::protobuf::Arena arena;
  auto* on_arena = pbaccel::internal::compat::CreateOnArena<bench::Batch>(&arena);
  ASSERT_TRUE(ParseMessage(bytes, on_arena).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(batch, *on_arena));
  // DynamicMessage of the same type.
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> dynamic(
      factory.GetPrototype(bench::Batch::descriptor())->New());
  ASSERT_TRUE(ParseMessage(bytes, dynamic.get()).ok());
  EXPECT_EQ(dynamic->SerializeAsString(), bytes);
  // A Cord in many pieces, and a stream in small chunks.
  absl::Cord cord;
  for (size_t i = 0; i < bytes.size(); i += 100) cord.Append(bytes.substr(i, 100));
  bench::Batch from_cord;
  ASSERT_TRUE(ParseMessage(cord, &from_cord).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(batch, from_cord));
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()), 37);
  bench::Batch from_stream;
  ASSERT_TRUE(ParseMessage(&stream, &from_stream).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(batch, from_stream));
}

TEST(MessageParserTest, ConcurrentParsesOfDifferentMessages) {
  const std::string bytes = MakeBatch().SerializeAsString();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        bench::Batch msg;
        if (!ParseMessage(bytes, &msg).ok() || msg.SerializeAsString() != bytes) failures[t]++;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

// A thread parsing a few types in turn (a server thread serving a few methods) asks the process's
// tables under their locks once per type: the registry of generated parsers (ParseMessage) and the
// reflection walk's plans (ParseMessageByReflection). Its recent answers hold four types; with a
// fifth in turn, every parse asks.
TEST(MessageParserTest, TypesParsedInTurnAskTheSharedTablesOncePerType) {
  // Long enough for the walk to look its plan up (kSmallMessageBytes); unknown to every type.
  const std::string bytes =
      testing::LengthDelimitedField(100000, std::string(kSmallMessageBytes, 'x'));
  std::thread([&] {  // A thread of its own: no recent answers yet, counters at 0.
    bench::Batch batch;
    bench::Posting posting;
    bench::NoPacked nopacked;
    bench::TinyPacked tiny;
    test::PackedFields packed;
    std::vector<google::protobuf::Message*> types = {&batch, &posting, &nopacked, &tiny};
    const auto parse_in_turn = [&] {
      for (int round = 0; round < 10; ++round) {
        for (google::protobuf::Message* msg : types) {
          ASSERT_TRUE(ParseMessage(bytes, msg).ok());
          ASSERT_TRUE(ParseMessageByReflection(bytes, msg).ok());
        }
      }
    };
    parse_in_turn();
    EXPECT_EQ(gen::SharedRegistryLookupsForTesting(), 4u);
    EXPECT_EQ(internal::SharedPlanLookupsForTesting(), 4u);
    types.push_back(&packed);
    parse_in_turn();
    EXPECT_GE(gen::SharedRegistryLookupsForTesting(), 4u + 1 + 9 * 5);
    EXPECT_GE(internal::SharedPlanLookupsForTesting(), 4u + 1 + 9 * 5);
  })
      .join();
}

TEST(MessageParserTest, ErrorsNameFieldAndOffset) {
  // Only the kernel path names the packed field in its error, so these also prove the field was
  // decoded by a kernel, at the top level and inside a submessage.
  std::string payload(kSmallMessageBytes + 100, '\x01');                // Big enough to be walked.
  payload += "\x80\x80";                                                // Ends mid-varint.
  const std::string bytes = testing::LengthDelimitedField(4, payload);  // Batch.scores
  bench::Batch msg;
  absl::Status s = ParseMessage(bytes, &msg);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("pbaccel.bench.Batch.scores"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("byte offset"));
  EXPECT_FALSE(bench::Batch().ParseFromString(bytes));

  const std::string nested =
      testing::LengthDelimitedField(3, testing::LengthDelimitedField(2, payload));
  s = ParseMessage(nested, &msg);  // Batch.postings[0].doc_deltas
  EXPECT_THAT(std::string(s.message()), HasSubstr("pbaccel.bench.Posting.doc_deltas"));
  EXPECT_FALSE(bench::Batch().ParseFromString(nested));
}

// Fields upstream rejects name the innermost field and its byte offset on the reflection path
// too: a varint cut short in Leaf.x, inside Middle.leaf, inside Everything.middle.
TEST(MessageParserTest, UpstreamRejectionsNameTheInnermostField) {
  const std::string leaf = std::string("\x08\x80", 2);  // x = a varint that never ends.
  const std::string middle = "\x0a" + std::string(1, static_cast<char>(leaf.size())) + leaf;
  const std::string bytes = std::string("\x08\x01\xc2\x02", 4) +
                            std::string(1, static_cast<char>(middle.size())) + middle;
  ASSERT_FALSE(test2::Everything().ParseFromString(bytes));
  test2::Everything msg;
  const absl::Status s = ParseMessageByReflection(bytes, &msg);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("malformed varint in pbaccel.test2.Leaf.x (field 1) at byte offset 7"));
}

// The reflection walk of a message whose first length-delimited fields are all too small to take
// stops after kSmallFieldsBeforeHandOver of them and hands the rest to upstream unread, a large
// packed field after them included; a message in which it took a field first, or with fewer small
// ones, is walked to its end. Either way the message is upstream's.
TEST(MessageParserTest, RunsOfSmallFieldsGoToUpstreamUnread) {
  const auto postings = [](int n) {
    bench::Batch b;
    for (int i = 0; i < n; ++i) {
      bench::Posting* p = b.add_postings();
      p->set_term_id(static_cast<uint64_t>(i));
      for (uint32_t d : {1u, 2u, 3u}) p->add_doc_deltas(d);
    }
    return b.SerializeAsString();
  };
  bench::Batch scores;  // 200 values of 2-3 bytes: a packed field the walk takes.
  for (int i = 0; i < 200; ++i) scores.add_scores(i * 1000 - 100000);
  const int k = internal::kSmallFieldsBeforeHandOver;
  const struct {
    std::string bytes;
    uint64_t hand_overs;
  } cases[] = {
      {postings(k + 50) + scores.SerializeAsString(), 1},
      {scores.SerializeAsString() + postings(k + 50), 0},
      {postings(k - 1) + scores.SerializeAsString(), 0},
      {postings(k), 1},
  };
  for (const auto& c : cases) {
    const uint64_t before = internal::SmallFieldHandOversForTesting();
    bench::Batch ours;
    ASSERT_TRUE(ParseMessageByReflection(c.bytes, &ours).ok());
    EXPECT_EQ(internal::SmallFieldHandOversForTesting() - before, c.hand_overs);
    // The message, under every kernel and on both paths:
    EXPECT_EQ(CompareWithUpstream(c.bytes, bench::Batch::default_instance()), "");
  }
}

}  // namespace
}  // namespace testing
}  // namespace pbaccel
