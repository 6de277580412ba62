// Copyright 2026 The pbaccel Authors.
//
// page_start.h: an output buffer for the benchmarks that starts at a 4 KB page. The kernels store
// whole vectors past the values; from a buffer that starts just below a page's end those stores
// split across the page on every call, which on Zen 4 costs more than decoding a short payload
// (docs/kernels.md, "Code placement and stores across a page"). A benchmark's buffer that the heap
// places would then decide its figures.

#ifndef PBACCEL_TESTING_CORPORA_PAGE_START_H_
#define PBACCEL_TESTING_CORPORA_PAGE_START_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace pbaccel {
namespace corpora {

// At least `n` elements of `*buffer` (grown as needed: the elements before the page are never
// used), the first at a page's start.
template <typename T>
inline absl::Span<T> SpanFromAPage(std::vector<T>* buffer, size_t n) {
  constexpr size_t kPage = 4096;
  static_assert(kPage % sizeof(T) == 0, "elements that tile a page");
  if (buffer->size() < n + kPage / sizeof(T)) buffer->resize(n + kPage / sizeof(T));
  const size_t into_page = reinterpret_cast<uintptr_t>(buffer->data()) % kPage;
  const size_t skip = into_page == 0 ? 0 : (kPage - into_page) / sizeof(T);
  return absl::MakeSpan(*buffer).subspan(skip);
}

}  // namespace corpora
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_CORPORA_PAGE_START_H_
