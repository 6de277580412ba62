// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/top_level_fields.h"

#include "absl/strings/str_cat.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {
namespace internal {
namespace {

// Whether the field at `field` failed with `error` only because the data ends too soon.
bool CutShort(const WireField& field, WireError error, const char* end) {
  switch (error) {
    case WireError::kMalformedTag: return end - field.tag < 5;
    case WireError::kMalformedVarint: return end - field.value < 10;
    case WireError::kMalformedLength: return end - field.value < 5;
    case WireError::kTruncatedFixed64:
    case WireError::kTruncatedFixed32:
    case WireError::kLengthPastEnd: return true;
    default: return false;  // Field number 0, wire type 6 or 7: nothing after can mend them.
  }
}

}  // namespace

FieldsPrefix WholeTopLevelFields(const char* p, const char* end, size_t max) {
  FieldsPrefix out;
  const char* const begin = p;
  while (p < end) {
    WireField field;
    WireError error;
    const char* next = ReadWholeField(p, end, &field, &error);
    if (next == nullptr) {
      if (error != WireError::kNone) {
        out.need_more = CutShort(field, error, end);
      } else {
        // A group that does not close (or is malformed) before `end`: wait for more; at the end
        // of the input the parser gets it and decides. An end-group tag is malformed whatever
        // follows.
        out.need_more = field.wire_type == WireType::kStartGroup;
      }
      if (!out.need_more) out.bytes = static_cast<size_t>(end - begin);  // The parser rejects it.
      return out;
    }
    if (static_cast<size_t>(next - begin) > max && p != begin) return out;
    p = next;
    out.bytes = static_cast<size_t>(p - begin);
  }
  return out;
}

absl::Status InPiece(const absl::Status& s, size_t piece_offset) {
  if (s.ok() || piece_offset == 0) return s;
  return absl::Status(
      s.code(), absl::StrCat(s.message(), " (byte offsets from the start of the part", " at byte ",
                             piece_offset, " of the input)"));
}

}  // namespace internal
}  // namespace pbaccel
