// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/random_message.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/unknown_field_set.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/testing/rng.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Wire values of a repeated varint field's elements, drawn from a workload matching its type.
std::vector<uint64_t> WorkloadWireValues(const FieldDescriptor* f, size_t n, std::mt19937_64& rng) {
  const char* candidates32[] = {"1byte", "W1", "W2", "W3", "W4", "len1to5", "tiles"};
  const char* name = "len1to10";
  switch (f->type()) {
    case FieldDescriptor::TYPE_UINT32: name = candidates32[Uniform(rng, 7)]; break;
    case FieldDescriptor::TYPE_INT32: name = "int32neg25"; break;
    case FieldDescriptor::TYPE_SINT32: name = "sint32W4"; break;
    case FieldDescriptor::TYPE_BOOL: name = "bool"; break;
    default: break;
  }
  return workloads::GenerateWireValues(*workloads::FindPayloadWorkload(name), n, rng);
}

size_t RepeatedCount(std::mt19937_64& rng, const RandomMessageOptions& o) {
  static const size_t kSizes[] = {0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 64, 100};
  if (Chance(rng, 10)) return Uniform(rng, static_cast<uint64_t>(o.max_repeated) * 4 + 1);
  if (Chance(rng, 30)) return Uniform(rng, static_cast<uint64_t>(o.max_repeated) + 1);
  return kSizes[Uniform(rng, sizeof(kSizes) / sizeof(kSizes[0]))];
}

bool IsOpenEnum(const FieldDescriptor* f) {
  return !pbaccel::internal::compat::IsClosedEnumField(f);
}

std::string RandomText(std::mt19937_64& rng) {
  std::string s(Uniform(rng, 24), 'a');
  for (char& c : s) c = static_cast<char>('a' + Uniform(rng, 26));
  return s;
}

void FillField(Message* msg, const FieldDescriptor* f, std::mt19937_64& rng,
               const RandomMessageOptions& o, int depth);

void FillMessage(Message* msg, std::mt19937_64& rng, const RandomMessageOptions& o, int depth) {
  const Descriptor* d = msg->GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->containing_oneof() != nullptr) continue;
    FillField(msg, f, rng, o, depth);
  }
  for (int i = 0; i < d->oneof_decl_count(); ++i) {
    const auto* oneof = d->oneof_decl(i);
    if (Chance(rng, 25)) continue;
    FillField(msg, oneof->field(static_cast<int>(Uniform(rng, oneof->field_count()))), rng, o,
              depth);
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
               const RandomMessageOptions& o, int depth) {
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
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_STRING &&
      f->cpp_type() != FieldDescriptor::CPPTYPE_ENUM &&
      f->cpp_type() != FieldDescriptor::CPPTYPE_FLOAT &&
      f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE) {
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
        const int32_t v = testing::ZigZagDecode32(w);
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
        const int64_t v = testing::ZigZagDecode64(w);
        repeated ? r->AddInt64(msg, f, v) : r->SetInt64(msg, f, v);
        break;
      }
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        repeated ? r->AddUInt32(msg, f, static_cast<uint32_t>(w))
                 : r->SetUInt32(msg, f, static_cast<uint32_t>(w));
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
      default: break;
    }
  }
}

// Element i of a repeated packable field as it appears on the wire: a varint value, or fixed bytes.
void AppendElement(const Message& m, const FieldDescriptor* f, int i, std::string* out) {
  const Reflection* r = m.GetReflection();
  auto fixed = [out](const void* p, size_t n) { out->append(static_cast<const char*>(p), n); };
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
      AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(r->GetRepeatedInt32(m, f, i))), out);
      break;
    case FieldDescriptor::TYPE_INT64:
      AppendVarint(static_cast<uint64_t>(r->GetRepeatedInt64(m, f, i)), out);
      break;
    case FieldDescriptor::TYPE_UINT32: AppendVarint(r->GetRepeatedUInt32(m, f, i), out); break;
    case FieldDescriptor::TYPE_UINT64: AppendVarint(r->GetRepeatedUInt64(m, f, i), out); break;
    case FieldDescriptor::TYPE_SINT32:
      AppendVarint(testing::ZigZagEncode32(r->GetRepeatedInt32(m, f, i)), out);
      break;
    case FieldDescriptor::TYPE_SINT64:
      AppendVarint(testing::ZigZagEncode64(r->GetRepeatedInt64(m, f, i)), out);
      break;
    case FieldDescriptor::TYPE_BOOL: AppendVarint(r->GetRepeatedBool(m, f, i) ? 1 : 0, out); break;
    case FieldDescriptor::TYPE_ENUM:
      AppendVarint(static_cast<uint64_t>(static_cast<int64_t>(r->GetRepeatedEnumValue(m, f, i))),
                   out);
      break;
    case FieldDescriptor::TYPE_FIXED32: {
      const uint32_t v = r->GetRepeatedUInt32(m, f, i);
      fixed(&v, 4);
      break;
    }
    case FieldDescriptor::TYPE_SFIXED32: {
      const int32_t v = r->GetRepeatedInt32(m, f, i);
      fixed(&v, 4);
      break;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const float v = r->GetRepeatedFloat(m, f, i);
      fixed(&v, 4);
      break;
    }
    case FieldDescriptor::TYPE_FIXED64: {
      const uint64_t v = r->GetRepeatedUInt64(m, f, i);
      fixed(&v, 8);
      break;
    }
    case FieldDescriptor::TYPE_SFIXED64: {
      const int64_t v = r->GetRepeatedInt64(m, f, i);
      fixed(&v, 8);
      break;
    }
    case FieldDescriptor::TYPE_DOUBLE: {
      const double v = r->GetRepeatedDouble(m, f, i);
      fixed(&v, 8);
      break;
    }
    default: break;
  }
}

int UnpackedWireType(const FieldDescriptor* f) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_FLOAT: return 5;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_DOUBLE: return 1;
    default: return 0;
  }
}

}  // namespace

void FillRandom(Message* msg, std::mt19937_64& rng, const RandomMessageOptions& options) {
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
    // Closed enums: a number that is not the enum's (far off, just past either end of its
    // numbers, or negative) in a packed or an unpacked record (upstream keeps it as unknown).
    if (f->type() == FieldDescriptor::TYPE_ENUM && !IsOpenEnum(f) && Chance(rng, 50)) {
      const google::protobuf::EnumDescriptor* e = f->enum_type();
      int lo = e->value(0)->number(), hi = lo;
      for (int k = 0; k < e->value_count(); ++k) {
        lo = std::min(lo, e->value(k)->number());
        hi = std::max(hi, e->value(k)->number());
      }
      const int64_t candidates[] = {1000, int64_t{hi} + 1, int64_t{lo} - 1, -1};
      const int64_t number = candidates[Uniform(rng, 4)];
      if (e->FindValueByNumber(static_cast<int>(number)) == nullptr) {
        std::string payload;
        AppendVarint(static_cast<uint64_t>(number), &payload);
        if (Chance(rng, 50)) {
          AppendVarint(static_cast<uint64_t>(e->value(0)->number()), &payload);
          AppendTag(f->number(), 2, &tail);
          AppendVarint(payload.size(), &tail);
        } else {
          AppendTag(f->number(), 0, &tail);
        }
        tail += payload;
      }
    }
  }
  return rest->SerializePartialAsString() + tail;
}

int IterationsToRun(int iterations) {
  const char* percent_text = std::getenv("PBACCEL_TEST_ITERATIONS_PERCENT");
  int percent = 100;
  if (percent_text == nullptr || !absl::SimpleAtoi(percent_text, &percent) || percent < 1 ||
      percent > 100 || iterations <= 0) {
    return iterations;
  }
  return std::max(1, static_cast<int>(int64_t{iterations} * percent / 100));
}

}  // namespace testing
}  // namespace pbaccel
