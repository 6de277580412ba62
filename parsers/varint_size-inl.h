// Copyright 2026 The pbaccel Authors.
//
// varint_size-inl.h: encoded sizes of values, one at a time: the reference every kernel's sizer is
// tested against, and the sizer of the kernels without a vector one (and of the vector sizers'
// tails).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, after <cstddef>,
// <cstdint> and pbaccel/internal/kernel_abi.h. No include guard, no includes.

// Bytes of the varint of v: 1 + floor(log2(v | 1) / 7), computed as upstream's VarintSize64 does
// (SFVInt's Algorithm 4): ((63 - clz) * 9 + 73) / 64 maps bit widths 1..64 to 1..10 exactly.
inline size_t VarintSize(uint64_t v) {
  const int log2 = 63 - __builtin_clzll(v | 1);
  return static_cast<size_t>((log2 * 9 + 73) / 64);
}

// The 64-bit value whose varint a value of each size format is encoded as.
template <SizeFormat S>
struct SizeTraits;
template <>
struct SizeTraits<SizeFormat::kUInt32> {
  using In = uint32_t;
  static uint64_t Wire(In v) { return v; }
};
template <>
struct SizeTraits<SizeFormat::kInt32> {
  using In = int32_t;
  static uint64_t Wire(In v) { return static_cast<uint64_t>(static_cast<int64_t>(v)); }
};
template <>
struct SizeTraits<SizeFormat::kSInt32> {
  using In = int32_t;
  static uint64_t Wire(In v) {
    return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
  }
};
template <>
struct SizeTraits<SizeFormat::kUInt64> {
  using In = uint64_t;
  static uint64_t Wire(In v) { return v; }
};
template <>
struct SizeTraits<SizeFormat::kSInt64> {
  using In = int64_t;
  static uint64_t Wire(In v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
};

template <SizeFormat S>
inline size_t ScalarEncodedSize(const typename SizeTraits<S>::In* v, size_t n) {
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += VarintSize(SizeTraits<S>::Wire(v[i]));
  return total;
}

template <SizeFormat S>
struct ScalarSizer {
  static size_t Run(const void* values, size_t n) {
    return ScalarEncodedSize<S>(static_cast<const typename SizeTraits<S>::In*>(values), n);
  }
};
