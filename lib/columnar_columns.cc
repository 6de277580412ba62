// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_columns.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/wire_format_lite.h"
#include "pbaccel/internal/field_encoding.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/wire_type.h"

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;

// The options' selection as a tree of names, each level in the order first named.
struct Selection {
  bool whole = false;  // The field itself was named: every field below it.
  std::vector<std::pair<std::string, Selection>> children;

  Selection& Child(const std::string& name) {
    for (auto& [n, s] : children) {
      if (n == name) return s;
    }
    children.emplace_back(name, Selection());
    return children.back().second;
  }
};

// Field numbers below this are looked up in a table; above, in a hash map.
constexpr uint32_t kDenseSlots = 256;

// The wire type a field's values come in (packable fields also take length-delimited runs).
uint8_t ExpectedWireType(const FieldDescriptor* f) {
  return static_cast<uint8_t>(
      WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(f->type())));
}

// The column type of a scalar, string or bytes field, and for a scalar its width and how its
// values are read (ScalarEncodingOf: the kernels' format, or fixed bytes).
void SetScalarType(const FieldDescriptor* f, Column* c) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_ENUM: c->type = ValueType::kInt32; break;
    case FieldDescriptor::CPPTYPE_UINT32: c->type = ValueType::kUInt32; break;
    case FieldDescriptor::CPPTYPE_INT64: c->type = ValueType::kInt64; break;
    case FieldDescriptor::CPPTYPE_UINT64: c->type = ValueType::kUInt64; break;
    case FieldDescriptor::CPPTYPE_FLOAT: c->type = ValueType::kFloat; break;
    case FieldDescriptor::CPPTYPE_DOUBLE: c->type = ValueType::kDouble; break;
    case FieldDescriptor::CPPTYPE_BOOL: c->type = ValueType::kBool; break;
    default:  // string or bytes
      c->type = f->type() == FieldDescriptor::TYPE_STRING ? ValueType::kUtf8 : ValueType::kBinary;
      return;
  }
  c->value_shift = c->type == ValueType::kBool ? 0
                   : c->type == ValueType::kInt32 || c->type == ValueType::kUInt32 ||
                           c->type == ValueType::kFloat
                       ? 2
                       : 3;
  c->value_bytes = static_cast<uint8_t>(1 << c->value_shift);
  const ScalarEncoding encoding = ScalarEncodingOf(f->type());
  if (encoding.kind == ScalarEncoding::kFixed) {
    c->conversion = encoding.fixed_bytes == 4 ? Conversion::kFixed32 : Conversion::kFixed64;
    return;
  }
  c->format = encoding.format;
  switch (encoding.format) {
    case VarintFormat::kSInt32: c->conversion = Conversion::kZigZag32; break;
    case VarintFormat::kSInt64: c->conversion = Conversion::kZigZag64; break;
    case VarintFormat::kBool: c->conversion = Conversion::kBool; break;
    case VarintFormat::kInt64:
    case VarintFormat::kUInt64: c->conversion = Conversion::kVarint64; break;
    default: c->conversion = Conversion::kVarint32; break;  // int32, uint32, enum
  }
}

void SetEnumValues(const FieldDescriptor* f, Column* c) {
  c->closed_enum = compat::IsClosedEnumField(f);
  if (!c->closed_enum) return;
  const google::protobuf::EnumDescriptor* e = f->enum_type();
  std::vector<int32_t> numbers;
  for (int i = 0; i < e->value_count(); ++i) numbers.push_back(e->value(i)->number());
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  c->enum_min = numbers.front();  // An enum has at least one value.
  c->enum_max = numbers.back();
  c->enum_contiguous = static_cast<int64_t>(numbers.back()) - numbers.front() + 1 ==
                       static_cast<int64_t>(numbers.size());
  if (!c->enum_contiguous) c->enum_values.insert(numbers.begin(), numbers.end());
}

// What opening and closing a struct row of `s` does to its children (Column's programs), sorted
// by kind.
void RowPrograms(Column* s) {
  for (auto& child : s->children) {
    Column* c = child.get();
    const bool scalar = !c->repeated && c->value_bytes != 0;
    if (scalar && c->validity) {
      s->opens_valid_scalar.push_back(c);
    } else if (c->validity) {
      s->opens_validity.push_back(c);
    }
    if (c->repeated) {
      if (c->type == ValueType::kMap) s->opens_map.push_back(c);
      (c->value_bytes != 0 ? s->closes_value_list : s->closes_list).push_back(c);
    } else if (scalar) {
      if (!c->validity) s->opens_scalar.push_back(c);
    } else if (c->type == ValueType::kStruct) {
      s->opens_struct.push_back(c);
      s->closes_struct.push_back(c);
    } else {
      s->closes_string.push_back(c);
    }
  }
}

// The slot's column, action and whether the decoder's inline path takes it.
void SetAction(Column* c, FieldSlot* slot) {
  slot->column = c;
  if (c->serialized) {
    slot->action = Action::kSerialized;
  } else if (c->type == ValueType::kMap) {
    slot->action = Action::kMap;
  } else if (c->type == ValueType::kStruct) {
    slot->action = c->repeated ? Action::kMessageList : Action::kMessage;
  } else if (c->type == ValueType::kUtf8 || c->type == ValueType::kBinary) {
    slot->action = c->repeated ? Action::kBytesList : Action::kBytes;
  } else {
    slot->action = c->repeated ? Action::kScalarList : Action::kScalar;
  }
  slot->plain = slot->oneof < 0 && slot->required_bit < 0 && slot->action != Action::kSerialized;
}

// The one-byte-tag path's kind for a field of wire type `wire_type` in `slot` (FastTag).
FastTag FastTagFor(const FieldSlot& slot, uint8_t wire_type) {
  const Column* c = slot.column;
  const bool length_delimited = wire_type == static_cast<uint8_t>(WireType::kLengthDelimited);
  if (c == nullptr) {  // Unselected (in no oneof, not required, no extension), or a number the
                       // type lacks.
    const bool skipped = slot.action != Action::kExtension &&
                         (slot.field == nullptr ||
                          (slot.wire_type == wire_type && slot.oneof < 0 && slot.required_bit < 0));
    return length_delimited && skipped ? FastTag::kSkipLength : FastTag::kGeneral;
  }
  if (!slot.plain) return FastTag::kGeneral;
  const bool varint_values = c->conversion < Conversion::kFixed32;
  switch (slot.action) {
    case Action::kScalar:
      if (wire_type != slot.wire_type || !varint_values) return FastTag::kGeneral;
      return slot.closed_enum ? FastTag::kClosedEnum : FastTag::kVarint;
    case Action::kScalarList:
      return length_delimited && slot.packable && varint_values ? FastTag::kPacked
                                                                : FastTag::kGeneral;
    case Action::kMessageList:
      return length_delimited && slot.wire_type == wire_type && !c->group ? FastTag::kMessageList
                                                                          : FastTag::kGeneral;
    default: return FastTag::kGeneral;
  }
}

}  // namespace

void ReserveRows(Column& c, size_t e) {
  // Room for rows e to e + kReservedRows - 1 (the buffers hold the rows before e), and 8 bytes
  // more where a zero is stored whole.
  const size_t rows = kReservedRows;
  for (Column* v : c.opens_valid_scalar) {
    v->validity_bytes.Reserve(rows);
    v->values.Reserve(rows * v->value_bytes + 8);
  }
  for (Column* v : c.opens_validity) v->validity_bytes.Reserve(rows);
  for (Column* v : c.opens_scalar) v->values.Reserve(rows * v->value_bytes + 8);
  for (Column* v : c.closes_value_list) v->list_offsets.Reserve(rows * sizeof(int32_t));
  for (Column* v : c.closes_list) v->list_offsets.Reserve(rows * sizeof(int32_t));
  for (Column* v : c.closes_string) v->values.Reserve(rows * sizeof(int32_t));
  c.rows_reserved = e + rows;
}

void OpenStructChildren(Column& c, size_t e) {
  for (Column* v : c.opens_struct) OpenStructElement(*v, e);
}

void CloseStructChildren(Column& c, size_t e) {
  for (Column* v : c.closes_struct) CloseStructElement(*v, e);
}

std::array<FastTag, 128> FastTags(const Column& s) {
  std::array<FastTag, 128> tags{};
  for (uint32_t tag = 8; tag < tags.size(); ++tag) {  // Field numbers 1-15.
    const uint32_t number = tag >> 3;
    if (number < s.dense_slots.size()) {
      tags[tag] = FastTagFor(s.dense_slots[number], static_cast<uint8_t>(tag & 7));
    } else if ((tag & 7) == static_cast<uint32_t>(WireType::kLengthDelimited)) {
      tags[tag] = FastTag::kSkipLength;  // A number the type lacks: an unknown field, skipped.
    }
  }
  return tags;
}

namespace {

class Builder {
 public:
  explicit Builder(bool nullable_rows) : nullable_rows_(nullable_rows) {}

  // The children and slots of struct column `s` for message type `d`. A map's entry type
  // (`map_entry`) gives its key and value columns that are never null: an absent one is zero.
  absl::Status BuildStruct(Column* s, const Descriptor* d, const Selection& selection,
                           bool top_level, bool map_entry = false) {
    s->type = ValueType::kStruct;
    s->message_type = d;
    s->oneof_members.resize(static_cast<size_t>(d->oneof_decl_count()));
    ancestors_.push_back(d);
    // The selected fields, in the selection's order (the type's order for a whole message).
    std::vector<std::pair<const FieldDescriptor*, const Selection*>> selected;
    static const Selection kWhole = [] {
      Selection w;
      w.whole = true;
      return w;
    }();
    if (selection.whole) {
      for (int i = 0; i < d->field_count(); ++i) selected.emplace_back(d->field(i), &kWhole);
    } else {
      for (const auto& [name, sub] : selection.children) {
        const FieldDescriptor* f = d->FindFieldByName(name);
        if (f == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("columnar selection: ", d->full_name(), " has no field \"", name, "\""));
        }
        if (!sub.whole && (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f->is_map())) {
          return absl::InvalidArgumentError(
              absl::StrCat("columnar selection: a path goes on through ", f->full_name(),
                           ", which is not a message field (maps are selected whole)"));
        }
        selected.emplace_back(f, &sub);
      }
    }
    int required_count = 0;
    auto slot_of = [&](const FieldDescriptor* f) -> FieldSlot {
      FieldSlot slot;
      slot.wire_type = ExpectedWireType(f);
      slot.packable = f->is_packable();
      slot.closed_enum = compat::IsClosedEnumField(f);
      if (const auto* oneof = f->real_containing_oneof()) slot.oneof = oneof->index();
      if (f->is_required()) slot.required_bit = static_cast<int16_t>(required_count++);
      slot.field = f;
      return slot;
    };
    std::vector<std::pair<uint32_t, FieldSlot>> slots;
    for (int i = 0; i < d->field_count(); ++i) {
      slots.emplace_back(static_cast<uint32_t>(d->field(i)->number()), slot_of(d->field(i)));
    }
    // The type's known extensions (those its pool holds, as upstream's parse finds them): no
    // column, but a type taken whole checks them as upstream would (a selection leaves them, as
    // every unselected field, checked as wire data only).
    if (selection.whole && d->extension_range_count() > 0) {
      std::vector<const FieldDescriptor*> extensions;
      d->file()->pool()->FindAllExtensions(d, &extensions);
      for (const FieldDescriptor* x : extensions) {
        FieldSlot slot = slot_of(x);
        slot.action = Action::kExtension;
        slots.emplace_back(static_cast<uint32_t>(x->number()), slot);
        if (x->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) s->message_extensions = true;
      }
      if (d->options().message_set_wire_format() && !extensions.empty()) {
        // A MessageSet's extensions come as items too (group 1: type_id, message), which
        // upstream parses when it knows the type_id: checked whole, each item as one extension.
        FieldSlot item;
        item.wire_type = static_cast<uint8_t>(WireType::kStartGroup);
        item.action = Action::kExtension;
        slots.emplace_back(1, item);
      }
    }
    for (const auto& [f, sub] : selected) {
      const bool named_before =
          std::any_of(s->children.begin(), s->children.end(),
                      [f = f](const std::unique_ptr<Column>& c) { return c->field == f; });
      if (named_before) continue;  // Named twice (as a whole the second time: the first wins).
      auto child = std::make_unique<Column>();
      absl::Status status = BuildField(child.get(), f, *sub, top_level);
      if (!status.ok()) return status;
      if (map_entry) {
        child->validity = false;
        child->opened_valid = 1;
      }
      for (auto& [number, slot] : slots) {
        if (slot.field == f) SetAction(child.get(), &slot);
      }
      if (const auto* oneof = f->real_containing_oneof()) {
        s->oneof_members[static_cast<size_t>(oneof->index())].push_back(child.get());
      }
      s->children.push_back(std::move(child));
    }
    RowPrograms(s);
    s->required_count = required_count;
    s->checks_required = required_count > 0 || s->message_extensions;
    for (const auto& child : s->children) {
      if (!child->repeated && child->type == ValueType::kStruct && child->checks_required) {
        s->checks_required = true;
      }
    }
    s->required_seen.assign((static_cast<size_t>(required_count) + 63) / 64, 0);
    uint32_t max_dense = 0;
    for (const auto& [number, slot] : slots) {
      if (number < kDenseSlots) max_dense = std::max(max_dense, number + 1);
    }
    s->dense_slots.assign(max_dense, FieldSlot());
    for (const auto& [number, slot] : slots) {
      if (number < kDenseSlots) {
        s->dense_slots[number] = slot;
      } else {
        s->sparse_slots[number] = slot;
      }
    }
    s->fast_tags = FastTags(*s);
    ancestors_.pop_back();
    return absl::OkStatus();
  }

 private:
  absl::Status BuildField(Column* c, const FieldDescriptor* f, const Selection& selection,
                          bool top_level) {
    c->name = std::string(f->name());
    c->field = f;
    c->repeated = f->is_repeated();
    c->validity = (!c->repeated && f->has_presence()) || (top_level && nullable_rows_);
    c->opened_valid = !c->repeated && f->has_presence() ? 0 : 1;
    if (c->repeated) c->list_offsets.Push<int32_t>(0);
    if (f->is_map()) {
      Selection whole;
      whole.whole = true;
      absl::Status status = BuildStruct(c, f->message_type(), whole, false, /*map_entry=*/true);
      c->type = ValueType::kMap;
      return status;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      c->group = f->type() == FieldDescriptor::TYPE_GROUP;
      c->message_type = f->message_type();
      const bool recursive =
          std::find(ancestors_.begin(), ancestors_.end(), f->message_type()) != ancestors_.end();
      if (recursive && selection.whole) {
        c->serialized = true;
        c->type = ValueType::kBinary;
        c->values.Push<int32_t>(0);
        return absl::OkStatus();
      }
      return BuildStruct(c, f->message_type(), selection, false);
    }
    SetScalarType(f, c);
    if (f->type() == FieldDescriptor::TYPE_ENUM) SetEnumValues(f, c);
    c->check_utf8 = compat::RequiresUtf8Validation(f);
    if (c->type == ValueType::kUtf8 || c->type == ValueType::kBinary) c->values.Push<int32_t>(0);
    return absl::OkStatus();
  }

  const bool nullable_rows_;
  std::vector<const Descriptor*> ancestors_;
};

}  // namespace

Block Buffer::Release() {
  const Block block = data_ != nullptr ? Block{data_, capacity_} : AllocateBlock(0);
  data_ = nullptr;
  size_ = capacity_ = 0;
  return block;
}

void Buffer::Grow(size_t extra) {
  const Block grown = AllocateBlock(std::max(capacity_ * 2, size_ + extra));
  if (size_ != 0) std::memcpy(grown.data, data_, size_);
  FreeBlock({data_, capacity_});
  data_ = grown.data;
  capacity_ = grown.capacity;
}

const FieldSlot* Column::SparseSlot(uint32_t number) const {
  auto it = sparse_slots.find(number);
  return it == sparse_slots.end() ? nullptr : &it->second;
}

void TruncateElements(Column& c, size_t e) {
  switch (c.type) {
    case ValueType::kStruct:
    case ValueType::kMap:
      c.struct_elements = e;
      for (auto& child : c.children) TruncateRows(*child, e);
      break;
    case ValueType::kUtf8:
    case ValueType::kBinary:
      c.data.Truncate(static_cast<size_t>(c.values.at<int32_t>(e)));
      c.values.Truncate((e + 1) * sizeof(int32_t));
      break;
    default: c.values.Truncate(e * c.value_bytes);
  }
}

void TruncateRows(Column& c, size_t r) {
  if (c.validity) c.validity_bytes.Truncate(r);
  if (c.repeated) {
    const size_t e = static_cast<size_t>(c.list_offsets.at<int32_t>(r));
    c.list_offsets.Truncate((r + 1) * sizeof(int32_t));
    TruncateElements(c, e);
    return;
  }
  TruncateElements(c, r);
}

namespace {

// The key of a column's size hints (the root: its message type).
const void* HintKey(const Column& c) {
  return c.field != nullptr ? static_cast<const void*>(c.field)
                            : static_cast<const void*>(c.message_type);
}

// Calls fn(key, index, buffer) for every buffer of every column in the tree of `c`.
template <typename Fn>
void ForEachBuffer(Column& c, const Fn& fn) {
  const void* key = HintKey(c);
  int index = 0;
  for (Buffer* b : {&c.values, &c.validity_bytes, &c.list_offsets, &c.data}) fn(key, index++, *b);
  for (auto& child : c.children) ForEachBuffer(*child, fn);
}

// Batches smaller than this neither use nor set hints: their sizes say little about the next.
constexpr size_t kMinHintedInputBytes = 64 << 10;

}  // namespace

void ApplySizeHints(Column& root, size_t input_bytes) {
  if (input_bytes < kMinHintedInputBytes) return;
  ForEachBuffer(root, [input_bytes](const void* key, int index, Buffer& b) {
    const double ratio = SizeHint(key, index);
    if (ratio > 0)
      b.ReserveTotal(static_cast<size_t>(ratio * static_cast<double>(input_bytes)) + 64);
  });
}

void RecordSizeHints(Column& root, size_t input_bytes) {
  if (input_bytes < kMinHintedInputBytes) return;
  ForEachBuffer(root, [input_bytes](const void* key, int index, Buffer& b) {
    SetSizeHint(key, index, static_cast<double>(b.bytes()) / static_cast<double>(input_bytes));
  });
}

namespace {

// The column a dotted path names under `root`, or nullptr.
Column* FindColumn(Column& root, absl::string_view path) {
  Column* c = &root;
  for (absl::string_view name : absl::StrSplit(path, '.')) {
    Column* next = nullptr;
    for (auto& child : c->children) {
      if (child->name == name) next = child.get();
    }
    if (next == nullptr) return nullptr;
    c = next;
  }
  return c;
}

template <typename T>
void PrefixSums(Column& c) {
  T* values = c.values.data<T>();
  const int32_t* offsets = c.list_offsets.data<int32_t>();
  const size_t rows = c.list_offsets.size<int32_t>() - 1;
  for (size_t r = 0; r < rows; ++r) {
    T sum = 0;
    for (int32_t i = offsets[r]; i < offsets[r + 1]; ++i) {
      sum = static_cast<T>(sum + values[i]);  // Wrapping: in the unsigned type below.
      values[i] = sum;
    }
  }
}

void PrefixSumColumn(Column& c) {
  switch (c.type) {
    case ValueType::kInt32:
    case ValueType::kUInt32: PrefixSums<uint32_t>(c); break;
    default: PrefixSums<uint64_t>(c); break;
  }
}

}  // namespace

void PrefixSumDeltaColumns(Column& root) {
  for (auto& child : root.children) {
    if (child->delta) PrefixSumColumn(*child);
    PrefixSumDeltaColumns(*child);
  }
}

absl::StatusOr<std::unique_ptr<Column>> BuildColumns(const Descriptor* type,
                                                     const ColumnarOptions& options,
                                                     bool nullable_rows) {
  Selection selection;
  selection.whole = options.fields.empty();
  for (const std::string& path : options.fields) {
    Selection* at = &selection;
    for (absl::string_view name : absl::StrSplit(path, '.')) at = &at->Child(std::string(name));
    at->whole = true;
    at->children.clear();
  }
  auto root = std::make_unique<Column>();
  Builder builder(nullable_rows);
  absl::Status status = builder.BuildStruct(root.get(), type, selection, true);
  if (!status.ok()) return status;
  for (const std::string& path : options.delta_fields) {
    Column* c = FindColumn(*root, path);
    const bool integer =
        c != nullptr && (c->type == ValueType::kInt32 || c->type == ValueType::kUInt32 ||
                         c->type == ValueType::kInt64 || c->type == ValueType::kUInt64);
    if (!integer || !c->repeated || c->type == ValueType::kMap) {
      return absl::InvalidArgumentError(
          absl::StrCat("columnar delta_fields: \"", path,
                       "\" is not a selected repeated integer field of ", type->full_name()));
    }
    c->delta = true;
  }
  return root;
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
