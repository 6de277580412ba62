// Copyright 2026 The pbaccel Authors.

#include "pbaccel/packed_varint.h"

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "pbaccel/internal/kernel_abi.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/size_policy.h"
#include "pbaccel/internal/varint_status.h"

namespace pbaccel {
namespace internal {
namespace {

// The word-at-a-time read of one varint (varint_scalar-inl.h builds on it).
#include "pbaccel/internal/varint_word-inl.h"

// The small-payload path, compiled here at baseline (no dispatch, no tables): the same bounded
// loop every kernel uses for its tail.
#include "parsers/varint_format-inl.h"
#include "parsers/varint_scalar-inl.h"

const uint8_t* Bytes(absl::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

size_t CountSmall(const uint8_t* p, const uint8_t* end) {
  size_t count = 0;
  for (; p < end; ++p) count += *p < 0x80;
  return count;
}

template <VarintFormat F>
DecodeResult DecodeSmall(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                         uint64_t delta_base, bool strict) {
  OutputSink<F> sink(out, delta_base);
  return strict ? DecodeTail<F, true>(p, end, sink, 0, cap)
                : DecodeTail<F, false>(p, end, sink, 0, cap);
}

// Appends a short payload (ApiTriesBoundedTiny) through the kernel's bounded tiny decoder
// `bounded`, with no count pass, into ShortPayloadRoom (one value per byte and the kernel's
// bounded_tiny_spare_values, where it stores whole groups; reserved first where the field's spare
// capacity is less, as the generated parsers' short path does). Returns the count appended, or a
// negative result (declined or malformed: nothing appended, the field's size as it was; its
// capacity may have grown).
template <typename T>
int AppendBoundedTiny(TinyDecodeFn bounded, const uint8_t* begin, const uint8_t* end,
                      RepeatedField<T>* field, uint32_t spare_values) {
  const int old = field->size();
  // At most kBoundedTinyPayloadBytes (128) and kBoundedTinySpareValues: no overflow.
  const int room = ShortPayloadRoom(static_cast<size_t>(end - begin), spare_values);
  if (field->Capacity() - old < room) {
    if (old > INT_MAX - room) return kTinyUnhandled;  // The general way names the limit.
    field->Reserve(old + room);
  }
  const int count = bounded(begin, end, field->AddNAlreadyReserved(room), room);
  field->Truncate(count < 0 ? old : old + count);
  return count;
}

// Appends the payload's values to `field`: a short one as AppendBoundedTiny does, else count,
// reserve once, decode in place. A field with
// spare capacity (a reused one: Clear() keeps the capacity) is first decoded into without
// counting; only if the payload holds more values than that is the rest counted and reserved.
// Where the capacity suffices, as when one field is reused for fields of similar size, that is one
// pass over the payload instead of two.
template <VarintFormat F, typename T>
absl::Status Append(absl::string_view payload, RepeatedField<T>* field, uint64_t delta_base,
                    DecodeOptions options) {
  static_assert(std::is_same_v<T, typename FormatTraits<F>::Out>, "field type must match format");
  if (payload.empty()) return absl::OkStatus();
  const uint8_t* const begin = Bytes(payload);
  const uint8_t* const end = begin + payload.size();
  const KernelDescriptor* kernel = &ActiveKernel();
  if constexpr (!FormatTraits<F>::kDelta) {
    if (ApiTriesBoundedTiny(F, payload.size(), options.strict)) {
      const TinyDecodeFn bounded = kernel->BoundedTinyDecoder(F);
      if (bounded != nullptr &&
          AppendBoundedTiny(bounded, begin, end, field, kernel->bounded_tiny_spare_values) >= 0) {
        return absl::OkStatus();
      }
      // Declined or malformed: the general way below decodes it and names any error.
    }
  }
  const bool small = TakesPortableLoop(*kernel, payload.size());
  const DecodeFn decode = small ? nullptr : kernel->Decoder(F, options.strict);
  const int old_size = field->size();
  // On any error the field is left as it was.
  const auto fail = [&](DecodeStatus status, const uint8_t* at) {
    field->Truncate(old_size);
    return VarintErrorStatus(status, static_cast<size_t>(at - begin), payload.size(), F);
  };

  const uint8_t* p = begin;
  uint64_t base = delta_base;
  const size_t spare = static_cast<size_t>(field->Capacity() - old_size);
  if (!small && spare > 0) {
    const size_t room = spare < payload.size() ? spare : payload.size();
    T* out = field->AddNAlreadyReserved(static_cast<int>(room));
    const DecodeResult r = decode(p, end, out, room, base);
    if (r.status == DecodeStatus::kOk) {
      field->Truncate(old_size + static_cast<int>(r.count));
      return absl::OkStatus();
    }
    if (r.status != DecodeStatus::kOutputFull) return fail(r.status, r.pos);
    // Full (r.count == room >= 1): count and reserve for the rest, from where it stopped.
    p = r.pos;
    base = static_cast<uint64_t>(out[r.count - 1]);  // Delta formats: the running sum.
  }

  const size_t count = small ? CountSmall(p, end) : kernel->count_terminators(p, end);
  const int size = field->size();
  if (count > static_cast<size_t>(INT_MAX - size)) {
    field->Truncate(old_size);
    return absl::ResourceExhaustedError(absl::StrCat(
        "packed varint payload holds ", size - old_size + count, " values; a RepeatedField of ",
        old_size, " elements cannot take them (INT_MAX limit)"));
  }
  // No terminator in what is left: the payload ends inside a varint.
  if (count == 0) return fail(ClassifyUnterminatedTail(p, end), p);

  field->Reserve(size + static_cast<int>(count));
  T* out = field->AddNAlreadyReserved(static_cast<int>(count));
  const DecodeResult r = small ? DecodeSmall<F>(p, end, out, count, base, options.strict)
                               : decode(p, end, out, count, base);
  if (r.status == DecodeStatus::kOk) return absl::OkStatus();
  // `count` is the number of terminator bytes, so filling it with bytes left over means those
  // bytes hold no terminator: the payload ends inside a varint.
  return fail(
      r.status == DecodeStatus::kOutputFull ? ClassifyUnterminatedTail(r.pos, end) : r.status,
      r.pos);
}

// The error of a decode into a buffer that filled (`r` is kOutputFull) or that failed (`r` names
// the error). For a full buffer the rest is validated, so the error says what is really wrong (a
// malformed remainder is kInvalidArgument; a well-formed one is kResourceExhausted). Out of line:
// its scratch array and status building would otherwise enlarge every decode's frame.
template <VarintFormat F>
ABSL_ATTRIBUTE_NOINLINE absl::Status DecodeIntoError(const uint8_t* begin, const uint8_t* end,
                                                     DecodeResult r, size_t out_size, bool strict) {
  const size_t size = static_cast<size_t>(end - begin);
  if (r.status != DecodeStatus::kOutputFull) {
    return VarintErrorStatus(r.status, static_cast<size_t>(r.pos - begin), size, F);
  }
  typename FormatTraits<F>::Out scratch[64];
  size_t total = r.count;
  DecodeResult rest = r;
  do {
    rest = DecodeSmall<F>(rest.pos, end, scratch, 64, 0, strict);
    total += rest.count;
  } while (rest.status == DecodeStatus::kOutputFull);
  if (rest.status != DecodeStatus::kOk) {
    return VarintErrorStatus(rest.status, static_cast<size_t>(rest.pos - begin), size, F);
  }
  return absl::ResourceExhaustedError(absl::StrCat("packed varint payload holds ", total,
                                                   " values; the output has room for ", out_size));
}

// Decodes into the caller's buffer with the kernel's block decoder (or the simple loop, where
// TakesPortableLoop) and names the error if any. The bounded tiny decoder was
// tried inline already (packed_varint.h), for lenient decodes.
template <VarintFormat F>
absl::StatusOr<size_t> DecodeInto(absl::string_view payload, void* out_void, size_t cap,
                                  uint64_t delta_base, DecodeOptions options) {
  using T = typename FormatTraits<F>::Out;
  T* const out = static_cast<T*>(out_void);
  const uint8_t* const begin = Bytes(payload);
  const uint8_t* const end = begin + payload.size();
  const KernelDescriptor& kernel = ActiveKernel();
  const DecodeFn decode =
      TakesPortableLoop(kernel, payload.size()) ? nullptr : kernel.Decoder(F, options.strict);
  const DecodeResult r = decode == nullptr
                             ? DecodeSmall<F>(begin, end, out, cap, delta_base, options.strict)
                             : decode(begin, end, out, cap, delta_base);
  if (ABSL_PREDICT_TRUE(r.status == DecodeStatus::kOk)) return r.count;
  return DecodeIntoError<F>(begin, end, r, cap, options.strict);
}

}  // namespace
}  // namespace internal

using internal::VarintFormat;

#define PBACCEL_DEFINE_DECODERS(Name, Format, T)                                      \
  absl::Status DecodePacked##Name(absl::string_view payload, RepeatedField<T>* field, \
                                  DecodeOptions options) {                            \
    return internal::Append<VarintFormat::Format>(payload, field, 0, options);        \
  }

PBACCEL_PACKED_VARINT_TYPES(PBACCEL_DEFINE_DECODERS)
#undef PBACCEL_DEFINE_DECODERS

#define PBACCEL_DEFINE_DELTA_DECODERS(Name, Format, T)                                            \
  absl::Status DecodePacked##Name(absl::string_view payload, RepeatedField<T>* field, T initial,  \
                                  DecodeOptions options) {                                        \
    return internal::Append<VarintFormat::Format>(payload, field, static_cast<uint64_t>(initial), \
                                                  options);                                       \
  }

PBACCEL_PACKED_DELTA_TYPES(PBACCEL_DEFINE_DELTA_DECODERS)
#undef PBACCEL_DEFINE_DELTA_DECODERS

namespace internal {

// DecodeInto for each VarintFormat, indexed by its value: the formats' list is kernel_abi.h's, so
// a new format cannot be left out.
using SpanDecodeFn = absl::StatusOr<size_t> (*)(absl::string_view, void*, size_t, uint64_t,
                                                DecodeOptions);
template <size_t... kFormats>
constexpr std::array<SpanDecodeFn, sizeof...(kFormats)> SpanDecoders(
    std::index_sequence<kFormats...>) {
  return {&DecodeInto<static_cast<VarintFormat>(kFormats)>...};
}
constexpr auto kSpanDecoders = SpanDecoders(std::make_index_sequence<kNumVarintFormats>());

absl::StatusOr<size_t> DecodeIntoSpan(VarintFormat format, absl::string_view payload, void* out,
                                      size_t cap, uint64_t delta_base, DecodeOptions options) {
  return kSpanDecoders[static_cast<size_t>(format)](payload, out, cap, delta_base, options);
}

}  // namespace internal

}  // namespace pbaccel
