// Copyright 2026 The pbaccel Authors.
//
// columnar_memory.h: the memory of DecodeToArrow's column buffers. Blocks come in power-of-two
// sizes and return to a process-wide cache when an exported batch is released, so that a program
// decoding batch after batch writes into memory it already touched instead of fresh pages: on the
// OSM corpus, fresh pages (a page fault and a zeroed page for each 4 KiB of output) made the
// decode take twice as long (docs/columnar.md). The cache holds at most kMaxCachedBytes; blocks
// beyond it go back to the system. Thread-safe: a batch may be released on another thread.

#ifndef PBACCEL_INTERNAL_COLUMNAR_MEMORY_H_
#define PBACCEL_INTERNAL_COLUMNAR_MEMORY_H_

#include <cstddef>

namespace pbaccel {
namespace internal {
namespace columnar {

inline constexpr size_t kMaxCachedBytes = size_t{128} << 20;

struct Block {
  char* data = nullptr;
  size_t capacity = 0;  // A power of two, 64 or more.
};

// A block of at least `bytes` bytes (a cached one if there is one). Aborts when out of memory, as
// operator new would throw.
Block AllocateBlock(size_t bytes);

// Gives `block` back (to the cache, or to the system when the cache is full). Null blocks are
// ignored.
void FreeBlock(Block block);

// Bytes the cache holds now (for tests).
size_t CachedBytesForTesting();

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_COLUMNAR_MEMORY_H_
