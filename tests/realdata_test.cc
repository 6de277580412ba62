// Copyright 2026 The pbaccel Authors.
//
// The real-data files (bench/data: OpenStreetMap PBF blocks, Mapbox vector tiles, pprof profiles)
// through the differential checker under every kernel this CPU supports: pbaccel's ParseMessage
// and ParsePartialMessage must accept them and give upstream's message, byte for byte. The
// zero-copy reads of the benchmark (OSM, tiles) must agree with protozero's on every message under
// every kernel, and malformed variants of real messages must get upstream's decision.

#include <random>
#include <string>
#include <vector>

#include "bench/realdata_corpus.h"
#include "bench/realdata_views.h"
#include "gtest/gtest.h"
#include "pbaccel/kernels.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/differential.h"
#include "proto/osmformat.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"

namespace pbaccel {
namespace bench {
namespace {

Corpus Load(absl::StatusOr<Corpus> (*load)(absl::string_view dir)) {
  const std::string dir = DefaultDataDir();
  EXPECT_FALSE(dir.empty()) << "bench/data not found in the runfiles";
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
    if (protozero == nullptr) continue;  // No zero-copy reader for this schema.
    const absl::StatusOr<ViewChecksum> b = protozero(m);
    ASSERT_TRUE(b.ok()) << b.status();
    // pbaccel's zero-copy read under every kernel this CPU runs, not only the default one.
    for (absl::string_view kernel : SupportedKernels()) {
      ScopedKernelOverride force(kernel);
      ASSERT_TRUE(force.ok()) << kernel;
      for (const NamedView& view : ours) {
        const absl::StatusOr<ViewChecksum> a = view.read(m);
        ASSERT_TRUE(a.ok()) << kernel << ", " << view.name << ": " << a.status();
        EXPECT_EQ(a->values, b->values) << kernel << ", " << view.name;
        EXPECT_EQ(a->sum, b->sum) << kernel << ", " << view.name;
      }
    }
  }
}

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
