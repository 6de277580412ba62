// Copyright 2026 The pbaccel Authors.

#include "pbaccel/message_parser.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/reflection.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/generated_registry.h"
#include "pbaccel/internal/message_plan.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/wire_walker.h"
#include "pbaccel/packed_varint.h"

namespace pbaccel {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using internal::FieldAction;
using internal::MessagePlan;
using internal::VarintFormat;

// Submessages shorter than this stay with upstream, parsed inline by its own parser: whatever
// packed field fits inside is too small to repay leaving that parser (measured: msg_tinypacked,
// whose 40-70-byte children each hold four 4-element packed fields, was 30 % slower at 48).
constexpr size_t kSmallSubmessageBytes = 128;

// Packed fields shorter than this stay with upstream's parser, inline with their neighbours: taking
// one costs a hand-over to upstream for the fields before it plus a reflection lookup (about
// 60 ns), which a kernel earns back only from about 64 bytes on. Measured with //bench:grpc_bench
// ("small": a 300-byte request with 16-value packed fields was 25 % slower at 16 bytes).
constexpr size_t kMinPackedFieldBytes = 64;

// Whole messages under kSmallMessageBytes (message_parser.h) are not walked at all.

// Upstream's default nesting limit (ParseFromString's).
const int kDefaultBudget = internal::DefaultRecursionBudget();

class Parser {
 public:
  explicit Parser(const char* origin) : origin_(origin) {}

  // Merges [p, end) into msg, whose plan is `plan`, with `budget` levels of nesting left.
  absl::Status Merge(const char* p, const char* end, Message* msg, const MessagePlan& plan,
                     int budget) {
    // Nothing to accelerate in this type: one upstream call, no walk.
    if (!plan.accelerates) return Upstream(p, end, msg, budget);
    const char* run = p;  // Start of the fields not yet handed over.
    internal::WireField field;
    internal::WireError error;
    while (p < end) {
      p = internal::ReadField(p, end, &field, &error);
      if (p == nullptr) break;  // Malformed: upstream decides, and names it.
      if (field.wire_type == WireType::kStartGroup) {
        // The field reader's group skipping (nested groups, matching end tags); anything it
        // rejects is left to upstream with the rest.
        const absl::StatusOr<size_t> n =
            SkipField(absl::string_view(p, static_cast<size_t>(end - p)), (field.number << 3) | 3);
        p = n.ok() ? p + *n : nullptr;
      } else if (field.wire_type == WireType::kEndGroup) {
        p = nullptr;  // End-group outside a group: upstream rejects.
      } else if (field.wire_type == WireType::kLengthDelimited) {
        const FieldAction* action = plan.Find(field.number);
        if (action == nullptr || action->kind == FieldAction::kUpstream ||
            !Worthwhile(*action, field.varint, budget)) {
          continue;
        }
        // Hand over the fields before this one, then take this one.
        if (run < field.tag) {
          absl::Status s = Upstream(run, field.tag, msg, budget);
          if (!s.ok()) return s;
        }
        absl::Status s = Take(*action, field.payload, p, msg, budget);
        if (!s.ok()) return s;
        run = p;
      }
      if (p == nullptr) break;
    }
    // The rest, malformed or not, goes to upstream, which accepts or rejects it as a whole parse
    // would.
    return run < end ? Upstream(run, end, msg, budget) : absl::OkStatus();
  }

 private:
  static bool Worthwhile(const FieldAction& a, uint64_t len, int budget) {
    switch (a.kind) {
      case FieldAction::kPackedVarint: return len >= kMinPackedFieldBytes;
      case FieldAction::kPackedFixed:
        // A length that is not a multiple of the element size is malformed: upstream says so.
        return len >= kMinPackedFieldBytes && len % a.fixed_size == 0;
      case FieldAction::kMessage:
        // Entering a submessage costs one level, as in upstream; at 0 upstream reports the error.
        return len >= kSmallSubmessageBytes && budget >= 1;
      case FieldAction::kUpstream: break;
    }
    return false;
  }

  absl::Status Take(const FieldAction& a, const char* p, const char* end, Message* msg,
                    int budget) {
    const Reflection* r = msg->GetReflection();
    switch (a.kind) {
      case FieldAction::kPackedVarint:
        return Packed(a, absl::string_view(p, static_cast<size_t>(end - p)), msg, r);
      case FieldAction::kPackedFixed:
        return a.fixed_size == 4 ? Fixed<4>(a, p, end, msg, r) : Fixed<8>(a, p, end, msg, r);
      case FieldAction::kMessage: {
        Message* sub =
            a.field->is_repeated() ? r->AddMessage(msg, a.field) : r->MutableMessage(msg, a.field);
        return Merge(p, end, sub, *a.child, budget - 1);
      }
      case FieldAction::kUpstream: break;
    }
    return absl::InternalError("pbaccel: unexpected field action");
  }

// Reflection::MutableRepeatedField<T> is deprecated in favour of MutableRepeatedFieldRef, which has
// no bulk access; it is the one reflection call that yields the field's RepeatedField<T> itself, so
// the kernels can reserve once and decode in place.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  template <typename T>
  static google::protobuf::RepeatedField<T>* Field(Message* msg, const Reflection* r,
                                                   const FieldDescriptor* f) {
    return r->MutableRepeatedField<T>(msg, f);
  }
#pragma GCC diagnostic pop

  absl::Status Packed(const FieldAction& a, absl::string_view payload, Message* msg,
                      const Reflection* r) {
    absl::Status s;
    switch (a.format) {
      case VarintFormat::kInt32:
        s = DecodePackedInt32(payload, Field<int32_t>(msg, r, a.field));
        break;
      case VarintFormat::kInt64:
        s = DecodePackedInt64(payload, Field<int64_t>(msg, r, a.field));
        break;
      case VarintFormat::kUInt32:
        s = DecodePackedUInt32(payload, Field<uint32_t>(msg, r, a.field));
        break;
      case VarintFormat::kUInt64:
        s = DecodePackedUInt64(payload, Field<uint64_t>(msg, r, a.field));
        break;
      case VarintFormat::kSInt32:
        s = DecodePackedSInt32(payload, Field<int32_t>(msg, r, a.field));
        break;
      case VarintFormat::kSInt64:
        s = DecodePackedSInt64(payload, Field<int64_t>(msg, r, a.field));
        break;
      case VarintFormat::kBool: s = DecodePackedBool(payload, Field<bool>(msg, r, a.field)); break;
      default: return absl::InternalError("pbaccel: unexpected packed format");
    }
    if (s.ok()) return s;
    return absl::InvalidArgumentError(absl::StrCat("field ", a.field->full_name(),
                                                   " (packed, payload at byte offset ",
                                                   payload.data() - origin_, "): ", s.message()));
  }

  template <int kSize>
  static absl::Status Fixed(const FieldAction& a, const char* p, const char* end, Message* msg,
                            const Reflection* r) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bulk copy assumes little-endian");
    const int count = static_cast<int>((end - p) / kSize);
    auto append = [&](auto* field) {
      if (count > INT_MAX - field->size()) return false;
      if (count == 0) return true;  // An empty field has no storage: no memcpy to nullptr.
      field->Reserve(field->size() + count);
      std::memcpy(field->AddNAlreadyReserved(count), p, static_cast<size_t>(count) * kSize);
      return true;
    };
    bool ok = false;
    switch (a.field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_FLOAT: ok = append(Field<float>(msg, r, a.field)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: ok = append(Field<double>(msg, r, a.field)); break;
      case FieldDescriptor::CPPTYPE_INT32: ok = append(Field<int32_t>(msg, r, a.field)); break;
      case FieldDescriptor::CPPTYPE_UINT32: ok = append(Field<uint32_t>(msg, r, a.field)); break;
      case FieldDescriptor::CPPTYPE_INT64: ok = append(Field<int64_t>(msg, r, a.field)); break;
      case FieldDescriptor::CPPTYPE_UINT64: ok = append(Field<uint64_t>(msg, r, a.field)); break;
      default: break;
    }
    return ok ? absl::OkStatus()
              : absl::ResourceExhaustedError(
                    absl::StrCat("field ", a.field->full_name(), ": too many elements"));
  }

  // Upstream protobuf parses [p, end) into msg, with `budget` nesting levels.
  absl::Status Upstream(const char* p, const char* end, Message* msg, int budget) {
    if (internal::MergeWithUpstream(p, end, msg, budget)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", msg->GetDescriptor()->full_name(),
                     ": protobuf's parser rejected the fields at byte offsets [", p - origin_, ", ",
                     end - origin_, ")"));
  }

  const char* origin_;
};

absl::Status MissingRequired(const Message& msg) {
  return absl::InvalidArgumentError(
      absl::StrCat(msg.GetDescriptor()->full_name(),
                   ": missing required fields: ", msg.InitializationErrorString()));
}

// `clear`: start from an empty message (Parse*) instead of merging (Merge*). `use_generated`: a
// linked generated parser for msg's type takes the whole parse.
absl::Status ParseImpl(absl::string_view bytes, Message* msg, bool clear, bool check_required,
                       bool use_generated = true) {
  if (use_generated) {
    if (const gen::MergeFn merge = gen::FindGeneratedParser(*msg)) {
      const gen::Mode mode = clear
                                 ? (check_required ? gen::Mode::kParse : gen::Mode::kParsePartial)
                                 : (check_required ? gen::Mode::kMerge : gen::Mode::kMergePartial);
      return gen::Run(bytes, msg, mode, merge);
    }
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("message larger than 2 GiB: protobuf cannot parse it");
  }
  // Small messages skip even the plan lookup.
  const MessagePlan* plan =
      bytes.size() < kSmallMessageBytes ? nullptr : &internal::PlanFor(msg->GetDescriptor());
  if (plan == nullptr || !plan->accelerates) {
    // Nothing for the kernels: exactly upstream's ParseFromString (or its variant), one call.
    using ML = google::protobuf::MessageLite;
    const google::protobuf::StringPiece in(bytes.data(), bytes.size());
    bool ok;
    if (clear) {
      ok = check_required ? msg->ParseFrom<ML::kParse>(in) : msg->ParseFrom<ML::kParsePartial>(in);
    } else {
      ok = check_required ? msg->ParseFrom<ML::kMerge>(in) : msg->ParseFrom<ML::kMergePartial>(in);
    }
    if (ok) return absl::OkStatus();
    if (check_required) {
      // Tell a missing required field from malformed bytes.
      std::unique_ptr<Message> probe(msg->New());
      if (probe->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        return MissingRequired(*msg);
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed ", msg->GetDescriptor()->full_name(),
        ": protobuf's parser rejected the fields at byte offsets [0, ", bytes.size(), ")"));
  }
  if (clear) msg->Clear();
  Parser parser(bytes.data());
  absl::Status s =
      parser.Merge(bytes.data(), bytes.data() + bytes.size(), msg, *plan, kDefaultBudget);
  if (s.ok() && check_required && !msg->IsInitialized()) return MissingRequired(*msg);
  return s;
}

// The bytes of a ZeroCopyInputStream, in one buffer.
std::string ReadAll(google::protobuf::io::ZeroCopyInputStream* input) {
  std::string out;
  const void* data;
  int size;
  while (input->Next(&data, &size))
    out.append(static_cast<const char*>(data), static_cast<size_t>(size));
  return out;
}

}  // namespace

absl::Status ParseMessage(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/true, /*check_required=*/true);
}

absl::Status ParsePartialMessage(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/true, /*check_required=*/false);
}

absl::Status MergeMessage(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/false, /*check_required=*/true);
}

absl::Status MergePartialMessage(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/false, /*check_required=*/false);
}

absl::Status ParseMessageByReflection(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/true, /*check_required=*/true, /*use_generated=*/false);
}

absl::Status ParsePartialMessageByReflection(absl::string_view bytes, Message* msg) {
  return ParseImpl(bytes, msg, /*clear=*/true, /*check_required=*/false, /*use_generated=*/false);
}

bool HasGeneratedParser(const Message& msg) { return gen::FindGeneratedParser(msg) != nullptr; }

absl::Status ParseMessage(const absl::Cord& bytes, Message* msg) {
  if (auto flat = bytes.TryFlat()) return ParseMessage(*flat, msg);
  return ParseMessage(std::string(bytes), msg);
}

absl::Status ParsePartialMessage(const absl::Cord& bytes, Message* msg) {
  if (auto flat = bytes.TryFlat()) return ParsePartialMessage(*flat, msg);
  return ParsePartialMessage(std::string(bytes), msg);
}

absl::Status ParseMessage(google::protobuf::io::ZeroCopyInputStream* input, Message* msg) {
  return ParseMessage(ReadAll(input), msg);
}

absl::Status ParsePartialMessage(google::protobuf::io::ZeroCopyInputStream* input, Message* msg) {
  return ParsePartialMessage(ReadAll(input), msg);
}

}  // namespace pbaccel
