// Copyright 2026 The pbaccel Authors.
//
// columnar_columns.h: the column tree of pbaccel::DecodeToArrow (pbaccel/columnar.h): one Column
// per selected field, built from a Descriptor and the options' selection, holding both what the
// decoder needs to know about the field and the buffers its values go into.
//
// Rows. A field's column has one row per row of its parent (a record, or a struct row: a present
// or absent singular submessage, or one element of a repeated one). Every Column has at most one
// open row at a time, the parent's open row, whose index the parent passes down. A struct row
// opens and closes its children's rows by its programs (OpenStructElement, CloseStructElement):
//   * opening starts the children's rows: a singular scalar's value slot holds its zero (and,
//     with presence, validity 0), a singular struct is absent with its own children's rows open;
//   * the decoder then sets, appends to and merges into the open rows (columnar_decode.h);
//   * closing ends them: list and string end offsets are pushed, struct children closed.
// TruncateRows(r) drops row r (open or closed) and every row after it, with all the elements and
// bytes they hold, in this column and below it: it undoes a record (OnBadRecord::kNull) or a
// oneof's other member (a message member set again after another starts afresh), whose row
// OpenRow then opens again.
//
// Buffers grow geometrically (power-of-two blocks, columnar_memory.h) and are handed to the
// exported ArrowArray as they are (columnar_export.h), so their layout is Arrow's: values and
// offsets in place; validity and bools one byte per row, packed to bits on export.

#ifndef PBACCEL_INTERNAL_COLUMNAR_COLUMNS_H_
#define PBACCEL_INTERNAL_COLUMNAR_COLUMNS_H_

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "pbaccel/columnar.h"
#include "pbaccel/internal/columnar_memory.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {
namespace columnar {

// A growable byte buffer whose storage (a Block, columnar_memory.h) can be released to an
// exported array.
class Buffer {
 public:
  Buffer() = default;
  ~Buffer() { FreeBlock({data_, capacity_}); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  size_t bytes() const { return size_; }
  template <typename T>
  size_t size() const {
    return size_ / sizeof(T);
  }
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(data_);
  }
  template <typename T>
  T& at(size_t i) const {
    return reinterpret_cast<T*>(data_)[i];
  }
  template <typename T>
  T back() const {
    T v;
    std::memcpy(&v, data_ + size_ - sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void Push(T v) {
    if (ABSL_PREDICT_FALSE(capacity_ - size_ < sizeof(T))) Grow(sizeof(T));
    std::memcpy(data_ + size_, &v, sizeof(T));
    size_ += sizeof(T);
  }
  void Append(const void* p, size_t n) {
    if (ABSL_PREDICT_FALSE(capacity_ - size_ < n)) Grow(n);
    if (n != 0) std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  // Push() into room an earlier Reserve() made. REQUIRES: room for sizeof(T) more bytes.
  template <typename T>
  void PushReserved(T v) {
    assert(capacity_ - size_ >= sizeof(T));
    std::memcpy(data_ + size_, &v, sizeof(T));
    size_ += sizeof(T);
  }
  // The first byte past the values: room an earlier Reserve() made.
  char* end() const { return data_ + size_; }
  // Room for `n` more bytes, at the returned address; Commit() takes the ones written.
  char* Reserve(size_t n) {
    if (ABSL_PREDICT_FALSE(capacity_ - size_ < n)) Grow(n);
    return data_ + size_;
  }
  void Commit(size_t n) { size_ += n; }
  // Makes the capacity at least `n` bytes (a first allocation of the expected size).
  void ReserveTotal(size_t n) {
    if (n > capacity_) Grow(n - size_);
  }
  // REQUIRES: n <= bytes().
  void Truncate(size_t n) { size_ = n; }

  // The storage, a block even when empty (exported buffers are never NULL), which the caller
  // frees with FreeBlock; the buffer is empty afterwards.
  Block Release();

 private:
  void Grow(size_t extra);

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// The Arrow type of a column's values.
enum class ValueType : uint8_t {
  kBool,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat,
  kDouble,
  kUtf8,
  kBinary,
  kStruct,  // A submessage (or a record).
  kMap,     // map<key, value>: repeated, its elements the entries (children: key, value).
};

// How a varint or fixed value on the wire becomes the column's value (the varint ones first).
enum class Conversion : uint8_t {
  kVarint32,  // int32, uint32, enum: the low 32 bits.
  kVarint64,  // int64, uint64.
  kZigZag32,
  kZigZag64,
  kBool,     // Any non-zero varint is true.
  kFixed32,  // fixed32, sfixed32, float: four bytes.
  kFixed64,  // fixed64, sfixed64, double: eight bytes.
  kNone,     // Length-delimited or group values.
};

struct Column;

// What the decoder does with a field of a struct Column's type.
enum class Action : uint8_t {
  kSkip,         // Not selected: skipped (a group with its body).
  kScalar,       // A singular number or bool: set (the last occurrence wins).
  kScalarList,   // A repeated one: appended, one value or a packed run.
  kBytes,        // A singular string or bytes: set.
  kBytesList,    // A repeated one: appended.
  kSerialized,   // A recursive message kept as bytes: appended (occurrences concatenate).
  kMessage,      // A singular submessage: merged into its struct row.
  kMessageList,  // A repeated one: a new struct element.
  kMap,          // A map entry: a new entry, one per key.
  kExtension,    // A known extension (never a column): checked as upstream's parse checks it.
};

inline constexpr uint8_t kNoField = 0xFF;

// What a field number means to a struct Column (its decoder's lookup).
struct FieldSlot {
  Column* column = nullptr;  // The selected field's column, or nullptr.
  Action action = Action::kSkip;
  // Expected wire type (WireType; packable fields take 2 too); kNoField for a number the type
  // does not declare, which no wire type matches.
  uint8_t wire_type = kNoField;
  bool packable = false;  // Repeated scalar: also accepts a packed record.
  // Set when the field is in no oneof, not required and not a recursive message: the decoder's
  // inline path takes it.
  bool plain = false;
  bool closed_enum = false;   // A closed enum: an unknown value leaves the field as it was.
  int16_t oneof = -1;         // The field's oneof among the struct's oneofs, or -1.
  int16_t required_bit = -1;  // Index into the required bits, or -1: not required.
  // Every field of the type has a slot: an unselected one can still unset a oneof or set a
  // required field.
  const google::protobuf::FieldDescriptor* field = nullptr;
};

// What the decoder's one-byte-tag path (columnar_decode.cc) does with a tag byte: the commonest
// fields, read without the general wire reader, slot lookup and checks. A field in no oneof, not
// required (FieldSlot::plain), of the tag's own wire type; anything else is kGeneral. The path
// never decides an error: a value it cannot read (a long or malformed varint or length, a
// submessage at the nesting limit) goes to the general path, from the tag.
enum class FastTag : uint8_t {
  kGeneral = 0,  // The general path.
  kVarint,       // A singular varint scalar (no closed enum): set, as kScalar does.
  kClosedEnum,   // A singular closed enum: set if the enum defines the value, else left.
  kPacked,       // A repeated varint scalar's packed run: to the kernel, as kScalarList does.
  kMessageList,  // A repeated submessage (not a group): a new struct element.
  kSkipLength,   // A length-delimited field not selected: skipped.
};

struct Column {
  // --- The values (hot: first, with what the decoder reads for each value) ---
  Buffer values;          // Scalars: one per element. kUtf8/kBinary: int32 offsets, elements + 1.
  Buffer validity_bytes;  // One byte per row (0 null, 1 valid), when `validity`.
  Buffer list_offsets;    // int32, rows + 1, when `repeated`.
  Buffer data;            // kUtf8/kBinary: the bytes.
  size_t struct_elements = 0;  // kStruct, kMap: struct rows (entries) opened so far.
  // kStruct, kMap: the row programs' buffers have room for the rows below this (ReserveRows).
  size_t rows_reserved = 0;

  // --- What the field is ---
  ValueType type = ValueType::kStruct;
  Conversion conversion = Conversion::kNone;
  VarintFormat format = VarintFormat::kUInt64;  // Packed varints' kernel format.
  uint8_t value_bytes = 0;                      // Size of one scalar value in `values`.
  uint8_t value_shift = 0;                      // log2(value_bytes).
  bool repeated = false;     // list<...> (or map): row i's elements are list_offsets[i, i+1).
  bool validity = false;     // A validity byte per row (presence, or OnBadRecord::kNull).
  uint8_t opened_valid = 1;  // The validity byte a row opens with: 0 for presence (absent).
  bool closed_enum = false;
  bool check_utf8 = false;
  bool group = false;       // Encoded as a group (start/end tags) instead of length-delimited.
  bool serialized = false;  // A recursive message kept as its bytes (binary).
  bool delta = false;       // ColumnarOptions::delta_fields: lists become running sums.
  // Whether closing a struct row checks required fields: its own, its message-typed extensions'
  // (message_extensions) or a singular submessage's.
  bool checks_required = false;
  bool message_extensions = false;  // The type has known extensions of message type.
  int required_count = 0;
  // kStruct and kMap (key, value): field numbers to slots, and the children.
  std::vector<FieldSlot> dense_slots;    // By field number, below its size.
  std::array<FastTag, 128> fast_tags{};  // By one-byte tag (FastTags computes them).
  std::vector<std::unique_ptr<Column>> children;
  // kStruct and kMap: what opening and closing a struct row does to the children, by kind
  // (RowPrograms computes them): singular scalars with presence (a null and a zero), other rows
  // with a validity byte, other singular scalars (a zero), singular structs (opened in turn), maps
  // (their keys forgotten); lists of scalars (their end offset, from their values' size), other
  // lists (their end offset), singular strings (their end offset), singular structs (closed in
  // turn).
  std::vector<Column*> opens_validity, opens_valid_scalar, opens_scalar, opens_struct, opens_map;
  std::vector<Column*> closes_value_list, closes_list, closes_string, closes_struct;

  // --- Cold ---
  std::string name;  // The proto field's name ("" for records).
  const google::protobuf::FieldDescriptor* field = nullptr;    // nullptr for the record itself.
  const google::protobuf::Descriptor* message_type = nullptr;  // kStruct, kMap and serialized.
  absl::flat_hash_map<uint32_t, FieldSlot> sparse_slots;
  std::vector<std::vector<Column*>> oneof_members;  // Per oneof of the type: its selected members.
  // Closed enums: the values the enum defines (a range when they are contiguous).
  int32_t enum_min = 0;
  int32_t enum_max = -1;
  bool enum_contiguous = true;
  absl::flat_hash_set<int32_t> enum_values;
  // The open row's state: the required fields seen (kStruct), the map's keys so far (kMap).
  std::vector<uint64_t> required_seen;
  absl::flat_hash_map<std::string, const char*> map_keys;

  bool IsEnumValue(int32_t v) const {
    if (enum_contiguous) return v >= enum_min && v <= enum_max;
    return enum_values.contains(v);
  }
  ABSL_ATTRIBUTE_ALWAYS_INLINE const FieldSlot* Slot(uint32_t number) const {
    if (ABSL_PREDICT_TRUE(number < dense_slots.size())) return &dense_slots[number];
    return SparseSlot(number);
  }
  const FieldSlot* SparseSlot(uint32_t number) const;
  // Elements: the rows of the element layer (scalars, strings or struct rows).
  size_t ElementCount() const {
    switch (type) {
      case ValueType::kStruct:
      case ValueType::kMap: return struct_elements;
      case ValueType::kUtf8:
      case ValueType::kBinary: return values.size<int32_t>() - 1;
      default: return values.bytes() >> value_shift;
    }
  }
};

// The column tree of `type` for `options` (the root is a kStruct Column with field == nullptr),
// or kInvalidArgument for a selection that names no field or goes through a non-message one.
// `nullable_rows`: every top-level column has validity (rows may be null).
absl::StatusOr<std::unique_ptr<Column>> BuildColumns(const google::protobuf::Descriptor* type,
                                                     const ColumnarOptions& options,
                                                     bool nullable_rows);

// What the one-byte-tag path does with each tag byte of struct column `s`, from its dense slots.
std::array<FastTag, 128> FastTags(const Column& s);

// Replaces the values of each list of every `delta` column with their running sums.
void PrefixSumDeltaColumns(Column& root);

// Starts every buffer of the tree at the size its size hint (columnar_memory.h) expects for
// `input_bytes` of records; after the batch, records the sizes they reached.
void ApplySizeHints(Column& root, size_t input_bytes);
void RecordSizeHints(Column& root, size_t input_bytes);

// Rows (see above). `r` is the parent's open row, `e` a struct column's element. Inline: the
// decoder opens and closes every struct row.
void TruncateRows(Column& c, size_t r);
void TruncateElements(Column& c, size_t e);

// Makes room in the buffers the row programs of struct column `c` write for its rows e to
// e + kReservedRows - 1 (a null, a zero, an end offset each), so that the programs need no
// capacity test per row. Sound because nothing else grows those buffers: a field sets its row's
// value in place, and a reset (TruncateRows, OpenRow) takes a row back before writing it again.
inline constexpr size_t kReservedRows = 64;
void ReserveRows(Column& c, size_t e);

// The singular struct children's rows, opened and closed in turn (out of line: recursive).
void OpenStructChildren(Column& c, size_t e);
void CloseStructChildren(Column& c, size_t e);

// Inline into the decoder's loop (the recursion is out of line, above): a struct row of a
// repeated submessage opens and closes once per element.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void OpenStructElement(Column& c, size_t e) {
  c.struct_elements = e + 1;
  if (ABSL_PREDICT_FALSE(e >= c.rows_reserved)) ReserveRows(c, e);
  for (Column* v : c.opens_valid_scalar) {
    v->validity_bytes.PushReserved<uint8_t>(v->opened_valid);
    std::memset(v->values.end(), 0, 8);
    v->values.Commit(v->value_bytes);
  }
  for (Column* v : c.opens_validity) v->validity_bytes.PushReserved<uint8_t>(v->opened_valid);
  for (Column* v : c.opens_scalar) {
    std::memset(v->values.end(), 0, 8);
    v->values.Commit(v->value_bytes);
  }
  if (ABSL_PREDICT_FALSE(!c.opens_struct.empty())) OpenStructChildren(c, e);
  for (Column* v : c.opens_map) v->map_keys.clear();
  if (ABSL_PREDICT_FALSE(c.required_count != 0)) {
    for (uint64_t& word : c.required_seen) word = 0;
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CloseStructElement(Column& c, size_t e) {
  for (Column* v : c.closes_value_list) {
    v->list_offsets.PushReserved<int32_t>(
        static_cast<int32_t>(v->values.bytes() >> v->value_shift));
  }
  for (Column* v : c.closes_list) {
    v->list_offsets.PushReserved<int32_t>(static_cast<int32_t>(v->ElementCount()));
  }
  for (Column* v : c.closes_string) {
    v->values.PushReserved<int32_t>(static_cast<int32_t>(v->data.bytes()));
  }
  if (ABSL_PREDICT_FALSE(!c.closes_struct.empty())) CloseStructChildren(c, e);
}

// Opens row `r` of one field's column: what the programs above do for it, for the one column a
// oneof resets.
inline void OpenRow(Column& c, size_t r) {
  if (c.validity) c.validity_bytes.Push<uint8_t>(c.opened_valid);
  if (c.repeated) {
    if (c.type == ValueType::kMap) c.map_keys.clear();
  } else if (c.value_bytes != 0) {
    std::memset(c.values.Reserve(8), 0, 8);
    c.values.Commit(c.value_bytes);
  } else if (c.type == ValueType::kStruct) {
    OpenStructElement(c, r);
  }  // A singular string's end offset is pushed when its row closes.
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_COLUMNAR_COLUMNS_H_
