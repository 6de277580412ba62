// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_memory.h"

#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "absl/numeric/bits.h"

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

constexpr size_t kMinBlockBytes = 64;
constexpr int kSizeClasses = 64;

class Cache {
 public:
  char* Take(int size_class) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<char*>& blocks = free_[size_class];
    if (blocks.empty()) return nullptr;
    char* p = blocks.back();
    blocks.pop_back();
    cached_ -= size_t{1} << size_class;
    return p;
  }
  bool Give(char* p, int size_class) {
    const size_t bytes = size_t{1} << size_class;
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_ + bytes > kMaxCachedBytes) return false;
    free_[size_class].push_back(p);
    cached_ += bytes;
    return true;
  }
  size_t cached() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }

 private:
  // std::mutex, not absl::Mutex: no absl::MutexLock constructor compiles without a deprecation
  // warning on every Abseil protobuf ships with (docs/protobuf_versions.md, v35). Guards the rest.
  std::mutex mutex_;
  std::vector<char*> free_[kSizeClasses];
  size_t cached_ = 0;
};

Cache& TheCache() {
  static Cache* const cache = new Cache;  // Never destroyed: batches may outlive static objects.
  return *cache;
}

int SizeClass(size_t capacity) { return absl::countr_zero(capacity); }

class Hints {
 public:
  double Get(const void* field, int buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hints_.find({field, buffer});
    return it == hints_.end() ? 0 : it->second;
  }
  void Set(const void* field, int buffer, double ratio) {
    std::lock_guard<std::mutex> lock(mutex_);
    hints_[{field, buffer}] = ratio;
  }

 private:
  std::mutex mutex_;  // Guards hints_.
  absl::flat_hash_map<std::pair<const void*, int>, double> hints_;
};

Hints& TheHints() {
  static Hints* const hints = new Hints;
  return *hints;
}

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

double SizeHint(const void* field, int buffer) { return TheHints().Get(field, buffer); }

void SetSizeHint(const void* field, int buffer, double bytes_per_input_byte) {
  TheHints().Set(field, buffer, bytes_per_input_byte);
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
