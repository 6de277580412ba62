// Copyright 2026 The pbaccel Authors.
//
// What a hostile or unusual user does to a parser, against upstream protobuf:
//   * DescriptorPools destroyed and rebuilt with changed field types (new descriptors at the old
//     addresses): every parse must still equal upstream's;
//   * deep nesting: pbaccel's stack use must not exceed upstream's, and an input upstream rejects
//     on a small-stack thread is rejected there too;
//   * streams and fragmented Cords: the same message and decision as upstream, with a bounded
//     buffer (a long stream whose message is tiny must not be held whole), on streams that fail
//     part way too.
// Inputs over 2 GiB are in two_gib_test.cc (manual: they take minutes and gigabytes).

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/stream_parser.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/random_message.h"
#include "pbaccel/testing/wire_builder.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test2.pbaccel.h"
#include "tests/record_stream.h"
#include "tests/stack_probe.h"

namespace pbaccel {
namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::DynamicMessageFactory;
using google::protobuf::FieldDescriptorProto;
using google::protobuf::FileDescriptorProto;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

std::string Varint(uint64_t v) {
  std::string out;
  testing::AppendVarint(v, &out);
  return out;
}

// --- Stale plans ---------------------------------------------------------------------------------

// proto3 `rebuilt.M { repeated <type> values = 1; string name = 2; }`.
FileDescriptorProto SchemaWith(FieldDescriptorProto::Type type) {
  FileDescriptorProto file;
  file.set_name("rebuilt.proto");
  file.set_package("rebuilt");
  file.set_syntax("proto3");
  auto* m = file.add_message_type();
  m->set_name("M");
  auto* values = m->add_field();
  values->set_name("values");
  values->set_number(1);
  values->set_label(FieldDescriptorProto::LABEL_REPEATED);
  values->set_type(type);
  auto* name = m->add_field();
  name->set_name("name");
  name->set_number(2);
  name->set_label(FieldDescriptorProto::LABEL_OPTIONAL);
  name->set_type(FieldDescriptorProto::TYPE_STRING);
  return file;
}

// Every kernel: the 600-byte packed payload is decoded by the kernel in force.
class StalePlansTest : public testing::EveryKernelTest {};

TEST_P(StalePlansTest, RebuiltPoolsWithChangedFieldTypesAgreeWithUpstream) {
  // The probe of the report: field 1 with a 600-byte payload (values 1, 2, 3, ...), then "hello".
  std::string payload;
  for (int i = 0; i < 600; ++i) payload.push_back(static_cast<char>(1 + i % 127));
  const std::string input = "\x0a" + Varint(payload.size()) + payload + "\x12\x05hello";
  const FieldDescriptorProto::Type types[] = {
      FieldDescriptorProto::TYPE_INT64,  FieldDescriptorProto::TYPE_SINT64,
      FieldDescriptorProto::TYPE_UINT32, FieldDescriptorProto::TYPE_STRING,
      FieldDescriptorProto::TYPE_BOOL,   FieldDescriptorProto::TYPE_SINT32};
  for (int round = 0; round < 200; ++round) {
    auto pool = std::make_unique<DescriptorPool>();
    ASSERT_NE(pool->BuildFile(SchemaWith(types[round % 6])), nullptr);
    auto factory = std::make_unique<DynamicMessageFactory>(pool.get());
    const Message* prototype = factory->GetPrototype(pool->FindMessageTypeByName("rebuilt.M"));
    std::unique_ptr<Message> ours(prototype->New());
    std::unique_ptr<Message> theirs(prototype->New());
    const bool upstream_ok = theirs->ParseFromString(input);
    const absl::Status s = ParseMessage(input, ours.get());
    ASSERT_EQ(s.ok(), upstream_ok) << "round " << round << ": " << s;
    ASSERT_TRUE(MessageDifferencer::Equals(*ours, *theirs))
        << "round " << round << ", field type " << types[round % 6] << ":\n"
        << ours->DebugString() << "\nupstream:\n"
        << theirs->DebugString();
    ours.reset();
    theirs.reset();
    factory.reset();
    pool.reset();
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(StalePlansTest);

// --- Stack ---------------------------------------------------------------------------------------

// `levels` nested Recursive messages, each with a 70-byte packed field (so that the reflection
// walk takes every level itself rather than handing it to upstream).
std::string Nested(int levels) {
  std::string inner;
  for (int i = 0; i < levels; ++i) {
    test2::Recursive r;
    for (int k = 0; k < 70; ++k) r.add_values(static_cast<uint32_t>(k));
    std::string level = r.SerializeAsString();
    if (i > 0) level += "\x0a" + Varint(inner.size()) + inner;
    inner = std::move(level);
  }
  return inner;
}

TEST(StackTest, NestingCostsNoMoreStackThanUpstream) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer moves and pads stack frames";
#endif
  (void)test2::Recursive::descriptor();  // Built once, as in a program that has used the type.
  // `levels` messages nest levels - 1 times: upstream's limit (100) accepts 101 and rejects more.
  for (const int levels : {100, 101, 102, 5000}) {
    const std::string input = Nested(levels);
    bool upstream_ok = false, generated_ok = false, reflection_ok = false;
    const size_t upstream = StackUsed([&] {
      test2::Recursive r;
      upstream_ok = r.ParseFromString(input);
    });
    const size_t generated = StackUsed([&] {
      test2::Recursive r;
      generated_ok = ParseMessage(input, &r).ok();
    });
    const size_t reflection = StackUsed([&] {
      test2::Recursive r;
      reflection_ok = ParseMessageByReflection(input, &r).ok();
    });
    EXPECT_EQ(upstream_ok, levels <= 101) << levels << " levels";
    EXPECT_EQ(generated_ok, upstream_ok) << levels << " levels";
    EXPECT_EQ(reflection_ok, upstream_ok) << levels << " levels";
    EXPECT_LE(generated, upstream) << levels << " levels: generated parser";
    EXPECT_LE(reflection, upstream) << levels << " levels: reflection walk";
  }
}

TEST(StackTest, RejectsDeepNestingOnASmallStack) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer moves and pads stack frames";
#endif
  const std::string input = Nested(5000);
  // Upstream needs about 20 KB here (x86-64, GCC 12 and clang 14, -O2).
  constexpr size_t kStack = 48 << 10;
  ASSERT_TRUE(ReturnsOnStack(kStack, [&] {
    test2::Recursive r;
    if (r.ParseFromString(input)) _exit(3);
  }));
  EXPECT_TRUE(ReturnsOnStack(kStack, [&] {
    test2::Recursive r;
    if (ParseMessage(input, &r).ok()) _exit(3);
  }));
  EXPECT_TRUE(ReturnsOnStack(kStack, [&] {
    test2::Recursive r;
    if (ParseMessageByReflection(input, &r).ok()) _exit(3);
  }));
}

// --- Streams and Cords ---------------------------------------------------------------------------

// A stream over `data` in chunks of random sizes (empty ones too), which fails (returns false, as
// at the end) after `fail_after` bytes.
class ChoppyStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  ChoppyStream(absl::string_view data, uint64_t seed, size_t fail_after = SIZE_MAX)
      : data_(data.substr(0, std::min(data.size(), fail_after))), rng_(seed) {}
  bool Next(const void** data, int* size) override {
    if (pos_ >= data_.size()) return false;
    const size_t n = std::min<size_t>(data_.size() - pos_, rng_() % 300);
    *data = data_.data() + pos_;
    *size = static_cast<int>(n);
    pos_ += n;
    return true;
  }
  void BackUp(int count) override { pos_ -= static_cast<size_t>(count); }
  bool Skip(int count) override {
    pos_ += static_cast<size_t>(count);
    return pos_ <= data_.size();
  }
  int64_t ByteCount() const override { return static_cast<int64_t>(pos_); }

 private:
  absl::string_view data_;
  std::mt19937_64 rng_;
  size_t pos_ = 0;
};

// Random Everything messages (packed fields long enough for the kernels), valid, cut short,
// corrupted, and failing part way, through chunked streams and Cords, under every kernel.
class ChunkedInputTest : public testing::EveryKernelTest {};

TEST_P(ChunkedInputTest, AgreesWithUpstream) {
  std::mt19937_64 rng(24);
  internal::StreamParseStats stats;
  const int iterations = testing::IterationsToRun(150);
  for (int i = 0; i < iterations; ++i) {
    test2::Everything msg;
    testing::FillRandom(&msg, rng, testing::RandomMessageOptions());
    std::string bytes = msg.SerializePartialAsString();
    // Long inputs: several copies merged (beyond the 256 KiB buffer for some).
    const int copies = 1 + static_cast<int>(rng() % 40);
    std::string input;
    for (int c = 0; c < copies; ++c) input += bytes;
    if (i % 3 == 1 && !input.empty()) input.resize(rng() % input.size());
    if (i % 3 == 2 && !input.empty()) input[rng() % input.size()] ^= static_cast<char>(0x80);
    const size_t fail_after = i % 5 == 4 ? rng() % (input.size() + 1) : SIZE_MAX;

    test2::Everything theirs;
    ChoppyStream upstream_stream(input, i, fail_after);
    const bool upstream_ok = theirs.ParsePartialFromZeroCopyStream(&upstream_stream);
    test2::Everything ours;
    ChoppyStream our_stream(input, i, fail_after);
    const absl::Status s = ParsePartialMessage(&our_stream, &ours);
    ASSERT_EQ(s.ok(), upstream_ok) << "case " << i << ": " << s;
    if (upstream_ok) {
      ASSERT_TRUE(MessageDifferencer::Equals(ours, theirs)) << "case " << i;
    }

    // The same with a buffer of a few bytes: every submessage longer than that is entered and
    // parsed as it arrives, at every depth.
    test2::Everything small_buffer;
    ChoppyStream small_stream(input, i, fail_after);
    internal::StreamChunks small_chunks(&small_stream);
    const absl::Status b = internal::ParseChunks(&small_chunks, &small_buffer,
                                                 /*check_required=*/false, 8 + rng() % 64, &stats);
    ASSERT_EQ(b.ok(), upstream_ok) << "case " << i << ": " << b;
    if (upstream_ok) {
      ASSERT_TRUE(MessageDifferencer::Equals(small_buffer, theirs)) << "case " << i;
    }

    // A Cord of the same chunks (fragmented, so not parsed in place).
    absl::Cord cord;
    for (size_t pos = 0; pos < input.size();) {
      const size_t n = std::min<size_t>(input.size() - pos, 1 + rng() % 5000);
      cord.Append(absl::Cord(absl::string_view(input).substr(pos, n)));
      pos += n;
    }
    test2::Everything from_cord;
    const bool flat_ok = theirs.ParsePartialFromString(input);
    const absl::Status c = ParsePartialMessage(cord, &from_cord);
    ASSERT_EQ(c.ok(), flat_ok) << "case " << i << ": " << c;
    if (flat_ok) {
      ASSERT_TRUE(MessageDifferencer::Equals(from_cord, theirs)) << "case " << i;
    }
  }
  EXPECT_GT(stats.submessages_entered, 1000u);
}

// Recursive messages nested around upstream's recursion limit, with values at every level (longer
// than any chunk of the stream, so that the deepest level too is entered), through a buffer
// smaller than every level: the stream parser enters each level as its bytes arrive, up to the
// limit, and must stop at the same depth upstream's stream parser stops at.
TEST_P(ChunkedInputTest, DeepStreamsStopWhereUpstreamStops) {
  const int limit = internal::DefaultRecursionBudget();
  for (int depth = limit - 2; depth <= limit + 2; ++depth) {
    for (const bool cut : {false, true}) {
      test2::Recursive msg;
      test2::Recursive* level = &msg;
      for (int d = 0; d <= depth; ++d) {
        for (uint32_t v = 0; v < 200; ++v) level->add_values(v * 1000 + d);
        if (d < depth) level = level->mutable_child();
      }
      std::string input = msg.SerializeAsString();
      if (cut) input.resize(input.size() / 2);
      test2::Recursive theirs;
      ChoppyStream upstream_stream(input, depth);
      const bool upstream_ok = theirs.ParsePartialFromZeroCopyStream(&upstream_stream);
      test2::Recursive ours;
      ChoppyStream our_stream(input, depth);
      internal::StreamParseStats stats;
      internal::StreamChunks chunks(&our_stream);
      const absl::Status s =
          internal::ParseChunks(&chunks, &ours, /*check_required=*/false, 16, &stats);
      ASSERT_EQ(s.ok(), upstream_ok) << "depth " << depth << (cut ? ", cut: " : ": ") << s;
      if (upstream_ok) {
        ASSERT_TRUE(MessageDifferencer::Equals(ours, theirs)) << "depth " << depth;
      }
      EXPECT_EQ(stats.submessages_entered, static_cast<size_t>(std::min(depth, limit)));
    }
  }
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(ChunkedInputTest);

long MaxRssKb() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Whether `parse` (a parse of a long stream, true if its result is right) gives the right result
// while peak memory grows by less than 16 MiB. Run in a child process, whose peak resident memory
// starts at this process's current size; `what` names it in the line it prints.
bool RightInBoundedMemory(const char* what, const std::function<bool()>& parse) {
  const pid_t pid = fork();
  if (pid == 0) {
    const long before = MaxRssKb();
    const bool right = parse();
    const long grew_kb = MaxRssKb() - before;
    std::fprintf(stderr, "%s: %s, peak memory grew by %ld KiB\n", what,
                 right ? "parsed" : "NOT PARSED RIGHT", grew_kb);
    _exit(right && grew_kb < (16 << 10) ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(StreamTest, LongStreamOfATinyMessageIsNotHeldWhole) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer's quarantine holds freed memory";
#endif
  EXPECT_TRUE(RightInBoundedMemory("192 MiB stream of one field", [] {
    RecordStream stream(size_t{192} << 20);
    test2::Everything msg;
    return ParsePartialMessage(&stream, &msg).ok() && msg.req() == 1;
  })) << "a 192 MiB stream of a one-field message must be parsed with a bounded buffer";
}

// A tag and length opening submessage field `number` of `length` bytes.
std::string OpenSubmessage(int number, size_t length) {
  std::string out;
  testing::AppendTag(static_cast<uint64_t>(number), 2, &out);
  testing::AppendVarint(length, &out);
  return out;
}

// Streams whose message holds one submessage announced as `announced` bytes long, followed by
// `records` bytes of `08 01` records (Leaf.x = 1, over and over): at the top level (a Middle whose
// leaf is that long), or nested (an Everything whose middle's leaf is; the middle's own length
// `middle_short_by` bytes shorter than what it holds).
RecordStream TopLevelSubmessage(size_t records, size_t announced) {
  return RecordStream(records, OpenSubmessage(1, announced));  // Middle.leaf
}
RecordStream NestedSubmessage(size_t records, size_t announced, size_t middle_short_by = 0) {
  const std::string leaf = OpenSubmessage(1, announced);  // Middle.leaf
  return RecordStream(records, "\x08\x01" /* req = 1 */ +
                                   OpenSubmessage(40, leaf.size() + announced - middle_short_by) +
                                   leaf);
}

// A message's one long submessage is parsed as its bytes arrive: peak memory stays near the
// parsed result (a Leaf with x = 1) plus the buffer, however long the submessage is, at the top
// level and nested.
TEST(StreamTest, LongSubmessagesAreParsedAsTheyArrive) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer's quarantine holds freed memory";
#endif
  constexpr size_t kRecords = size_t{384} << 20;
  EXPECT_TRUE(RightInBoundedMemory("384 MiB top-level submessage", [] {
    RecordStream top = TopLevelSubmessage(kRecords, kRecords);
    test2::Middle middle;
    return ParseMessage(&top, &middle).ok() && middle.leaf().x() == 1;
  })) << "a 384 MiB submessage must be parsed as it arrives, with a bounded buffer";
  EXPECT_TRUE(RightInBoundedMemory("384 MiB nested submessage", [] {
    RecordStream nested = NestedSubmessage(kRecords, kRecords);
    test2::Everything everything;
    return ParseMessage(&nested, &everything).ok() && everything.middle().leaf().x() == 1;
  })) << "a nested 384 MiB submessage must be parsed as it arrives, with a bounded buffer";
}

// The same shapes, shorter, against upstream's stream parser, and as fragmented Cords against
// its flat parser: whole, cut (the input ends inside the submessage), and a submessage longer than
// the message around it.
TEST(StreamTest, LongSubmessagesAgreeWithUpstream) {
  constexpr size_t kLong = size_t{3} << 20;
  struct Case {
    const char* what;
    bool nested;
    size_t records;
    size_t middle_short_by;
    size_t entered;  // Submessages the stream parser enters.
  };
  for (const Case& c :
       {Case{"top level", false, kLong, 0, 1}, Case{"nested", true, kLong, 0, 2},
        Case{"top level, cut", false, kLong - 2, 0, 1}, Case{"nested, cut", true, kLong - 2, 0, 2},
        // Not entered: held whole, and rejected.
        Case{"nested, longer than its message", true, kLong, 100, 1}}) {
    const auto stream = [&c] {
      return c.nested ? NestedSubmessage(c.records, kLong, c.middle_short_by)
                      : TopLevelSubmessage(c.records, kLong);
    };
    std::unique_ptr<Message> theirs;
    if (c.nested) {
      theirs = std::make_unique<test2::Everything>();
    } else {
      theirs = std::make_unique<test2::Middle>();
    }
    RecordStream upstream_stream = stream();
    const bool upstream_ok = theirs->ParseFromZeroCopyStream(&upstream_stream);
    std::unique_ptr<Message> ours(theirs->New());
    RecordStream our_stream = stream();
    internal::StreamParseStats stats;
    internal::StreamChunks chunks(&our_stream);
    const absl::Status s = internal::ParseChunks(&chunks, ours.get(), /*check_required=*/true,
                                                 internal::kStreamBufferBytes, &stats);
    EXPECT_EQ(s.ok(), upstream_ok) << c.what << ": " << s;
    if (s.ok() && upstream_ok) {
      EXPECT_TRUE(MessageDifferencer::Equals(*ours, *theirs)) << c.what;
    }
    EXPECT_EQ(stats.submessages_entered, c.entered) << c.what;
    if (c.entered == (c.nested ? 2u : 1u)) {
      // The buffer, and at most one chunk past it, plus the prefix of tags and lengths.
      EXPECT_LT(stats.max_buffered_bytes,
                internal::kStreamBufferBytes + RecordStream::kChunkBytes + 16)
          << c.what;
    }

    // The same bytes as a Cord of 64 KiB pieces, through the public entry point.
    RecordStream copy = stream();
    absl::Cord cord;
    const void* data;
    int size;
    while (copy.Next(&data, &size)) {
      cord.Append(absl::Cord(absl::string_view(static_cast<const char*>(data), size)));
    }
    const std::string flat(cord);
    const bool flat_ok = theirs->ParseFromString(flat);
    std::unique_ptr<Message> from_cord(theirs->New());
    const absl::Status from = ParseMessage(cord, from_cord.get());
    EXPECT_EQ(from.ok(), flat_ok) << c.what << ": " << from;
    if (from.ok() && flat_ok) {
      EXPECT_TRUE(MessageDifferencer::Equals(*from_cord, *theirs)) << c.what;
    }
  }
}

}  // namespace
}  // namespace pbaccel
