// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/differential.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "bench/workloads.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "pbaccel/kernels.h"
#include "pbaccel/message_parser.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using workloads::AppendVarint;

uint64_t Uniform(std::mt19937_64& rng, uint64_t n) { return n == 0 ? 0 : rng() % n; }
bool Chance(std::mt19937_64& rng, int percent) { return static_cast<int>(rng() % 100) < percent; }

std::string Hex(absl::string_view bytes) {
  return absl::BytesToHexString(bytes.substr(0, 256)) + (bytes.size() > 256 ? "..." : "");
}

// Wire values of a repeated varint field's elements, drawn from a workload matching its type.
std::vector<uint64_t> WorkloadWireValues(const FieldDescriptor* f, size_t n, std::mt19937_64& rng) {
  const char* candidates32[] = {"1byte", "W1", "W2", "W3", "W4", "len1to5", "tiles"};
  const char* name = "len1to10";
  switch (f->type()) {
    case FieldDescriptor::TYPE_UINT32:
      name = candidates32[Uniform(rng, 7)];
      break;
    case FieldDescriptor::TYPE_INT32:
      name = "int32neg25";
      break;
    case FieldDescriptor::TYPE_SINT32:
      name = "sint32W4";
      break;
    case FieldDescriptor::TYPE_BOOL:
      name = "bool";
      break;
    default:
      break;
  }
  return workloads::GenerateWireValues(*workloads::FindPayloadWorkload(name), n, rng);
}

size_t RepeatedCount(std::mt19937_64& rng, const DifferentialOptions& o) {
  static const size_t kSizes[] = {0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 64, 100};
  if (Chance(rng, 10)) return Uniform(rng, static_cast<uint64_t>(o.max_repeated) * 4 + 1);
  if (Chance(rng, 30)) return Uniform(rng, static_cast<uint64_t>(o.max_repeated) + 1);
  return kSizes[Uniform(rng, sizeof(kSizes) / sizeof(kSizes[0]))];
}

bool IsOpenEnum(const FieldDescriptor* f) {
  return f->file()->syntax() == FileDescriptor::SYNTAX_PROTO3 &&
         f->enum_type()->file()->syntax() == FileDescriptor::SYNTAX_PROTO3;
}

std::string RandomText(std::mt19937_64& rng) {
  std::string s(Uniform(rng, 24), 'a');
  for (char& c : s) c = static_cast<char>('a' + Uniform(rng, 26));
  return s;
}

void FillField(Message* msg, const FieldDescriptor* f, std::mt19937_64& rng,
               const DifferentialOptions& o, int depth);

void FillMessage(Message* msg, std::mt19937_64& rng, const DifferentialOptions& o, int depth) {
  const Descriptor* d = msg->GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->containing_oneof() != nullptr) continue;
    FillField(msg, f, rng, o, depth);
  }
  for (int i = 0; i < d->oneof_decl_count(); ++i) {
    const auto* oneof = d->oneof_decl(i);
    if (Chance(rng, 25)) continue;
    FillField(msg, oneof->field(static_cast<int>(Uniform(rng, oneof->field_count()))), rng, o, depth);
  }
  // Extensions known to the message's pool.
  std::vector<const FieldDescriptor*> extensions;
  d->file()->pool()->FindAllExtensions(d, &extensions);
  for (const FieldDescriptor* f : extensions) {
    if (Chance(rng, 50)) FillField(msg, f, rng, o, depth);
  }
  // Unknown fields, at numbers the type does not use.
  if (depth == 0 && Chance(rng, 50)) {
    auto* unknown = msg->GetReflection()->MutableUnknownFields(msg);
    for (int k = static_cast<int>(Uniform(rng, 4)); k > 0; --k) {
      const int number = 5000 + static_cast<int>(Uniform(rng, 100));
      if (d->FindFieldByNumber(number) != nullptr || d->IsExtensionNumber(number)) continue;
      switch (Uniform(rng, 4)) {
        case 0: unknown->AddVarint(number, rng() >> Uniform(rng, 64)); break;
        case 1: unknown->AddFixed32(number, static_cast<uint32_t>(rng())); break;
        case 2: unknown->AddFixed64(number, rng()); break;
        default: unknown->AddLengthDelimited(number, RandomText(rng)); break;
      }
    }
  }
}

void FillField(Message* msg, const FieldDescriptor* f, std::mt19937_64& rng,
               const DifferentialOptions& o, int depth) {
  const Reflection* r = msg->GetReflection();
  const bool repeated = f->is_repeated();
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    if (depth >= o.max_depth) return;
    const size_t n = repeated ? Uniform(rng, f->is_map() ? 5 : 4) : (Chance(rng, 60) ? 1 : 0);
    for (size_t i = 0; i < n; ++i) {
      Message* sub = repeated ? r->AddMessage(msg, f) : r->MutableMessage(msg, f);
      FillMessage(sub, rng, o, depth + 1);
    }
    return;
  }
  const size_t n = repeated ? RepeatedCount(rng, o) : (Chance(rng, 60) ? 1 : 0);
  if (n == 0) return;
  std::vector<uint64_t> wire;
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_STRING && f->cpp_type() != FieldDescriptor::CPPTYPE_ENUM &&
      f->cpp_type() != FieldDescriptor::CPPTYPE_FLOAT && f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE) {
    wire = WorkloadWireValues(f, n, rng);
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t w = wire.empty() ? rng() : wire[i];
    switch (f->type()) {
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_SFIXED32: {
        const int32_t v = static_cast<int32_t>(w);
        repeated ? r->AddInt32(msg, f, v) : r->SetInt32(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_SINT32: {
        const int32_t v = workloads::ZigZagDecode32(w);
        repeated ? r->AddInt32(msg, f, v) : r->SetInt32(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_SFIXED64: {
        const int64_t v = static_cast<int64_t>(Chance(rng, 20) ? ~w : w);
        repeated ? r->AddInt64(msg, f, v) : r->SetInt64(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_SINT64: {
        const int64_t v = workloads::ZigZagDecode64(w);
        repeated ? r->AddInt64(msg, f, v) : r->SetInt64(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        repeated ? r->AddUInt32(msg, f, static_cast<uint32_t>(w)) : r->SetUInt32(msg, f, static_cast<uint32_t>(w));
        break;
      case FieldDescriptor::TYPE_UINT64:
      case FieldDescriptor::TYPE_FIXED64:
        repeated ? r->AddUInt64(msg, f, w) : r->SetUInt64(msg, f, w);
        break;
      case FieldDescriptor::TYPE_BOOL:
        repeated ? r->AddBool(msg, f, (w & 1) != 0) : r->SetBool(msg, f, (w & 1) != 0);
        break;
      case FieldDescriptor::TYPE_FLOAT: {
        const float v = static_cast<float>(static_cast<int64_t>(rng() % 2000001) - 1000000) / 64.0f;
        repeated ? r->AddFloat(msg, f, v) : r->SetFloat(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_DOUBLE: {
        const double v = static_cast<double>(static_cast<int64_t>(rng())) / 1024.0;
        repeated ? r->AddDouble(msg, f, v) : r->SetDouble(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_ENUM: {
        const auto* e = f->enum_type();
        int v = e->value(static_cast<int>(Uniform(rng, e->value_count())))->number();
        if (IsOpenEnum(f) && Chance(rng, 20)) v = static_cast<int>(rng() % 1000) - 500;
        repeated ? r->AddEnumValue(msg, f, v) : r->SetEnumValue(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES: {
        std::string v = RandomText(rng);
        if (f->type() == FieldDescriptor::TYPE_BYTES && !v.empty()) v[0] = static_cast<char>(rng());
        repeated ? r->AddString(msg, f, v) : r->SetString(msg, f, v);
        break;
      }
      default:
        break;
    }
  }
}

// --- Wire encoding ------------------------------------------------------------------------------

void AppendTag(int number, int wire_type, std::string* out) {
  AppendVarint((static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(wire_type), out);
}

// Element i of a repeated packable field as it appears on the wire: a varint value, or fixed bytes.
void AppendElement(const Message& m, const FieldDescriptor* f, int i, std::string* out) {
  const Reflection* r = m.GetReflection();
  auto fixed = [out](const void* p, size_t n) { out->append(static_cast<const char*>(p), n); };
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32: AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(r->GetRepeatedInt32(m, f, i))), out); break;
    case FieldDescriptor::TYPE_INT64: AppendVarint(static_cast<uint64_t>(r->GetRepeatedInt64(m, f, i)), out); break;
    case FieldDescriptor::TYPE_UINT32: AppendVarint(r->GetRepeatedUInt32(m, f, i), out); break;
    case FieldDescriptor::TYPE_UINT64: AppendVarint(r->GetRepeatedUInt64(m, f, i), out); break;
    case FieldDescriptor::TYPE_SINT32: AppendVarint(workloads::ZigZagEncode32(r->GetRepeatedInt32(m, f, i)), out); break;
    case FieldDescriptor::TYPE_SINT64: AppendVarint(workloads::ZigZagEncode64(r->GetRepeatedInt64(m, f, i)), out); break;
    case FieldDescriptor::TYPE_BOOL: AppendVarint(r->GetRepeatedBool(m, f, i) ? 1 : 0, out); break;
    case FieldDescriptor::TYPE_ENUM: AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(r->GetRepeatedEnumValue(m, f, i))), out); break;
    case FieldDescriptor::TYPE_FIXED32: { const uint32_t v = r->GetRepeatedUInt32(m, f, i); fixed(&v, 4); break; }
    case FieldDescriptor::TYPE_SFIXED32: { const int32_t v = r->GetRepeatedInt32(m, f, i); fixed(&v, 4); break; }
    case FieldDescriptor::TYPE_FLOAT: { const float v = r->GetRepeatedFloat(m, f, i); fixed(&v, 4); break; }
    case FieldDescriptor::TYPE_FIXED64: { const uint64_t v = r->GetRepeatedUInt64(m, f, i); fixed(&v, 8); break; }
    case FieldDescriptor::TYPE_SFIXED64: { const int64_t v = r->GetRepeatedInt64(m, f, i); fixed(&v, 8); break; }
    case FieldDescriptor::TYPE_DOUBLE: { const double v = r->GetRepeatedDouble(m, f, i); fixed(&v, 8); break; }
    default: break;
  }
}

int UnpackedWireType(const FieldDescriptor* f) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_FLOAT:
      return 5;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_DOUBLE:
      return 1;
    default:
      return 0;
  }
}

// --- Field walking for targeted mutations -------------------------------------------------------

struct Span {
  size_t start, tag_end;  // The tag is [start, tag_end).
  int wire_type;
  size_t len_start, payload_start, end;  // Wire type 2: the length is [len_start, payload_start).
};

std::vector<Span> TopLevelFields(absl::string_view b) {
  std::vector<Span> spans;
  size_t i = 0;
  auto varint = [&](uint64_t* v) {
    *v = 0;
    for (int k = 0; k < 10 && i < b.size(); ++k) {
      const uint8_t c = static_cast<uint8_t>(b[i++]);
      *v |= static_cast<uint64_t>(c & 0x7F) << (7 * k);
      if (c < 0x80) return true;
    }
    return false;
  };
  while (i < b.size()) {
    Span s{};
    s.start = i;
    uint64_t tag, v;
    if (!varint(&tag)) break;
    s.tag_end = i;
    s.wire_type = static_cast<int>(tag & 7);
    if (s.wire_type == 0 && !varint(&v)) break;
    if (s.wire_type == 1) i += 8;
    if (s.wire_type == 5) i += 4;
    if (s.wire_type == 2) {
      s.len_start = i;
      if (!varint(&v) || v > b.size() - i) break;
      s.payload_start = i;
      i += v;
    }
    if (s.wire_type == 3 || s.wire_type == 4 || i > b.size()) break;
    s.end = i;
    spans.push_back(s);
  }
  return spans;
}

std::string Replace(absl::string_view b, size_t from, size_t to, absl::string_view with) {
  return absl::StrCat(b.substr(0, from), with, b.substr(to));
}

std::string PaddedVarint(uint64_t v, int length) {
  std::string out;
  for (int k = 0; k < length; ++k) {
    uint8_t c = v & 0x7F;
    v >>= 7;
    if (k + 1 < length) c |= 0x80;
    out.push_back(static_cast<char>(c));
  }
  return out;
}

uint64_t DecodeVarintAt(absl::string_view b, size_t from, size_t to) {
  uint64_t v = 0;
  for (size_t k = from; k < to; ++k) v |= static_cast<uint64_t>(b[k] & 0x7F) << (7 * (k - from));
  return v;
}

}  // namespace

std::string DeterministicSerialization(const Message& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializePartialToCodedStream(&coded);
  }
  return out;
}

void FillRandom(Message* msg, std::mt19937_64& rng, const DifferentialOptions& options) {
  FillMessage(msg, rng, options, 0);
}

std::string EncodeInterleaved(const Message& msg, std::mt19937_64& rng) {
  std::unique_ptr<Message> rest(msg.New());
  rest->CopyFrom(msg);
  const Reflection* r = msg.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(msg, &fields);
  std::string tail;
  for (const FieldDescriptor* f : fields) {
    if (!f->is_repeated() || !f->is_packable() || f->is_extension()) continue;
    rest->GetReflection()->ClearField(rest.get(), f);
    const int n = r->FieldSize(msg, f);
    int i = 0;
    while (i < n) {
      const int chunk = 1 + static_cast<int>(Uniform(rng, static_cast<uint64_t>(n - i)));
      if (Chance(rng, 50)) {
        std::string payload;
        for (int k = i; k < i + chunk; ++k) AppendElement(msg, f, k, &payload);
        AppendTag(f->number(), 2, &tail);
        AppendVarint(payload.size(), &tail);
        tail += payload;
      } else {
        for (int k = i; k < i + chunk; ++k) {
          AppendTag(f->number(), UnpackedWireType(f), &tail);
          AppendElement(msg, f, k, &tail);
        }
      }
      i += chunk;
    }
    // Closed enums: an out-of-range value in a packed record (upstream keeps it as unknown).
    if (f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) && Chance(rng, 50)) {
      std::string payload;
      AppendVarint(1000, &payload);
      AppendVarint(static_cast<uint64_t>(f->enum_type()->value(0)->number()), &payload);
      AppendTag(f->number(), 2, &tail);
      AppendVarint(payload.size(), &tail);
      tail += payload;
    }
  }
  return rest->SerializePartialAsString() + tail;
}

std::vector<std::string> Mutate(absl::string_view b, std::mt19937_64& rng, size_t count) {
  std::vector<std::string> out;
  const std::vector<Span> spans = TopLevelFields(b);
  std::vector<Span> delimited;
  for (const Span& s : spans) {
    if (s.wire_type == 2) delimited.push_back(s);
  }
  for (size_t m = 0; m < count; ++m) {
    const int kind = static_cast<int>(Uniform(rng, 12));
    const bool has_fields = !spans.empty();
    const Span& s = has_fields ? spans[Uniform(rng, spans.size())] : Span{};
    const Span* d = delimited.empty() ? nullptr : &delimited[Uniform(rng, delimited.size())];
    switch (kind) {
      case 0:  // Truncation.
        out.emplace_back(b.substr(0, Uniform(rng, b.size() + 1)));
        break;
      case 1: {  // Bit flip.
        std::string x(b);
        if (!x.empty()) x[Uniform(rng, x.size())] ^= static_cast<char>(1u << Uniform(rng, 8));
        out.push_back(std::move(x));
        break;
      }
      case 2:  // Tag stretched to 11 bytes (invalid) or padded to up to 10 (non-canonical).
        if (has_fields) {
          const uint64_t tag = DecodeVarintAt(b, s.start, s.tag_end);
          out.push_back(Replace(b, s.start, s.tag_end, PaddedVarint(tag, Chance(rng, 50) ? 11 : 2 + static_cast<int>(Uniform(rng, 4)))));
        }
        break;
      case 3:  // Length past the end, or near 2^31.
        if (d != nullptr) {
          static const uint64_t kLengths[] = {0x7FFFFFFF, 0x7FFFFFF0, 0x80000000, 0xFFFFFFFF};
          const uint64_t len = Chance(rng, 50) ? b.size() - d->payload_start + 1 + Uniform(rng, 3)
                                               : kLengths[Uniform(rng, 4)];
          std::string enc;
          AppendVarint(len, &enc);
          out.push_back(Replace(b, d->len_start, d->payload_start, enc));
        }
        break;
      case 4:  // Wrong wire type.
        if (has_fields) {
          const uint64_t tag = DecodeVarintAt(b, s.start, s.tag_end);
          std::string enc;
          AppendVarint((tag & ~uint64_t{7}) | Uniform(rng, 8), &enc);
          out.push_back(Replace(b, s.start, s.tag_end, enc));
        }
        break;
      case 5:  // Packed (or any delimited) payload ending mid-varint.
        if (d != nullptr && d->end > d->payload_start) {
          std::string x(b);
          x[d->end - 1] = static_cast<char>(x[d->end - 1] | 0x80);
          out.push_back(std::move(x));
        }
        break;
      case 6:  // Nested length off by one either way.
        if (d != nullptr) {
          const uint64_t len = d->end - d->payload_start;
          std::string enc;
          AppendVarint(Chance(rng, 50) || len == 0 ? len + 1 : len - 1, &enc);
          out.push_back(Replace(b, d->len_start, d->payload_start, enc));
        }
        break;
      case 7: {  // Unterminated group, or an end-group tag with no start.
        std::string x(b);
        AppendTag(1 + static_cast<int>(Uniform(rng, 20)), Chance(rng, 50) ? 3 : 4, &x);
        out.push_back(std::move(x));
        break;
      }
      case 8: {  // Mismatched group: start N, end M.
        std::string x(b);
        AppendTag(7, 3, &x);
        AppendTag(8, 4, &x);
        out.push_back(std::move(x));
        break;
      }
      case 9: {  // Field number 0, or above 2^29 - 1.
        std::string enc;
        AppendTag(Chance(rng, 50) ? 0 : (1 << 29), static_cast<int>(Uniform(rng, 3)) == 2 ? 2 : 0, &enc);
        enc += '\x01';
        out.push_back(Chance(rng, 50) ? enc + std::string(b) : std::string(b) + enc);
        break;
      }
      case 10:  // A varint value stretched to 11 bytes.
        if (has_fields && s.wire_type == 0) {
          out.push_back(Replace(b, s.tag_end, s.end, PaddedVarint(DecodeVarintAt(b, s.tag_end, s.end), 11)));
        }
        break;
      default:  // Two valid encodings concatenated (merge), or a duplicated field.
        out.push_back(has_fields && Chance(rng, 50)
                          ? std::string(b) + std::string(b.substr(s.start, s.end - s.start))
                          : std::string(b) + std::string(b));
        break;
    }
  }
  return out;
}

std::string CompareWithUpstream(absl::string_view bytes, const Message& prototype) {
  google::protobuf::LogSilencer quiet;  // Upstream logs missing required fields.
  std::unique_ptr<Message> partial(prototype.New());
  const bool partial_ok = partial->ParsePartialFromString(std::string(bytes));
  std::unique_ptr<Message> full(prototype.New());
  const bool full_ok = full->ParseFromString(std::string(bytes));
  const std::string expected = partial_ok ? DeterministicSerialization(*partial) : "";
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  for (absl::string_view kernel : SupportedKernels()) {
    ScopedKernelOverride force(kernel);
    std::unique_ptr<Message> ours(prototype.New());
    const absl::Status s = ParsePartialMessage(bytes, ours.get());
    const std::string where = absl::StrCat("kernel ", kernel, ", ", prototype.GetDescriptor()->full_name(),
                                           ", input ", Hex(bytes), ": ");
    if (s.ok() != partial_ok) {
      return absl::StrCat(where, "upstream ", partial_ok ? "accepts" : "rejects", ", pbaccel says ",
                          s.ToString());
    }
    if (partial_ok) {
      if (!differencer.Compare(*partial, *ours)) {
        std::string report;
        google::protobuf::util::MessageDifferencer reporter;
        reporter.set_field_comparator(&comparator);
        reporter.ReportDifferencesToString(&report);
        reporter.Compare(*partial, *ours);
        return absl::StrCat(where, "messages differ: ", report);
      }
      const std::string got = DeterministicSerialization(*ours);
      if (got != expected) {
        size_t at = 0;
        while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
        return absl::StrCat(where, "re-serialized bytes differ from byte ", at, " of ",
                            expected.size(), " (pbaccel ", got.size(), " bytes): upstream ",
                            Hex(absl::string_view(expected).substr(at > 8 ? at - 8 : 0, 40)),
                            " pbaccel ", Hex(absl::string_view(got).substr(at > 8 ? at - 8 : 0, 40)));
      }
    }
    std::unique_ptr<Message> ours_full(prototype.New());
    const absl::Status sf = ParseMessage(bytes, ours_full.get());
    if (sf.ok() != full_ok) {
      return absl::StrCat(where, "(required fields) upstream ", full_ok ? "accepts" : "rejects",
                          ", pbaccel says ", sf.ToString());
    }
  }
  return "";
}

DifferentialReport RunDifferential(const Message& prototype, const DifferentialOptions& options) {
  DifferentialReport report;
  std::mt19937_64 rng(options.seed);
  auto check = [&](absl::string_view bytes, bool malformed) {
    (malformed ? report.malformed_cases : report.valid_cases)++;
    std::unique_ptr<Message> probe(prototype.New());
    if (!probe->ParsePartialFromString(std::string(bytes))) report.rejected++;
    std::string diff = CompareWithUpstream(bytes, prototype);
    if (!diff.empty() && report.failures.size() < 20) report.failures.push_back(std::move(diff));
  };
  for (int i = 0; i < options.iterations; ++i) {
    std::unique_ptr<Message> msg(prototype.New());
    FillRandom(msg.get(), rng, options);
    const std::string bytes = EncodeInterleaved(*msg, rng);
    check(bytes, false);
    for (const std::string& m : Mutate(bytes, rng, static_cast<size_t>(options.mutations_per_message))) {
      check(m, true);
    }
    if (i == 0) {  // Truncation at every byte of one message.
      for (size_t cut = 0; cut < bytes.size() && cut < 4096; ++cut) check(bytes.substr(0, cut), true);
    }
  }
  // Nesting around the recursion limit, through any self-referencing submessage field.
  const Descriptor* d = prototype.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->type() != FieldDescriptor::TYPE_MESSAGE || f->message_type() != d || f->is_map()) continue;
    for (int depth : {98, 99, 100, 101, 102, 150}) {
      std::string bytes;
      // Innermost first: a packed field worth accelerating, then wrap depth times.
      std::unique_ptr<Message> leaf(prototype.New());
      std::mt19937_64 leaf_rng(depth);
      DifferentialOptions flat;
      flat.max_depth = 0;
      FillRandom(leaf.get(), leaf_rng, flat);
      bytes = leaf->SerializePartialAsString();
      for (int k = 0; k < depth; ++k) {
        std::string wrapped;
        AppendTag(f->number(), 2, &wrapped);
        AppendVarint(bytes.size(), &wrapped);
        bytes = wrapped + bytes;
      }
      check(bytes, true);
    }
  }
  return report;
}

}  // namespace testing
}  // namespace pbaccel
