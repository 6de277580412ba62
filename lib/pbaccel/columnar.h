// Copyright 2026 The pbaccel Authors.
//
// columnar.h: many serialized records of one message type decoded straight into columns, exported
// through the Arrow C Data Interface (pbaccel/arrow_c_data.h; no libarrow needed): a record batch,
// as a struct array whose children are the selected fields.
//
//   std::vector<absl::string_view> records = ...;  // serialized OSMPBF.PrimitiveBlock each
//   pbaccel::ColumnarOptions options;
//   options.fields = {"stringtable", "primitivegroup.dense.id"};
//   ArrowSchema schema;
//   ArrowArray batch;
//   absl::Status s = pbaccel::DecodeToArrow(OSMPBF::PrimitiveBlock::descriptor(), records,
//                                           options, &schema, &batch);
//   // pyarrow: pa.RecordBatch._import_from_c(batch_address, schema_address)
//
// The columns (named after the proto fields; the mapping is fixed, whatever the records hold):
//   * int32, sint32, sfixed32 -> int32; uint32, fixed32 -> uint32; int64, sint64, sfixed64 ->
//     int64; uint64, fixed64 -> uint64 (zigzag and fixed encodings decoded); float, double, bool as
//     such; enum -> int32 (its number); string -> utf8; bytes -> binary. A utf8 column holds
//     well-formed UTF-8 only, as Arrow requires: a string upstream does not check (proto2,
//     editions utf8_validation = NONE) that holds ill-formed bytes is accepted, as upstream accepts
//     it, with U+FFFD for each maximal ill-formed subpart (as protobuf-java's getters give it;
//     pbaccel/internal/utf8_replace.h).
//   * A singular field with presence (proto2 and proto3 `optional`, editions EXPLICIT, a message,
//     a oneof member) is nullable and null when absent; one without presence (proto3 implicit,
//     editions IMPLICIT) holds its value or the type's zero, never null.
//   * A repeated scalar or string (packed or not, as upstream accepts either) is list<T>: empty,
//     not null, when absent. A message is struct<...>; a repeated one list<struct<...>>. A map is
//     map<K, V> (Arrow's list<struct<key, value>>), one entry per key.
//   * A message field whose type is already being expanded above it (a recursive schema) is a
//     binary column of its serialized bytes, every occurrence concatenated (which parses to
//     upstream's merged value); repeated, list<binary>. Select a path through it to expand it.
//   * Delta-coded fields (OSM's ids, coordinates, refs) are left as stored, the gaps, unless named
//     in ColumnarOptions::delta_fields: then each list holds the running sums of its gaps.
// Semantics are upstream's parser's (ParseFromString): the last occurrence of a singular scalar
// wins; occurrences of a singular message merge; a oneof holds its last member (a message member
// set again after another one starts afresh); a later map entry replaces one with the same key; a
// closed enum's unknown value leaves the field as it was (a repeated field drops it; a map drops
// the entry); unknown fields are ignored, and so are extensions (no column holds them), but an
// extension the type's pool knows is parsed as upstream parses it. A record is accepted exactly
// when upstream's ParseFromString accepts it: malformed wire data (a known extension's value
// too), invalid UTF-8 in a string that requires it, nesting deeper than upstream's limit (100) and
// missing required fields (a message-typed extension's too) are errors. (With a selection,
// unselected fields and the extensions of a message not selected whole are checked as wire data
// only: they are skipped, not parsed, and upstream would parse them.)
//
// Packed fields are decoded by the kernel chosen for this CPU (pbaccel/kernels.h) straight into
// the column's values buffer, which grows geometrically; records are read by the wire reader every
// pbaccel parser uses (pbaccel/internal/wire_reader.h).
//
// Errors: by default a bad record fails the whole batch with kInvalidArgument naming the record's
// index, the field and the byte offset in the record ("record 17 (OSMPBF.PrimitiveBlock): malformed
// varint in OSMPBF.Way.id (field 1) at byte 1234"); nothing is exported then (*schema and *batch
// are left untouched). With OnBadRecord::kNull the record's row is null in every column instead
// (all columns are then nullable) and `report`, if given, lists it. A selection naming no field of
// the type, or a batch of more than 2^31 - 1 bytes of records (Arrow's int32 offsets), is
// kInvalidArgument too.
//
// Cost: O(bytes of the records) plus O(records x selected fields). Thread-safe: concurrent calls
// are fine (each builds its own columns).

#ifndef PBACCEL_COLUMNAR_H_
#define PBACCEL_COLUMNAR_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/descriptor.h"
#include "pbaccel/arrow_c_data.h"

namespace pbaccel {

struct ColumnarOptions {
  // The columns: top-level field names, or dotted paths into submessages ("layers.features.id",
  // through repeated ones too), each path's last field whole. Empty: every field of the type.
  // Paths sharing a prefix share its struct; a field named twice is one column.
  std::vector<std::string> fields;

  // Repeated integer fields (paths as in `fields`, each among the selected columns) whose values
  // are delta-coded: each list's values become their running sums (wrapping, in the column's
  // type), starting from 0 in every list (OSM's DenseNodes.id, lat, lon and Way.refs). Not
  // upstream's semantics: the values upstream's parse holds are the gaps.
  std::vector<std::string> delta_fields;

  enum class OnBadRecord {
    kFailBatch,  // The first bad record fails the call (the default).
    kNull,       // A bad record is a null row, listed in the report.
  };
  OnBadRecord on_bad_record = OnBadRecord::kFailBatch;
};

struct ColumnarReport {
  struct BadRecord {
    size_t index = 0;    // Into the batch's records.
    absl::Status error;  // As the batch would have failed with it.
  };
  std::vector<BadRecord> bad_records;  // OnBadRecord::kNull: every record made null, in order.
};

// An exported batch that releases itself: for C++ callers that read the columns in place (or move
// the structs on, leaving release == NULL, as the C Data Interface's consumers do).
struct ArrowRecordBatch {
  ArrowSchema schema{};
  ArrowArray array{};
  ArrowRecordBatch() = default;
  ArrowRecordBatch(const ArrowRecordBatch&) = delete;
  ArrowRecordBatch& operator=(const ArrowRecordBatch&) = delete;
  ~ArrowRecordBatch() {
    if (schema.release != nullptr) schema.release(&schema);
    if (array.release != nullptr) array.release(&array);
  }
};

// Decodes `records` (each a serialized message of `type`) into a struct array of length
// records.size(), exported into *schema and *batch, which the caller releases. `type` may be a
// generated message's descriptor or one from any pool (a FileDescriptorSet's); it must outlive
// the call only.
absl::Status DecodeToArrow(const google::protobuf::Descriptor* type,
                           absl::Span<const absl::string_view> records,
                           const ColumnarOptions& options, ArrowSchema* schema, ArrowArray* batch,
                           ColumnarReport* report = nullptr);

// DecodeToArrow for a batch of which some records are null, as in a nullable binary column (an
// Arrow array with a validity bitmap, a DataFrame column with nulls): record r is a null row when
// null_records[r] is non-zero (its view is not read). null_records.size() must be records.size().
// Every column is nullable in this form, whether or not the batch holds a null, as with
// OnBadRecord::kNull, so that every batch of a stream has the same schema.
absl::Status DecodeToArrow(const google::protobuf::Descriptor* type,
                           absl::Span<const absl::string_view> records,
                           absl::Span<const uint8_t> null_records, const ColumnarOptions& options,
                           ArrowSchema* schema, ArrowArray* batch,
                           ColumnarReport* report = nullptr);

// The records of a length-delimited stream (each a varint length, then that many bytes, as
// upstream's SerializeDelimitedToOstream and Java's writeDelimitedTo write them), as views into
// `stream`. kInvalidArgument naming the record and its byte offset if a length is malformed or
// runs past the end.
absl::StatusOr<std::vector<absl::string_view>> SplitDelimitedRecords(absl::string_view stream);

// DecodeToArrow over the records of a length-delimited stream.
absl::Status DecodeDelimitedToArrow(const google::protobuf::Descriptor* type,
                                    absl::string_view stream, const ColumnarOptions& options,
                                    ArrowSchema* schema, ArrowArray* batch,
                                    ColumnarReport* report = nullptr);

}  // namespace pbaccel

#endif  // PBACCEL_COLUMNAR_H_
