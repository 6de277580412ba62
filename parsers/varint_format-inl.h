// Copyright 2026 The pbaccel Authors.
//
// varint_format-inl.h: what each VarintFormat writes, and the descriptor-building helper every
// kernel uses. Shared by all kernels.
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, in a kernel's .cc
// file, after <cstddef>, <cstdint>, <cstring> and pbaccel/internal/kernel_abi.h. Each kernel
// thereby gets its own internal-linkage copy of these templates, compiled with that kernel's
// instruction-set flags: no inline function is shared between kernels, so the linker can never hand
// an AVX-512 copy to code running on a CPU without AVX-512 (Abseil's rule for hermetic
// instruction-set targets).
//
// This file deliberately has no include guard and includes nothing but zigzag_simd-inl.h,
// tiny_payload-inl.h (each kernel's decode_tiny, which MakeKernelDescriptor lists, and which
// decodes zigzag by the vector) and running_sums-inl.h (the delta formats' decoders made of
// their gaps' decoders).

// Per-format output type, narrowing and strict-mode range check.
//
// Convert(v): the field value for the 64-bit varint value v (bits past 63 already dropped).
// FitsStrict(v): whether strict mode accepts v (the caller has already rejected bits past 63).
template <VarintFormat F>
struct FormatTraits;

template <>
struct FormatTraits<VarintFormat::kInt32> {
  using Out = int32_t;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }
  // Encoders write int32 as the int64 sign extension; anything else overflows.
  static bool FitsStrict(uint64_t v) {
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))) == v;
  }
};

template <>
struct FormatTraits<VarintFormat::kUInt32> {
  using Out = uint32_t;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return static_cast<uint32_t>(v); }
  static bool FitsStrict(uint64_t v) { return (v >> 32) == 0; }
};

template <>
struct FormatTraits<VarintFormat::kSInt32> {
  using Out = int32_t;
  static constexpr bool kDelta = false;
  // ZigZag: 0 -> 0, 1 -> -1, 2 -> 1, 3 -> -2, ...
  static Out Convert(uint64_t v) {
    const uint32_t n = static_cast<uint32_t>(v);
    return static_cast<int32_t>((n >> 1) ^ (0u - (n & 1)));
  }
  static bool FitsStrict(uint64_t v) { return (v >> 32) == 0; }
};

template <>
struct FormatTraits<VarintFormat::kInt64> {
  using Out = int64_t;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return static_cast<int64_t>(v); }
  static bool FitsStrict(uint64_t) { return true; }
};

template <>
struct FormatTraits<VarintFormat::kUInt64> {
  using Out = uint64_t;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return v; }
  static bool FitsStrict(uint64_t) { return true; }
};

template <>
struct FormatTraits<VarintFormat::kSInt64> {
  using Out = int64_t;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1))); }
  static bool FitsStrict(uint64_t) { return true; }
};

template <>
struct FormatTraits<VarintFormat::kBool> {
  using Out = bool;
  static constexpr bool kDelta = false;
  static Out Convert(uint64_t v) { return v != 0; }
  static bool FitsStrict(uint64_t v) { return v <= 1; }
};

template <>
struct FormatTraits<VarintFormat::kDeltaUInt32> {
  using Out = uint32_t;
  static constexpr bool kDelta = true;
  static Out Convert(uint64_t v) { return static_cast<uint32_t>(v); }
  static bool FitsStrict(uint64_t v) { return (v >> 32) == 0; }
};

template <>
struct FormatTraits<VarintFormat::kDeltaUInt64> {
  using Out = uint64_t;
  static constexpr bool kDelta = true;
  static Out Convert(uint64_t v) { return v; }
  static bool FitsStrict(uint64_t) { return true; }
};

template <>
struct FormatTraits<VarintFormat::kDeltaSInt64> {
  using Out = int64_t;
  static constexpr bool kDelta = true;
  static Out Convert(uint64_t v) { return FormatTraits<VarintFormat::kSInt64>::Convert(v); }
  static bool FitsStrict(uint64_t) { return true; }
};

// Whether a format's values (a delta format's gaps) are the zigzag decodings of 64-bit varints:
// sint64 and delta sint64. The vector forms test this, not the format, before their 64-bit zigzag.
template <VarintFormat F>
constexpr bool kZigZag64 = F == VarintFormat::kSInt64 || F == VarintFormat::kDeltaSInt64;

// a + b modulo 2^32 or 2^64 (Out's width): the delta formats' running sums wrap, the signed ones'
// too (computed unsigned, so never a signed overflow).
template <typename Out>
inline Out WrappingAdd(Out a, Out b) {
  return static_cast<Out>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// The delta formats decoded as gaps, then summed (SumsAfterGaps, DeltaAfterGaps).
#include "parsers/running_sums-inl.h"

// Writes converted values to the output array; for delta formats keeps the running sum.
template <VarintFormat F>
class OutputSink {
 public:
  using Traits = FormatTraits<F>;
  using Out = typename Traits::Out;

  OutputSink(void* out, uint64_t delta_base)
      : out_(static_cast<Out*>(out)), sum_(static_cast<Out>(delta_base)) {}

  // Stores the value of varint number i (0-based within this call).
  void Put(size_t i, uint64_t v) {
    if constexpr (Traits::kDelta) {
      sum_ = WrappingAdd(sum_, Traits::Convert(v));
      out_[i] = sum_;
    } else {
      out_[i] = Traits::Convert(v);
    }
  }

  Out* data() const { return out_; }

 private:
  Out* out_;
  Out sum_;  // Delta formats only: the last value written.
};

#include "parsers/zigzag_simd-inl.h"

// Uses zigzag_simd-inl.h.
#include "parsers/tiny_payload-inl.h"

// A kernel without a bounded tiny decoder (kernel_abi.h): every entry null. A bounded tiny decoder
// entry has its kRun and kSpareValues (the descriptor's bounded_tiny_spare_values).
template <VarintFormat>
struct NoBoundedTinyDecoder {
  static constexpr TinyDecodeFn kRun = nullptr;
  static constexpr uint32_t kSpareValues = 0;
};

// A kernel without a window decoder (kernel_abi.h): every entry null. A window decoder entry has
// its kRun.
template <VarintFormat>
struct NoWindowDecoder {
  static constexpr TinyDecodeFn kRun = nullptr;
};

// Entry D<F>::kRun of a bounded tiny or window decoder, and null for the delta formats, which have
// neither (kernel_abi.h): so D<F> is never instantiated for them, and a decoder need not test for
// them.
template <template <VarintFormat> class D, VarintFormat F>
constexpr TinyDecodeFn NonDeltaEntry() {
  if constexpr (FormatTraits<F>::kDelta) {
    return nullptr;
  } else {
    return D<F>::kRun;
  }
}

// Builds a kernel's descriptor from its decoder and sizer templates: Decoder<F, kStrict>::Run must
// have the DecodeFn signature. Every format and both modes are instantiated here, in one place, so
// a kernel cannot forget one. Sizer<S>::Run has the SizeFn signature for each SizeFormat S, and
// Tiny<F>::Run the TinyDecodeFn one (TinyDecoder, tiny_payload-inl.h, unless the kernel has its
// own); BoundedTiny<F>::kRun is the bounded tiny decoder's entry and Window<F>::kRun the window
// decoder's (each a TinyDecodeFn or null), asked for the non-delta formats only (NonDeltaEntry).
template <template <VarintFormat, bool> class Decoder, template <SizeFormat> class Sizer,
          template <VarintFormat> class Tiny = TinyDecoder,
          template <VarintFormat> class BoundedTiny = NoBoundedTinyDecoder,
          template <VarintFormat> class Window = NoWindowDecoder>
constexpr KernelDescriptor MakeKernelDescriptor(
    const char* name, const char* summary, CountFn count_terminators,
    uint32_t inline_below_bytes = kDefaultInlineBelowBytes, bool short_payloads_direct = false) {
  using F = VarintFormat;
  using S = SizeFormat;
  return KernelDescriptor{
      name,
      summary,
      count_terminators,
      {
          {&Decoder<F::kInt32, false>::Run, &Decoder<F::kInt32, true>::Run},
          {&Decoder<F::kUInt32, false>::Run, &Decoder<F::kUInt32, true>::Run},
          {&Decoder<F::kSInt32, false>::Run, &Decoder<F::kSInt32, true>::Run},
          {&Decoder<F::kInt64, false>::Run, &Decoder<F::kInt64, true>::Run},
          {&Decoder<F::kUInt64, false>::Run, &Decoder<F::kUInt64, true>::Run},
          {&Decoder<F::kSInt64, false>::Run, &Decoder<F::kSInt64, true>::Run},
          {&Decoder<F::kBool, false>::Run, &Decoder<F::kBool, true>::Run},
          {&Decoder<F::kDeltaUInt32, false>::Run, &Decoder<F::kDeltaUInt32, true>::Run},
          {&Decoder<F::kDeltaUInt64, false>::Run, &Decoder<F::kDeltaUInt64, true>::Run},
          {&Decoder<F::kDeltaSInt64, false>::Run, &Decoder<F::kDeltaSInt64, true>::Run},
      },
      {&Sizer<S::kUInt32>::Run, &Sizer<S::kInt32>::Run, &Sizer<S::kSInt32>::Run,
       &Sizer<S::kUInt64>::Run, &Sizer<S::kSInt64>::Run},
      {&Tiny<F::kInt32>::Run, &Tiny<F::kUInt32>::Run, &Tiny<F::kSInt32>::Run, &Tiny<F::kInt64>::Run,
       &Tiny<F::kUInt64>::Run, &Tiny<F::kSInt64>::Run, &Tiny<F::kBool>::Run,
       &Tiny<F::kDeltaUInt32>::Run, &Tiny<F::kDeltaUInt64>::Run, &Tiny<F::kDeltaSInt64>::Run},
      {NonDeltaEntry<BoundedTiny, F::kInt32>(), NonDeltaEntry<BoundedTiny, F::kUInt32>(),
       NonDeltaEntry<BoundedTiny, F::kSInt32>(), NonDeltaEntry<BoundedTiny, F::kInt64>(),
       NonDeltaEntry<BoundedTiny, F::kUInt64>(), NonDeltaEntry<BoundedTiny, F::kSInt64>(),
       NonDeltaEntry<BoundedTiny, F::kBool>(), NonDeltaEntry<BoundedTiny, F::kDeltaUInt32>(),
       NonDeltaEntry<BoundedTiny, F::kDeltaUInt64>(),
       NonDeltaEntry<BoundedTiny, F::kDeltaSInt64>()},
      inline_below_bytes,
      short_payloads_direct,
      BoundedTiny<F::kUInt32>::kSpareValues,
      {NonDeltaEntry<Window, F::kInt32>(), NonDeltaEntry<Window, F::kUInt32>(),
       NonDeltaEntry<Window, F::kSInt32>(), NonDeltaEntry<Window, F::kInt64>(),
       NonDeltaEntry<Window, F::kUInt64>(), NonDeltaEntry<Window, F::kSInt64>(),
       NonDeltaEntry<Window, F::kBool>(), NonDeltaEntry<Window, F::kDeltaUInt32>(),
       NonDeltaEntry<Window, F::kDeltaUInt64>(), NonDeltaEntry<Window, F::kDeltaSInt64>()},
  };
}
