// Copyright 2026 The pbaccel Authors.
//
// utf8_replace.h: text with its ill-formed UTF-8 replaced, for outputs whose type promises UTF-8.
//
// Upstream accepts any bytes in a string field it does not check (proto2's, and editions'
// utf8_validation = NONE): the message holds them as they came. An output that promises UTF-8
// (an Arrow utf8 column) cannot hold such bytes, so they are replaced the way protobuf-java's
// String getters, Python's bytes.decode("utf-8", "replace") and Arrow's own utf8 repair do: each
// maximal subpart of an ill-formed sequence (Unicode 15, section 3.9, "U+FFFD Substitution of
// Maximal Subparts") becomes U+FFFD. Well-formed text comes back unchanged.

#ifndef PBACCEL_INTERNAL_UTF8_REPLACE_H_
#define PBACCEL_INTERNAL_UTF8_REPLACE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace pbaccel {
namespace internal {

std::string ReplaceIllFormedUtf8(absl::string_view text);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_UTF8_REPLACE_H_
