// Copyright 2026 The pbaccel Authors.
//
// realdata_bench.h: the real-data benchmark, shared by //bench:realdata and //bench:compare (which
// prints it first). For each corpus (realdata_corpus.h):
//   * message parsers into OSMPBF::PrimitiveBlock / vector_tile::Tile (and, with `pprof`,
//     perftools::profiles::Profile): upstream `ParseFromString` ("protobuf") and
//     `pbaccel::ParseMessage` ("pbaccel"), each in four modes: "reuse" (one message per input,
//     reused across rounds, so each parse replaces contents of the same shape), "stream" (one
//     message for the whole corpus, each input parsed in turn in place of the previous one: a
//     reader of a file of blocks, a server thread's request), "fresh" (a new heap message per
//     parse) and "arena" (a new google::protobuf::Arena per parse). Every parser has its own
//     reused messages;
//   * OSM and MVT: zero-copy reads of every packed field (realdata_views.h): "protozero" and
//     "pbaccel" (payloads decoded into a span), "pbaccel_foreach" and "pbaccel_iterator" (read
//     through PackedView), mode "view".
// Before any timing every implementation is verified on every message: pbaccel's messages equal
// upstream's (MessageDifferencer and re-serialized bytes), parsed into a new message and into the
// one that holds the previous input, and every view's checksums are equal.
// Timing: interleaved rounds (bench/timing.h), the minimum per implementation, as MB/s of
// serialized input.

#ifndef PBACCEL_BENCH_REALDATA_BENCH_H_
#define PBACCEL_BENCH_REALDATA_BENCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pbaccel {
namespace bench {

struct RealDataOptions {
  std::string data_dir;  // Holds osm/ and mvt/, and pprof/ for `pprof` (testing/data/README.md).
  int reps = 15;         // Interleaved rounds.
  bool pprof = false;    // Also the pprof profiles (corpus "pprof"; message parsers only).
  std::string mode;      // Time only the rows of this mode ("" for all); all are verified.
  double sample_ns = 20e6;
};

struct RealDataRow {
  std::string corpus;  // "osm" or "mvt"; "pprof" with RealDataOptions::pprof.
  size_t messages = 0;
  size_t bytes = 0;
  std::string implementation;  // "protobuf", "pbaccel", "protozero".
  std::string mode;            // "reuse", "stream", "fresh", "arena", "view".
  double mb_per_s = 0;         // Serialized input bytes per second / 1e6, best round.
};

struct RealDataResult {
  std::vector<RealDataRow> rows;
  std::vector<std::string> notes;  // One line each: files, inflate time, what was verified.
};

// Loads, verifies and times. An error if a corpus cannot be read or any verification fails.
absl::StatusOr<RealDataResult> RunRealData(const RealDataOptions& options);

// `corpus,messages,bytes,implementation,mode,mb_per_s` and one line per row.
std::string RealDataCsv(const RealDataResult& result);

// A table per corpus with each implementation's speed relative to upstream in the same mode
// (protozero's and pbaccel's views relative to protozero), then the notes.
std::string RealDataTable(const RealDataResult& result);

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_REALDATA_BENCH_H_
