// Copyright 2026 The pbaccel Authors.
//
// columnar_export.h: a column tree (columnar_columns.h) handed over through the Arrow C Data
// Interface (pbaccel/arrow_c_data.h): a struct array of the record rows and its schema. The
// columns' buffers move into the exported arrays without a copy (validity and bool bytes are
// packed into bitmaps); each exported struct frees what it owns when released.

#ifndef PBACCEL_INTERNAL_COLUMNAR_EXPORT_H_
#define PBACCEL_INTERNAL_COLUMNAR_EXPORT_H_

#include <cstddef>

#include "pbaccel/arrow_c_data.h"
#include "pbaccel/internal/columnar_columns.h"

namespace pbaccel {
namespace internal {
namespace columnar {

// Moves root's columns (`rows` records) into *schema and *array. Offsets are int32: the caller
// keeps a batch's input under 2^31 bytes, which bounds every column's elements and bytes.
void ExportRecordBatch(Column& root, size_t rows, ArrowSchema* schema, ArrowArray* array);

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_COLUMNAR_EXPORT_H_
