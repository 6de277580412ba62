// Copyright 2026 The pbaccel Authors.
//
// columnar_check.h: pbaccel::DecodeToArrow (pbaccel/columnar.h) checked against upstream protobuf,
// for tests and the fuzzer. Each record is parsed by upstream's ParseFromString; the batch must be
// accepted exactly when every record is (and, when one is not, fail naming the first such record;
// with OnBadRecord::kNull, have exactly those rows null), and every column's every value must
// equal what reflection reads from upstream's message: presence as nullness, lists element by
// element, maps as sets of entries, recursive fields' bytes parsed back. The exported structs are
// also checked against the C Data Interface's layout rules (lengths, offsets, children).

#ifndef PBACCEL_TESTING_COLUMNAR_CHECK_H_
#define PBACCEL_TESTING_COLUMNAR_CHECK_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/message.h"
#include "pbaccel/arrow_c_data.h"
#include "pbaccel/columnar.h"

namespace pbaccel {
namespace testing {

// "" when DecodeToArrow agrees with upstream on `records` of `prototype`'s type, else the first
// difference.
std::string CompareColumnsWithUpstream(const google::protobuf::Message& prototype,
                                       absl::Span<const absl::string_view> records,
                                       const ColumnarOptions& options = ColumnarOptions());

// "" when row `row` of the record batch (schema, batch) holds `message`'s values in every column
// (columns name fields of message's type), else the first difference.
std::string CompareRow(const ArrowSchema& schema, const ArrowArray& batch, int64_t row,
                       const google::protobuf::Message& message);

// "" when the exported structs follow the C Data Interface's layout rules as Arrow's importer
// checks them, else the first violation.
std::string CheckArrowLayout(const ArrowSchema& schema, const ArrowArray& array);

}  // namespace testing
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_COLUMNAR_CHECK_H_
