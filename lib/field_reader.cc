// Copyright 2026 The pbaccel Authors.

#include "pbaccel/field_reader.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "pbaccel/internal/wire.h"

namespace pbaccel {
namespace {

constexpr int kMaxGroupDepth = 100;  // Upstream's default recursion limit.

// Reads a varint of at most max_bytes at data[*pos]; advances *pos. False if longer or truncated.
bool ReadVarint(absl::string_view data, size_t* pos, int max_bytes, uint64_t* value) {
  const char* next = internal::ReadVarint(data.data() + *pos, data.data() + data.size(), max_bytes, value);
  if (next == nullptr) return false;
  *pos = static_cast<size_t>(next - data.data());
  return true;
}

absl::Status Error(absl::string_view what, size_t offset) {
  return absl::InvalidArgumentError(absl::StrCat(what, " at byte offset ", offset));
}

// Reads a tag at data[*pos]: a valid field number and wire type, or an error.
absl::StatusOr<uint32_t> ReadTag(absl::string_view data, size_t* pos, size_t base) {
  const size_t at = *pos;
  uint64_t tag;
  // At most 5 bytes; like upstream (ReadTag), bits past 32 in the fifth byte are dropped.
  if (!ReadVarint(data, pos, 5, &tag)) return Error("malformed tag", base + at);
  tag &= UINT32_MAX;
  if ((tag >> 3) == 0) return Error("field number 0", base + at);
  if ((tag & 7) > 5) return Error(absl::StrCat("invalid wire type ", tag & 7), base + at);
  return static_cast<uint32_t>(tag);
}

// Skips a field's value; `base` is data's offset in the reader's input, for error messages. For a
// group, *body_end (if given) receives the offset of its end tag.
absl::StatusOr<size_t> SkipValue(absl::string_view data, uint32_t tag, int depth, size_t base,
                                 size_t* body_end = nullptr) {
  size_t pos = 0;
  uint64_t v;
  switch (static_cast<WireType>(tag & 7)) {
    case WireType::kVarint:
      if (!ReadVarint(data, &pos, 10, &v)) return Error("malformed varint", base);
      return pos;
    case WireType::kFixed64:
      if (data.size() < 8) return Error("truncated fixed64", base);
      return size_t{8};
    case WireType::kFixed32:
      if (data.size() < 4) return Error("truncated fixed32", base);
      return size_t{4};
    case WireType::kLengthDelimited:
      if (!ReadVarint(data, &pos, 5, &v) || v > static_cast<uint64_t>(INT_MAX)) {
        return Error("malformed length", base);
      }
      if (v > data.size() - pos) return Error("length past the end of the input", base);
      return pos + v;
    case WireType::kStartGroup: {
      if (depth >= kMaxGroupDepth) return Error("groups nested deeper than 100", base);
      while (true) {
        if (pos >= data.size()) return Error("unterminated group", base);
        const size_t at = pos;
        absl::StatusOr<uint32_t> inner = ReadTag(data, &pos, base);
        if (!inner.ok()) return inner.status();
        if ((*inner & 7) == static_cast<uint32_t>(WireType::kEndGroup)) {
          if ((*inner >> 3) != (tag >> 3)) return Error("mismatched end-group tag", base + at);
          if (body_end != nullptr) *body_end = at;
          return pos;
        }
        absl::StatusOr<size_t> n = SkipValue(data.substr(pos), *inner, depth + 1, base + pos);
        if (!n.ok()) return n.status();
        pos += *n;
      }
    }
    case WireType::kEndGroup:
      return Error("end-group tag outside a group", base);
  }
  return Error("invalid wire type", base);
}

}  // namespace

absl::StatusOr<size_t> SkipField(absl::string_view data, uint32_t tag, int depth) {
  return SkipValue(data, tag, depth, 0);
}

bool FieldReader::Next(Field* field) {
  if (!status_.ok() || pos_ >= bytes_.size()) return false;
  const size_t start = pos_;
  absl::StatusOr<uint32_t> tag = ReadTag(bytes_, &pos_, 0);
  if (!tag.ok()) {
    status_ = tag.status();
    return false;
  }
  const size_t value_start = pos_;
  size_t body_end = 0;
  absl::StatusOr<size_t> n = SkipValue(bytes_.substr(value_start), *tag, 0, value_start, &body_end);
  if (!n.ok()) {
    status_ = n.status();
    return false;
  }
  pos_ = value_start + *n;
  field->number = *tag >> 3;
  field->wire_type = static_cast<WireType>(*tag & 7);
  field->offset = start;
  field->raw = bytes_.substr(start, pos_ - start);
  field->varint = 0;
  field->data = absl::string_view();
  const absl::string_view value = bytes_.substr(value_start, *n);
  size_t p = 0;
  uint64_t v = 0;
  switch (field->wire_type) {
    case WireType::kVarint:
      ReadVarint(value, &p, 10, &v);
      field->varint = v;
      break;
    case WireType::kFixed32:
    case WireType::kFixed64:
      field->data = value;
      break;
    case WireType::kLengthDelimited:
      ReadVarint(value, &p, 5, &v);
      field->data = value.substr(p);
      break;
    case WireType::kStartGroup:
      field->data = value.substr(0, body_end);
      break;
    case WireType::kEndGroup:
      break;
  }
  return true;
}

absl::StatusOr<std::vector<Field>> FindField(absl::string_view message, uint32_t number) {
  // A tight loop over raw pointers for the common wire types; groups, errors and the matches go
  // through the general reader (the same validation, so the same accept/reject decision).
  std::vector<Field> found;
  const char* const begin = message.data();
  const char* const end = begin + message.size();
  const char* p = begin;
  while (p < end) {
    const char* const field_start = p;
    uint64_t tag;
    if (static_cast<uint8_t>(*p) < 0x80) {
      tag = static_cast<uint8_t>(*p++);
    } else {
      size_t pos = static_cast<size_t>(p - begin);
      if (!ReadVarint(message, &pos, 5, &tag)) break;  // The general reader reports it.
      tag &= UINT32_MAX;
      p = begin + pos;
    }
    const uint32_t field = static_cast<uint32_t>(tag >> 3);
    const uint32_t wire = static_cast<uint32_t>(tag & 7);
    if (field == 0 || field == number || wire == 3 || wire > 5) {
      // Matches, groups and errors: the general reader, from this field.
      FieldReader reader(message.substr(static_cast<size_t>(field_start - begin)));
      Field f;
      if (!reader.Next(&f)) {
        return absl::Status(reader.status().code(),
                            absl::StrCat(reader.status().message(), " (field at byte offset ",
                                         field_start - begin, ")"));
      }
      f.offset += static_cast<size_t>(field_start - begin);
      if (f.number == number) found.push_back(f);
      p = field_start + f.raw.size();
      continue;
    }
    size_t pos = static_cast<size_t>(p - begin);
    uint64_t v;
    switch (wire) {
      case 0:
        if (p < end && static_cast<uint8_t>(*p) < 0x80) {
          ++p;
          continue;
        }
        if (!ReadVarint(message, &pos, 10, &v)) return Error("malformed varint", pos);
        p = begin + pos;
        continue;
      case 1:
        if (end - p < 8) return Error("truncated fixed64", static_cast<size_t>(p - begin));
        p += 8;
        continue;
      case 5:
        if (end - p < 4) return Error("truncated fixed32", static_cast<size_t>(p - begin));
        p += 4;
        continue;
      case 2:
        if (p < end && static_cast<uint8_t>(*p) < 0x80) {  // One-byte length.
          v = static_cast<uint8_t>(*p);
          if (v > static_cast<uint64_t>(end - p - 1)) {
            return Error("length past the end of the input", static_cast<size_t>(p - begin));
          }
          p += 1 + v;
          continue;
        }
        if (!ReadVarint(message, &pos, 5, &v) || v > static_cast<uint64_t>(INT_MAX)) {
          return Error("malformed length", static_cast<size_t>(p - begin));
        }
        if (v > message.size() - pos) return Error("length past the end of the input", static_cast<size_t>(p - begin));
        p = begin + pos + v;
        continue;
      default:  // 4: end group outside a group.
        return Error("end-group tag outside a group", static_cast<size_t>(field_start - begin));
    }
  }
  if (p < end) {
    // A malformed tag: let the general reader name it.
    FieldReader reader(message.substr(static_cast<size_t>(p - begin)));
    Field f;
    reader.Next(&f);
    return absl::Status(reader.status().code(),
                        absl::StrCat(reader.status().message(), " (field at byte offset ", p - begin, ")"));
  }
  return found;
}

}  // namespace pbaccel
