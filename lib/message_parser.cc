// Copyright 2026 The pbaccel Authors.

#include "pbaccel/message_parser.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/reflection.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/field_errors.h"
#include "pbaccel/internal/generated_registry.h"
#include "pbaccel/internal/iterative_merge.h"
#include "pbaccel/internal/message_plan.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/internal/stream_parser.h"
#include "pbaccel/internal/top_level_fields.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/packed_varint.h"

namespace pbaccel {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using internal::FieldAction;
using internal::MessagePlan;
using internal::VarintFormat;

// Which fields and messages the walk takes from upstream's parser, by size: size_policy.h
// (WalkTakesPackedField, WalkTakesSubmessage, kSmallFieldsBeforeHandOver; whole messages under
// kSmallMessageBytes are not walked at all).

// Upstream's default nesting limit (ParseFromString's).
const int kDefaultBudget = internal::DefaultRecursionBudget();

// Why upstream rejected the fields [p, end) of a message of msg's type, with `budget` nesting
// levels: the first field the wire walk finds malformed, or else the first field upstream rejects
// on its own (tried one at a time on a scratch message), followed into a submessage to the
// innermost field. "pkg.Msg.field (field N): <what> at byte offset K". Error path only: it parses
// the fields again. Iterative, so that it takes no more stack on deep input than the parse did.
std::string DescribeRejection(const char* p, const char* end, const Message& msg, int budget,
                              const char* origin) {
  std::unique_ptr<Message> scratch(msg.New());  // Of the type whose fields are being tried.
  while (p < end) {
    internal::WireField field;
    internal::WireError error;
    const char* next = internal::ReadWholeField(p, end, &field, &error);
    if (next == nullptr) {
      const std::string what =
          error != internal::WireError::kNone ? internal::WireErrorAt(error, *scratch, field.number)
          : field.wire_type == WireType::kEndGroup
              ? "end-group tag outside a group"
              : absl::StrCat("malformed group ", internal::FieldLabel(*scratch, field.number));
      return absl::StrCat(what, " at byte offset ", p - origin);
    }
    if (internal::MergeWithUpstream(p, next, scratch.get(), budget)) {
      p = next;
      continue;
    }
    // Rejected. A submessage whose own fields upstream rejects: look inside it.
    const std::string label = internal::FieldLabel(*scratch, field.number);
    const FieldDescriptor* f =
        scratch->GetDescriptor()->FindFieldByNumber(static_cast<int>(field.number));
    if (f != nullptr && f->type() == FieldDescriptor::TYPE_MESSAGE &&
        field.wire_type == WireType::kLengthDelimited) {
      if (budget <= 0) {
        return absl::StrCat(label, " nested deeper than protobuf's recursion limit at byte offset ",
                            p - origin);
      }
      std::unique_ptr<Message> sub(
          scratch->GetReflection()->GetMessageFactory()->GetPrototype(f->message_type())->New());
      if (!internal::MergeWithUpstream(field.payload, next, sub.get(), budget - 1)) {
        scratch = std::move(sub);
        p = field.payload;
        end = next;
        --budget;
        continue;
      }
    }
    return absl::StrCat(label, " rejected by protobuf's parser at byte offset ", p - origin);
  }
  return absl::StrCat("rejected by protobuf's parser at byte offset ", p - origin);
}

class Parser {
 public:
  // `enter_every_submessage`: enter every submessage field (singular or repeated, and maps of
  // messages entry by entry; not other maps or groups), whatever its size and whether its type has
  // anything to accelerate, so that upstream is never handed a submessage to recurse into
  // (MergeIteratively); else only those worth leaving upstream's parser for.
  Parser(const char* origin, bool enter_every_submessage)
      : origin_(origin), enter_every_submessage_(enter_every_submessage) {}

  // Merges [p, end) into msg, whose plan is `plan`, with `budget` levels of nesting left.
  //
  // Iterative: entering a submessage pushes the enclosing message's state on a heap stack (at
  // most the recursion budget deep), so nesting costs no machine stack here; only upstream's own
  // parser recurses, on what it is handed.
  absl::Status Merge(const char* p, const char* end, Message* msg, const MessagePlan& plan,
                     int budget) {
    // Nothing to accelerate in this type: one upstream call, no walk.
    if (!plan.accelerates && !enter_every_submessage_) return Upstream(p, end, msg, budget);
    std::vector<Level> enclosing;
    const auto fail = [&enclosing](absl::Status s) { return Undo(enclosing, std::move(s)); };
    const MessagePlan* current = &plan;
    const char* run = p;  // Start of the fields not yet handed over.
    // This message's length-delimited fields so far, while none of them was worth taking.
    int small_fields = 0;
    bool took_one = false;
    internal::WireField field;
    internal::WireError error;
    while (true) {
      while (p != nullptr && p < end) {
        // Groups whole (nested groups, matching end tags). Anything malformed, a stray end-group
        // tag included, is left to upstream with the rest: it decides, and names it.
        p = internal::ReadWholeField(p, end, &field, &error);
        if (p == nullptr) break;
        if (field.wire_type == WireType::kLengthDelimited) {
          const FieldAction* action = current->Find(field.number);
          if (action == nullptr || !Takes(*action, field.varint, budget)) {
            if (!took_one && !enter_every_submessage_ &&
                ++small_fields == internal::kSmallFieldsBeforeHandOver) {
              ++internal::SmallFieldHandOversForTesting();
              break;  // The rest of this message to upstream, below.
            }
            continue;
          }
          took_one = true;
          // Hand over the fields before this one, then take this one.
          if (run < field.tag) {
            absl::Status s = Upstream(run, field.tag, msg, budget);
            if (!s.ok()) return fail(std::move(s));
          }
          if (action->child != nullptr) {  // Enter the submessage.
            enclosing.push_back({end, msg, current, action->field});
            msg = MutableSubmessage(*action, msg);
            current = action->child;
            --budget;
            run = field.payload;
            end = p;
            p = field.payload;
            small_fields = 0;
            took_one = false;
            continue;
          }
          absl::Status s = TakeScalar(*action, field.payload, p, msg);
          if (!s.ok()) return fail(std::move(s));
          run = p;
        }
      }
      // The rest, malformed or not, goes to upstream, which accepts or rejects it as a whole
      // parse would.
      if (run < end) {
        absl::Status s = Upstream(run, end, msg, budget);
        if (!s.ok()) return fail(std::move(s));
      }
      if (enclosing.empty()) return absl::OkStatus();
      // Back in the enclosing message, after the submessage's record.
      p = run = end;
      end = enclosing.back().end;
      msg = enclosing.back().msg;
      current = enclosing.back().plan;
      ++budget;
      enclosing.pop_back();
      took_one = true;  // The submessage just left.
    }
  }

 private:
  // A message being parsed whose submessage (of the field `entered`) is being parsed above it.
  struct Level {
    const char* end;
    Message* msg;
    const MessagePlan* plan;
    const google::protobuf::FieldDescriptor* entered;
  };

  // A failed parse undoes the map entries it entered, innermost first, as upstream's parser
  // erases a failed entry as it unwinds: the message left behind holds no deep tree through maps,
  // whose destruction would recurse. Returns `failure`. Out of line: the walk's frame stays small.
  ABSL_ATTRIBUTE_NOINLINE static absl::Status Undo(const std::vector<Level>& enclosing,
                                                   absl::Status failure) {
    for (auto level = enclosing.rbegin(); level != enclosing.rend(); ++level) {
      if (level->entered->is_map()) {
        level->msg->GetReflection()->RemoveLast(level->msg, level->entered);
      }
    }
    return failure;
  }

  // Whether to take a length-delimited record of `len` bytes of the field of `a`.
  bool Takes(const FieldAction& a, uint64_t len, int budget) const {
    // Entering a submessage costs one level, as in upstream; at 0 upstream reports the error.
    if (enter_every_submessage_ && a.child != nullptr) return budget >= 1;
    return Worthwhile(a, len, budget);
  }

  static bool Worthwhile(const FieldAction& a, uint64_t len, int budget) {
    switch (a.kind) {
      case FieldAction::kPackedVarint: return internal::WalkTakesPackedField(len);
      case FieldAction::kPackedFixed:
        // A length that is not a multiple of the element size is malformed: upstream says so.
        return internal::WalkTakesPackedField(len) && len % a.fixed_size == 0;
      case FieldAction::kMessage:
        // Entering a submessage costs one level, as in upstream; at 0 upstream reports the error.
        return internal::WalkTakesSubmessage(len) && budget >= 1;
      case FieldAction::kUpstream: break;
    }
    return false;
  }

  // The submessage a kMessage field's record merges into.
  ABSL_ATTRIBUTE_NOINLINE static Message* MutableSubmessage(const FieldAction& a, Message* msg) {
    const Reflection* r = msg->GetReflection();
    return a.field->is_repeated() ? r->AddMessage(msg, a.field) : r->MutableMessage(msg, a.field);
  }

  // A packed field's payload [p, end).
  ABSL_ATTRIBUTE_NOINLINE absl::Status TakeScalar(const FieldAction& a, const char* p,
                                                  const char* end, Message* msg) {
    const Reflection* r = msg->GetReflection();
    switch (a.kind) {
      case FieldAction::kPackedVarint:
        return Packed(a, absl::string_view(p, static_cast<size_t>(end - p)), msg, r);
      case FieldAction::kPackedFixed:
        return a.fixed_size == 4 ? Fixed<4>(a, p, end, msg, r) : Fixed<8>(a, p, end, msg, r);
      default: break;
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
    return PackedRejected(a, payload, s);
  }

  // The failures' messages, out of line: the walk's frames, live while upstream parses below
  // them, hold none of their temporaries.
  ABSL_ATTRIBUTE_NOINLINE absl::Status PackedRejected(const FieldAction& a,
                                                      absl::string_view payload,
                                                      const absl::Status& s) const {
    return absl::InvalidArgumentError(absl::StrCat("field ", a.field->full_name(),
                                                   " (packed, payload at byte offset ",
                                                   payload.data() - origin_, "): ", s.message()));
  }
  ABSL_ATTRIBUTE_NOINLINE static absl::Status TooManyElements(const FieldAction& a) {
    return absl::ResourceExhaustedError(
        absl::StrCat("field ", a.field->full_name(), ": too many elements"));
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status UpstreamRejected(const char* p, const char* end,
                                                        const Message& msg, int budget) const {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", msg.GetDescriptor()->full_name(), ": ",
                     DescribeRejection(p, end, msg, budget, origin_)));
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
    return ok ? absl::OkStatus() : TooManyElements(a);
  }

  // Upstream protobuf parses [p, end) into msg, with `budget` nesting levels.
  ABSL_ATTRIBUTE_NOINLINE absl::Status Upstream(const char* p, const char* end, Message* msg,
                                                int budget) {
    if (internal::MergeWithUpstream(p, end, msg, budget)) return absl::OkStatus();
    return UpstreamRejected(p, end, *msg, budget);
  }

  const char* origin_;
  const bool enter_every_submessage_;
};

// `clear`: start from an empty message (Parse*) instead of merging (Merge*). `use_generated`: a
// linked generated parser for msg's type takes the whole parse. `budget`: the nesting levels left
// (below kDefaultBudget only for a piece of a stream's submessage, merged partially).
absl::Status ParseWithoutGeneratedParser(absl::string_view bytes, Message* msg, bool clear,
                                         bool check_required, int budget);

absl::Status ParseWhole(absl::string_view bytes, Message* msg, bool clear, bool check_required,
                        bool use_generated, int budget = kDefaultBudget) {
  if (use_generated) {
    if (const gen::MergeFn merge = gen::FindGeneratedParser(*msg)) {
      const gen::Mode mode = clear
                                 ? (check_required ? gen::Mode::kParse : gen::Mode::kParsePartial)
                                 : (check_required ? gen::Mode::kMerge : gen::Mode::kMergePartial);
      return gen::Run(bytes, msg, mode, merge, budget);
    }
  }
  return ParseWithoutGeneratedParser(bytes, msg, clear, check_required, budget);
}

// The walk (or upstream's parser alone, for a type with nothing to accelerate). Out of line: a
// generated parser runs under ParseWhole's frame, which holds none of this one's state.
ABSL_ATTRIBUTE_NOINLINE absl::Status ParseWithoutGeneratedParser(absl::string_view bytes,
                                                                 Message* msg, bool clear,
                                                                 bool check_required, int budget) {
  // Small messages skip even the plan lookup.
  const MessagePlan* plan = nullptr;
  std::optional<internal::PlanCache> plans_for_this_parse;  // A type outside the generated pool.
  if (bytes.size() >= kSmallMessageBytes) {
    const google::protobuf::Descriptor* d = msg->GetDescriptor();
    if (internal::InGeneratedPool(d)) {
      plan = &internal::PlanFor(d);
    } else {
      plan = &plans_for_this_parse.emplace().Get(d);
    }
  }
  if (plan == nullptr || !plan->accelerates) {
    // Nothing for the kernels: exactly upstream's ParseFromString (or its variant), one call.
    using ML = google::protobuf::MessageLite;
    using internal::compat::ParseFlat;
    const char* const in = bytes.data();
    const size_t n = bytes.size();
    bool ok;
    if (budget != kDefaultBudget) {
      ok = internal::MergeWithUpstream(in, in + n, msg, budget);  // A piece of a submessage.
    } else if (clear) {
      ok = check_required ? ParseFlat<ML::kParse>(msg, in, n)
                          : ParseFlat<ML::kParsePartial>(msg, in, n);
    } else {
      ok = check_required ? ParseFlat<ML::kMerge>(msg, in, n)
                          : ParseFlat<ML::kMergePartial>(msg, in, n);
    }
    if (ok) return absl::OkStatus();
    if (check_required) {
      // Tell a missing required field from malformed bytes.
      std::unique_ptr<Message> probe(msg->New());
      if (probe->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        return internal::MissingRequiredFields(*msg);
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed ", msg->GetDescriptor()->full_name(), ": ",
        DescribeRejection(bytes.data(), bytes.data() + bytes.size(), *msg, budget, bytes.data())));
  }
  if (clear) msg->Clear();
  Parser parser(bytes.data(), /*enter_every_submessage=*/false);
  absl::Status s = parser.Merge(bytes.data(), bytes.data() + bytes.size(), msg, *plan, budget);
  if (s.ok() && check_required && !msg->IsInitialized())
    return internal::MissingRequiredFields(*msg);
  return s;
}

// Inputs over 2 GiB (which upstream's ParseFromString takes, and which neither the field walk nor
// upstream's bounded readers take whole): merged a piece at a time (internal::ForEachPiece), with
// the required-field check at the end.
// Out of line: the parse of nearly every input runs under ParseImpl's frame, which then holds none
// of this one's state.
ABSL_ATTRIBUTE_NOINLINE absl::Status ParseInPieces(absl::string_view bytes, Message* msg,
                                                   bool clear, bool check_required,
                                                   bool use_generated) {
  if (clear) msg->Clear();
  absl::Status s;
  internal::ForEachPiece(
      bytes.data(), bytes.data() + bytes.size(), [&](const char* p, const char* stop) {
        s = internal::InPiece(ParseWhole(absl::string_view(p, static_cast<size_t>(stop - p)), msg,
                                         /*clear=*/false, /*check_required=*/false, use_generated),
                              static_cast<size_t>(p - bytes.data()));
        return s.ok();
      });
  if (!s.ok()) return s;
  return check_required && !msg->IsInitialized() ? internal::MissingRequiredFields(*msg)
                                                 : absl::OkStatus();
}

absl::Status ParseImpl(absl::string_view bytes, Message* msg, bool clear, bool check_required,
                       bool use_generated = true) {
  if (bytes.size() <= static_cast<size_t>(INT_MAX)) {
    return ParseWhole(bytes, msg, clear, check_required, use_generated);
  }
  return ParseInPieces(bytes, msg, clear, check_required, use_generated);
}

}  // namespace

namespace internal {

absl::Status MergePiece(absl::string_view bytes, Message* msg, int budget) {
  return ParseWhole(bytes, msg, /*clear=*/false, /*check_required=*/false,
                    /*use_generated=*/true, budget);
}

namespace {

// A type outside the generated pool: plans for this parse only. Out of line: MergeIteratively's
// frame, under which the walk runs, holds no PlanCache.
ABSL_ATTRIBUTE_NOINLINE absl::Status MergeIterativelyOutsidePool(const char* p, const char* end,
                                                                 const char* origin, Message* msg,
                                                                 int budget) {
  PlanCache plans_for_this_parse;
  Parser parser(origin, /*enter_every_submessage=*/true);
  return parser.Merge(p, end, msg, plans_for_this_parse.Get(msg->GetDescriptor()), budget);
}

}  // namespace

absl::Status MergeIteratively(const char* p, const char* end, const char* origin, Message* msg,
                              int budget) {
  const google::protobuf::Descriptor* d = msg->GetDescriptor();
  if (!InGeneratedPool(d)) return MergeIterativelyOutsidePool(p, end, origin, msg, budget);
  Parser parser(origin, /*enter_every_submessage=*/true);
  return parser.Merge(p, end, msg, PlanFor(d), budget);
}

}  // namespace internal

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
  internal::CordChunks chunks(bytes);
  return internal::ParseChunks(&chunks, msg, /*check_required=*/true);
}

absl::Status ParsePartialMessage(const absl::Cord& bytes, Message* msg) {
  if (auto flat = bytes.TryFlat()) return ParsePartialMessage(*flat, msg);
  internal::CordChunks chunks(bytes);
  return internal::ParseChunks(&chunks, msg, /*check_required=*/false);
}

absl::Status ParseMessage(google::protobuf::io::ZeroCopyInputStream* input, Message* msg) {
  internal::StreamChunks chunks(input);
  return internal::ParseChunks(&chunks, msg, /*check_required=*/true);
}

absl::Status ParsePartialMessage(google::protobuf::io::ZeroCopyInputStream* input, Message* msg) {
  internal::StreamChunks chunks(input);
  return internal::ParseChunks(&chunks, msg, /*check_required=*/false);
}

}  // namespace pbaccel
