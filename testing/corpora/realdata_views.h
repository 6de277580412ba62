// Copyright 2026 The pbaccel Authors.
//
// realdata_views.h: zero-copy reads of every packed field users of the real-data formats read,
// without building messages, with pbaccel (FieldReader + DecodePacked* into a scratch span; or
// PackedView's ForEach or iterator) and with protozero (pbf_reader + its packed iterators), as
// libosmium and vtzero do.
//
//   OSM PrimitiveBlock: every DenseNodes id, lat and lon (sint64, delta-decoded) and keys_vals
//   (int32); every Way's refs (sint64, delta-decoded).
//   MVT Tile: every Feature's tags and geometry (uint32).
//
// Each returns a checksum of the decoded values (their count and their wrapping sum, delta-decoded
// values as the running sums), equal for every reader on valid input; a malformed message makes
// it return an error instead.

#ifndef PBACCEL_TESTING_CORPORA_REALDATA_VIEWS_H_
#define PBACCEL_TESTING_CORPORA_REALDATA_VIEWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pbaccel {
namespace corpora {

struct ViewChecksum {
  uint64_t values = 0;
  uint64_t sum = 0;
  bool operator==(const ViewChecksum& o) const { return values == o.values && sum == o.sum; }
};

// A zero-copy reader of one OSM block or one tile.
using ViewFn = absl::StatusOr<ViewChecksum> (*)(absl::string_view);

// pbaccel's readers, named as the benchmark's CSV names them: the same FieldReader walk, each
// packed payload decoded into a scratch span with DecodePacked* ("pbaccel"), or read with
// PackedView::ForEach ("pbaccel_foreach") or range-for over a PackedView ("pbaccel_iterator").
struct NamedView {
  const char* name;
  ViewFn read;
};
std::vector<NamedView> PbaccelOsmViews();
std::vector<NamedView> PbaccelTileViews();

// protozero's pbf_reader and packed iterators, as libosmium and vtzero read.
absl::StatusOr<ViewChecksum> ReadOsmBlockProtozero(absl::string_view block);
absl::StatusOr<ViewChecksum> ReadTileProtozero(absl::string_view tile);

// OK if every reader of `pbaccel` reads each of `messages` as `protozero` does (same checksum, no
// error); else an error naming the corpus (`corpus_name`), the message's index and the reader.
absl::Status CheckViewsAgree(absl::string_view corpus_name,
                             const std::vector<std::string>& messages, ViewFn protozero,
                             const std::vector<NamedView>& pbaccel);

}  // namespace corpora
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_CORPORA_REALDATA_VIEWS_H_
