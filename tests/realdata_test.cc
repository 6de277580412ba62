// Copyright 2026 The pbaccel Authors.
//
// The real-data files (testing/data: OpenStreetMap PBF blocks, Mapbox vector tiles, pprof profiles)
// through the differential checker under every kernel this CPU supports: pbaccel's ParseMessage
// and ParsePartialMessage must accept them and give upstream's message, byte for byte. The
// zero-copy reads of the benchmark (OSM, tiles) must agree with protozero's on every message under
// every kernel, and malformed variants of real messages must get upstream's decision. A corpus's
// messages parsed in turn into one message (a reader of a file of blocks, a server thread's
// request) must each give upstream's message too.

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/kernels.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "proto/osmformat.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "testing/corpora/realdata_corpus.h"
#include "testing/corpora/realdata_views.h"

namespace pbaccel {
namespace bench {
namespace {

using corpora::Corpus;
using corpora::DefaultDataDir;
using corpora::LoadMvt;
using corpora::LoadOsm;
using corpora::LoadPprof;
using corpora::NamedView;
using corpora::PbaccelOsmViews;
using corpora::PbaccelTileViews;
using corpora::ReadOsmBlockProtozero;
using corpora::ReadTileProtozero;
using corpora::ViewFn;

Corpus Load(absl::StatusOr<Corpus> (*load)(absl::string_view dir)) {
  const std::string dir = DefaultDataDir();
  EXPECT_FALSE(dir.empty()) << "testing/data not found in the runfiles";
  absl::StatusOr<Corpus> corpus = load(dir);
  EXPECT_TRUE(corpus.ok()) << corpus.status();
  return corpus.ok() ? *std::move(corpus) : Corpus{};
}

// `ours`: pbaccel's zero-copy readers (span, PackedView::ForEach, PackedView's iterator).
void CheckCorpus(const Corpus& corpus, const google::protobuf::Message& prototype,
                 const std::vector<NamedView>& ours, ViewFn protozero) {
  ASSERT_FALSE(corpus.messages.empty());
  // CompareWithUpstream checks the generated parser (linked here) as well as the reflection path.
  ASSERT_TRUE(HasGeneratedParser(prototype)) << prototype.GetTypeName();
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < corpus.messages.size(); ++i) {
    const std::string& m = corpus.messages[i];
    SCOPED_TRACE(corpus.name + " message " + std::to_string(i));
    EXPECT_EQ(testing::CompareWithUpstream(m, prototype), "");
    // A few malformed variants of real messages (truncations, bit flips, bad lengths, ...): of
    // every fourth, or of each in a corpus of a few files (the six profiles).
    if (i % 4 == 0 || corpus.messages.size() < 16) {
      for (const std::string& bad : testing::Mutate(m, rng, 3)) {
        EXPECT_EQ(testing::CompareWithUpstream(bad, prototype), "");
      }
    }
  }
  if (protozero == nullptr) return;  // No zero-copy reader for this schema.
  // pbaccel's zero-copy reads of every message under every kernel this CPU runs, not only the
  // default one.
  for (absl::string_view kernel : SupportedKernels()) {
    ScopedKernelOverride force(kernel);
    ASSERT_TRUE(force.ok()) << kernel;
    const absl::Status agree =
        corpora::CheckViewsAgree(corpus.name, corpus.messages, protozero, ours);
    EXPECT_TRUE(agree.ok()) << kernel << ": " << agree;
  }
}

// Every message of the corpus parsed by ParseMessage into one message, in file order and then in a
// shuffled order, under the test's kernel: each parse replaces another input's contents (more or
// fewer elements, other sizes; generated_parser.h: reused elements) and must give exactly the
// message a fresh upstream parse gives. At the end a MergeFrom must find no old element left
// uncleared.
void CheckInTurn(const Corpus& corpus, const google::protobuf::Message& prototype) {
  ASSERT_GT(corpus.messages.size(), 1u);
  std::vector<size_t> order(corpus.messages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<size_t> shuffled = order;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(11));
  order.insert(order.end(), shuffled.begin(), shuffled.end());
  std::unique_ptr<google::protobuf::Message> ours(prototype.New());
  std::unique_ptr<google::protobuf::Message> upstream(prototype.New());
  for (size_t i : order) {
    SCOPED_TRACE(absl::StrCat(corpus.name, " message ", i));
    ASSERT_TRUE(upstream->ParseFromString(corpus.messages[i]));
    ASSERT_TRUE(ParseMessage(corpus.messages[i], ours.get()).ok());
    ASSERT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*upstream, *ours));
    ASSERT_EQ(testing::DeterministicSerialization(*ours),
              testing::DeterministicSerialization(*upstream));
  }
  std::unique_ptr<google::protobuf::Message> merged(upstream->New());
  merged->CopyFrom(*upstream);
  merged->MergeFrom(*upstream);
  ours->MergeFrom(*upstream);
  EXPECT_EQ(testing::DeterministicSerialization(*ours),
            testing::DeterministicSerialization(*merged))
      << corpus.name << ": an old element was left uncleared";
}

class RealDataInTurnTest : public testing::EveryKernelTest {};

TEST_P(RealDataInTurnTest, OsmBlocks) {
  CheckInTurn(Load(&LoadOsm), OSMPBF::PrimitiveBlock::default_instance());
}

TEST_P(RealDataInTurnTest, VectorTiles) {
  CheckInTurn(Load(&LoadMvt), vector_tile::Tile::default_instance());
}

TEST_P(RealDataInTurnTest, PprofProfiles) {
  CheckInTurn(Load(&LoadPprof), perftools::profiles::Profile::default_instance());
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(RealDataInTurnTest);

TEST(RealDataTest, OsmBlocksParseAsUpstream) {
  CheckCorpus(Load(&LoadOsm), OSMPBF::PrimitiveBlock::default_instance(), PbaccelOsmViews(),
              &ReadOsmBlockProtozero);
}

// A third schema, proto3, that no kernel or generated-parser change was tuned on: Go's CPU and heap
// profiles (many small submessages, a string table, short packed location lists).
TEST(RealDataTest, PprofProfilesParseAsUpstream) {
  CheckCorpus(Load(&LoadPprof), perftools::profiles::Profile::default_instance(), {}, nullptr);
}

TEST(RealDataTest, VectorTilesParseAsUpstream) {
  CheckCorpus(Load(&LoadMvt), vector_tile::Tile::default_instance(), PbaccelTileViews(),
              &ReadTileProtozero);
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel
