// Copyright 2026 The pbaccel Authors.
//
// sve_runs-inl.h: what the sve kernel adds to the NEON decoder (neon_decoder-inl.h): one-byte
// varints widened by SVE's zero-extending predicated loads (LD1B into 8-, 32- or 64-bit lanes, as
// many lanes per instruction as the CPU's vector length holds), exact to the byte: a WHILELT
// predicate bounds every load and store, so a run ends without a scalar tail and nothing past it
// is read or written. Terminators are counted the same way (CNTP of a compare).
//
// REQUIRES: included inside an anonymous namespace within pbaccel::internal, by
// neon_decoder-inl.h compiled with SVE, after <arm_sve.h>, parsers/kernel_probes.h and
// varint_format-inl.h (FormatTraits, the SVE ZigZag32 and
// ZigZag64). No include guard; includes nothing (varint_format-inl.h says why).

// Runs of one-byte varints (no continuation bit in them) stored as values.
template <VarintFormat F, bool kStrict>
struct SveOneByteRuns {
  using Out = typename FormatTraits<F>::Out;
  // Running sums have no one-instruction scan in SVE: the NEON steps keep them.
  static constexpr bool kApplies = !FormatTraits<F>::kDelta;

  // Stores the `len` one-byte varints at p as values at out[0, len). Returns false for a strict
  // bool above 1 (the caller's reader rejects it), having stored some values below out + len.
  static bool Widen(const uint8_t* p, size_t len, Out* out) {
    static_assert(kApplies, "values, not running sums");
    PBACCEL_KERNEL_PROBE(sve_one_byte_runs);
    if constexpr (sizeof(Out) == 1) {
      uint8_t* const o = reinterpret_cast<uint8_t*>(out);
      for (size_t i = 0; i < len; i += svcntb()) {
        const svbool_t pg = svwhilelt_b8_u64(i, len);
        const svuint8_t b = svld1_u8(pg, p + i);
        if (kStrict && svptest_any(pg, svcmpgt_n_u8(pg, b, 1))) return false;
        svst1_u8(pg, o + i, svmin_n_u8_x(pg, b, 1));
      }
    } else if constexpr (sizeof(Out) == 4) {
      uint32_t* const o = reinterpret_cast<uint32_t*>(out);
      for (size_t i = 0; i < len; i += svcntw()) {
        const svbool_t pg = svwhilelt_b32_u64(i, len);
        svuint32_t v = svld1ub_u32(pg, p + i);
        if constexpr (F == VarintFormat::kSInt32) v = ZigZag32(pg, v);
        svst1_u32(pg, o + i, v);
      }
    } else {
      uint64_t* const o = reinterpret_cast<uint64_t*>(out);
      for (size_t i = 0; i < len; i += svcntd()) {
        const svbool_t pg = svwhilelt_b64_u64(i, len);
        svuint64_t v = svld1ub_u64(pg, p + i);
        if constexpr (kZigZag64<F>) v = ZigZag64(pg, v);
        svst1_u64(pg, o + i, v);
      }
    }
    return true;
  }

  // From the window at p, known to hold 64 one-byte varints, through each next 64-byte window
  // that does too, while `end` and the room (values) allow: stores their values at out. Returns
  // the bytes taken (a multiple of 64; 0 for a strict bool above 1, which the caller's walk
  // rejects). Out of line: the caller's loop keeps its registers.
  __attribute__((noinline)) static size_t Windows(const uint8_t* p, const uint8_t* end, Out* out,
                                                  size_t room) {
    size_t taken = 0;
    do {
      if (!Widen(p + taken, 64, out + taken)) return taken;
      taken += 64;
    } while (static_cast<size_t>(end - p) - taken >= 64 && room - taken >= 64 &&
             !AnyContinuing(p + taken, 64));
    return taken;
  }

  // Whether any of the `len` bytes at p has its continuation bit set.
  static bool AnyContinuing(const uint8_t* p, size_t len) {
    for (size_t i = 0; i < len; i += svcntb()) {
      const svbool_t pg = svwhilelt_b8_u64(i, len);
      if (svptest_any(pg, svcmpge_n_u8(pg, svld1_u8(pg, p + i), 0x80))) return true;
    }
    return false;
  }

  // The payload's last bytes [*p, end), fewer than 16: if they are all one-byte varints and the
  // room holds them, stores them and advances *p and *n past them. Else leaves both.
  static void Tail(const uint8_t** p, const uint8_t* end, Out* out, size_t* n, size_t cap) {
    if constexpr (kApplies) {
      const size_t len = static_cast<size_t>(end - *p);
      if (len == 0 || len >= 16 || len > cap - *n) return;
      if (AnyContinuing(*p, len) || !Widen(*p, len, out + *n)) return;
      *p = end;
      *n += len;
    }
  }
};

// Bytes without a continuation bit, a vector at a time, the last one predicated.
inline size_t SveCountTerminators(const uint8_t* p, const uint8_t* end) {
  const size_t total = static_cast<size_t>(end - p);
  size_t terminators = 0;
  for (size_t i = 0; i < total; i += svcntb()) {
    const svbool_t pg = svwhilelt_b8_u64(i, total);
    terminators += svcntp_b8(pg, svcmplt_n_u8(pg, svld1_u8(pg, p + i), 0x80));
  }
  return terminators;
}
