// Copyright 2026 The pbaccel Authors.

#include "pbaccel/generated_parser.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <typeinfo>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/internal/field_errors.h"
#include "pbaccel/internal/generated_registry.h"
#include "pbaccel/internal/iterative_merge.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/recent_lookups.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/internal/top_level_fields.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/packed_varint.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pbaccel {
namespace internal {
namespace {
// FormatTraits: each format's output type and conversion, as every kernel has them (baseline
// flags here, like lib/packed_varint.cc's copy).
#include "parsers/varint_format-inl.h"
}  // namespace
}  // namespace internal

namespace gen {
namespace {

using google::protobuf::MessageLite;
using google::protobuf::RepeatedField;
using internal::FormatTraits;
using internal::VarintFormat;
#if defined(__SSE2__)
using internal::StoreOneByteValues;
#endif

// --- The short packed path -----------------------------------------------------------------------

// Reads one varint of at most 2 bytes without a branch on its length (short packed fields hold
// mostly 1- and 2-byte values, mixed so that such a branch would mispredict often). Returns
// nullptr if the varint is longer. REQUIRES: 2 bytes readable at p.
inline const char* ReadVarint2(const char* p, uint32_t* value) {
  uint16_t w;
  std::memcpy(&w, p, 2);
  if ((w & 0x8080) == 0x8080) return nullptr;
  const uint32_t two = (w >> 7) & 1;  // The first byte continues.
  *value = (w & 0x7Fu) | ((static_cast<uint32_t>(w & 0x7F00) >> 1) & (0u - two));
  return p + 1 + two;
}

// Decodes one varint of any length at p to *out. Returns the byte after it, or nullptr.
template <VarintFormat F>
inline const char* DecodeOne(const char* p, const char* end, typename FormatTraits<F>::Out* out) {
  uint32_t v;
  if (end - p >= 2) {
    if (const char* next = ReadVarint2(p, &v)) {
      *out = FormatTraits<F>::Convert(v);
      return next;
    }
  }
  uint64_t v64;
  p = internal::ReadVarint(p, end, &v64);
  if (p != nullptr) *out = FormatTraits<F>::Convert(v64);
  return p;
}

// Decodes the varints of [p, end) to `out`, which has room for one value per byte. Returns the
// number of values, or -1 if the payload is malformed.
//
// Runs of one-byte varints (most values in real packed fields) are written 16 or 8 at a time:
// the block's leading one-byte values are all stored widened (room: at most one value per byte
// was written for the bytes before p, and the block's bytes remain), then the pointers advance
// past them and the varint that ended the run is decoded alone.
template <VarintFormat F>
int DecodeShort(const char* p, const char* end, typename FormatTraits<F>::Out* out) {
  typename FormatTraits<F>::Out* const first = out;
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(bytes));
    StoreOneByteValues<F, 16>(bytes, out);
    const int ones = __builtin_ctz(mask | 0x10000u);
    p += ones;
    out += ones;
    if (ones == 16) continue;
    if ((p = DecodeOne<F>(p, end, out++)) == nullptr) return -1;
  }
  while (end - p >= 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(bytes)) & 0xFFu;
    StoreOneByteValues<F, 8>(bytes, out);
    const int ones = __builtin_ctz(mask | 0x100u);
    p += ones;
    out += ones;
    if (ones == 8) continue;
    if ((p = DecodeOne<F>(p, end, out++)) == nullptr) return -1;
  }
#endif
  while (p < end) {
    if (static_cast<uint8_t>(*p) < 0x80) {
      *out++ = FormatTraits<F>::Convert(static_cast<uint8_t>(*p++));
    } else if ((p = DecodeOne<F>(p, end, out++)) == nullptr) {
      return -1;
    }
  }
  return static_cast<int>(out - first);
}

// A payload on the short path (size_policy.h) that decode_tiny did not take, appended to `f`, with
// `readable` bytes of the input from its first byte: room for one value per byte and the kernel's
// bounded_tiny_spare_values more (ShortPayloadRoom; geometric growth keeps that bounded by the
// input) is reserved once and the values are decoded straight into the spare capacity (no
// count pass, no status), by the kernel's window decoder or its bounded tiny decoder (either may
// store whole groups into the spare values), the kernel itself or DecodeShort, as size_policy.h's
// ShortTakesWindowDecoder, ShortTriesBoundedTiny and ShortGoesToKernel choose. The room is inside
// the field's size while they write it, as in ParseTinyOrShortPacked.
template <VarintFormat F>
ABSL_ATTRIBUTE_NOINLINE bool ParseShortPacked(const char* p, const char* end, ptrdiff_t readable,
                                              RepeatedField<typename FormatTraits<F>::Out>* f) {
  const int n = static_cast<int>(end - p);  // At most kShortPackedBytes: no overflow.
  if (n == 0) return true;
  const int old = f->size();
  const internal::KernelDescriptor& kernel = internal::ActiveKernel();
  const int room =
      internal::ShortPayloadRoom(static_cast<size_t>(n), kernel.bounded_tiny_spare_values);
  if (f->Capacity() - old < room) f->Reserve(old + room);
  typename FormatTraits<F>::Out* const out = f->AddNAlreadyReserved(room);
  const auto* const begin = reinterpret_cast<const uint8_t*>(p);
  const auto* const stop = reinterpret_cast<const uint8_t*>(end);
  const size_t bytes = static_cast<size_t>(n);
  const internal::TinyDecodeFn window = kernel.WindowDecoder(F);
  int count;  // Values decoded, or < 0 if malformed.
  if (window != nullptr && internal::ShortTakesWindowDecoder(bytes, readable)) {
    count = window(begin, stop, out, room);
  } else {
    count = internal::ShortTriesBoundedTiny(bytes)
                ? kernel.DecodeTinyBounded(F, begin, stop, out, static_cast<size_t>(room))
                : internal::kTinyUnhandled;
  }
  if (count == internal::kTinyUnhandled) {
    if (internal::ShortGoesToKernel(kernel, bytes)) {
      const internal::DecodeResult r = kernel.Decoder(F, false)(begin, stop, out, n, 0);
      count = r.status == internal::DecodeStatus::kOk ? static_cast<int>(r.count) : -1;
    } else {
      count = DecodeShort<F>(p, end, out);
    }
  }
  f->Truncate(count < 0 ? old : old + count);
  return count >= 0;
}

// Reserves room for kTinyPayloadBytes more values (out of line: a reused field has it).
template <typename T>
ABSL_ATTRIBUTE_NOINLINE void ReserveTinyRoom(RepeatedField<T>* f) {
  f->Reserve(f->size() + internal::kTinyPayloadBytes);
}

// A payload of at most kShortPackedBytes, appended to `f`. One that TakesTinyDecoder
// (size_policy.h) goes to the kernel's decode_tiny (no setup, no bound check per value), which
// writes into room for kTinyPayloadBytes values (so that it can store one-byte values 16 at a
// time), and the size then shrinks to the values decoded: a small frame, the rest out of line. The
// room is inside the field's size while decode_tiny writes it: protobuf 22 and later mark a
// RepeatedField's capacity past its size as unaddressable under AddressSanitizer. Any other
// payload, and one with a varint longer than decode_tiny takes, goes to ParseShortPacked. A
// malformed one appends nothing.
template <VarintFormat F>
inline bool ParseTinyOrShortPacked(const char* p, const char* end,
                                   RepeatedField<typename FormatTraits<F>::Out>* f,
                                   const Context& ctx) {
  const size_t n = static_cast<size_t>(end - p);
  if (!internal::TakesTinyDecoder(n, ctx.readable_end() - p)) {
    return ParseShortPacked<F>(p, end, ctx.readable_end() - p, f);
  }
  if (f->Capacity() - f->size() < internal::kTinyPayloadBytes) ReserveTinyRoom(f);
  const int count = internal::ActiveKernel().TinyDecoder(F)(
      reinterpret_cast<const uint8_t*>(p), reinterpret_cast<const uint8_t*>(end),
      f->AddNAlreadyReserved(internal::kTinyPayloadBytes), internal::kTinyPayloadBytes);
  // The size grew by the room: it keeps the values decoded.
  f->Truncate(f->size() - internal::kTinyPayloadBytes + (count >= 0 ? count : 0));
  if (ABSL_PREDICT_TRUE(count >= 0)) return true;
  if (count == internal::kTinyMalformed) return false;
  return ParseShortPacked<F>(p, end, ctx.readable_end() - p, f);
}

}  // namespace

// --- Counters for tests, and the UTF-8 check's slow path -----------------------------------------

// The counters of parser_counters.h, each this thread's.
#define PBACCEL_THREAD_COUNTER(Name) \
  uint64_t& Name() {                 \
    thread_local uint64_t count = 0; \
    return count;                    \
  }
PBACCEL_THREAD_COUNTER(FullRequiredFieldChecksForTesting)
PBACCEL_THREAD_COUNTER(DeepSubmessagesForTesting)
PBACCEL_THREAD_COUNTER(DelegatedFieldsForTesting)
PBACCEL_THREAD_COUNTER(SharedRegistryLookupsForTesting)
PBACCEL_THREAD_COUNTER(PredictedTagsForTesting)
PBACCEL_THREAD_COUNTER(SlowVarintsForTesting)
PBACCEL_THREAD_COUNTER(PlainClearsForTesting)
PBACCEL_THREAD_COUNTER(ReusedElementsForTesting)
PBACCEL_THREAD_COUNTER(StringsOverwrittenForTesting)
#undef PBACCEL_THREAD_COUNTER

bool ValidUtf8Slow(const char* p, const char* end) {
  return internal::compat::IsStructurallyValidUtf8(p, static_cast<size_t>(end - p));
}

// --- Packed fields -------------------------------------------------------------------------------

// TakesShortPath (size_policy.h): ParseTinyOrShortPacked. Longer: the public API (count, reserve
// exactly, kernel), out of line, so that the short paths need no frame for its status.
#define PBACCEL_PACKED_PARSER(Name, F, T)                                                   \
  static ABSL_ATTRIBUTE_NOINLINE bool ParseLongPacked##Name(const char* p, const char* end, \
                                                            RepeatedField<T>* f) {          \
    return DecodePacked##Name(absl::string_view(p, static_cast<size_t>(end - p)), f).ok();  \
  }                                                                                         \
  bool ParsePacked##Name(const char* p, const char* end, RepeatedField<T>* f,               \
                         const Context& ctx) {                                              \
    if (internal::TakesShortPath(static_cast<size_t>(end - p))) {                           \
      return ParseTinyOrShortPacked<VarintFormat::F>(p, end, f, ctx);                       \
    }                                                                                       \
    return ParseLongPacked##Name(p, end, f);                                                \
  }
PBACCEL_PACKED_PARSER(Int32, kInt32, int32_t)
PBACCEL_PACKED_PARSER(Int64, kInt64, int64_t)
PBACCEL_PACKED_PARSER(UInt32, kUInt32, uint32_t)
PBACCEL_PACKED_PARSER(UInt64, kUInt64, uint64_t)
PBACCEL_PACKED_PARSER(SInt32, kSInt32, int32_t)
PBACCEL_PACKED_PARSER(SInt64, kSInt64, int64_t)
PBACCEL_PACKED_PARSER(Bool, kBool, bool)
#undef PBACCEL_PACKED_PARSER

// --- Delegation ----------------------------------------------------------------------------------

const char* Delegate(const char* field, const char* end, MessageLite* msg, Context* ctx) {
  ++DelegatedFieldsForTesting();
  ctx->MarkMaybeUninitialized();
  internal::WireField f;
  internal::WireError error;
  const char* next = internal::ReadWholeField(field, end, &f, &error);
  // Malformed here: upstream takes the rest and decides, as a whole parse would.
  const char* const stop = next != nullptr ? next : end;
  if (internal::MergeWithUpstream(field, stop, msg, ctx->budget())) return stop;
  ctx->Fail(Context::Failure::kRejected, msg, f.number, field, static_cast<uint8_t>(error));
  return nullptr;
}

const char* MergeDeep(const char* field, uint32_t number, const MessageLite& parent, const char* p,
                      const char* end, MessageLite* sub, Context* ctx, bool reuse) {
  ++DeepSubmessagesForTesting();
  if (reuse) sub->Clear();
  ctx->MarkMaybeUninitialized();  // Nothing below checks required fields as the messages end.
  if (auto* full = dynamic_cast<google::protobuf::Message*>(sub)) {
    absl::Status s = internal::MergeIteratively(p, end, ctx->origin(), full, ctx->budget());
    if (s.ok()) return end;
    ctx->FailDeep(std::move(s));
    return nullptr;
  }
  if (internal::MergeWithUpstream(p, end, sub, ctx->budget())) return end;
  ctx->Fail(Context::Failure::kRejected, &parent, number, field);
  return nullptr;
}

const char* NestedTooDeep(const char* field, uint32_t number, const MessageLite& msg,
                          Context* ctx) {
  ctx->Fail(Context::Failure::kNestedTooDeep, &msg, number, field);
  return nullptr;
}

absl::Status Context::FailureStatus() const {
  if (failure_ == Failure::kNone) return absl::OkStatus();
  if (failure_ == Failure::kDeep) return deep_status_;
  const auto error = static_cast<internal::WireError>(wire_error_);
  std::string what;
  if (failure_ == Failure::kNestedTooDeep) {
    what = absl::StrCat(internal::FieldLabel(*msg_, number_), " nested deeper than ",
                        internal::DefaultRecursionBudget(), " levels (protobuf's recursion limit)");
  } else if (error != internal::WireError::kNone) {
    what = internal::WireErrorAt(error, *msg_, number_);
  } else {
    what = absl::StrCat(internal::FieldLabel(*msg_, number_), " rejected by protobuf's parser");
  }
  return absl::InvalidArgumentError(absl::StrCat("malformed ", msg_->GetTypeName(), ": ", what,
                                                 " at byte offset ", at_ - origin_));
}

// --- Entry point ---------------------------------------------------------------------------------

namespace {

// Inputs over 2 GiB, a piece at a time (internal::ForEachPiece).
// `reuse`: the first piece is parsed in place of msg's contents (MergeFields' reuse).
ABSL_ATTRIBUTE_NOINLINE bool MergeInPieces(absl::string_view bytes, MessageLite* msg, MergeFn merge,
                                           Context* ctx, bool reuse) {
  return internal::ForEachPiece(bytes.data(), bytes.data() + bytes.size(),
                                [&](const char* p, const char* stop) {
                                  const bool first = reuse;
                                  reuse = false;
                                  return merge(p, stop, msg, ctx, first) != nullptr;
                                });
}

}  // namespace

absl::Status Run(absl::string_view bytes, MessageLite* msg, Mode mode, MergeFn merge) {
  return Run(bytes, msg, mode, merge, internal::DefaultRecursionBudget());
}

absl::Status Run(absl::string_view bytes, MessageLite* msg, Mode mode, MergeFn merge, int budget) {
  // Parse: in place of msg's contents (as Clear() + merge would leave it; generated_parser.h).
  const bool reuse = mode == Mode::kParse || mode == Mode::kParsePartial;
  Context ctx(bytes.data(), bytes.data() + bytes.size(), budget);
  // Up to 2 GiB (nearly always) merge is called from this frame, whose size every nesting level
  // sits on: ForEachPiece's lambda and locals, which a sanitized build does not inline away, would
  // put the walk deeper than upstream's (//tests:reliability_test compares the stacks).
  const bool ok =
      bytes.size() <= static_cast<size_t>(INT_MAX)
          ? merge(bytes.data(), bytes.data() + bytes.size(), msg, &ctx, reuse) != nullptr
          : MergeInPieces(bytes, msg, merge, &ctx, reuse);
  if (!ok) return ctx.FailureStatus();
  // Parse: only messages this parse built, each checked as it ended (Context); merge: also the old
  // contents, which nothing here checked.
  const bool check = mode == Mode::kMerge || (mode == Mode::kParse && ctx.maybe_uninitialized());
  if (check) {
    ++FullRequiredFieldChecksForTesting();
    if (!msg->IsInitialized()) return internal::MissingRequiredFields(*msg);
  }
  return absl::OkStatus();
}

// --- Registry ------------------------------------------------------------------------------------

namespace {

// Registered parsers, by a key of their prototype: the descriptor (full types) or the type name
// (LITE_RUNTIME types). Generated files register at static initialization, before descriptors may
// be touched; registrations are keyed on the first lookup after.
template <typename Key, Key (*KeyOf)(const google::protobuf::MessageLite&)>
class Registry {
 public:
  static Registry& Get() {
    static Registry* const registry = new Registry();
    return *registry;
  }

  void Add(const Registration* parsers, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.insert(pending_.end(), parsers, parsers + n);
  }

  // The registration for `key`, or one with merge == nullptr.
  template <typename Lookup>
  Registration Find(const Lookup& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Registration& r : pending_) by_key_[KeyOf(*r.prototype)] = r;
    pending_.clear();
    auto it = by_key_.find(key);
    return it == by_key_.end() ? Registration{} : it->second;
  }

 private:
  std::mutex mu_;
  std::vector<Registration> pending_;
  absl::flat_hash_map<Key, Registration> by_key_;
};

const google::protobuf::Descriptor* DescriptorOf(const google::protobuf::MessageLite& prototype) {
  return static_cast<const google::protobuf::Message&>(prototype).GetDescriptor();
}
std::string NameOf(const google::protobuf::MessageLite& prototype) {
  return std::string(prototype.GetTypeName());  // absl::string_view from v30.
}
using FullRegistry = Registry<const google::protobuf::Descriptor*, &DescriptorOf>;
using LiteRegistry = Registry<std::string, &NameOf>;

}  // namespace

bool RegisterParsers(const Registration* parsers, size_t n) {
  FullRegistry::Get().Add(parsers, n);
  return true;
}

bool RegisterLiteParsers(const Registration* parsers, size_t n) {
  LiteRegistry::Get().Add(parsers, n);
  return true;
}

Registration FindLiteParser(absl::string_view type_name) {
  return LiteRegistry::Get().Find(type_name);
}

MergeFn FindGeneratedParser(const google::protobuf::Message& msg) {
  // The thread's recent answers (internal/recent_lookups.h), by the message's C++ class (no
  // descriptor lookup on the way). The class decides the answer: a generated class (final) has one
  // descriptor and maybe a parser; any other class (DynamicMessage, whatever its descriptor) has
  // none.
  thread_local internal::RecentLookups<const std::type_info*, MergeFn> recent;
  const std::type_info& type = typeid(msg);
  if (const MergeFn* known = recent.Find(&type)) return *known;
  ++SharedRegistryLookupsForTesting();
  const Registration found = FullRegistry::Get().Find(msg.GetDescriptor());
  // The same descriptor can also describe a DynamicMessage: only the generated class itself.
  return recent.Remember(
      &type, found.merge != nullptr && type == typeid(*found.prototype) ? found.merge : nullptr);
}

MergeFn LinkedParser(const MessageLite& prototype) {
  const auto* full = dynamic_cast<const google::protobuf::Message*>(&prototype);
  return full == nullptr ? nullptr : FindGeneratedParser(*full);
}

}  // namespace gen
}  // namespace pbaccel
