// Copyright 2026 The pbaccel Authors.

#include "pbaccel/field_reader.h"

#include "absl/strings/str_cat.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {
namespace {

using internal::ReadField;
using internal::WireError;
using internal::WireField;

constexpr int kMaxGroupDepth = 100;  // Upstream's default recursion limit.

absl::Status Error(absl::string_view what, size_t offset) {
  return absl::InvalidArgumentError(absl::StrCat(what, " at byte offset ", offset));
}

// The error ReadField reported for `field`, at the tag (tag errors) or the value; `origin` is the
// first byte of the caller's input, for the offset.
absl::Status FieldError(const WireField& field, WireError error, const char* origin) {
  const char* at = internal::IsTagError(error) ? field.tag : field.value;
  return Error(internal::WireErrorText(error), static_cast<size_t>(at - origin));
}

// Skips a group's body and end tag, from `p` (just after the start-group tag of field `number`) in
// [p, end); `depth` groups are already open. Returns the byte after the end tag; *body_end (if
// given) receives the end tag's first byte.
absl::StatusOr<const char*> SkipGroup(const char* p, const char* end, uint32_t number, int depth,
                                      const char* origin, const char** body_end = nullptr) {
  const char* const body = p;
  if (depth >= kMaxGroupDepth)
    return Error("groups nested deeper than 100", static_cast<size_t>(body - origin));
  WireField inner;
  WireError error;
  while (true) {
    if (p >= end) return Error("unterminated group", static_cast<size_t>(body - origin));
    const char* next = ReadField(p, end, &inner, &error);
    if (next == nullptr) return FieldError(inner, error, origin);
    if (inner.wire_type == WireType::kEndGroup) {
      if (inner.number != number)
        return Error("mismatched end-group tag", static_cast<size_t>(p - origin));
      if (body_end != nullptr) *body_end = p;
      return next;
    }
    if (inner.wire_type == WireType::kStartGroup) {
      absl::StatusOr<const char*> after = SkipGroup(next, end, inner.number, depth + 1, origin);
      if (!after.ok()) return after.status();
      next = *after;
    }
    p = next;
  }
}

// internal::ReadWholeField (field_reader.h) with its errors put into words, for the readers that
// report them: reads the field at `p` in [p, end), groups included (body skipped with upstream's
// rules); an end-group tag outside a group is an error. Returns the byte after the field;
// *body_end (if given) receives a group's end tag.
absl::StatusOr<const char*> ReadWholeFieldOrError(const char* p, const char* end, WireField* field,
                                                  const char* origin,
                                                  const char** body_end = nullptr) {
  WireError error;
  const char* next = ReadField(p, end, field, &error);
  if (next == nullptr) return FieldError(*field, error, origin);
  if (field->wire_type == WireType::kStartGroup) {
    return SkipGroup(next, end, field->number, 0, origin, body_end);
  }
  if (field->wire_type == WireType::kEndGroup) {
    return Error("end-group tag outside a group", static_cast<size_t>(field->tag - origin));
  }
  return next;
}

}  // namespace

namespace internal {
const char* SkipGroupBody(const char* p, const char* end, uint32_t number, int depth) {
  const absl::StatusOr<size_t> body =
      SkipField(absl::string_view(p, static_cast<size_t>(end - p)), (number << 3) | 3, depth);
  return body.ok() ? p + *body : nullptr;
}
}  // namespace internal

absl::StatusOr<size_t> SkipField(absl::string_view data, uint32_t tag, int depth) {
  const char* const begin = data.data();
  const char* const end = begin + data.size();
  WireField field;
  field.tag = begin;
  field.number = tag >> 3;
  field.wire_type = static_cast<WireType>(tag & 7);
  const char* after = nullptr;
  switch (field.wire_type) {
    case WireType::kStartGroup: {
      absl::StatusOr<const char*> group = SkipGroup(begin, end, field.number, depth, begin);
      if (!group.ok()) return group.status();
      after = *group;
      break;
    }
    case WireType::kEndGroup: return Error("end-group tag outside a group", 0);
    case WireType::kVarint:
    case WireType::kFixed64:
    case WireType::kLengthDelimited:
    case WireType::kFixed32: {
      WireError error;
      after = internal::ReadValue(begin, end, &field, &error);
      if (after == nullptr) return Error(internal::WireErrorText(error), 0);
      break;
    }
    default: return Error("invalid wire type", 0);
  }
  return static_cast<size_t>(after - begin);
}

const char* FieldReader::NextSlow(const char* origin, const char* p, const char* end, Field* field,
                                  absl::Status* status) {
  WireField f;
  const char* body_end = nullptr;
  absl::StatusOr<const char*> next = ReadWholeFieldOrError(p, end, &f, origin, &body_end);
  if (!next.ok()) {
    *status = next.status();
    return nullptr;
  }
  field->number = f.number;
  field->wire_type = f.wire_type;
  field->offset = static_cast<size_t>(p - origin);
  field->raw = absl::string_view(f.tag, static_cast<size_t>(*next - f.tag));
  field->varint = f.wire_type == WireType::kVarint ? f.varint : 0;
  switch (f.wire_type) {
    case WireType::kFixed32:
    case WireType::kFixed64:
      field->data = absl::string_view(f.value, static_cast<size_t>(f.end - f.value));
      break;
    case WireType::kLengthDelimited:
      field->data = absl::string_view(f.payload, static_cast<size_t>(f.varint));
      break;
    case WireType::kStartGroup:
      field->data = absl::string_view(f.value, static_cast<size_t>(body_end - f.value));
      break;
    default: field->data = absl::string_view(); break;
  }
  return *next;
}

absl::StatusOr<std::vector<Field>> FindField(absl::string_view message, uint32_t number) {
  // The walker over raw pointers for every field; groups go through the reader (their bodies are
  // skipped with upstream's rules), errors are named as the reader names them.
  std::vector<Field> found;
  const char* const begin = message.data();
  const char* const end = begin + message.size();
  const char* p = begin;
  WireField f;
  WireError error;
  while (p < end) {
    const char* next = ReadField(p, end, &f, &error);
    if (next == nullptr) return FieldError(f, error, begin);
    if (f.number == number && f.wire_type != WireType::kStartGroup &&
        f.wire_type != WireType::kEndGroup) {
      Field field;
      internal::FillField(f, next, &field);
      field.offset = static_cast<size_t>(p - begin);
      found.push_back(field);
    } else if (f.wire_type == WireType::kStartGroup || f.wire_type == WireType::kEndGroup) {
      const char* body_end = nullptr;
      absl::StatusOr<const char*> after = ReadWholeFieldOrError(p, end, &f, begin, &body_end);
      if (!after.ok()) return after.status();
      if (f.number == number) {
        Field field;
        field.number = f.number;
        field.wire_type = f.wire_type;
        field.data = absl::string_view(f.value, static_cast<size_t>(body_end - f.value));
        field.raw = absl::string_view(p, static_cast<size_t>(*after - p));
        field.offset = static_cast<size_t>(p - begin);
        found.push_back(field);
      }
      next = *after;
    }
    p = next;
  }
  return found;
}

}  // namespace pbaccel
