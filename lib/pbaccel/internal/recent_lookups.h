// Copyright 2026 The pbaccel Authors.
//
// recent_lookups.h: a thread's last few answers from a shared table that a lock guards (the
// registry of generated parsers, the reflection walk's plans), kept per thread so that a parse
// asks the table only for a type the thread has not parsed lately. A server thread parses a few
// types over and over: the requests of the methods it serves, an envelope and its payload. With
// only the last answer kept, two types parsed in turn took the lock on every parse.
//
// Contract: an answer, once the table gave it for a key, stays a right answer for that key for the
// life of the process; a key is never its type's default (nullptr). (A thread told that a class
// has no generated parser keeps parsing it by the reflection walk, with the same results, even
// after a library loaded later registers one.)
// Not thread-safe: declare it thread_local. It is constant-initialized and trivially destructible,
// so thread_local costs no guard on the parse path.

#ifndef PBACCEL_INTERNAL_RECENT_LOOKUPS_H_
#define PBACCEL_INTERNAL_RECENT_LOOKUPS_H_

namespace pbaccel {
namespace internal {

template <typename Key, typename Value, int kSize = 4>
class RecentLookups {
 public:
  // The answer remembered for `key`, or nullptr.
  const Value* Find(Key key) const {
    for (int i = 0; i < kSize; ++i) {
      if (keys_[i] == key) return &values_[i];
    }
    return nullptr;
  }

  // Remembers `value` for `key` (not remembered yet), in place of the oldest answer.
  const Value& Remember(Key key, Value value) {
    const int slot = next_;
    next_ = next_ + 1 == kSize ? 0 : next_ + 1;
    keys_[slot] = key;
    values_[slot] = value;
    return values_[slot];
  }

 private:
  Key keys_[kSize] = {};
  Value values_[kSize] = {};
  int next_ = 0;
};

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_RECENT_LOOKUPS_H_
