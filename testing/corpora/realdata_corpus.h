// Copyright 2026 The pbaccel Authors.
//
// realdata_corpus.h: real protobuf files read the way their users read them, into the serialized
// messages the real-data benchmark and test parse.
//
//   * OpenStreetMap PBF (`<dir>/osm/*.osm.pbf`): the file's frames (4-byte big-endian length,
//     BlobHeader, Blob; proto/fileformat.proto) are walked, each Blob's zlib_data is inflated with
//     zlib (or raw taken as is), and every OSMData blob gives one PrimitiveBlock
//     (proto/osmformat.proto). The OSMHeader blob is skipped.
//   * Mapbox Vector Tiles (`<dir>/mvt/<area>/*.mvt`, or `.mvt.gz`): one vector_tile.Tile per file;
//     gzip files are inflated first.
//   * pprof profiles (`<dir>/pprof/*.pb.gz`, or `.pb`): one perftools.profiles.Profile per file
//     (proto/profile.proto), gzip files inflated first, as Go's runtime/pprof writes them.
// testing/data/README.md gives the vendored files' provenance and licence.

#ifndef PBACCEL_TESTING_CORPORA_REALDATA_CORPUS_H_
#define PBACCEL_TESTING_CORPORA_REALDATA_CORPUS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pbaccel {
namespace corpora {

struct Corpus {
  std::string name;                   // "osm", "mvt" or "pprof".
  std::vector<std::string> messages;  // Serialized PrimitiveBlocks, Tiles or Profiles, inflated.
  size_t files = 0;
  size_t bytes() const;   // Sum of the messages' sizes.
  double inflate_ns = 0;  // Time zlib took to inflate them (OSM: timed once).
};

// The OSM PrimitiveBlocks of every `*.osm.pbf` file under dir/osm, in file-name order. Errors name
// the file and the byte offset of the frame that is malformed.
absl::StatusOr<Corpus> LoadOsm(absl::string_view dir);

// The tiles of every `*.mvt` and `*.mvt.gz` file under dir/mvt/*/, in path order.
absl::StatusOr<Corpus> LoadMvt(absl::string_view dir);

// The profiles of every `*.pb` and `*.pb.gz` file under dir/pprof, in path order.
absl::StatusOr<Corpus> LoadPprof(absl::string_view dir);

// Where the vendored corpus is for a binary started by `bazel run` or `bazel test` (the runfiles'
// testing/data), or "" if it cannot be found.
std::string DefaultDataDir();

}  // namespace corpora
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_CORPORA_REALDATA_CORPUS_H_
