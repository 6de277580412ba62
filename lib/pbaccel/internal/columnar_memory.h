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

inline constexpr size_t kMaxCachedBytes = size_t{256} << 20;

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

// Size hints: how many bytes one of a column's buffers needed per byte of input in the last batch
// decoded with it (0 if none was), so that the next batch can start the buffer at its expected
// size instead of growing it block by block, each growth a copy (on the real-data corpora the
// copies took 10-15% of the decode; docs/columnar.md). A key names a column's buffer: its
// field's descriptor and the buffer's index. A stale hint (a descriptor's address reused by
// another pool) costs only a wrong first size. Thread-safe.
double SizeHint(const void* field, int buffer);
void SetSizeHint(const void* field, int buffer, double bytes_per_input_byte);

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_COLUMNAR_MEMORY_H_
