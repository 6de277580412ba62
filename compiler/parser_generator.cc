// Copyright 2026 The pbaccel Authors.

#include "compiler/parser_generator.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "google/protobuf/compiler/cpp/names.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/io/printer.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/wire_format.h"
#include "google/protobuf/wire_format_lite.h"
#include "pbaccel/generated_code_version.h"
#include "pbaccel/internal/protobuf_compat.h"

#if PBACCEL_PROTOBUF_HAS_EDITIONS
#include "google/protobuf/cpp_features.pb.h"
#endif

namespace pbaccel {
namespace compiler {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::compiler::GeneratorContext;
using google::protobuf::internal::WireFormat;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::Printer;
using pbaccel::internal::compat::StringStorage;
namespace compat = pbaccel::internal::compat;
namespace cpp = google::protobuf::compiler::cpp;

using Vars = std::map<std::string, std::string>;

// "foo/bar.proto" -> "foo/bar". (Takes a copy: descriptor names are absl::string_view from v30.)
std::string Stem(std::string proto_name) {
  const std::string suffix = ".proto";
  if (proto_name.size() > suffix.size() &&
      proto_name.compare(proto_name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return proto_name.substr(0, proto_name.size() - suffix.size());
  }
  return proto_name;
}

bool IsLite(const FileDescriptor* file) {
  return file->options().optimize_for() == google::protobuf::FileOptions::LITE_RUNTIME;
}

// How the generated class stores a string or bytes field. Protobuf 27 resolves edition 2023's
// `(pb.cpp).string_type` only in protoc, where a code generator reads the resolved features (an
// explicit ctype wins, as in protobuf's own C++ generator); other releases tell it by the
// descriptor (compat::DeclaredStringStorage).
#if PBACCEL_PROTOBUF_HAS_EDITIONS && !PBACCEL_PROTOBUF_AT_LEAST(5, 28)
class ResolvedFeatures : public google::protobuf::compiler::CodeGenerator {
 public:
  using CodeGenerator::GetResolvedSourceFeatures;
};

StringStorage StringStorageOf(const FieldDescriptor* f) {
  if (f->options().has_ctype()) return compat::DeclaredStringStorage(f);
  switch (ResolvedFeatures::GetResolvedSourceFeatures(*f).GetExtension(pb::cpp).string_type()) {
    case pb::CppFeatures::VIEW: return StringStorage::kView;
    case pb::CppFeatures::CORD: return StringStorage::kCord;
    default: return StringStorage::kString;
  }
}
#else
StringStorage StringStorageOf(const FieldDescriptor* f) { return compat::DeclaredStringStorage(f); }
#endif

// Message types that get a generated parser: every message of the file, nested ones included,
// except map entries (maps are handed to upstream) and group bodies (groups are too).
void CollectMessages(const Descriptor* d, std::vector<const Descriptor*>* out) {
  if (d->options().map_entry()) return;
  out->push_back(d);
  for (int i = 0; i < d->nested_type_count(); ++i) CollectMessages(d->nested_type(i), out);
}

std::vector<const Descriptor*> MessagesOf(const FileDescriptor* file) {
  std::vector<const Descriptor*> out;
  for (int i = 0; i < file->message_type_count(); ++i) CollectMessages(file->message_type(i), &out);
  return out;
}

// How the generated code handles a field's varint value `v`.
struct VarintKind {
  std::string value;  // The expression for the accessor, in terms of the varint ($enum$ for enums).
  const char* packed;  // The runtime's packed parser.
};

// `f`'s kind; its value expression reads the uint64_t varint named `var`. An empty value: `f` is
// not a varint field.
VarintKind VarintKindOf(const FieldDescriptor* f, const std::string& var = "v") {
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
      return {"static_cast<int32_t>(" + var + ")", "ParsePackedInt32"};
    case FieldDescriptor::TYPE_INT64:
      return {"static_cast<int64_t>(" + var + ")", "ParsePackedInt64"};
    case FieldDescriptor::TYPE_UINT32:
      return {"static_cast<uint32_t>(" + var + ")", "ParsePackedUInt32"};
    case FieldDescriptor::TYPE_UINT64: return {var, "ParsePackedUInt64"};
    case FieldDescriptor::TYPE_SINT32: return {"ZigZag32(" + var + ")", "ParsePackedSInt32"};
    case FieldDescriptor::TYPE_SINT64: return {"ZigZag64(" + var + ")", "ParsePackedSInt64"};
    case FieldDescriptor::TYPE_BOOL: return {var + " != 0", "ParsePackedBool"};
    case FieldDescriptor::TYPE_ENUM:
      return {"static_cast<$enum$>(static_cast<int32_t>(" + var + "))", "ParsePackedEnum"};
    default: return {"", nullptr};
  }
}

// The C++ type of a fixed-width field's value, or nullptr.
const char* FixedType(const FieldDescriptor* f) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_FIXED32: return "uint32_t";
    case FieldDescriptor::TYPE_SFIXED32: return "int32_t";
    case FieldDescriptor::TYPE_FLOAT: return "float";
    case FieldDescriptor::TYPE_FIXED64: return "uint64_t";
    case FieldDescriptor::TYPE_SFIXED64: return "int64_t";
    case FieldDescriptor::TYPE_DOUBLE: return "double";
    default: return nullptr;
  }
}

// The bytes of a fixed-width field's value (4 or 8), or 0 for other fields.
int FixedSize(const FieldDescriptor* f) {
  switch (WireFormat::WireTypeForFieldType(f->type())) {
    case WireFormatLite::WIRETYPE_FIXED32: return 4;
    case WireFormatLite::WIRETYPE_FIXED64: return 8;
    default: return 0;
  }
}

// The tag of one value of f on its own (the only encoding of a singular field; a repeated
// scalar's unpacked one), by upstream's rule for f's type.
uint32_t ValueTag(const FieldDescriptor* f) {
  return WireFormatLite::MakeTag(f->number(), WireFormat::WireTypeForFieldType(f->type()));
}

// The tag of a repeated scalar's packed encoding.
uint32_t PackedTag(const FieldDescriptor* f) {
  return WireFormatLite::MakeTag(f->number(), WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

// Writes one message type's MergeFields.
class MessageWriter {
 public:
  MessageWriter(const Descriptor* d, const std::set<const Descriptor*>& generated, Printer* out)
      : d_(d), generated_(generated), out_(out) {}

  void Write() {
    Vars vars{{"class", cpp::QualifiedClassName(d_)}, {"name", std::string(d_->full_name())}};
    out_->Print(vars,
                "// $name$\n"
                "const char* MergeFields(const char* p, const char* end, $class$* msg,\n"
                "                        Context* ctx, bool reuse) {\n");
    // Parsing in place of old contents (reuse; generated_parser.h): the repeated message and
    // string fields parsed here keep their old elements through the Clear() and reuse them.
    // Singular submessages whose own parser reuses elements are set aside before the clear
    // (KeptSubmessage), so their old contents are reset as the parse reuses them, not first.
    std::vector<const FieldDescriptor*> reusable;
    std::vector<const FieldDescriptor*> kept;
    for (int i = 0; i < d_->field_count(); ++i) {
      if (Reusable(d_->field(i))) reusable.push_back(d_->field(i));
      if (Kept(d_->field(i))) kept.push_back(d_->field(i));
    }
    for (const FieldDescriptor* f : kept) {
      out_->Print(
          "  KeptSubmessage<$type$> $field$_kept(\n"
          "      reuse && msg->GetArena() == nullptr && msg->has_$field$() ? "
          "msg->release_$field$() : nullptr);\n",
          "type", cpp::QualifiedClassName(f->message_type()), "field", cpp::FieldName(f));
    }
    if (reusable.empty()) {
      out_->Print("  if (reuse) msg->Clear();\n");
    } else {
      // ClearKeeping's test for a plain Clear(), a line per field, then the fields.
      out_->Print("  if (reuse) {\n    ClearKeeping(msg,\n");
      for (size_t i = 0; i < reusable.size(); ++i) {
        out_->Print("                 msg->$field$_size() $test$$and$\n", "field",
                    cpp::FieldName(reusable[i]), "test",
                    Shallow(reusable[i]) ? "<= kClearedInPlaceElements" : "== 0", "and",
                    i + 1 < reusable.size() ? " &&" : ",");
      }
      out_->Print("                 $fields$);\n", "fields",
                  MutableFieldList(reusable, "msg", ",\n                 "));
      out_->Print("  }\n");
      out_->Print("  ReusedElements reused(ctx, reuse,\n                        $fields$);\n",
                  "fields", MutableFieldList(reusable, "msg", ",\n                        "));
    }
    PredictSuccessors();
    out_->Print(
        "  while (p < end) {\n"
        "    const char* field = p;\n");
    // The cases, at their final indentation (inside the while and the switch); a type with no
    // field parsed here gets no switch at all.
    std::string cases;
    {
      google::protobuf::io::StringOutputStream stream(&cases);
      Printer case_out(&stream, '$');
      for (int i = 0; i < 3; ++i) case_out.Indent();
      for (int i = 0; i < d_->field_count(); ++i) WriteField(d_->field(i), &case_out);
    }
    if (!cases.empty()) {
      out_->Print(
          "    uint32_t tag;\n"
          "    p = ReadTag(p, end, &tag);\n"
          "    switch (tag) {\n");
      out_->PrintRaw(cases);
      out_->Print("    }\n");
    }
    out_->Print(
        "    // Everything else: upstream's parser, one field.\n"
        "    p = Delegate(field, end, msg, ctx);\n"
        "    if (p == nullptr) return nullptr;\n");
    out_->Print("  }\n");
    if (!reusable.empty()) {
      // The fields as a function of the message: the state of a message with many of them is on
      // the slot stack, and they are then listed out of line (ReusedElements::Finish).
      out_->Print(
          "  reused.Finish(ctx, msg, [](auto* m, auto&& each) {\n"
          "    each($fields$);\n"
          "  });\n",
          "fields", MutableFieldList(reusable, "m", ",\n         "));
    }
    for (const FieldDescriptor* f : kept) {
      out_->Print(
          "  if (auto* kept = $field$_kept.Take()) {  // Not in the input: as Clear() leaves it.\n"
          "    msg->set_allocated_$field$(kept);\n"
          "    msg->clear_$field$();\n"
          "  }\n",
          "field", cpp::FieldName(f));
    }
    // Its own required fields, now that its input has ended (Context::MarkMaybeUninitialized).
    std::string present;
    for (int i = 0; i < d_->field_count(); ++i) {
      if (!d_->field(i)->is_required()) continue;
      present +=
          (present.empty() ? "" : " && ") + ("msg->has_" + cpp::FieldName(d_->field(i)) + "()");
    }
    if (!present.empty()) {
      out_->Print("  if (!($present$)) ctx->MarkMaybeUninitialized();\n", "present", present);
    }
    out_->Print(
        "  return p;\n"
        "}\n\n");
  }

 private:
  // Successor prediction. A case's end tests whether the next field's tag is the one a serializer
  // writes next (fields come in number order; a repeated field's elements, unless packed, one
  // after another) and jumps straight to that case: a branch per call site that nearly always
  // goes the same way, where the switch's indirect jump, shared by every field, mispredicts on
  // most changes of field. The tag tested is the one the serializer writes the field with
  // (WireFormat::MakeTag: packed or not, as declared). Only one-byte tags are predicted; anything
  // else takes the switch.

  // Fills successors_ (per field with cases: the one-byte tags to test, in order) and targets_
  // (every tag tested, whose case gets a label).
  void PredictSuccessors() {
    std::vector<const FieldDescriptor*> parsed;  // The fields with cases, by number.
    for (int i = 0; i < d_->field_count(); ++i) {
      std::string text;
      {
        google::protobuf::io::StringOutputStream stream(&text);
        Printer dry_run(&stream, '$');
        WriteField(d_->field(i), &dry_run);
      }
      if (!text.empty()) parsed.push_back(d_->field(i));
    }
    std::sort(parsed.begin(), parsed.end(), [](const FieldDescriptor* a, const FieldDescriptor* b) {
      return a->number() < b->number();
    });
    for (size_t i = 0; i < parsed.size(); ++i) {
      const FieldDescriptor* f = parsed[i];
      std::vector<uint32_t> next;
      if (f->is_repeated() && !f->is_packed()) next.push_back(WireFormat::MakeTag(f));
      // Not after a singular submessage: it comes once per message, so the jump saves little,
      // and a jump from the case that recursed keeps more live across the call - under clang with
      // UBSan 16 more bytes of stack per nesting level, past upstream's (reliability_test).
      const bool singular_message =
          !f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if (i + 1 < parsed.size() && !singular_message)
        next.push_back(WireFormat::MakeTag(parsed[i + 1]));
      for (const uint32_t tag : next) {
        if (tag >= 0x80) continue;
        successors_[f].push_back(tag);
        targets_.insert(tag);
      }
    }
  }

  // Sets the variables of f's case for `tag`: $tag$, $label$ (the target of successor jumps) and
  // $next$ (the successor tests before its `continue`).
  void SetCase(const FieldDescriptor* f, uint32_t tag, Vars* vars) const {
    (*vars)["tag"] = std::to_string(tag);
    (*vars)["label"] = targets_.count(tag) != 0 ? "tag_" + std::to_string(tag) + ":\n" : "";
    std::string next;
    const auto it = successors_.find(f);
    if (it != successors_.end()) {
      for (const uint32_t s : it->second) {
        const std::string n = std::to_string(s);
        next += "  if (NextTagIs(p, end, " + n + ")) {\n    field = p++;\n    goto tag_" + n +
                ";\n  }\n";
      }
    }
    (*vars)["next"] = next;
  }

  // Prints a case's text: out->Print, after $label$ and $next$ (which SetCase filled) are put into
  // the text itself, so that the printer indents their lines.
  static void PrintCase(Printer* out, const Vars& vars, std::string text) {
    for (const std::string name : {"label", "next"}) {
      const std::string marker = "$" + name + "$";
      for (size_t at; (at = text.find(marker)) != std::string::npos;) {
        text.replace(at, marker.size(), vars.at(name));
      }
    }
    out->Print(vars, text.c_str());
  }

  // The repeated fields whose old elements a parse in place reuses: those parsed here that hold
  // pointers (submessages with a generated parser, strings and bytes).
  // "<object>->mutable_a()<separator><object>->mutable_b()...": the reusable fields as the
  // arguments of ClearKeeping, ReusedElements and its Finish.
  static std::string MutableFieldList(const std::vector<const FieldDescriptor*>& fields,
                                      const std::string& object, const std::string& separator) {
    std::string list;
    for (const FieldDescriptor* f : fields) {
      if (!list.empty()) list += separator;
      list += object + "->mutable_" + cpp::FieldName(f) + "()";
    }
    return list;
  }

  // Where f is among the reusable fields of its message (their order in ReusedElements).
  int ReusedIndex(const FieldDescriptor* f) const {
    int k = 0;
    for (int i = 0; i < d_->field_count() && d_->field(i) != f; ++i) k += Reusable(d_->field(i));
    return k;
  }

  bool Reusable(const FieldDescriptor* f) const {
    if (!f->is_repeated() || f->is_map() || compat::IsWeakField(f)) return false;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      // Only the storages WriteField parses here (a repeated VIEW field is std::strings too).
      const StringStorage storage = StringStorageOf(f);
      if (storage != StringStorage::kString && storage != StringStorage::kView) return false;
    }
    if (f->type() == FieldDescriptor::TYPE_MESSAGE) return generated_.count(f->message_type()) != 0;
    return f->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
  }

  bool HasReusableField(const Descriptor* d) const {
    for (int i = 0; i < d->field_count(); ++i) {
      if (Reusable(d->field(i))) return true;
    }
    return false;
  }

  // Whether a parse in place of a `d` reuses old elements anywhere below it: in its own repeated
  // fields or, recursively, in its singular submessages'. `seen` stops recursive types.
  bool ReusesElementsBelow(const Descriptor* d, std::set<const Descriptor*>* seen) const {
    if (!seen->insert(d).second) return false;
    if (HasReusableField(d)) return true;
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (!f->is_repeated() && f->message_type() != nullptr &&
          generated_.count(f->message_type()) != 0 &&
          ReusesElementsBelow(f->message_type(), seen)) {
        return true;
      }
    }
    return false;
  }

  // A reusable field whose elements reuse nothing themselves (strings, a profile Location's
  // Lines), so that Clear() resets a few of them cheaply (ClearKeeping in generated_parser.h).
  bool Shallow(const FieldDescriptor* f) const {
    std::set<const Descriptor*> seen;
    return f->message_type() == nullptr || !ReusesElementsBelow(f->message_type(), &seen);
  }

  // A singular submessage (not in a oneof) of a type this file parses whose parser reuses the
  // elements of some of its fields: worth setting aside through the clear (KeptSubmessage).
  bool Kept(const FieldDescriptor* f) const {
    if (f->is_repeated() || f->type() != FieldDescriptor::TYPE_MESSAGE || compat::IsWeakField(f) ||
        f->real_containing_oneof() != nullptr || generated_.count(f->message_type()) == 0) {
      return false;
    }
    return HasReusableField(f->message_type());
  }

  void WriteField(const FieldDescriptor* f, Printer* out) const {
    // Left to upstream (no case: Delegate takes them): groups and delimited submessages
    // (TYPE_GROUP, whatever the syntax), weak fields, strings stored as Cord or StringPiece,
    // submessages without a generated parser, and some maps (WriteMap).
    if (f->type() == FieldDescriptor::TYPE_GROUP || compat::IsWeakField(f)) return;
    if (f->is_map()) {
      WriteMap(f, out);
      return;
    }
    const StringStorage storage = f->cpp_type() == FieldDescriptor::CPPTYPE_STRING
                                      ? StringStorageOf(f)
                                      : StringStorage::kString;
    if (storage != StringStorage::kString && storage != StringStorage::kView) return;
    Vars vars{
        {"field", cpp::FieldName(f)},
        {"decl", DeclarationOf(f)},
        // A repeated scalar is appended through AddValue (out of line where upstream's Add()
        // carries a debug check: generated_parser.h).
        {"add_or_set", f->is_repeated() ? "AddValue(msg->mutable_" + cpp::FieldName(f) + "(), "
                                        : "msg->set_" + cpp::FieldName(f) + "("}};
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE: WriteMessage(f, vars, out); return;
      case FieldDescriptor::CPPTYPE_STRING: {
        SetCase(f, ValueTag(f), &vars);
        // A singular string_type = VIEW field has no mutable_x(): set_x(string_view) instead.
        // (A repeated one still has mutable_x(), a RepeatedPtrField<std::string>.)
        const bool set_view = storage == StringStorage::kView && !f->is_repeated();
        // A reused element keeps the earlier parse's value, which AssignString overwrites in place
        // where the new value has its length.
        vars["assign"] = Reusable(f)
                             ? "AssignString(reused.Next<" + std::to_string(ReusedIndex(f)) +
                                   ">(msg->mutable_" + cpp::FieldName(f) + "()), "
                         : f->is_repeated() ? "msg->add_" + cpp::FieldName(f) + "()->assign("
                         : set_view ? "msg->set_" + cpp::FieldName(f) + "(absl::string_view("
                                    : "msg->mutable_" + cpp::FieldName(f) + "()->assign(";
        vars["close"] = set_view ? "))" : ")";
        // Upstream rejects invalid UTF-8 where the field requires validation (proto3 `string`,
        // editions unless utf8_validation = NONE); bytes, and proto2 strings, are not checked.
        vars["check"] =
            compat::RequiresUtf8Validation(f) ? " || !ValidUtf8(payload, payload_end)" : "";
        PrintCase(out, vars,
                  "case $tag$: {  // $decl$\n$label$"
                  "  const char* payload_end;\n"
                  "  const char* payload = ReadLength(p, end, &payload_end);\n"
                  "  if (payload == nullptr$check$) break;\n"
                  "  $assign$payload, static_cast<size_t>(payload_end - payload)$close$;\n"
                  "  p = payload_end;\n"
                  "$next$  continue;\n"
                  "}\n");
        return;
      }
      default: break;
    }
    if (const char* type = FixedType(f)) {
      vars["type"] = type;
      vars["size"] = std::to_string(FixedSize(f));
      SetCase(f, ValueTag(f), &vars);
      PrintCase(out, vars,
                "case $tag$: {  // $decl$\n$label$"
                "  if (end - p < $size$) break;\n"
                "  $add_or_set$LoadFixed<$type$>(p));\n"
                "  p += $size$;\n"
                "$next$  continue;\n"
                "}\n");
      if (f->is_repeated()) WritePacked(f, vars, "ParsePackedFixed", /*varints=*/false, out);
      return;
    }
    const VarintKind kind = VarintKindOf(f);
    if (kind.value.empty()) return;
    // A closed enum's unknown value goes to the unknown fields: upstream's business. Closed as
    // upstream's C++ runtime decides (compat::IsClosedEnumField: a proto2 field of any enum, an
    // editions field of an enum_type = CLOSED enum or with legacy_closed_enum).
    const bool closed_enum = compat::IsClosedEnumField(f);
    if (f->type() == FieldDescriptor::TYPE_ENUM) {
      vars["enum"] = cpp::QualifiedClassName(f->enum_type());
    }
    SetCase(f, ValueTag(f), &vars);
    vars["check"] =
        closed_enum ? " || !" + ValidityCheck(f->enum_type(), "static_cast<int>(v)") : "";
    PrintCase(
        out, vars,
        "case $tag$: {  // $decl$\n$label$"
        "  uint64_t v;\n"
        "  if ((p = ReadVarint(p, end, ctx->readable_end(), &v)) == nullptr$check$) break;\n");
    out->Print(vars, (std::string("  $add_or_set$") + kind.value + ");\n").c_str());
    PrintCase(out, vars,
              "$next$  continue;\n"
              "}\n");
    if (f->is_repeated() && closed_enum) {
      const std::string is_valid =
          ", [](int e) { return " + ValidityCheck(f->enum_type(), "e") + "; }";
      WritePacked(f, vars, "ParsePackedClosedEnum", /*varints=*/true, out, is_valid);
    } else if (f->is_repeated()) {
      WritePacked(f, vars, kind.packed, /*varints=*/true, out);
    }
  }

  // A submessage, parsed by its type's generated parser: this file's, called directly (a repeated
  // field's old elements reused, ReusedElements); or another file's (e.g. another
  // pbaccel_cc_parser target's) if one is linked into the program, looked up once in the registry
  // of full-runtime types, else the field is handed to upstream. Another file's LITE_RUNTIME types
  // are not registered: always upstream's (no case).
  // A submessage `sub`'s payload [$from$, $to$) parsed by $merge$ (MergeDeep deeper than
  // kGeneratedNestingLevels, generated_parser.h), `$old$` its reuse flag. On success the parse
  // returns $to$: nothing of this level's but the loop's own state stays live across the call
  // (Context::EnterSubmessage).
  static constexpr const char* kParseSubmessage =
      "  p = ctx->Shallow() ? $merge$($from$, $to$, sub, ctx, $old$)\n"
      "                     : MergeDeep(field, $number$, *msg, $from$, $to$, sub, ctx, $old$);\n"
      "  if (p == nullptr) return nullptr;\n";

  void WriteMessage(const FieldDescriptor* f, Vars vars, Printer* out) const {
    const bool here = generated_.count(f->message_type()) != 0;
    if (!here && IsLite(f->message_type()->file())) return;
    SetCase(f, ValueTag(f), &vars);
    vars["number"] = std::to_string(f->number());
    vars["sub_class"] = cpp::QualifiedClassName(f->message_type());
    PrintCase(out, vars,
              here ? "case $tag$: {  // $decl$\n$label$"
                   : "case $tag$: {  // $decl$, if its parser is linked\n$label$"
                     "  static const MergeFn merge = "
                     "LinkedParser($sub_class$::default_instance());\n");
    vars["merge"] = here ? "MergeFields" : "merge";
    vars["linked"] = here ? "" : "merge == nullptr || ";
    out->Print(
        vars,
        "  const char* payload_end;\n"
        "  const char* payload = ReadLength(p, end, &payload_end);\n"
        "  if ($linked$payload == nullptr) break;\n"
        "  if (!ctx->EnterSubmessage()) return NestedTooDeep(field, $number$, *msg, ctx);\n");
    if (Reusable(f)) {
      vars["k"] = std::to_string(ReusedIndex(f));
      out->Print(vars,
                 "  bool old;\n"
                 "  auto* sub = reused.Next<$k$>(msg->mutable_$field$(), &old);\n");
      vars["old"] = "old";
    } else if (Kept(f)) {
      out->Print(vars,
                 "  auto* kept = $field$_kept.Take();\n"
                 "  const bool old = kept != nullptr;\n"
                 "  if (old) msg->set_allocated_$field$(kept);\n"
                 "  auto* sub = msg->mutable_$field$();\n");
      vars["old"] = "old";
    } else {
      out->Print(vars, f->is_repeated() ? "  auto* sub = msg->add_$field$();\n"
                                        : "  auto* sub = msg->mutable_$field$();\n");
      vars["old"] = "false";
    }
    vars["from"] = "payload";
    vars["to"] = "payload_end";
    PrintCase(out, vars,
              std::string(kParseSubmessage) +
                  "  ctx->LeaveSubmessage();\n"
                  "$next$  continue;\n"
                  "}\n");
  }

  // A map field's entries in the shape serializers write (the key, field 1, then the value, field
  // 2, nothing else), read here; any other shape (a key or value missing, repeated or out of
  // order, unknown fields) and every malformed byte go to upstream (break: Delegate), which
  // decides, as do whole maps of closed enums (an unknown value sends the entry to the unknown
  // fields) and of messages without a generated parser here. As upstream's parser: the entry is a
  // nesting level (a message value one more), keys and values are checked for UTF-8 where the
  // field requires it, and a key seen before gets the new value in place of its old one (a
  // message value is parsed in place of the old, as a reused message). (A value that fails to
  // parse stays in the map, which upstream erases: the failure's record points into it.)
  void WriteMap(const FieldDescriptor* f, Printer* out) const {
    const FieldDescriptor* key = f->message_type()->map_key();
    const FieldDescriptor* value = f->message_type()->map_value();
    const bool message_value = value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (message_value && generated_.count(value->message_type()) == 0) return;
    if (value->type() == FieldDescriptor::TYPE_ENUM && compat::IsClosedEnumField(value)) return;
    Vars vars{{"field", cpp::FieldName(f)},
              {"decl", DeclarationOf(f)},
              {"number", std::to_string(f->number())},
              {"key_tag", std::to_string(ValueTag(key))},
              {"value_tag", std::to_string(ValueTag(value))}};
    SetCase(f, ValueTag(f), &vars);
    PrintCase(
        out, vars,
        "case $tag$: {  // $decl$\n$label$"
        "  const char* payload_end;\n"
        "  const char* payload = ReadLength(p, end, &payload_end);\n"
        "  if (payload == nullptr || payload == payload_end || *payload != $key_tag$) break;\n");
    // The key, from payload + 1 to key_end, followed by the value's tag.
    std::string key_expr;
    if (key->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      vars["check"] = compat::RequiresUtf8Validation(key) ? " || !ValidUtf8(key, key_end)" : "";
      out->Print(
          vars,
          "  const char* key_end;\n"
          "  const char* key = ReadLength(payload + 1, payload_end, &key_end);\n"
          "  if (key == nullptr || key_end == payload_end || *key_end != $value_tag$$check$) "
          "break;\n");
      key_expr = "key, key_end";
    } else if (const char* type = FixedType(key)) {
      vars["size"] = std::to_string(FixedSize(key));
      out->Print(vars,
                 "  if (payload_end - payload < 2 + $size$) break;\n"
                 "  const char* key_end = payload + 1 + $size$;\n"
                 "  if (*key_end != $value_tag$) break;\n");
      key_expr = std::string("LoadFixed<") + type + ">(payload + 1)";
    } else {
      out->Print(
          vars,
          "  uint64_t k;\n"
          "  const char* key_end = ReadVarint(payload + 1, payload_end, ctx->readable_end(), &k);\n"
          "  if (key_end == nullptr || key_end == payload_end || *key_end != $value_tag$) "
          "break;\n");
      key_expr = VarintKindOf(key, "k").value;
    }
    vars["key"] = key_expr;  // MapEntryValue's key arguments.
    if (message_value) {
      vars["sub_class"] = cpp::QualifiedClassName(value->message_type());
      vars["merge"] = "MergeFields";
      vars["from"] = "value";
      vars["to"] = "value_end";
      vars["old"] = "old";
      PrintCase(out, vars,
                "  const char* value_end;\n"
                "  const char* value = ReadLength(key_end + 1, payload_end, &value_end);\n"
                "  if (value == nullptr || value_end != payload_end) break;\n"
                "  if (!ctx->EnterSubmessage() || !ctx->EnterSubmessage()) {  // The entry, the "
                "value.\n"
                "    return NestedTooDeep(field, $number$, *msg, ctx);\n"
                "  }\n"
                "  bool old;  // A key seen before: a new value.\n"
                "  $sub_class$* sub = MapEntryValue(msg->mutable_$field$(), $key$, &old);\n" +
                    std::string(kParseSubmessage) +
                    "  ctx->LeaveSubmessage();\n"
                    "  ctx->LeaveSubmessage();\n"
                    "$next$  continue;\n"
                    "}\n");
      return;
    }
    // A scalar or string value, from key_end + 1 to payload_end, stored through the pointer that
    // MapEntryValue returns: $deref$ goes before the call, $store$ after it.
    if (value->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      vars["check"] =
          compat::RequiresUtf8Validation(value) ? " || !ValidUtf8(value, value_end)" : "";
      out->Print(vars,
                 "  const char* value_end;\n"
                 "  const char* value = ReadLength(key_end + 1, payload_end, &value_end);\n"
                 "  if (value == nullptr || value_end != payload_end$check$) break;\n");
      vars["deref"] = "";
      vars["store"] = "->assign(value, static_cast<size_t>(value_end - value))";
    } else if (const char* type = FixedType(value)) {
      vars["size"] = std::to_string(FixedSize(value));
      out->Print(vars, "  if (payload_end - key_end != 1 + $size$) break;\n");
      vars["deref"] = "*";
      vars["store"] = std::string(" = LoadFixed<") + type + ">(key_end + 1)";
    } else {
      out->Print(
          vars,
          "  uint64_t v;\n"
          "  if (ReadVarint(key_end + 1, payload_end, ctx->readable_end(), &v) != payload_end) "
          "break;\n");
      std::string expr = VarintKindOf(value).value;
      if (const size_t at = expr.find("$enum$"); at != std::string::npos) {
        expr.replace(at, 6, cpp::QualifiedClassName(value->enum_type()));
      }
      vars["deref"] = "*";
      vars["store"] = " = " + expr;
    }
    PrintCase(out, vars,
              "  if (ctx->budget() <= 0) return NestedTooDeep(field, $number$, *msg, ctx);\n"
              "  $deref$MapEntryValue(msg->mutable_$field$(), $key$)$store$;\n"
              "  p = payload_end;\n"
              "$next$  continue;\n"
              "}\n");
  }

  // The C++ test that the int `value` is a number of the closed enum `e`: a range test when its
  // numbers are contiguous (no call), else its generated _IsValid.
  static std::string ValidityCheck(const EnumDescriptor* e, const std::string& value) {
    std::set<int> numbers;
    for (int i = 0; i < e->value_count(); ++i) numbers.insert(e->value(i)->number());
    const int64_t lo = *numbers.begin();
    const int64_t hi = *numbers.rbegin();
    if (hi - lo + 1 == static_cast<int64_t>(numbers.size())) {
      return "EnumInRange(" + value + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ")";
    }
    return cpp::QualifiedClassName(e) + "_IsValid(" + value + ")";
  }

  // The packed encoding of a repeated scalar (accepted whatever the field's `packed` option says,
  // as upstream does).
  // Varint payloads also take the context (tiny ones read past their end, within the input).
  void WritePacked(const FieldDescriptor* f, Vars vars, const char* parser, bool varints,
                   Printer* out, const std::string& extra_arguments = "") const {
    SetCase(f, PackedTag(f), &vars);
    vars["parser"] = parser;
    vars["extra"] = (varints ? ", *ctx" : "") + extra_arguments;
    PrintCase(out, vars,
              "case $tag$: {  // $decl$, packed\n$label$"
              "  const char* payload_end;\n"
              "  const char* payload = ReadLength(p, end, &payload_end);\n"
              "  if (payload == nullptr || !$parser$(payload, payload_end, "
              "msg->mutable_$field$()$extra$)) "
              "break;\n"
              "  p = payload_end;\n"
              "$next$  continue;\n"
              "}\n");
  }

  // "repeated sint64 refs = 8", for the comments.
  static std::string TypeNameOf(const FieldDescriptor* f) {
    return f->message_type() != nullptr ? std::string(f->message_type()->name())
           : f->enum_type() != nullptr  ? std::string(f->enum_type()->name())
                                        : std::string(f->type_name());
  }

  static std::string DeclarationOf(const FieldDescriptor* f) {
    const std::string type = f->is_map()
                                 ? "map<" + TypeNameOf(f->message_type()->map_key()) + ", " +
                                       TypeNameOf(f->message_type()->map_value()) + ">"
                                 : (f->is_repeated() ? "repeated " : "") + TypeNameOf(f);
    return type + " " + std::string(f->name()) + " = " + std::to_string(f->number());
  }

  const Descriptor* d_;
  std::map<const FieldDescriptor*, std::vector<uint32_t>> successors_;
  std::set<uint32_t> targets_;
  const std::set<const Descriptor*>& generated_;
  Printer* out_;
};

void WriteHeader(const FileDescriptor* file, GeneratorContext* context) {
  std::unique_ptr<google::protobuf::io::ZeroCopyOutputStream> stream(
      context->Open(Stem(std::string(file->name())) + ".pbaccel.h"));
  Printer out(stream.get(), '$');
  std::string guard = "PBACCEL_GENERATED_" + Stem(std::string(file->name())) + "_PBACCEL_H_";
  for (char& c : guard) c = std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
  Vars vars{{"proto", std::string(file->name())},
            {"stem", Stem(std::string(file->name()))},
            {"guard", guard},
            {"version", std::to_string(PBACCEL_GENERATED_CODE_VERSION)}};
  out.Print(
      vars,
      "// Generated by protoc-gen-pbaccel from $proto$. DO NOT EDIT.\n"
      "//\n"
      "// pbaccel::ParseMessage, ParsePartialMessage, MergeMessage and MergePartialMessage for\n"
      "// each message type of $proto$, parsed by generated code (pbaccel/generated_parser.h).\n"
      "\n"
      "#ifndef $guard$\n"
      "#define $guard$\n"
      "\n"
      "#include \"$stem$.pb.h\"\n"
      "#include \"pbaccel/generated_parser.h\"\n"
      "\n"
      "#if PBACCEL_GENERATED_CODE_VERSION != $version$\n"
      "#error \"$proto$'s .pbaccel.h was generated for another pbaccel runtime: regenerate it\"\n"
      "#endif\n"
      "\n"
      "namespace pbaccel {\n"
      "namespace gen {\n"
      "\n");
  const std::vector<const Descriptor*> messages = MessagesOf(file);
  for (const Descriptor* d : messages) {
    out.Print(
        "const char* MergeFields(const char* p, const char* end, $class$* msg,\n"
        "                        Context* ctx, bool reuse);\n",
        "class", cpp::QualifiedClassName(d));
  }
  out.Print(
      "\n"
      "}  // namespace gen\n"
      "}  // namespace pbaccel\n"
      "\n");
  for (const Descriptor* d : messages) {
    out.Print("PBACCEL_GENERATED_PARSER_OVERLOADS($class$)\n", "class", cpp::QualifiedClassName(d));
  }
  out.Print(vars, "\n#endif  // $guard$\n");
}

void WriteSource(const FileDescriptor* file, const std::set<const Descriptor*>& generated,
                 GeneratorContext* context) {
  std::unique_ptr<google::protobuf::io::ZeroCopyOutputStream> stream(
      context->Open(Stem(std::string(file->name())) + ".pbaccel.cc"));
  Printer out(stream.get(), '$');
  out.Print(
      "// Generated by protoc-gen-pbaccel from $proto$. DO NOT EDIT.\n\n"
      "#include \"$stem$.pbaccel.h\"\n",
      "proto", std::string(file->name()), "stem", Stem(std::string(file->name())));
  // The headers of the other generated files whose parsers this one calls.
  std::set<std::string> includes;
  const std::vector<const Descriptor*> messages = MessagesOf(file);
  for (const Descriptor* d : messages) {
    for (int i = 0; i < d->field_count(); ++i) {
      const Descriptor* sub = d->field(i)->message_type();
      if (sub != nullptr && sub->file() != file && generated.count(sub) != 0) {
        includes.insert(Stem(std::string(sub->file()->name())) + ".pbaccel.h");
      }
    }
  }
  for (const std::string& include : includes) out.Print("#include \"$h$\"\n", "h", include);
  out.Print(
      "\n"
      "// Deprecated fields are parsed like any other, as upstream's own parser does.\n"
      "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n");
  out.Print(
      "\n"
      "namespace pbaccel {\n"
      "namespace gen {\n"
      "\n");
  for (const Descriptor* d : messages) MessageWriter(d, generated, &out).Write();
  out.Print(
      "}  // namespace gen\n"
      "}  // namespace pbaccel\n");
  if (messages.empty()) return;
  // Full-runtime types: ParseMessage(bytes, google::protobuf::Message*) finds these parsers by
  // descriptor. LITE_RUNTIME types: by type name (gen::FindLiteParser), for tests.
  out.Print(
      "\n"
      "namespace {\n"
      "\n"
      "const ::pbaccel::gen::Registration kParsers[] = {\n");
  for (const Descriptor* d : messages) {
    out.Print("    {&$class$::default_instance(), &::pbaccel::gen::MergeThunk<$class$>},\n",
              "class", cpp::QualifiedClassName(d));
  }
  out.Print(
      "};\n"
      "[[maybe_unused]] const bool kRegistered =\n"
      "    ::pbaccel::gen::$register$(kParsers, sizeof(kParsers) / sizeof(kParsers[0]));\n"
      "\n"
      "}  // namespace\n",
      "register", IsLite(file) ? "RegisterLiteParsers" : "RegisterParsers");
}

}  // namespace

uint64_t ParserGenerator::GetSupportedFeatures() const {
#if PBACCEL_PROTOBUF_HAS_EDITIONS
  return FEATURE_PROTO3_OPTIONAL | FEATURE_SUPPORTS_EDITIONS;
#else
  return FEATURE_PROTO3_OPTIONAL;
#endif
}

#if PBACCEL_PROTOBUF_HAS_EDITIONS
// The editions protobuf's own C++ generator of this release supports: the generated classes this
// plugin's code calls are that generator's.
google::protobuf::Edition ParserGenerator::GetMinimumEdition() const {
  return google::protobuf::Edition::EDITION_PROTO2;
}
google::protobuf::Edition ParserGenerator::GetMaximumEdition() const {
#if PBACCEL_PROTOBUF_AT_LEAST(6, 32)
  // Edition 2024 from protobuf 32, where protoc's C++ generator takes it; none later until the
  // suite has run on it (docs/protobuf_versions.md, "Editions").
  return google::protobuf::Edition::EDITION_2024;
#else
  return google::protobuf::Edition::EDITION_2023;
#endif
}
// pb.cpp (legacy_closed_enum, string_type): resolved by protoc for the descriptors it passes.
std::vector<const FieldDescriptor*> ParserGenerator::GetFeatureExtensions() const {
  return {google::protobuf::GetExtensionReflection(pb::cpp)};
}
#endif

bool ParserGenerator::Generate(const FileDescriptor* file, const std::string& parameter,
                               GeneratorContext* context, std::string* error) const {
  return GenerateAll({file}, parameter, context, error);
}

bool ParserGenerator::GenerateAll(const std::vector<const FileDescriptor*>& files,
                                  const std::string& parameter, GeneratorContext* context,
                                  std::string* error) const {
  if (!parameter.empty()) {
    *error = "protoc-gen-pbaccel takes no parameters (got \"" + parameter + "\")";
    return false;
  }
  std::set<const Descriptor*> generated;
  for (const FileDescriptor* file : files) {
    for (const Descriptor* d : MessagesOf(file)) generated.insert(d);
  }
  for (const FileDescriptor* file : files) {
    WriteHeader(file, context);
    WriteSource(file, generated, context);
  }
  return true;
}

}  // namespace compiler
}  // namespace pbaccel
