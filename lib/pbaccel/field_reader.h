// Copyright 2026 The pbaccel Authors.
//
// field_reader.h: a zero-copy reader over a serialized message's top-level fields, field skipping
// for every wire type (groups included), and FindField.
//
// The reader interprets the wire format only: it does not know the message's schema, so it accepts
// and rejects exactly what upstream protobuf accepts and rejects when parsing the bytes into a
// message that declares no fields (everything becomes unknown fields), e.g. google.protobuf.Empty:
//   * a tag is a varint of at most 5 bytes whose low 32 bits are kept (upstream drops the rest);
//     field number 0 or wire type 6/7 is an error (numbers above 2^29 - 1 cannot be encoded);
//   * varint values have at most 10 bytes; fixed32/fixed64 need their 4/8 bytes;
//   * a length must fit in the rest of the input (and below 2^31);
//   * a group ends with an end-group tag of the same number; groups nest at most 100 deep
//   (upstream's
//     default recursion limit); an end-group tag outside any group is an error.
// Errors are absl::Status kInvalidArgument naming the problem and its byte offset.

#ifndef PBACCEL_FIELD_READER_H_
#define PBACCEL_FIELD_READER_H_

#include "pbaccel/internal/requires_cxx17.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/wire_type.h"  // IWYU pragma: export

namespace pbaccel {

// One field, viewing into the message bytes (valid while they are).
struct Field {
  // `number` and `wire_type` are not neighbours on purpose: with them adjacent, GCC 12 folds the
  // usual `f.number == N && f.wire_type == WireType::kLengthDelimited` into one 8-byte load of
  // the Field, which then has to live on the stack, and that load cannot be forwarded from the
  // 4- and 1-byte stores Next() makes: every field waited for them (a walk over OSM ways with
  // that test took 2.5x as long). Apart, both stay in registers.
  uint32_t number = 0;
  uint64_t varint = 0;  // kVarint: the value.
  WireType wire_type = WireType::kVarint;
  absl::string_view data;  // kFixed32/kFixed64: the 4/8 bytes. kLengthDelimited: the payload.
                           // kStartGroup: the group's body, between its start and end tags.
  absl::string_view raw;   // The whole field: tag, value, and for groups the end tag.
  size_t offset = 0;       // Of the tag, in the bytes given to the reader.

  uint32_t fixed32() const {
    uint32_t v = 0;
    std::memcpy(&v, data.data(), data.size() < 4 ? data.size() : 4);
    return v;
  }
  uint64_t fixed64() const {
    uint64_t v = 0;
    std::memcpy(&v, data.data(), data.size() < 8 ? data.size() : 8);
    return v;
  }
};
static_assert(offsetof(Field, wire_type) >= offsetof(Field, number) + 8,
              "Field: keep number and wire_type apart (see above)");

namespace internal {
// The Field view of a non-group field the wire reader read, `next` being the byte after it (the
// caller sets field->offset).
inline void FillField(const WireField& f, const char* next, Field* field) {
  field->number = f.number;
  field->wire_type = f.wire_type;
  field->varint = f.wire_type == WireType::kVarint ? f.varint : 0;
  field->data = f.wire_type == WireType::kVarint
                    ? absl::string_view()
                    : absl::string_view(f.payload, static_cast<size_t>(next - f.payload));
  field->raw = absl::string_view(f.tag, static_cast<size_t>(next - f.tag));
}

// ReadField (wire_reader.h), plus a group's body and end tag (SkipField's rules, below): returns
// the byte after the whole field. Returns nullptr with *error set for a wire error in the tag or
// value, and nullptr with *error == kNone for an end-group tag (no group is open here) or a group
// that is malformed or does not close before `end`. REQUIRES: p < end.
inline const char* ReadWholeField(const char* p, const char* end, WireField* field,
                                  WireError* error);

// The byte after the body and end tag of group `number`, whose start tag ends at p (SkipField's
// rules, `depth` levels already open), or nullptr. Out of line: groups are rare, and its StatusOr
// inlined into ReadWholeField's callers would enlarge frames that sit on top of every nesting
// level.
const char* SkipGroupBody(const char* p, const char* end, uint32_t number, int depth = 0);
}  // namespace internal

// Reads fields one by one:
//
//   pbaccel::FieldReader reader(bytes);
//   pbaccel::Field f;
//   while (reader.Next(&f)) { ... }
//   if (!reader.status().ok()) { ... malformed ... }
class FieldReader {
 public:
  explicit FieldReader(absl::string_view message)
      : begin_(message.data()), next_(begin_), end_(begin_ + message.size()) {}

  // Reads the next field into *field. Returns false at the end of the input or on an error (then
  // status() is not OK and stays so). Fields other than groups are read inline (the wire reader);
  // groups and errors take the out-of-line path.
  //
  // Always inlined, with the wire reader, and written so that neither the reader's nor *field's
  // address escapes (the out-of-line path fills locals that are copied back): the caller's loop
  // then keeps the position, the field's number, wire type and payload in registers. Out of line,
  // or with `this` passed to the slow path, each field's tests waited for stores and reloads
  // through the stack (docs/kernels.md, "FieldReader: inlined all the way, or not at all").
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool Next(Field* field) {
    if (next_ >= end_) return false;  // An error pulls end_ back to the malformed field.
    internal::WireField f;
    internal::WireError error;
    const char* after = internal::ReadField(next_, end_, &f, &error);
    if (ABSL_PREDICT_FALSE(after == nullptr || f.wire_type == WireType::kStartGroup ||
                           f.wire_type == WireType::kEndGroup)) {
      Field whole;
      absl::Status status;
      after = NextSlow(begin_, next_, end_, &whole, &status);
      if (after == nullptr) {
        end_ = next_;
        status_ = std::move(status);
        return false;
      }
      *field = whole;
    } else {
      internal::FillField(f, after, field);
      field->offset = static_cast<size_t>(next_ - begin_);
    }
    next_ = after;
    return true;
  }

  const absl::Status& status() const { return status_; }
  // Offset of the next field (after an error: of the malformed field).
  size_t position() const { return static_cast<size_t>(next_ - begin_); }

 private:
  // Next() for groups (their bodies skipped with upstream's rules) and errors: reads the field at
  // p in [origin, end) into *field and returns the byte after it, or nullptr with *status set.
  static const char* NextSlow(const char* origin, const char* p, const char* end, Field* field,
                              absl::Status* status);

  const char* begin_;
  const char* next_;
  const char* end_;
  absl::Status status_;
};

// The bytes taken by the value of a field whose tag is `tag` (already read), starting at
// data[0]: its varint, fixed bytes, length and payload, or its group body and end tag.
// `depth` counts the groups already open (upstream's limit is 100).
absl::StatusOr<size_t> SkipField(absl::string_view data, uint32_t tag, int depth = 0);

// Every top-level occurrence of field `number`, in order, reading nothing else than the tags and
// lengths needed to step over the other fields. Validates the whole message's wire structure (the
// result is only returned for bytes upstream would accept, as described above).
absl::StatusOr<std::vector<Field>> FindField(absl::string_view message, uint32_t number);

namespace internal {
inline const char* ReadWholeField(const char* p, const char* end, WireField* field,
                                  WireError* error) {
  *error = WireError::kNone;
  const char* next = ReadField(p, end, field, error);
  if (next == nullptr || field->wire_type < WireType::kStartGroup ||
      field->wire_type > WireType::kEndGroup) {
    return next;
  }
  if (field->wire_type == WireType::kEndGroup) return nullptr;
  return SkipGroupBody(next, end, field->number);
}
}  // namespace internal

}  // namespace pbaccel

#endif  // PBACCEL_FIELD_READER_H_
