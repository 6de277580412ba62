// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/utf8_replace.h"

#include <cstddef>
#include <cstdint>

namespace pbaccel {
namespace internal {
namespace {

// The bytes a lead byte's sequence has (0: not a lead byte), and the range its second byte must
// fall in (Unicode's table of well-formed UTF-8 byte sequences; later bytes are 80..BF).
struct Lead {
  int length;
  uint8_t second_min, second_max;
};

Lead LeadOf(uint8_t b) {
  if (b < 0x80) return {1, 0, 0};
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};  // No surrogates.
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};  // Up to U+10FFFF.
  return {0, 0, 0};
}

}  // namespace

std::string ReplaceIllFormedUtf8(absl::string_view text) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size() + 8);
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const Lead lead = LeadOf(p[i]);
    if (lead.length == 1) {
      out.push_back(static_cast<char>(p[i++]));
      continue;
    }
    // The maximal subpart: the lead byte and the continuation bytes that still fit.
    size_t matched = lead.length == 0 ? 0 : 1;
    while (matched > 0 && matched < static_cast<size_t>(lead.length) && i + matched < n) {
      const uint8_t b = p[i + matched];
      const bool fits =
          matched == 1 ? b >= lead.second_min && b <= lead.second_max : b >= 0x80 && b <= 0xBF;
      if (!fits) break;
      ++matched;
    }
    if (lead.length != 0 && matched == static_cast<size_t>(lead.length)) {
      out.append(text.data() + i, matched);
      i += matched;
    } else {
      out.append(kReplacement, 3);
      i += matched == 0 ? 1 : matched;
    }
  }
  return out;
}

}  // namespace internal
}  // namespace pbaccel
