// Copyright 2026 The pbaccel Authors.
//
// columnar_decode.h: one record into the open row of a column tree (columnar_columns.h), with
// upstream's parser's semantics (pbaccel/columnar.h lists them). Fields are read by the one wire
// reader (wire_reader.h); packed varint payloads go to the active kernel, straight into the
// column's values buffer (the span decoders of packed_varint.h: the bounded tiny decoder inline,
// longer payloads out of line), fixed-width ones are copied.

#ifndef PBACCEL_INTERNAL_COLUMNAR_DECODE_H_
#define PBACCEL_INTERNAL_COLUMNAR_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/dynamic_message.h"
#include "pbaccel/internal/columnar_columns.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {
namespace internal {
namespace columnar {

// The fields this thread's RecordDecoders read by their general path (the wire reader, the
// slot, its checks) rather than the one-byte-tag path (FastTag), added as each decoder is
// destroyed: for tests, which prove with it which path a field took.
uint64_t& GeneralPathFieldsForTesting();

class RecordDecoder {
 public:
  RecordDecoder() = default;
  ~RecordDecoder() { GeneralPathFieldsForTesting() += general_fields_; }
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;

  // Decodes `record` as row `r` of `root` (the record's struct Column): opens the row, decodes,
  // checks required fields, closes it. Returns false if the record is one upstream rejects; then
  // error() says why and the row is left open and partly written (TruncateElements(root, r)
  // drops it).
  bool Decode(Column& root, size_t r, absl::string_view record);

  // "malformed varint in OSMPBF.Way.id (field 1) at byte 1234" (of the record).
  const std::string& error() const { return error_; }

 private:
  // The fields of one message in [p, end) into struct row `e` of `s` (`group`: the number whose
  // end-group tag ends them, or 0); *after is where they ended.
  bool DecodeFields(Column& s, size_t e, const char* p, const char* end, uint32_t group, int depth,
                    const char** after);
  // A field that is in a oneof, required, unselected or a closed enum's unknown value: what that
  // asks, then Apply.
  bool DecodeField(Column& s, size_t e, const FieldSlot& slot, const WireField& f, const char* end,
                   int depth, const char** next);
  // What the slot's action does with `f` (its column is selected).
  bool Apply(Column& s, size_t e, const FieldSlot& slot, const WireField& f, const char* end,
             int depth, const char** next);
  // A packed run of varint or fixed values, the n bytes at `payload`, appended to list column c.
  bool DecodePacked(Column& c, const char* payload, size_t n);
  bool DecodeLongPacked(Column& c, const char* payload, size_t n);
  bool DecodeMessage(Column& s, Column& c, size_t e, const WireField& f, const char* end, int depth,
                     const char** next);
  bool DecodeElement(Column& c, const char* body, const char* body_end, uint32_t group, int depth,
                     const char** after);
  bool DecodeSerialized(Column& s, Column& c, size_t e, const WireField& f, const char* end,
                        int depth, const char** next);
  bool DecodeMapEntry(Column& c, const WireField& f, int depth);
  bool CheckSerialized(const Column& c, absl::string_view bytes, int depth);
  // Known extension `f` of struct row `e` of `s` (its bytes from its tag to `field_end`), at
  // nesting `depth`: parsed by upstream into the row's extension message (extension_messages_),
  // as upstream's parse of the record would.
  bool CheckExtension(const Column& s, size_t e, const WireField& f, const char* field_end,
                      int depth);
  // Past a group's body and end-group tag (SkipGroupBody, field_reader.h) when `f` starts a
  // group (*next: the byte after its tag, as the wire reader leaves it); any other field is
  // already whole.
  bool PastGroupBody(const Column& s, const WireField& f, const char* end, int depth,
                     const char** next);
  bool CheckRequired(const Column& s, size_t e);
  void ClearOneof(Column& s, size_t e, int oneof, const Column* keep);
  // Upstream's prototype of `type` (generated, or from factory_).
  const google::protobuf::Message& Prototype(const google::protobuf::Descriptor* type);
  // Drops the extension messages of `c`'s rows and of every column below it.
  void ForgetExtensions(const Column& c);

  bool Fail(const char* at, const std::string& what);
  bool FailAt(const char* at, const char* what, const Column& s, uint32_t number);

  const char* record_begin_ = nullptr;
  const char* record_end_ = nullptr;
  const KernelDescriptor* kernel_ = nullptr;     // The active kernel, fetched once per record.
  const int budget_ = DefaultRecursionBudget();  // Upstream's nesting limit.
  std::string error_;
  // Map entries dropped on the record's second pass: each replaced by a later one with its key.
  absl::flat_hash_set<const char*> replaced_entries_;
  bool second_pass_ = false;
  bool has_replaced_entries_ = false;
  bool dropped_entry_ = false;   // A closed enum's unknown value in the entry being decoded.
  uint64_t general_fields_ = 0;  // GeneralPathFieldsForTesting's share.
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory_;  // Serialized columns.
  // This record's known extensions, per struct row (column, element): each row's occurrences
  // merged into one message of the row's type, as upstream merges them, so that closing the row
  // can check the message-typed ones initialized. Empty unless the record holds one.
  absl::flat_hash_map<std::pair<const Column*, size_t>, std::unique_ptr<google::protobuf::Message>>
      extension_messages_;
};

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_COLUMNAR_DECODE_H_
