// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_decode.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/field_errors.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/message_plan.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/utf8_replace.h"
#include "pbaccel/packed_varint.h"

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

using google::protobuf::FieldDescriptor;

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

// A varint converted to the type of `c` (a varint conversion), in its bytes (little-endian).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t VarintBits(const Column& c, uint64_t v) {
  switch (c.conversion) {
    case Conversion::kVarint32: return static_cast<uint32_t>(v);
    case Conversion::kZigZag32: {
      const uint32_t v32 = static_cast<uint32_t>(v);
      return (v32 >> 1) ^ (0u - (v32 & 1));
    }
    case Conversion::kZigZag64: return (v >> 1) ^ (0 - (v & 1));
    case Conversion::kBool: return v != 0;
    default: return v;  // kVarint64.
  }
}

// A varint or fixed value converted to the column's type, in its bytes (little-endian).
inline uint64_t ScalarBits(const Column& c, const WireField& f) {
  switch (c.conversion) {
    case Conversion::kFixed32: return LoadFixed<uint32_t>(f.value);
    case Conversion::kFixed64: return LoadFixed<uint64_t>(f.value);
    case Conversion::kNone: return 0;
    default: return VarintBits(c, f.varint);
  }
}

// Stores `bits` (a value converted for `c`) at `out` (value_bytes bytes).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void StoreBits(const Column& c, uint64_t bits, char* out) {
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

// Stores the value of `f` converted for `c` at `out` (value_bytes bytes).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void StoreScalar(const Column& c, const WireField& f,
                                                     char* out) {
  StoreBits(c, ScalarBits(c, f), out);
}

inline void MarkValid(Column& c, size_t e) {
  if (c.validity) c.validity_bytes.at<uint8_t>(e) = 1;
}

// Whether `f` is a closed enum's unknown value, which upstream moves to the unknown fields: the
// field (and its oneof) stays as it was, a repeated one drops it, a map drops its entry.
inline bool UnknownClosedEnum(const FieldSlot& slot, const WireField& f) {
  if (!slot.closed_enum || f.wire_type != WireType::kVarint) return false;
  const int32_t v = static_cast<int32_t>(f.varint);
  return slot.column != nullptr ? !slot.column->IsEnumValue(v)
                                : slot.field->enum_type()->FindValueByNumber(v) == nullptr;
}

// Keeps, in order, the values of a closed enum column that the enum defines (a packed run's
// unknown values go to upstream's unknown fields). Returns how many are left.
size_t KeepEnumValues(const Column& c, int32_t* values, size_t count) {
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    if (c.IsEnumValue(values[i])) values[kept++] = values[i];
  }
  return kept;
}

// Keeps the `count` values a decoder wrote at `out` (the end of list column c's values): a
// closed enum's unknown ones dropped first.
inline void CommitPacked(Column& c, void* out, size_t count) {
  if (c.closed_enum) count = KeepEnumValues(c, static_cast<int32_t*>(out), count);
  c.values.Commit(count << c.value_shift);
}

}  // namespace

uint64_t& GeneralPathFieldsForTesting() {
  thread_local uint64_t count = 0;
  return count;
}

bool RecordDecoder::Fail(const char* at, const std::string& what) {
  error_ = at == nullptr ? what
                         : absl::StrCat(what, " at byte ", static_cast<size_t>(at - record_begin_));
  return false;
}

bool RecordDecoder::FailAt(const char* at, const char* what, const Column& s, uint32_t number) {
  return Fail(at, number == 0 ? std::string(what)
                              : absl::StrCat(what, " in ", FieldLabel(s.message_type, number)));
}

bool RecordDecoder::Decode(Column& root, size_t r, absl::string_view record) {
  record_begin_ = record.data();
  const char* const end = record.data() + record.size();
  record_end_ = end;
  kernel_ = &ActiveKernel();
  second_pass_ = false;
  has_replaced_entries_ = false;
  if (!replaced_entries_.empty()) replaced_entries_.clear();
  if (!extension_messages_.empty()) extension_messages_.clear();
  OpenStructElement(root, r);
  const char* after;
  if (!DecodeFields(root, r, record.data(), end, 0, 0, &after) || !CheckRequired(root, r)) {
    return false;
  }
  if (has_replaced_entries_) {
    // A map entry's key came again: decode the record once more without the replaced entries,
    // so that each key keeps its last entry, as upstream's map does.
    TruncateElements(root, r);
    OpenStructElement(root, r);
    extension_messages_.clear();
    second_pass_ = true;
    if (!DecodeFields(root, r, record.data(), end, 0, 0, &after) || !CheckRequired(root, r)) {
      return false;
    }
  }
  CloseStructElement(root, r);
  return true;
}

// The hot functions first, so that DecodeFields, DecodeField and DecodeMessage inline them.

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool RecordDecoder::Apply(Column& s, size_t e,
                                                              const FieldSlot& slot,
                                                              const WireField& f, const char* end,
                                                              int depth, const char** next) {
  Column& c = *slot.column;
  switch (slot.action) {
    case Action::kScalar:  // The last occurrence wins.
      StoreScalar(c, f, c.values.data<char>() + e * c.value_bytes);
      MarkValid(c, e);
      return true;
    case Action::kScalarList:
      if (f.wire_type == WireType::kLengthDelimited) {
        return DecodePacked(c, f.payload, static_cast<size_t>(f.varint));
      }
      StoreScalar(c, f, c.values.Reserve(8));
      c.values.Commit(c.value_bytes);
      return true;
    case Action::kBytes:
    case Action::kBytesList:
      if (slot.action == Action::kBytes) {  // The last occurrence wins.
        c.data.Truncate(static_cast<size_t>(c.values.at<int32_t>(e)));
        MarkValid(c, e);
      }
      if (c.type == ValueType::kUtf8 && ABSL_PREDICT_FALSE(!ValidUtf8(f.payload, f.varint))) {
        if (c.check_utf8) return FailAt(f.payload, "invalid UTF-8", s, f.number);
        // A string upstream does not check: a utf8 column holds its text with U+FFFD for what
        // is ill-formed (utf8_replace.h).
        const std::string text = ReplaceIllFormedUtf8(absl::string_view(f.payload, f.varint));
        c.data.Append(text.data(), text.size());
      } else {
        c.data.Append(f.payload, f.varint);
      }
      if (slot.action == Action::kBytesList) {
        c.values.Push<int32_t>(static_cast<int32_t>(c.data.bytes()));
      }
      return true;
    case Action::kSerialized: return DecodeSerialized(s, c, e, f, end, depth, next);
    case Action::kMessageList:
      if (ABSL_PREDICT_TRUE(!c.group && depth < budget_)) {  // Most: one more element, inline.
        const char* after;
        return DecodeElement(c, f.payload, f.end, 0, depth, &after);
      }
      return DecodeMessage(s, c, e, f, end, depth, next);
    case Action::kMessage: return DecodeMessage(s, c, e, f, end, depth, next);
    case Action::kMap: return DecodeMapEntry(c, f, depth);
    case Action::kSkip:
    case Action::kExtension:  // No column: DecodeField checks it.
      break;
  }
  return true;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool RecordDecoder::DecodePacked(Column& c, const char* payload,
                                                                     size_t n) {
  // The generated parsers' ways (size_policy.h), the short ones right here: a tiny payload (most
  // of them) to the kernel's tiny decoder, which reads in whole words within the record and
  // writes room for kTinyPayloadBytes values; a short one to its window decoder where the record
  // goes on for kWindowReadableBytes and the kernel has one, else to its bounded tiny decoder,
  // either given the room it stores whole groups into (bounded_tiny_spare_values past one value
  // per byte). What they decline, longer payloads and fixed-width ones go to DecodeLongPacked.
  if (c.conversion < Conversion::kFixed32) {
    const auto* const begin = reinterpret_cast<const uint8_t*>(payload);
    if (TakesTinyDecoder(n, record_end_ - payload)) {
      void* out = c.values.Reserve(kTinyPayloadBytes * 8);
      const int tiny = kernel_->TinyDecoder(c.format)(begin, begin + n, out, kTinyPayloadBytes);
      if (ABSL_PREDICT_TRUE(tiny >= 0)) {
        CommitPacked(c, out, static_cast<size_t>(tiny));
        return true;
      }
    } else if (TakesShortPath(n) && ShortTriesBoundedTiny(n)) {
      const size_t room = n + kernel_->bounded_tiny_spare_values;
      void* out = c.values.Reserve(room * c.value_bytes);
      const TinyDecodeFn window = kernel_->WindowDecoder(c.format);
      const int count = window != nullptr && ShortTakesWindowDecoder(n, record_end_ - payload)
                            ? window(begin, begin + n, out, static_cast<int>(room))
                            : kernel_->DecodeTinyBounded(c.format, begin, begin + n, out, room);
      if (ABSL_PREDICT_TRUE(count >= 0)) {
        CommitPacked(c, out, static_cast<size_t>(count));
        return true;
      }
    }
  }
  return DecodeLongPacked(c, payload, n);
}

// A new element of repeated struct column `c` from the fields in [body, body_end).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool RecordDecoder::DecodeElement(Column& c, const char* body,
                                                                      const char* body_end,
                                                                      uint32_t group, int depth,
                                                                      const char** after) {
  const size_t element = c.struct_elements;
  OpenStructElement(c, element);
  if (!DecodeFields(c, element, body, body_end, group, depth + 1, after) ||
      (c.checks_required && !CheckRequired(c, element))) {
    return false;
  }
  CloseStructElement(c, element);
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
  } else if (!DecodeElement(c, body, body_end, group, depth, &after)) {
    return false;
  }
  if (c.group) *next = after;
  return true;
}

bool RecordDecoder::DecodeFields(Column& s, size_t e, const char* p, const char* end,
                                 uint32_t group, int depth, const char** after) {
  WireField f;  // Out of the loop: ReadField sets what each field uses, no zeroing per field.
  while (p < end) {
    // The one-byte-tag path (FastTag): the commonest fields straight from the tag byte. What it
    // cannot read goes on to the general path below, which reads the field again from its tag.
    const uint8_t tag = static_cast<uint8_t>(*p);
    if (tag < 0x80) {
      const FastTag kind = s.fast_tags[tag];
      const char* const value = p + 1;
      if (kind == FastTag::kVarint || kind == FastTag::kClosedEnum) {
        uint64_t v;
        const char* next = ReadVarint(value, end, &v);
        if (ABSL_PREDICT_TRUE(next != nullptr)) {
          Column& c = *s.dense_slots[tag >> 3].column;
          if (kind == FastTag::kVarint || c.IsEnumValue(static_cast<int32_t>(v))) {
            StoreBits(c, VarintBits(c, v), c.values.data<char>() + e * c.value_bytes);
            MarkValid(c, e);
          } else if (s.type == ValueType::kMap) {  // A closed enum's unknown value, as in
            dropped_entry_ = true;                 // DecodeFields' general path.
          }
          p = next;
          continue;
        }
      } else if (kind != FastTag::kGeneral) {
        const char* payload_end;
        const char* payload = ReadLength(value, end, &payload_end);
        if (ABSL_PREDICT_TRUE(payload != nullptr)) {
          if (kind == FastTag::kPacked) {
            if (!DecodePacked(*s.dense_slots[tag >> 3].column, payload,
                              static_cast<size_t>(payload_end - payload))) {
              return false;
            }
            p = payload_end;
            continue;
          }
          if (kind == FastTag::kSkipLength) {
            p = payload_end;
            continue;
          }
          if (ABSL_PREDICT_TRUE(depth < budget_)) {  // kMessageList, as Apply does it.
            const char* after;
            if (!DecodeElement(*s.dense_slots[tag >> 3].column, payload, payload_end, 0, depth,
                               &after)) {
              return false;
            }
            p = payload_end;
            continue;
          }
        }
      }
    }
    ++general_fields_;
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
      if (!PastGroupBody(s, f, end, depth, &next)) return false;
      p = next;
      continue;
    }
    if (ABSL_PREDICT_TRUE(slot->plain)) {
      // No oneof or required bit to mind: straight to the slot's action.
      if (ABSL_PREDICT_FALSE(slot->closed_enum) && UnknownClosedEnum(*slot, f)) {
        if (s.type == ValueType::kMap) dropped_entry_ = true;
      } else if (!Apply(s, e, *slot, f, end, depth, &next)) {
        return false;
      }
      p = next;
      continue;
    }
    if (!DecodeField(s, e, *slot, f, end, depth, &next)) return false;
    p = next;
  }
  if (group != 0) return FailAt(end, "group without its end-group tag:", s, group);
  *after = end;
  return true;
}

void RecordDecoder::ClearOneof(Column& s, size_t e, int oneof, const Column* keep) {
  for (Column* member : s.oneof_members[static_cast<size_t>(oneof)]) {
    if (member == keep || member->validity_bytes.at<uint8_t>(e) == 0) continue;
    if (!extension_messages_.empty()) ForgetExtensions(*member);  // Started afresh.
    TruncateRows(*member, e);
    OpenRow(*member, e);
  }
}

bool RecordDecoder::DecodeField(Column& s, size_t e, const FieldSlot& slot, const WireField& f,
                                const char* end, int depth, const char** next) {
  if (UnknownClosedEnum(slot, f)) {
    if (s.type == ValueType::kMap) dropped_entry_ = true;
    return true;
  }
  if (slot.oneof >= 0) ClearOneof(s, e, slot.oneof, slot.column);
  if (slot.required_bit >= 0) {
    s.required_seen[static_cast<size_t>(slot.required_bit) >> 6] |= uint64_t{1}
                                                                    << (slot.required_bit & 63);
  }
  if (slot.column != nullptr) return Apply(s, e, slot, f, end, depth, next);
  // Not selected, or a known extension: past the field (a group with its body); an extension is
  // then parsed by upstream.
  if (!PastGroupBody(s, f, end, depth, next)) return false;
  return slot.action != Action::kExtension || CheckExtension(s, e, f, *next, depth);
}

bool RecordDecoder::PastGroupBody(const Column& s, const WireField& f, const char* end, int depth,
                                  const char** next) {
  if (f.wire_type != WireType::kStartGroup) return true;
  *next = SkipGroupBody(*next, end, f.number, depth);
  return *next != nullptr || FailAt(f.tag, "malformed group", s, f.number);
}

bool RecordDecoder::DecodeSerialized(Column& s, Column& c, size_t e, const WireField& f,
                                     const char* end, int depth, const char** next) {
  absl::string_view bytes(f.payload, static_cast<size_t>(f.varint));
  if (c.group) {
    if (!PastGroupBody(s, f, end, depth, next)) return false;
    bytes = absl::string_view(f.value,
                              static_cast<size_t>(*next - f.value) - EndGroupTagSize(f.number));
  }
  if (!CheckSerialized(c, bytes, depth)) {
    return FailAt(f.tag, "submessage rejected by protobuf:", s, f.number);
  }
  // Occurrences concatenate: the bytes parse to upstream's merge of them.
  c.data.Append(bytes.data(), bytes.size());
  if (c.repeated) {
    c.values.Push<int32_t>(static_cast<int32_t>(c.data.bytes()));
  } else {
    MarkValid(c, e);
  }
  return true;
}

bool RecordDecoder::DecodeLongPacked(Column& c, const char* payload, size_t n) {
  if (n == 0) return true;
  if (c.conversion == Conversion::kFixed32 || c.conversion == Conversion::kFixed64) {
    if (n % c.value_bytes != 0) {
      return Fail(payload,
                  absl::StrCat("packed ", c.field->full_name(), ": ", n,
                               " bytes are not a whole number of ", c.value_bytes, "-byte values"));
    }
    c.values.Append(payload, n);
    return true;
  }
  // Varints, to the kernel: at most one value per byte, so room for n values is enough (the
  // buffer grows geometrically).
  void* const out = c.values.Reserve(n * c.value_bytes);
  const auto* const begin = reinterpret_cast<const uint8_t*>(payload);
  const DecodeResult r = kernel_->Decoder(c.format, false)(begin, begin + n, out, n, 0);
  if (ABSL_PREDICT_FALSE(r.status != DecodeStatus::kOk)) {
    // The public API's decoder names the error.
    const absl::StatusOr<size_t> named =
        DecodeIntoSpan(c.format, absl::string_view(payload, n), out, n, 0, DecodeOptions());
    return Fail(payload, absl::StrCat("packed ", c.field->full_name(), ": ",
                                      named.status().message(), ", payload"));
  }
  CommitPacked(c, out, r.count);
  return true;
}

bool RecordDecoder::DecodeMapEntry(Column& c, const WireField& f, int depth) {
  if (second_pass_ && replaced_entries_.contains(f.payload)) return true;
  if (depth >= budget_) {
    return Fail(f.tag, absl::StrCat("nesting deeper than protobuf's recursion limit in ",
                                    c.field->full_name()));
  }
  const size_t element = c.struct_elements;
  OpenStructElement(c, element);
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
  CloseStructElement(c, element);
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

const google::protobuf::Message& RecordDecoder::Prototype(
    const google::protobuf::Descriptor* type) {
  if (InGeneratedPool(type)) {
    return *google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
  }
  if (factory_ == nullptr) factory_ = std::make_unique<google::protobuf::DynamicMessageFactory>();
  return *factory_->GetPrototype(type);
}

bool RecordDecoder::CheckSerialized(const Column& c, absl::string_view bytes, int depth) {
  std::unique_ptr<google::protobuf::Message> message(Prototype(c.message_type).New());
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(DefaultRecursionBudget() - depth - 1);
  return message->MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage() &&
         message->IsInitialized();
}

bool RecordDecoder::CheckExtension(const Column& s, size_t e, const WireField& f,
                                   const char* field_end, int depth) {
  std::unique_ptr<google::protobuf::Message>& message = extension_messages_[{&s, e}];
  if (message == nullptr) message.reset(Prototype(s.message_type).New());
  // The field alone, parsed into the row's message as the record's parse would reach it: at the
  // row's nesting depth.
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(f.tag),
                                            static_cast<int>(field_end - f.tag));
  in.SetRecursionLimit(budget_ - depth);
  if (!message->MergePartialFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return FailAt(f.tag, "extension rejected by protobuf:", s, f.number);
  }
  return true;
}

void RecordDecoder::ForgetExtensions(const Column& c) {
  for (auto it = extension_messages_.begin(); it != extension_messages_.end();) {
    auto here = it++;
    if (here->first.first == &c) extension_messages_.erase(here);
  }
  for (const auto& child : c.children) ForgetExtensions(*child);
}

namespace {

// The first message-typed extension of `message` that is not initialized, named with what it
// misses ("pbaccel.test2.ext_leaf: id"), or "".
std::string UninitializedExtension(const google::protobuf::Message& message) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> set;
  reflection.ListFields(message, &set);
  for (const google::protobuf::FieldDescriptor* x : set) {
    if (!x->is_extension() || x->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      continue;
    }
    const int n = x->is_repeated() ? reflection.FieldSize(message, x) : 1;
    for (int i = 0; i < n; ++i) {
      const google::protobuf::Message& value = x->is_repeated()
                                                   ? reflection.GetRepeatedMessage(message, x, i)
                                                   : reflection.GetMessage(message, x);
      if (!value.IsInitialized()) {
        return absl::StrCat(x->full_name(), ": ", value.InitializationErrorString());
      }
    }
  }
  return "";
}

}  // namespace

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
  if (s.message_extensions && !extension_messages_.empty()) {
    const auto it = extension_messages_.find({&s, e});
    if (it != extension_messages_.end()) {
      const std::string missing = UninitializedExtension(*it->second);
      if (!missing.empty()) return Fail(nullptr, absl::StrCat("missing required field ", missing));
    }
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
