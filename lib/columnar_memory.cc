// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_memory.h"

#include <cstdlib>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/numeric/bits.h"
#include "absl/synchronization/mutex.h"

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

constexpr size_t kMinBlockBytes = 64;
constexpr int kSizeClasses = 64;

class Cache {
 public:
  char* Take(int size_class) {
    absl::MutexLock lock(&mutex_);
    std::vector<char*>& blocks = free_[size_class];
    if (blocks.empty()) return nullptr;
    char* p = blocks.back();
    blocks.pop_back();
    cached_ -= size_t{1} << size_class;
    return p;
  }
  bool Give(char* p, int size_class) {
    const size_t bytes = size_t{1} << size_class;
    absl::MutexLock lock(&mutex_);
    if (cached_ + bytes > kMaxCachedBytes) return false;
    free_[size_class].push_back(p);
    cached_ += bytes;
    return true;
  }
  size_t cached() {
    absl::MutexLock lock(&mutex_);
    return cached_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<char*> free_[kSizeClasses] ABSL_GUARDED_BY(mutex_);
  size_t cached_ ABSL_GUARDED_BY(mutex_) = 0;
};

Cache& TheCache() {
  static Cache* const cache = new Cache;  // Never destroyed: batches may outlive static objects.
  return *cache;
}

int SizeClass(size_t capacity) { return absl::countr_zero(capacity); }

}  // namespace

Block AllocateBlock(size_t bytes) {
  const size_t capacity = absl::bit_ceil(bytes < kMinBlockBytes ? kMinBlockBytes : bytes);
  char* p = TheCache().Take(SizeClass(capacity));
  if (p == nullptr) p = static_cast<char*>(std::aligned_alloc(kMinBlockBytes, capacity));
  if (p == nullptr) std::abort();
  return {p, capacity};
}

void FreeBlock(Block block) {
  if (block.data == nullptr) return;
  if (!TheCache().Give(block.data, SizeClass(block.capacity))) std::free(block.data);
}

size_t CachedBytesForTesting() { return TheCache().cached(); }

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
