// Copyright 2026 The pbaccel Authors.
//
// message_plan.h: what the message parser does with each field number of a message type, computed
// once per Descriptor and cached (for the life of the process only for generated types).

#ifndef PBACCEL_INTERNAL_MESSAGE_PLAN_H_
#define PBACCEL_INTERNAL_MESSAGE_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/descriptor.h"
#include "pbaccel/internal/kernel_abi.h"

namespace pbaccel {
namespace internal {

struct MessagePlan;

// The parser's action for a length-delimited record of one field number.
struct FieldAction {
  enum Kind : uint8_t {
    kUpstream = 0,      // Leave it to upstream's parser (in order, with its neighbours).
    kPackedVarint = 1,  // Packed varints: count, reserve, decode with the kernel.
    kPackedFixed = 2,   // Packed fixed-width values: one bulk copy.
    kMessage = 3,       // A submessage whose type has something to accelerate: recurse.
  };
  Kind kind = kUpstream;
  VarintFormat format = VarintFormat::kUInt64;  // kPackedVarint.
  uint8_t fixed_size = 0;                       // kPackedFixed: 4 or 8.
  const google::protobuf::FieldDescriptor* field = nullptr;
  // The submessage type's plan, for every submessage field (singular or repeated, and maps of
  // messages, whose submessages are their entries; not other maps or groups), of kind kMessage if
  // the type accelerates and the field is not a map, else kUpstream; nullptr for other fields.
  // (Only the walk that enters every submessage enters maps: MergeIteratively.)
  const MessagePlan* child = nullptr;
};

struct MessagePlan {
  const google::protobuf::Descriptor* descriptor = nullptr;
  // Whether anything in this type (at any depth) is accelerated. When false the parser hands the
  // whole message to upstream in one call.
  bool accelerates = false;
  // Actions by field number: a dense table for numbers below dense.size(), a map above.
  std::vector<FieldAction> dense;
  absl::flat_hash_map<uint32_t, FieldAction> sparse;

  const FieldAction* Find(uint32_t number) const {
    if (number < dense.size()) return &dense[number];
    auto it = sparse.find(number);
    return it == sparse.end() ? nullptr : &it->second;
  }
};

// Plans for `descriptor` and every type reachable from it, built on first use. Thread-safe. A
// plan points into its descriptors: the cache must not outlive them.
class PlanCache {
 public:
  PlanCache();
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  const MessagePlan& Get(const google::protobuf::Descriptor* descriptor);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Whether `descriptor` belongs to the generated pool (DescriptorPool::generated_pool()), whose
// descriptors live for the life of the process.
bool InGeneratedPool(const google::protobuf::Descriptor* descriptor);

// The plan for a type of the generated pool, from a cache that lives for the life of the process.
// REQUIRES: InGeneratedPool(descriptor). Types of other pools (DynamicMessage) must not be cached
// for the process: a pool can be destroyed and a new descriptor built at the same address, which
// such a cache would mistake for the old one (wrong values, or protobuf aborting); the message
// parser gives them a PlanCache that lives for one parse.
const MessagePlan& PlanFor(const google::protobuf::Descriptor* descriptor);

// For tests, counted on this thread: PlanFor's trips to the process's cache (under its lock),
// which a thread's recent plans (recent_lookups.h) spare it.
uint64_t& SharedPlanLookupsForTesting();

// For tests, counted on this thread: messages (or submessages) whose walk the message parser
// stopped at kSmallFieldsBeforeHandOver (size_policy.h), handing the rest to upstream unread.
uint64_t& SmallFieldHandOversForTesting();

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_MESSAGE_PLAN_H_
