// Copyright 2026 The pbaccel Authors.

#include "pbaccel/columnar.h"

#include <climits>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "pbaccel/internal/columnar_columns.h"
#include "pbaccel/internal/columnar_decode.h"
#include "pbaccel/internal/columnar_export.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {

using internal::columnar::Column;

namespace {

// Both forms of DecodeToArrow: `null_records` is null or has one flag per record.
absl::Status Decode(const google::protobuf::Descriptor* type,
                    absl::Span<const absl::string_view> records, const uint8_t* null_records,
                    const ColumnarOptions& options, ArrowSchema* schema, ArrowArray* batch,
                    ColumnarReport* report) {
  const bool fail_batch = options.on_bad_record == ColumnarOptions::OnBadRecord::kFailBatch;
  absl::StatusOr<std::unique_ptr<Column>> columns =
      internal::columnar::BuildColumns(type, options, null_records != nullptr || !fail_batch);
  if (!columns.ok()) return columns.status();
  Column& root = **columns;
  // Every list element takes at least one byte of input, and every byte of a string or bytes
  // column is one: a batch under 2^31 bytes keeps every column within Arrow's int32 offsets.
  size_t input_bytes = 0;
  for (size_t r = 0; r < records.size(); ++r) {
    if (null_records == nullptr || null_records[r] == 0) input_bytes += records[r].size();
  }
  if (input_bytes > static_cast<size_t>(INT32_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "columnar: a batch of ", input_bytes,
        " bytes; at most 2^31 - 1 bytes of records per batch (Arrow's int32 offsets): split it"));
  }
  internal::columnar::ApplySizeHints(root, input_bytes);
  internal::columnar::RecordDecoder decoder;
  // A null row: every column null (all are nullable when rows can be null).
  const auto null_row = [&root](size_t r) {
    internal::columnar::TruncateElements(root, r);
    internal::columnar::OpenStructElement(root, r);
    for (auto& column : root.children) column->validity_bytes.at<uint8_t>(r) = 0;
    internal::columnar::CloseStructElement(root, r);
  };
  for (size_t r = 0; r < records.size(); ++r) {
    if (null_records != nullptr && null_records[r] != 0) {
      null_row(r);
      continue;
    }
    if (ABSL_PREDICT_TRUE(decoder.Decode(root, r, records[r]))) continue;
    absl::Status error = absl::InvalidArgumentError(
        absl::StrCat("record ", r, " (", type->full_name(), "): ", decoder.error()));
    if (fail_batch) return error;
    null_row(r);
    if (report != nullptr) report->bad_records.push_back({r, std::move(error)});
  }
  internal::columnar::RecordSizeHints(root, input_bytes);
  internal::columnar::PrefixSumDeltaColumns(root);
  internal::columnar::ExportRecordBatch(root, records.size(), schema, batch);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeToArrow(const google::protobuf::Descriptor* type,
                           absl::Span<const absl::string_view> records,
                           const ColumnarOptions& options, ArrowSchema* schema, ArrowArray* batch,
                           ColumnarReport* report) {
  return Decode(type, records, nullptr, options, schema, batch, report);
}

absl::Status DecodeToArrow(const google::protobuf::Descriptor* type,
                           absl::Span<const absl::string_view> records,
                           absl::Span<const uint8_t> null_records, const ColumnarOptions& options,
                           ArrowSchema* schema, ArrowArray* batch, ColumnarReport* report) {
  if (null_records.size() != records.size()) {
    return absl::InvalidArgumentError(absl::StrCat("columnar: ", null_records.size(),
                                                   " null flags for ", records.size(), " records"));
  }
  // A pointer that is never null for the nullable form, even for an empty batch.
  static constexpr uint8_t kNoRecords = 0;
  return Decode(type, records, records.empty() ? &kNoRecords : null_records.data(), options, schema,
                batch, report);
}

absl::StatusOr<std::vector<absl::string_view>> SplitDelimitedRecords(absl::string_view stream) {
  std::vector<absl::string_view> records;
  const char* p = stream.data();
  const char* const end = p + stream.size();
  while (p < end) {
    const char* payload_end;
    const char* payload = internal::ReadLength(p, end, &payload_end);
    if (payload == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("delimited stream: record ", records.size(), " at byte ",
                       static_cast<size_t>(p - stream.data()),
                       ": malformed length or length past the end of the stream"));
    }
    records.emplace_back(payload, static_cast<size_t>(payload_end - payload));
    p = payload_end;
  }
  return records;
}

absl::Status DecodeDelimitedToArrow(const google::protobuf::Descriptor* type,
                                    absl::string_view stream, const ColumnarOptions& options,
                                    ArrowSchema* schema, ArrowArray* batch,
                                    ColumnarReport* report) {
  absl::StatusOr<std::vector<absl::string_view>> records = SplitDelimitedRecords(stream);
  if (!records.ok()) return records.status();
  return DecodeToArrow(type, *records, options, schema, batch, report);
}

}  // namespace pbaccel
