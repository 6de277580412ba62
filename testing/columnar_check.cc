// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/columnar_check.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/message_differencer.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/utf8_replace.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

bool IsValid(const ArrowArray& a, int64_t i) {
  const auto* bits = static_cast<const uint8_t*>(a.buffers[0]);
  if (a.n_buffers == 0 || bits == nullptr) return true;
  const int64_t j = i + a.offset;
  return (bits[j >> 3] >> (j & 7)) & 1;
}

template <typename T>
T ValueAt(const ArrowArray& a, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(a.buffers[1]) + (i + a.offset) * sizeof(T), sizeof(T));
  return v;
}

int32_t OffsetAt(const ArrowArray& a, int64_t i) {
  return static_cast<const int32_t*>(a.buffers[1])[i + a.offset];
}

absl::string_view BytesAt(const ArrowArray& a, int64_t i) {
  const int32_t from = OffsetAt(a, i);
  return absl::string_view(static_cast<const char*>(a.buffers[2]) + from,
                           static_cast<size_t>(OffsetAt(a, i + 1) - from));
}

// A field's value in a message, singular (index < 0) or one element of a repeated field.
class Value {
 public:
  Value(const Message& m, const FieldDescriptor* f, int index) : m_(m), f_(f), i_(index) {}
  const Reflection& r() const { return *m_.GetReflection(); }
  int64_t Int() const {
    switch (f_->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return i_ < 0 ? r().GetInt32(m_, f_) : r().GetRepeatedInt32(m_, f_, i_);
      case FieldDescriptor::CPPTYPE_INT64:
        return i_ < 0 ? r().GetInt64(m_, f_) : r().GetRepeatedInt64(m_, f_, i_);
      case FieldDescriptor::CPPTYPE_UINT32:
        return i_ < 0 ? r().GetUInt32(m_, f_) : r().GetRepeatedUInt32(m_, f_, i_);
      case FieldDescriptor::CPPTYPE_UINT64:
        return static_cast<int64_t>(i_ < 0 ? r().GetUInt64(m_, f_)
                                           : r().GetRepeatedUInt64(m_, f_, i_));
      case FieldDescriptor::CPPTYPE_BOOL:
        return i_ < 0 ? r().GetBool(m_, f_) : r().GetRepeatedBool(m_, f_, i_);
      case FieldDescriptor::CPPTYPE_ENUM:
        return i_ < 0 ? r().GetEnumValue(m_, f_) : r().GetRepeatedEnumValue(m_, f_, i_);
      default: return 0;
    }
  }
  uint32_t FloatBits() const {
    const float v = i_ < 0 ? r().GetFloat(m_, f_) : r().GetRepeatedFloat(m_, f_, i_);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits;
  }
  uint64_t DoubleBits() const {
    const double v = i_ < 0 ? r().GetDouble(m_, f_) : r().GetRepeatedDouble(m_, f_, i_);
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return bits;
  }
  std::string String() const {
    return i_ < 0 ? r().GetString(m_, f_) : r().GetRepeatedString(m_, f_, i_);
  }
  const Message& Sub() const {
    return i_ < 0 ? r().GetMessage(m_, f_) : r().GetRepeatedMessage(m_, f_, i_);
  }

 private:
  const Message& m_;
  const FieldDescriptor* f_;
  int i_;
};

class Comparer {
 public:
  std::string diff;

  bool Fail(const std::string& path, const std::string& what) {
    if (diff.empty()) diff = absl::StrCat(path, ": ", what);
    return false;
  }

  // The columns of struct array (s, a) at row `row` against message m.
  bool Struct(const ArrowSchema& s, const ArrowArray& a, int64_t row, const Message& m,
              const std::string& path) {
    for (int64_t k = 0; k < s.n_children; ++k) {
      const ArrowSchema& cs = *s.children[k];
      const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(cs.name);
      const std::string p = absl::StrCat(path, ".", cs.name);
      if (f == nullptr) return Fail(p, "no such field in the type");
      if (!Field(cs, *a.children[k], row, m, f, p)) return false;
    }
    return true;
  }

  bool Field(const ArrowSchema& s, const ArrowArray& a, int64_t row, const Message& m,
             const FieldDescriptor* f, const std::string& path) {
    const Reflection& r = *m.GetReflection();
    if (f->is_map()) {
      if (std::string(s.format) != "+m") return Fail(path, absl::StrCat("format ", s.format));
      if (!IsValid(a, row)) return Fail(path, "null map");
      const ArrowArray& entries_array = *a.children[0];
      const ArrowSchema& entry_schema = *s.children[0];
      const int32_t from = OffsetAt(a, row), to = OffsetAt(a, row + 1);
      const FieldDescriptor* key = f->message_type()->map_key();
      const FieldDescriptor* value = f->message_type()->map_value();
      // Upstream's map: one entry per key, the last. (A DynamicMessage's reflection can still show
      // every entry parsed, in order.)
      std::vector<int> entries;
      {
        absl::flat_hash_map<std::string, size_t> by_key;
        for (int k = 0; k < r.FieldSize(m, f); ++k) {
          const Message& entry = r.GetRepeatedMessage(m, f, k);
          const Value v(entry, key, -1);
          const std::string id =
              key->type() == FieldDescriptor::TYPE_STRING ? v.String() : absl::StrCat(v.Int());
          auto [it, inserted] = by_key.try_emplace(id, entries.size());
          if (inserted) {
            entries.push_back(k);
          } else {
            entries[it->second] = k;
          }
        }
      }
      const int size = static_cast<int>(entries.size());
      if (to - from != size) {
        return Fail(path, absl::StrCat(to - from, " entries, upstream has ", size));
      }
      std::vector<bool> used(static_cast<size_t>(size));
      for (int32_t j = from; j < to; ++j) {
        bool found = false;
        for (int k = 0; k < size && !found; ++k) {
          const Message& entry = r.GetRepeatedMessage(m, f, entries[static_cast<size_t>(k)]);
          Comparer probe;
          if (used[static_cast<size_t>(k)] ||
              !probe.Element(*entry_schema.children[0], *entries_array.children[0], j,
                             Value(entry, key, -1), key, path)) {
            continue;
          }
          used[static_cast<size_t>(k)] = true;
          found = true;
          if (!Element(*entry_schema.children[1], *entries_array.children[1], j,
                       Value(entry, value, -1), value,
                       absl::StrCat(path, "[entry ", j - from, "]"))) {
            return false;
          }
        }
        if (!found) return Fail(path, absl::StrCat("entry ", j - from, ": no such key upstream"));
      }
      return true;
    }
    if (f->is_repeated()) {
      if (std::string(s.format) != "+l") return Fail(path, absl::StrCat("format ", s.format));
      if (!IsValid(a, row)) return Fail(path, "null list");
      const int32_t from = OffsetAt(a, row), to = OffsetAt(a, row + 1);
      const int size = r.FieldSize(m, f);
      if (to - from != size) {
        return Fail(path, absl::StrCat(to - from, " elements, upstream has ", size));
      }
      for (int k = 0; k < size; ++k) {
        if (!Element(*s.children[0], *a.children[0], from + k, Value(m, f, k), f,
                     absl::StrCat(path, "[", k, "]"))) {
          return false;
        }
      }
      return true;
    }
    const bool valid = IsValid(a, row);
    if (f->has_presence()) {
      if ((s.flags & ARROW_FLAG_NULLABLE) == 0)
        return Fail(path, "a field with presence, not nullable");
      if (valid != r.HasField(m, f)) {
        return Fail(path, valid ? "set, upstream has it unset" : "null, upstream has it set");
      }
      if (!valid) return true;
    } else if (!valid) {
      return Fail(path, "null, but the field has no presence");
    }
    return Element(s, a, row, Value(m, f, -1), f, path);
  }

  bool Element(const ArrowSchema& s, const ArrowArray& a, int64_t i, const Value& v,
               const FieldDescriptor* f, const std::string& path) {
    const std::string format = s.format;
    auto expect = [&](const char* want) {
      return format == want || Fail(path, absl::StrCat("format ", format, ", expected ", want));
    };
    switch (f->type()) {
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_SINT32:
      case FieldDescriptor::TYPE_SFIXED32:
      case FieldDescriptor::TYPE_ENUM:
        return expect("i") && Same(ValueAt<int32_t>(a, i), v.Int(), path);
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        return expect("I") && Same(ValueAt<uint32_t>(a, i), v.Int(), path);
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_SINT64:
      case FieldDescriptor::TYPE_SFIXED64:
        return expect("l") && Same(ValueAt<int64_t>(a, i), v.Int(), path);
      case FieldDescriptor::TYPE_UINT64:
      case FieldDescriptor::TYPE_FIXED64:
        return expect("L") && Same(static_cast<int64_t>(ValueAt<uint64_t>(a, i)), v.Int(), path);
      case FieldDescriptor::TYPE_BOOL: {
        const auto* bits = static_cast<const uint8_t*>(a.buffers[1]);
        const int64_t j = i + a.offset;
        return expect("b") && Same((bits[j >> 3] >> (j & 7)) & 1, v.Int(), path);
      }
      case FieldDescriptor::TYPE_FLOAT:
        return expect("f") && Same(ValueAt<uint32_t>(a, i), v.FloatBits(), path);
      case FieldDescriptor::TYPE_DOUBLE:
        return expect("g") && Same(static_cast<int64_t>(ValueAt<uint64_t>(a, i)),
                                   static_cast<int64_t>(v.DoubleBits()), path);
      case FieldDescriptor::TYPE_STRING:
        // Upstream's bytes, with what is ill-formed replaced (a field upstream does not check).
        return expect("u") &&
               SameBytes(BytesAt(a, i), internal::ReplaceIllFormedUtf8(v.String()), path);
      case FieldDescriptor::TYPE_BYTES:
        return expect("z") && SameBytes(BytesAt(a, i), v.String(), path);
      default: break;  // Messages and groups.
    }
    const Message& sub = v.Sub();
    if (format == "z") {  // A recursive field: its bytes.
      std::unique_ptr<Message> parsed(sub.New());
      const absl::string_view bytes = BytesAt(a, i);
      if (!parsed->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        return Fail(path, "serialized submessage does not parse");
      }
      std::string report;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&report);
      return differencer.Compare(sub, *parsed) || Fail(path, "serialized submessage: " + report);
    }
    return expect("+s") && Struct(s, a, i, sub, path);
  }

  bool Same(int64_t ours, int64_t upstream, const std::string& path) {
    return ours == upstream || Fail(path, absl::StrCat(ours, ", upstream has ", upstream));
  }
  bool SameBytes(absl::string_view ours, const std::string& upstream, const std::string& path) {
    return ours == upstream ||
           Fail(path, absl::StrCat("\"", absl::CEscape(ours), "\", upstream has \"",
                                   absl::CEscape(upstream), "\""));
  }
};

// Layout rules of one array (recursively), `path` naming it.
std::string Layout(const ArrowSchema& s, const ArrowArray& a, const std::string& path) {
  const std::string format = s.format;
  if (a.release == nullptr || s.release == nullptr) return path + ": released";
  if (a.offset != 0) return path + ": nonzero offset";
  if (a.n_children != s.n_children) return path + ": children differ from the schema's";
  const bool nested = format[0] == '+';
  const bool strings = format == "u" || format == "z";
  const int64_t buffers = format == "+s" ? 1 : nested ? 2 : strings ? 3 : 2;
  if (a.n_buffers != buffers) return absl::StrCat(path, ": ", a.n_buffers, " buffers");
  for (int64_t b = 1; b < buffers; ++b) {
    if (a.buffers[b] == nullptr) return absl::StrCat(path, ": buffer ", b, " is NULL");
  }
  int64_t nulls = 0;
  for (int64_t i = 0; i < a.length; ++i) nulls += !IsValid(a, i);
  if (nulls != a.null_count)
    return absl::StrCat(path, ": null_count ", a.null_count, ", counted ", nulls);
  if (nulls > 0 && (s.flags & ARROW_FLAG_NULLABLE) == 0)
    return path + ": nulls in a non-nullable field";
  if (format == "+l" || format == "+m" || strings) {
    if (OffsetAt(a, 0) != 0) return path + ": offsets do not start at 0";
    for (int64_t i = 0; i < a.length; ++i) {
      if (OffsetAt(a, i + 1) < OffsetAt(a, i)) return path + ": offsets decrease";
    }
    if (!strings && OffsetAt(a, a.length) != a.children[0]->length) {
      return path + ": last offset is not the child's length";
    }
    if (format == "u") {  // Every string well-formed UTF-8 (so all of them together too).
      const absl::string_view text(static_cast<const char*>(a.buffers[2]),
                                   static_cast<size_t>(OffsetAt(a, a.length)));
      if (internal::ReplaceIllFormedUtf8(text) != text) return path + ": ill-formed UTF-8";
    }
  }
  if (format == "+s") {
    for (int64_t k = 0; k < a.n_children; ++k) {
      if (a.children[k]->length != a.length) return path + "." + s.children[k]->name + ": length";
    }
  }
  if (format == "+m") {
    const ArrowSchema& entries = *s.children[0];
    if (std::string(entries.format) != "+s" || entries.n_children != 2 ||
        (entries.flags & ARROW_FLAG_NULLABLE) != 0 ||
        (entries.children[0]->flags & ARROW_FLAG_NULLABLE) != 0) {
      return path + ": map entries must be a non-null struct<key (non-null), value>";
    }
  }
  for (int64_t k = 0; k < a.n_children; ++k) {
    const std::string child =
        Layout(*s.children[k], *a.children[k], absl::StrCat(path, ".", s.children[k]->name));
    if (!child.empty()) return child;
  }
  return "";
}

}  // namespace

std::string CompareRow(const ArrowSchema& schema, const ArrowArray& batch, int64_t row,
                       const google::protobuf::Message& message) {
  Comparer comparer;
  comparer.Struct(schema, batch, row, message, absl::StrCat("record ", row));
  return comparer.diff;
}

std::string CheckArrowLayout(const ArrowSchema& schema, const ArrowArray& array) {
  if (std::string(schema.format) != "+s") return "the batch is not a struct array";
  return Layout(schema, array, "batch");
}

std::string CompareColumnsWithUpstream(const google::protobuf::Message& prototype,
                                       absl::Span<const absl::string_view> records,
                                       const ColumnarOptions& options) {
  // Upstream logs each record it rejects for missing required fields.
  internal::compat::ScopedUpstreamLogHandler quiet(&internal::compat::DropLogLine);
  std::vector<std::unique_ptr<Message>> upstream;
  int64_t first_rejected = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    upstream.emplace_back(prototype.New());
    if (!upstream.back()->ParseFromArray(records[i].data(), static_cast<int>(records[i].size()))) {
      upstream.back().reset();
      if (first_rejected < 0) first_rejected = static_cast<int64_t>(i);
    }
  }
  ArrowRecordBatch out;
  ColumnarReport report;
  const absl::Status status =
      DecodeToArrow(prototype.GetDescriptor(), records, options, &out.schema, &out.array, &report);
  const bool null_mode = options.on_bad_record == ColumnarOptions::OnBadRecord::kNull;
  if (!null_mode && first_rejected >= 0) {
    if (status.ok()) return absl::StrCat("accepted; upstream rejects record ", first_rejected);
    const std::string want = absl::StrCat("record ", first_rejected, " ");
    if (!absl::StartsWith(status.message(), want)) {
      return absl::StrCat("the error does not name record ", first_rejected, ": ",
                          status.message());
    }
    if (out.array.release != nullptr) return "an error, yet a batch was exported";
    return "";
  }
  if (!status.ok()) return absl::StrCat("rejected; upstream accepts: ", status.message());
  std::string layout = CheckArrowLayout(out.schema, out.array);
  if (!layout.empty()) return layout;
  if (out.array.length != static_cast<int64_t>(records.size())) return "batch length";
  size_t reported = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (upstream[i] == nullptr) {  // Null mode: a null row, reported.
      if (reported >= report.bad_records.size() || report.bad_records[reported].index != i) {
        return absl::StrCat("record ", i, ", rejected upstream, is not reported");
      }
      ++reported;
      for (int64_t k = 0; k < out.array.n_children; ++k) {
        if (IsValid(*out.array.children[k], static_cast<int64_t>(i))) {
          return absl::StrCat("record ", i, ", rejected upstream, is not null in ",
                              out.schema.children[k]->name);
        }
      }
      continue;
    }
    std::string diff = CompareRow(out.schema, out.array, static_cast<int64_t>(i), *upstream[i]);
    if (!diff.empty()) return diff;
  }
  if (reported != report.bad_records.size()) return "records reported bad that upstream accepts";
  return "";
}

}  // namespace testing
}  // namespace pbaccel
