// Copyright 2026 The pbaccel Authors.
//
// realdata_columns.h: the real-data corpora decoded into columns, three ways, for the columnar
// rows of the real-data benchmark (realdata_bench.h, mode "columns"):
//   * "pbaccel": pbaccel::DecodeToArrow over the corpus as one batch, the selection below;
//   * "protobuf+copy": upstream's ParseFromString (into a reused message: its fastest mode), then
//     the same fields copied into column buffers of the same layout (offsets, values, validity);
//   * "protozero": protozero's pbf_reader and packed iterators into the same column buffers.
// The selections: OSM blocks' string table, dense nodes (id, lat, lon, keys_vals) and ways (id,
// keys, vals, refs); tiles' layers (name, features whole, keys, extent). Every way verifies before
// any timing with realdata_views.h's ViewChecksum (the count and wrapping sum of the values
// present; strings count their lengths); DecodeToArrow is also checked value by value against
// upstream by tests/columnar_test.

#ifndef PBACCEL_BENCH_REALDATA_COLUMNS_H_
#define PBACCEL_BENCH_REALDATA_COLUMNS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "pbaccel/columnar.h"
#include "testing/corpora/realdata_views.h"

namespace pbaccel {
namespace bench {

// One way of decoding a whole corpus into columns: returns the checksum of the columns when
// `checksum` (verification), else only the number of records (timing), or an error.
struct ColumnarWay {
  std::string name;
  std::function<absl::StatusOr<corpora::ViewChecksum>(const std::vector<std::string>&,
                                                      bool checksum)>
      run;
};

// The three ways for each corpus ("osm", "mvt"), in the order above.
std::vector<ColumnarWay> OsmColumnarWays();
std::vector<ColumnarWay> TileColumnarWays();

}  // namespace bench
}  // namespace pbaccel

#endif  // PBACCEL_BENCH_REALDATA_COLUMNS_H_
