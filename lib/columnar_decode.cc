// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_decode.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/message_plan.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/packed_varint.h"

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

using google::protobuf::FieldDescriptor;

// "OSMPBF.DenseNodes.lat (field 8)", or "field 8 of OSMPBF.DenseNodes" for a number the type
// does not declare.
std::string FieldLabel(const Column& s, uint32_t number) {
  const FieldSlot* slot = s.Slot(number);
  if (slot != nullptr && slot->field != nullptr) {
    return absl::StrCat(slot->field->full_name(), " (field ", number, ")");
  }
  return absl::StrCat("field ", number, " of ", s.message_type->full_name());
}

// The bytes of an end-group tag for field `number`.
size_t EndGroupTagSize(uint32_t number) {
  uint64_t tag = (static_cast<uint64_t>(number) << 3) | 4;
  size_t n = 1;
  while (tag >= 0x80) {
    tag >>= 7;
    ++n;
  }
  return n;
}

// Upstream's UTF-8 check for the strings that require it, ASCII recognized inline (as the
// generated parsers do).
inline bool ValidUtf8(const char* p, size_t n) { return gen::ValidUtf8(p, p + n); }

// A varint or fixed value converted to the column's type, in its bytes (little-endian).
inline uint64_t ScalarBits(const Column& c, const WireField& f) {
  switch (c.conversion) {
    case Conversion::kVarint32: return static_cast<uint32_t>(f.varint);
    case Conversion::kVarint64: return f.varint;
    case Conversion::kZigZag32: {
      const uint32_t v = static_cast<uint32_t>(f.varint);
      return (v >> 1) ^ (0u - (v & 1));
    }
    case Conversion::kZigZag64: return (f.varint >> 1) ^ (0 - (f.varint & 1));
    case Conversion::kBool: return f.varint != 0;
    case Conversion::kFixed32: return LoadFixed<uint32_t>(f.value);
    case Conversion::kFixed64: return LoadFixed<uint64_t>(f.value);
    case Conversion::kNone: break;
  }
  return 0;
}

// Stores the value of `f` converted for `c` at `out` (value_bytes bytes).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void StoreScalar(const Column& c, const WireField& f,
                                                     char* out) {
  const uint64_t bits = ScalarBits(c, f);
  switch (c.value_bytes) {
    case 1: *out = static_cast<char>(bits); break;
    case 4: {
      const uint32_t v = static_cast<uint32_t>(bits);
      std::memcpy(out, &v, 4);
      break;
    }
    default: std::memcpy(out, &bits, 8);
  }
}

inline void MarkValid(Column& c, size_t e) {
  if (c.validity) c.validity_bytes.at<uint8_t>(e) = 1;
}

}  // namespace

bool RecordDecoder::Fail(const char* at, const std::string& what) {
  error_ = at == nullptr ? what
                         : absl::StrCat(what, " at byte ", static_cast<size_t>(at - record_begin_));
  return false;
}

bool RecordDecoder::FailAt(const char* at, const char* what, const Column& s, uint32_t number) {
  return Fail(at,
              number == 0 ? std::string(what) : absl::StrCat(what, " in ", FieldLabel(s, number)));
}

bool RecordDecoder::Decode(Column& root, size_t r, absl::string_view record) {
  record_begin_ = record.data();
  const char* const end = record.data() + record.size();
  record_end_ = end;
  kernel_ = &ActiveKernel();
  second_pass_ = false;
  has_replaced_entries_ = false;
  if (!replaced_entries_.empty()) replaced_entries_.clear();
  OpenElement(root, r);
  const char* after;
  if (!DecodeFields(root, r, record.data(), end, 0, 0, &after) || !CheckRequired(root, r)) {
    return false;
  }
  if (has_replaced_entries_) {
    // A map entry's key came again: decode the record once more without the replaced entries,
    // so that each key keeps its last entry, as upstream's map does.
    TruncateElements(root, r);
    OpenElement(root, r);
    second_pass_ = true;
    if (!DecodeFields(root, r, record.data(), end, 0, 0, &after) || !CheckRequired(root, r)) {
      return false;
    }
  }
  CloseElement(root, r);
  return true;
}

bool RecordDecoder::DecodeFields(Column& s, size_t e, const char* p, const char* end,
                                 uint32_t group, int depth, const char** after) {
  WireField f;  // Out of the loop: ReadField sets what each field uses, no zeroing per field.
  while (p < end) {
    WireError error = WireError::kNone;
    const char* next = ReadField(p, end, &f, &error);
    if (ABSL_PREDICT_FALSE(next == nullptr)) {
      return IsTagError(error) ? FailAt(f.tag, WireErrorText(error), s, 0)
                               : FailAt(f.value, WireErrorText(error), s, f.number);
    }
    if (ABSL_PREDICT_FALSE(f.wire_type == WireType::kEndGroup)) {
      if (group != 0 && f.number == group) {
        *after = next;
        return true;
      }
      return FailAt(f.tag, "end-group tag outside its group", s, f.number);
    }
    const FieldSlot* slot = s.Slot(f.number);
    const uint8_t wire_type = static_cast<uint8_t>(f.wire_type);
    if (ABSL_PREDICT_FALSE(slot == nullptr ||
                           (wire_type != slot->wire_type &&
                            !(slot->packable && f.wire_type == WireType::kLengthDelimited)))) {
      // Unknown to the type, or of another wire type than the field's: an unknown field.
      if (f.wire_type == WireType::kStartGroup) {
        const absl::StatusOr<size_t> body = SkipField(
            absl::string_view(next, static_cast<size_t>(end - next)), (f.number << 3) | 3, depth);
        if (!body.ok()) return FailAt(f.tag, "malformed group", s, f.number);
        next += *body;
      }
      p = next;
      continue;
    }
    if (ABSL_PREDICT_TRUE(slot->plain)) {
      // The inline path: no oneof or required bit to mind.
      Column& c = *slot->column;
      if (ABSL_PREDICT_FALSE(slot->closed_enum) && f.wire_type == WireType::kVarint &&
          !c.IsEnumValue(static_cast<int32_t>(f.varint))) {
        // A closed enum's unknown value goes to upstream's unknown fields: the field stays as it
        // was, a repeated one drops it, a map drops its entry.
        if (s.type == ValueType::kMap) dropped_entry_ = true;
        p = next;
        continue;
      }
      switch (slot->action) {
        case Action::kScalar:
          StoreScalar(c, f, c.values.data<char>() + e * c.value_bytes);
          MarkValid(c, e);
          p = next;
          continue;
        case Action::kScalarList:
          if (f.wire_type == WireType::kLengthDelimited) {
            // A tiny payload (most of them) straight to the kernel's tiny decoder, inline.
            const size_t n = static_cast<size_t>(f.varint);
            if (c.conversion < Conversion::kFixed32 && !c.closed_enum &&
                TakesTinyDecoder(n, record_end_ - f.payload)) {
              void* out = c.values.Reserve(kTinyPayloadBytes * 8);
              const auto* begin = reinterpret_cast<const uint8_t*>(f.payload);
              const int count =
                  kernel_->TinyDecoder(c.format)(begin, begin + n, out, kTinyPayloadBytes);
              if (ABSL_PREDICT_TRUE(count >= 0)) {
                c.values.Commit(static_cast<size_t>(count) << c.value_shift);
                p = next;
                continue;
              }
            }
            if (!DecodePacked(c, f)) return false;
          } else {
            StoreScalar(c, f, c.values.Reserve(8));
            c.values.Commit(c.value_bytes);
          }
          p = next;
          continue;
        case Action::kBytesList:
          if (c.check_utf8 && !ValidUtf8(f.payload, f.varint)) {
            return FailAt(f.payload, "invalid UTF-8", s, f.number);
          }
          c.data.Append(f.payload, f.varint);
          c.values.Push<int32_t>(static_cast<int32_t>(c.data.bytes()));
          p = next;
          continue;
        case Action::kMessageList: {
          if (ABSL_PREDICT_FALSE(c.group || depth >= budget_)) break;  // DecodeField.
          const size_t element = c.struct_elements;
          OpenStructElement(c, element);
          const char* after;
          if (!DecodeFields(c, element, f.payload, f.end, 0, depth + 1, &after)) return false;
          if (c.checks_required && !CheckRequired(c, element)) return false;
          CloseStructElement(c, element);
          p = next;
          continue;
        }
        default: break;  // The rest: DecodeField.
      }
    }
    if (!DecodeField(s, e, *slot, f, end, depth, &next)) return false;
    p = next;
  }
  if (group != 0) return FailAt(end, "group without its end-group tag:", s, group);
  *after = end;
  return true;
}

void RecordDecoder::ClearOneof(Column& s, size_t e, int oneof, int keep) {
  for (int k : s.oneof_children[static_cast<size_t>(oneof)]) {
    if (k == keep) continue;
    Column& member = *s.children[static_cast<size_t>(k)];
    if (member.validity_bytes.at<uint8_t>(e) == 0) continue;
    TruncateRows(member, e);
    OpenRow(member, e);
  }
}

bool RecordDecoder::DecodeField(Column& s, size_t e, const FieldSlot& slot, const WireField& f,
                                const char* end, int depth, const char** next) {
  Column* const selected = slot.column;
  if (ABSL_PREDICT_FALSE(slot.closed_enum) && f.wire_type == WireType::kVarint) {
    // A closed enum's unknown value goes to upstream's unknown fields: the field (and its oneof)
    // stays as it was, a repeated one drops it, a map drops its entry.
    const int32_t v = static_cast<int32_t>(f.varint);
    const bool known = selected != nullptr
                           ? selected->IsEnumValue(v)
                           : slot.field->enum_type()->FindValueByNumber(v) != nullptr;
    if (!known) {
      if (s.type == ValueType::kMap) dropped_entry_ = true;
      return true;
    }
  }
  if (slot.oneof >= 0) ClearOneof(s, e, slot.oneof, slot.child);
  if (slot.required_bit >= 0) {
    s.required_seen[static_cast<size_t>(slot.required_bit) >> 6] |= uint64_t{1}
                                                                    << (slot.required_bit & 63);
  }
  if (selected == nullptr) {
    // Not selected: skipped, a group with its body.
    if (f.wire_type == WireType::kStartGroup) {
      const absl::StatusOr<size_t> body = SkipField(
          absl::string_view(*next, static_cast<size_t>(end - *next)), (f.number << 3) | 3, depth);
      if (!body.ok()) return FailAt(f.tag, "malformed group", s, f.number);
      *next += *body;
    }
    return true;
  }
  Column& c = *selected;
  switch (c.type) {
    case ValueType::kStruct: return DecodeMessage(s, c, e, f, end, depth, next);
    case ValueType::kMap: return DecodeMapEntry(c, f, depth);
    case ValueType::kUtf8:
    case ValueType::kBinary: {
      const char* bytes = f.payload;
      size_t size = f.varint;
      if (c.serialized) {
        if (c.group) {
          const absl::StatusOr<size_t> body =
              SkipField(absl::string_view(f.value, static_cast<size_t>(end - f.value)),
                        (f.number << 3) | 3, depth);
          if (!body.ok()) return FailAt(f.tag, "malformed group", s, f.number);
          *next = f.value + *body;
          bytes = f.value;
          size = *body - EndGroupTagSize(f.number);
        }
        if (!CheckSerialized(c, absl::string_view(bytes, size), depth)) {
          return FailAt(f.tag, "submessage rejected by protobuf:", s, f.number);
        }
      } else if (c.check_utf8 && !ValidUtf8(bytes, size)) {
        return FailAt(f.payload, "invalid UTF-8", s, f.number);
      }
      if (c.repeated) {
        c.data.Append(bytes, size);
        c.values.Push<int32_t>(static_cast<int32_t>(c.data.bytes()));
      } else {
        // The last occurrence wins; a serialized message's occurrences concatenate (merge).
        if (!c.serialized) c.data.Truncate(static_cast<size_t>(c.values.at<int32_t>(e)));
        c.data.Append(bytes, size);
        MarkValid(c, e);
      }
      return true;
    }
    default: break;
  }
  if (f.wire_type == WireType::kLengthDelimited) return DecodePacked(c, f);
  if (c.repeated) {
    StoreScalar(c, f, c.values.Reserve(8));
    c.values.Commit(c.value_bytes);
  } else {
    StoreScalar(c, f, c.values.data<char>() + e * c.value_bytes);
    MarkValid(c, e);
  }
  return true;
}

bool RecordDecoder::DecodePacked(Column& c, const WireField& f) {
  const size_t n = static_cast<size_t>(f.varint);
  if (n == 0) return true;
  if (c.conversion == Conversion::kFixed32 || c.conversion == Conversion::kFixed64) {
    if (n % c.value_bytes != 0) {
      return Fail(f.payload,
                  absl::StrCat("packed ", c.field->full_name(), ": ", n,
                               " bytes are not a whole number of ", c.value_bytes, "-byte values"));
    }
    c.values.Append(f.payload, n);
    return true;
  }
  // At most one value per byte: room for n values (kTinyPayloadBytes at least, which the tiny
  // decoder may write) is enough, and the buffer grows geometrically.
  const size_t room = n < static_cast<size_t>(kTinyPayloadBytes) ? kTinyPayloadBytes : n;
  void* const out = c.values.Reserve(room * c.value_bytes);
  const KernelDescriptor& kernel = *kernel_;
  const auto* const begin = reinterpret_cast<const uint8_t*>(f.payload);
  const auto* const stop = begin + n;
  int tiny = kTinyUnhandled;
  // The ways of generated parsers' payloads (size_policy.h): short ones to the kernel's tiny
  // decoders, which read in whole words within the record; the rest to the kernel itself.
  if (TakesTinyDecoder(n, record_end_ - f.payload)) {
    tiny = kernel.TinyDecoder(c.format)(begin, stop, out, kTinyPayloadBytes);
  } else if (TakesShortPath(n) && ShortTriesBoundedTiny(n)) {
    tiny = kernel.DecodeTinyBounded(c.format, begin, stop, out, n);
  }
  size_t count;
  if (ABSL_PREDICT_TRUE(tiny >= 0)) {
    count = static_cast<size_t>(tiny);
  } else {
    const DecodeResult r = kernel.Decoder(c.format, false)(begin, stop, out, n, 0);
    if (ABSL_PREDICT_FALSE(r.status != DecodeStatus::kOk)) {
      // The public API's decoder names the error.
      const absl::StatusOr<size_t> named =
          DecodeIntoSpan(c.format, absl::string_view(f.payload, n), out, n, 0, DecodeOptions());
      return Fail(f.payload, absl::StrCat("packed ", c.field->full_name(), ": ",
                                          named.status().message(), ", payload"));
    }
    count = r.count;
  }
  if (c.closed_enum) {
    int32_t* values = static_cast<int32_t*>(out);
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
      if (c.IsEnumValue(values[i])) values[kept++] = values[i];
    }
    count = kept;
  }
  c.values.Commit(count << c.value_shift);
  return true;
}

bool RecordDecoder::DecodeMessage(Column& s, Column& c, size_t e, const WireField& f,
                                  const char* end, int depth, const char** next) {
  if (depth >= budget_) {
    return FailAt(f.tag, "nesting deeper than protobuf's recursion limit", s, f.number);
  }
  const char* body = f.payload;
  const char* body_end = f.end;
  uint32_t group = 0;
  if (c.group) {
    body = f.value;
    body_end = end;
    group = f.number;
  }
  const char* after;
  if (!c.repeated) {
    MarkValid(c, e);  // Merged into what earlier occurrences set.
    if (!DecodeFields(c, e, body, body_end, group, depth + 1, &after)) return false;
  } else {
    const size_t element = c.struct_elements;
    OpenElement(c, element);
    if (!DecodeFields(c, element, body, body_end, group, depth + 1, &after) ||
        !CheckRequired(c, element)) {
      return false;
    }
    CloseElement(c, element);
  }
  if (c.group) *next = after;
  return true;
}

bool RecordDecoder::DecodeMapEntry(Column& c, const WireField& f, int depth) {
  if (second_pass_ && replaced_entries_.contains(f.payload)) return true;
  if (depth >= budget_) {
    return Fail(f.tag, absl::StrCat("nesting deeper than protobuf's recursion limit in ",
                                    c.field->full_name()));
  }
  const size_t element = c.struct_elements;
  OpenElement(c, element);
  dropped_entry_ = false;
  const char* after;
  if (!DecodeFields(c, element, f.payload, f.end, 0, depth + 1, &after) ||
      !CheckRequired(c, element)) {
    return false;
  }
  if (dropped_entry_) {  // Its value is a closed enum's unknown one: upstream keeps it unknown.
    dropped_entry_ = false;
    TruncateElements(c, element);
    return true;
  }
  CloseElement(c, element);
  const Column& key = *c.children[0];
  std::string bytes;
  if (key.type == ValueType::kUtf8) {
    const int32_t from = key.values.at<int32_t>(element);
    bytes.assign(key.data.data<char>() + from,
                 static_cast<size_t>(key.values.at<int32_t>(element + 1) - from));
  } else {
    bytes.assign(key.values.data<char>() + element * key.value_bytes, key.value_bytes);
  }
  auto [it, inserted] = c.map_keys.try_emplace(std::move(bytes), f.payload);
  if (!inserted) {
    replaced_entries_.insert(it->second);
    it->second = f.payload;
    has_replaced_entries_ = true;
  }
  return true;
}

bool RecordDecoder::CheckSerialized(const Column& c, absl::string_view bytes, int depth) {
  const google::protobuf::Message* prototype;
  if (InGeneratedPool(c.message_type)) {
    prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(c.message_type);
  } else {
    if (factory_ == nullptr) factory_ = std::make_unique<google::protobuf::DynamicMessageFactory>();
    prototype = factory_->GetPrototype(c.message_type);
  }
  std::unique_ptr<google::protobuf::Message> message(prototype->New());
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(DefaultRecursionBudget() - depth - 1);
  return message->MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage() &&
         message->IsInitialized();
}

bool RecordDecoder::CheckRequired(const Column& s, size_t e) {
  if (!s.checks_required) return true;
  for (int bit = 0; bit < s.required_count; ++bit) {
    if ((s.required_seen[static_cast<size_t>(bit) >> 6] >> (bit & 63)) & 1) continue;
    std::string name;
    auto named = [&](const FieldSlot& slot) {
      if (slot.required_bit == bit) name = std::string(slot.field->full_name());
    };
    for (const FieldSlot& slot : s.dense_slots) named(slot);
    for (const auto& [number, slot] : s.sparse_slots) named(slot);
    return Fail(nullptr, absl::StrCat("missing required field ", name));
  }
  for (const auto& child : s.children) {
    const Column& c = *child;
    if (c.repeated || c.type != ValueType::kStruct || !c.checks_required) continue;
    if (c.validity && c.validity_bytes.at<uint8_t>(e) == 0) continue;  // Absent.
    if (!CheckRequired(c, e)) return false;
  }
  return true;
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
