// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/message_plan.h"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "pbaccel/internal/field_encoding.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/recent_lookups.h"

namespace pbaccel {
namespace internal {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Field numbers below this get a dense table entry; most messages use small numbers.
constexpr int kDenseLimit = 256;

// Whether `field` is a packable enum whose unknown values upstream keeps in the field (an open
// enum). A closed one moves unknown values to the unknown fields: upstream does that, so those
// fields stay with upstream.
bool IsOpenEnumField(const FieldDescriptor* field) { return !compat::IsClosedEnumField(field); }

// The action for `field` ignoring submessages (set later, once every plan exists).
FieldAction ScalarAction(const FieldDescriptor* field) {
  FieldAction a;
  a.field = field;
  if (!field->is_repeated() || !field->is_packable()) return a;
  const ScalarEncoding encoding = ScalarEncodingOf(field->type());
  if (encoding.kind == ScalarEncoding::kFixed) {
    a.kind = FieldAction::kPackedFixed;
    a.fixed_size = encoding.fixed_bytes;
  } else if (encoding.kind == ScalarEncoding::kVarint &&
             (field->type() != FieldDescriptor::TYPE_ENUM || IsOpenEnumField(field))) {
    a.kind = FieldAction::kPackedVarint;
    a.format = encoding.format;
  }
  return a;
}

// Submessage fields worth recursing into: singular or repeated message fields (not maps, which
// upstream parses as entries; not groups, whose framing upstream handles).
bool IsRecursableMessageField(const FieldDescriptor* field) {
  return field->type() == FieldDescriptor::TYPE_MESSAGE && !field->is_map();
}

// Submessage fields a walk that enters every submessage (MergeIteratively) enters: those above, and
// maps of messages, entry by entry (through the map's repeated view), whose values would otherwise
// take the rest of a deep input into upstream's recursion. Not maps of other values: upstream
// parses their entries (a closed enum's unknown value sends the entry to the parent's unknown
// fields, which an entry parsed on its own cannot do).
bool IsEnterableMessageField(const FieldDescriptor* field) {
  return IsRecursableMessageField(field) ||
         (field->is_map() &&
          field->message_type()->map_value()->type() == FieldDescriptor::TYPE_MESSAGE);
}

}  // namespace

struct PlanCache::State {
  const MessagePlan& Get(const Descriptor* d) {
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      auto it = plans_.find(d);
      if (it != plans_.end()) return *it->second;
    }
    std::lock_guard<std::shared_mutex> lock(mu_);
    Build(d);
    return *plans_.at(d);
  }

  // Builds plans for `root` and every type reachable from it that has none yet. REQUIRES: mu_
  // held exclusively.
  void Build(const Descriptor* root) {
    std::vector<const Descriptor*> fresh;
    std::vector<const Descriptor*> stack{root};
    while (!stack.empty()) {
      const Descriptor* d = stack.back();
      stack.pop_back();
      if (plans_.contains(d)) continue;
      auto plan = std::make_unique<MessagePlan>();
      plan->descriptor = d;
      for (int i = 0; i < d->field_count(); ++i) {
        const FieldDescriptor* f = d->field(i);
        if (f->type() == FieldDescriptor::TYPE_MESSAGE ||
            f->type() == FieldDescriptor::TYPE_GROUP) {
          stack.push_back(f->message_type());
        }
      }
      plans_.emplace(d, std::move(plan));
      fresh.push_back(d);
    }
    // Scalar actions, and which types accelerate directly.
    for (const Descriptor* d : fresh) {
      MessagePlan& plan = *plans_.at(d);
      for (int i = 0; i < d->field_count(); ++i) {
        const FieldDescriptor* f = d->field(i);
        const FieldAction a = ScalarAction(f);
        if (a.kind != FieldAction::kUpstream) plan.accelerates = true;
      }
    }
    // Propagate "accelerates" through submessage fields to a fixed point (types may recurse).
    for (bool changed = true; changed;) {
      changed = false;
      for (const Descriptor* d : fresh) {
        MessagePlan& plan = *plans_.at(d);
        if (plan.accelerates) continue;
        for (int i = 0; i < d->field_count(); ++i) {
          const FieldDescriptor* f = d->field(i);
          if (IsRecursableMessageField(f) && plans_.at(f->message_type())->accelerates) {
            plan.accelerates = changed = true;
            break;
          }
        }
      }
    }
    // Field tables.
    for (const Descriptor* d : fresh) {
      MessagePlan& plan = *plans_.at(d);
      int max_dense = 0;
      for (int i = 0; i < d->field_count(); ++i) {
        if (d->field(i)->number() < kDenseLimit)
          max_dense = std::max(max_dense, d->field(i)->number());
      }
      plan.dense.resize(static_cast<size_t>(max_dense) + 1);
      for (int i = 0; i < d->field_count(); ++i) {
        const FieldDescriptor* f = d->field(i);
        FieldAction a = ScalarAction(f);
        if (IsEnterableMessageField(f)) {
          a.child = plans_.at(f->message_type()).get();
          if (a.child->accelerates && IsRecursableMessageField(f)) a.kind = FieldAction::kMessage;
        }
        if (f->number() < kDenseLimit) {
          plan.dense[static_cast<size_t>(f->number())] = a;
        } else {
          plan.sparse.emplace(static_cast<uint32_t>(f->number()), a);
        }
      }
    }
  }

  std::shared_mutex mu_;  // Guards plans_ (not absl::Mutex: docs/protobuf_versions.md, v35).
  absl::flat_hash_map<const Descriptor*, std::unique_ptr<MessagePlan>> plans_;
};

PlanCache::PlanCache() : state_(std::make_unique<State>()) {}
PlanCache::~PlanCache() = default;

const MessagePlan& PlanCache::Get(const Descriptor* descriptor) { return state_->Get(descriptor); }

bool InGeneratedPool(const Descriptor* descriptor) {
  return descriptor->file()->pool() == google::protobuf::DescriptorPool::generated_pool();
}

const MessagePlan& PlanFor(const Descriptor* descriptor) {
  static PlanCache* const cache = new PlanCache();
  // The thread's recent plans (internal/recent_lookups.h) first, then the shared cache's lock.
  thread_local RecentLookups<const Descriptor*, const MessagePlan*> recent;
  if (const MessagePlan* const* known = recent.Find(descriptor)) return **known;
  ++SharedPlanLookupsForTesting();
  return *recent.Remember(descriptor, &cache->Get(descriptor));
}

uint64_t& SharedPlanLookupsForTesting() {
  thread_local uint64_t lookups = 0;
  return lookups;
}

uint64_t& SmallFieldHandOversForTesting() {
  thread_local uint64_t hand_overs = 0;
  return hand_overs;
}

}  // namespace internal
}  // namespace pbaccel
