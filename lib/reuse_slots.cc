// Copyright 2026 The pbaccel Authors.
//
// The reuse slots of generated parsers (Context::PushReuseSlots, pbaccel/generated_parser.h): each
// thread's stack of ReuseSlots, one per reusable repeated field of every level being parsed in
// place of old contents, kept off the machine stack.

#include <algorithm>
#include <memory>

#include "pbaccel/generated_parser.h"

namespace pbaccel {
namespace gen {

// Blocks of slots chained in the order they are used. A block never moves while in use (parsers
// hold pointers into it) and stays allocated for the thread's later parses; a push that does not
// fit in the current block takes the next one, allocated the first time.
class ReuseSlotStack {
 public:
  ReuseSlotStack() = default;
  ReuseSlotStack(const ReuseSlotStack&) = delete;
  ReuseSlotStack& operator=(const ReuseSlotStack&) = delete;
  ~ReuseSlotStack() {
    while (first_ != nullptr) delete std::exchange(first_, first_->next);
  }

  ReuseSlot* Push(int n) {
    if (current_ == nullptr) {
      current_ = first_ = new Block(nullptr, n);
    } else if (current_->capacity - current_->used < n) {
      Block* next = current_->next;
      if (next == nullptr || next->capacity < n) {  // A too-small next block stays after it.
        Block* added = new Block(current_, n);
        added->next = next;
        if (next != nullptr) next->prev = added;
        current_->next = added;
        next = added;
      }
      next->used = 0;
      current_ = next;
    }
    ReuseSlot* slots = current_->slots.get() + current_->used;
    current_->used += n;
    return slots;
  }

  // Releases the last push, of `n` slots.
  void Pop(int n) {
    current_->used -= n;
    LeaveIfEmpty();
  }

  // Releases every push from the one that returned `start` on; nothing if that one is already
  // released.
  void ReleaseFrom(ReuseSlot* start) {
    for (Block* b = current_; b != nullptr; b = b->prev) {
      if (start >= b->slots.get() && start < b->slots.get() + b->capacity) {
        current_ = b;
        b->used = static_cast<int>(start - b->slots.get());
        LeaveIfEmpty();
        return;
      }
    }
  }

 private:
  static constexpr int kBlockSlots = 256;  // 4 KiB: the levels of any ordinary parse.

  struct Block {
    Block(Block* before, int n)
        : prev(before), capacity(std::max(kBlockSlots, n)), slots(new ReuseSlot[capacity]) {}
    Block* prev;
    Block* next = nullptr;
    int used = 0;
    int capacity;
    std::unique_ptr<ReuseSlot[]> slots;
  };

  // An emptied block after the first: the pushes below it are in the one before.
  void LeaveIfEmpty() {
    if (current_->used == 0 && current_->prev != nullptr) current_ = current_->prev;
  }

  Block* first_ = nullptr;
  Block* current_ = nullptr;
};

ReuseSlot* Context::PushReuseSlots(int n) {
  if (reuse_slots_ != nullptr) return reuse_slots_->Push(n);
  thread_local ReuseSlotStack thread_slots;
  reuse_slots_ = &thread_slots;
  reuse_slots_start_ = reuse_slots_->Push(n);
  return reuse_slots_start_;
}

void Context::PopReuseSlots(int n) { reuse_slots_->Pop(n); }

void Context::ReleaseReuseSlots() { reuse_slots_->ReleaseFrom(reuse_slots_start_); }

}  // namespace gen
}  // namespace pbaccel
