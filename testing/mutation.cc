// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/mutation.h"

#include "absl/strings/str_cat.h"
#include "pbaccel/internal/wire_reader.h"
#include "pbaccel/testing/rng.h"
#include "pbaccel/testing/wire_builder.h"

namespace pbaccel {
namespace testing {
namespace {

// A top-level field, as offsets into the encoding.
struct Span {
  size_t start, tag_end;  // The tag is [start, tag_end).
  int wire_type;
  size_t len_start, payload_start, end;  // Wire type 2: the length is [len_start, payload_start).
};

// The top-level fields the wire reader reads before the first group or malformed field.
std::vector<Span> TopLevelFields(absl::string_view b) {
  std::vector<Span> spans;
  const char* const begin = b.data();
  const char* const end = begin + b.size();
  internal::WireField f;
  internal::WireError error;
  for (const char* p = begin; p < end;) {
    p = internal::ReadField(p, end, &f, &error);
    if (p == nullptr || f.wire_type == WireType::kStartGroup ||
        f.wire_type == WireType::kEndGroup) {
      break;
    }
    Span s{};
    s.start = static_cast<size_t>(f.tag - begin);
    s.tag_end = static_cast<size_t>(f.value - begin);
    s.wire_type = static_cast<int>(f.wire_type);
    s.len_start = s.tag_end;
    s.payload_start = static_cast<size_t>(f.payload - begin);
    s.end = static_cast<size_t>(f.end - begin);
    spans.push_back(s);
  }
  return spans;
}

std::string Replace(absl::string_view b, size_t from, size_t to, absl::string_view with) {
  return absl::StrCat(b.substr(0, from), with, b.substr(to));
}

std::string PaddedVarintString(uint64_t v, int length) {
  std::string out;
  AppendPaddedVarint(v, length, &out);
  return out;
}

uint64_t DecodeVarintAt(absl::string_view b, size_t from, size_t to) {
  uint64_t v = 0;
  for (size_t k = from; k < to; ++k) v |= static_cast<uint64_t>(b[k] & 0x7F) << (7 * (k - from));
  return v;
}

}  // namespace

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
          out.push_back(
              Replace(b, s.start, s.tag_end,
                      PaddedVarintString(
                          tag, Chance(rng, 50) ? 11 : 2 + static_cast<int>(Uniform(rng, 4)))));
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
        AppendTag(Chance(rng, 50) ? 0 : (1 << 29), static_cast<int>(Uniform(rng, 3)) == 2 ? 2 : 0,
                  &enc);
        enc += '\x01';
        out.push_back(Chance(rng, 50) ? enc + std::string(b) : std::string(b) + enc);
        break;
      }
      case 10:  // A varint value stretched to 11 bytes.
        if (has_fields && s.wire_type == 0) {
          out.push_back(Replace(b, s.tag_end, s.end,
                                PaddedVarintString(DecodeVarintAt(b, s.tag_end, s.end), 11)));
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

}  // namespace testing
}  // namespace pbaccel
