// Copyright 2026 The pbaccel Authors.
//
// Parses from several threads at once, as an RPC server's threads parse requests. The real corpora
// (testing/data: OSM blocks, vector tiles, pprof profiles) are shared out among kThreads threads
// (message i to thread i % kThreads), and each thread parses its messages
//   * through the generated parsers (ParseMessage), in place of the message it parsed last and
//     into a fresh one, and from an absl::Cord;
//   * by the reflection walk (ParseMessageByReflection), whose plans all threads share;
//   * into Arrow columns (DecodeToArrow, whose buffers come from a cache all threads share),
// every result checked against upstream's parse of the same bytes.
//
// The first test is the binary's first use of the library: its threads are released together
// onto every first use (the automatic kernel's choice, each registry's first lookup, the generated
// code's links to other files' parsers, the reflection plans built, the columnar buffer cache).
// The second runs the same under every kernel, chosen before the threads start (a kernel override
// is not for changing kernels under running parses: pbaccel/kernels.h). A race that breaks a
// result fails either test; .ci/run runs this binary under ThreadSanitizer (.bazelrc's tsan
// configuration), which reports every race it sees, whether or not it broke a result.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/columnar_check.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "proto/osmformat.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "testing/corpora/realdata_corpus.h"

namespace pbaccel {
namespace {

using google::protobuf::Message;

constexpr int kThreads = 4;

struct TypedCorpus {
  const Message* prototype;
  std::vector<std::string> messages;
  std::vector<std::string> expected;  // Upstream's parse of each, deterministically serialized.
};

// The three corpora with upstream's results, loaded once, before any thread starts (and without
// touching pbaccel: the first test must be the library's first use).
const std::vector<TypedCorpus>& Corpora() {
  static const std::vector<TypedCorpus>* const corpora = [] {
    auto* all = new std::vector<TypedCorpus>;
    const std::string dir = corpora::DefaultDataDir();
    const struct {
      absl::StatusOr<corpora::Corpus> corpus;
      const Message* prototype;
    } loaded[] = {
        {corpora::LoadOsm(dir), &OSMPBF::PrimitiveBlock::default_instance()},
        {corpora::LoadMvt(dir), &vector_tile::Tile::default_instance()},
        {corpora::LoadPprof(dir), &perftools::profiles::Profile::default_instance()},
    };
    for (const auto& l : loaded) {
      if (!l.corpus.ok()) continue;  // The tests fail on the corpus missing (Corpora().size()).
      TypedCorpus c{l.prototype, l.corpus->messages, {}};
      for (const std::string& m : c.messages) {
        std::unique_ptr<Message> msg(c.prototype->New());
        c.expected.push_back(msg->ParseFromString(m) ? testing::DeterministicSerialization(*msg)
                                                     : "(rejected)");
      }
      all->push_back(std::move(c));
    }
    return all;
  }();
  return *corpora;
}

// Thread `t`'s share of the corpora, every way; returns what differed from upstream.
std::vector<std::string> ParseShare(int t) {
  std::vector<std::string> failures;
  const auto check = [&](const absl::Status& s, const Message& msg, const std::string& expected,
                         const std::string& what) {
    const std::string got = s.ok() ? testing::DeterministicSerialization(msg) : "(rejected)";
    if (got != expected) failures.push_back(absl::StrCat(what, ": ", s.ToString()));
  };
  for (const TypedCorpus& c : Corpora()) {
    const std::string type(c.prototype->GetTypeName());  // absl::string_view from v30.
    std::unique_ptr<Message> reused(c.prototype->New());
    std::vector<absl::string_view> records;
    for (size_t i = t; i < c.messages.size(); i += kThreads) {
      const std::string what = absl::StrCat(type, " #", i);
      check(ParseMessage(c.messages[i], reused.get()), *reused, c.expected[i], what + " in place");
      std::unique_ptr<Message> fresh(c.prototype->New());
      check(ParseMessage(c.messages[i], fresh.get()), *fresh, c.expected[i], what + " fresh");
      fresh.reset(c.prototype->New());
      check(ParseMessage(absl::Cord(c.messages[i]), fresh.get()), *fresh, c.expected[i],
            what + " from a Cord");
      fresh.reset(c.prototype->New());
      check(ParseMessageByReflection(c.messages[i], fresh.get()), *fresh, c.expected[i],
            what + " by reflection");
      records.push_back(c.messages[i]);
    }
    const std::string columns = testing::CompareColumnsWithUpstream(*c.prototype, records);
    if (!columns.empty()) failures.push_back(absl::StrCat(type, " columns: ", columns));
  }
  return failures;
}

// Runs ParseShare on kThreads threads released together; every thread's failures are reported.
void ParseOnAllThreadsAtOnce() {
  ASSERT_EQ(Corpora().size(), 3u) << "testing/data's corpora did not load";
  for (const TypedCorpus& c : Corpora()) ASSERT_GE(c.messages.size(), size_t{kThreads});
  std::atomic<int> waiting{kThreads};
  std::vector<std::vector<std::string>> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) std::this_thread::yield();
      failures[t] = ParseShare(t);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t].size()
                                     << " differences, the first: " << failures[t].front();
  }
}

// First in the binary (GoogleTest runs plain tests before parameterized ones): the first uses.
TEST(FirstUseTest, FromAllThreadsAtOnce) {
  Corpora();  // Upstream's results, on this thread, before the threads start.
  ParseOnAllThreadsAtOnce();
}

class ConcurrencyTest : public testing::EveryKernelTest {};
PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(ConcurrencyTest);

TEST_P(ConcurrencyTest, ParsesFromAllThreadsAtOnce) { ParseOnAllThreadsAtOnce(); }

}  // namespace
}  // namespace pbaccel
