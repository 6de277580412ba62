// Copyright 2026 The pbaccel Authors.
//
// Stack use on a wide tree-shaped schema (proto/tree_shapes.proto: many repeated message and
// string fields per level, maps of messages, a oneof of messages), at every depth up to past
// upstream's recursion limit, under every kernel, optimized and (in .ci/run) -c fastbuild, where
// the parsers and kernels are compiled optimized anyway (tools/optimize.bzl):
//   * pbaccel's generated parser (into a fresh message and in place of one holding the same tree,
//     every repeated field's old elements reused) and its reflection walk accept and reject as
//     upstream does;
//   * at every depth the generated parser's parse takes no more stack than upstream's, into a
//     fresh message and in place of one holding the tree (compared with upstream's parse in place,
//     whose Clear() recurses through the old tree): its levels are smaller than upstream's (its
//     reuse state is one pointer whatever the number of repeated fields, map entries are parsed in
//     it, nothing of upstream's debug checks in -c fastbuild), and kGeneratedNestingLevels of them
//     leave room for the fixed cost of the walk that takes deeper submessages. The exceptions,
//     bounded by kGeneratedBytes and kInPlaceBytes: protobuf 22 and later, whose table-driven
//     parser's levels are smaller still, and -c fastbuild in place;
//   * the reflection walk (the fallback) takes at most kReflectionWalkBytes more than upstream;
//   * per nesting level past kGeneratedNestingLevels (from depth 48 to 80), every parser's stack
//     grows no more than upstream's: the walk nests on the heap, maps included (a parse in place
//     still grows by upstream's recursive Clear() of the old submessages it reaches);
//   * the deepest tree upstream accepts parses on a thread with a 64 KiB stack.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/every_kernel.h"
#include "proto/tree_shapes.pb.h"
#include "proto/tree_shapes.pbaccel.h"
#include "tests/stack_probe.h"

namespace pbaccel {
namespace {

// What is left of the run-to-run variation in the least of kRuns measurements (ParseStack).
constexpr size_t kNoiseBytes = 64;

// The stack the generated parser may use beyond upstream's at any depth: none on protobuf 3.21. Its
// level (about 200 bytes on this schema) is larger than the table-driven parser's of protobuf 22
// and later (about 140), and the walk past kGeneratedNestingLevels starts with a fixed cost, so
// that around the hand-over it uses up to about 0.5 KiB more there (measurements: docs/stack.md).
#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
constexpr size_t kGeneratedBytes = 1 << 10;
#else
constexpr size_t kGeneratedBytes = 0;
#endif

// The stack a parse in place of a message may use beyond upstream's in place: none where the
// parsers' callees are optimized. In -c fastbuild, upstream's generated code (Clear(), destructors)
// is not: the subtrees of the old message that the input does not reuse (a map's values, a oneof's
// message) are destroyed by it under the generated levels that reached them, where upstream's
// Clear() destroys them from the top (measurements: docs/stack.md).
#if defined(__OPTIMIZE__)
constexpr size_t kInPlaceBytes = kGeneratedBytes;
#else
constexpr size_t kInPlaceBytes = kGeneratedBytes + (1 << 10);
#endif

// The stack the reflection walk (the fallback for types without a generated parser) may use
// beyond upstream's at any depth: its plan lookup and its hand-overs to upstream's parser.
constexpr size_t kReflectionWalkBytes = 2 << 10;

using google::protobuf::util::MessageDifferencer;
using tree::Leaf;
using tree::Node;

void AddLeaf(Leaf* leaf, int level) {
  leaf->set_x(level);
  for (int i = 0; i < 3; ++i) leaf->add_points(static_cast<uint32_t>(level * 10 + i));
  leaf->set_text("leaf");
}

// A node of the tree: a few of every kind of field, and the rest of the tree (depth - 1 more
// levels) in a field chosen by the level, so that the spine passes through every kind of
// submessage field: repeated, map value, oneof member, singular.
void Fill(Node* node, int level, int depth) {
  node->set_id(static_cast<uint64_t>(level));
  node->set_name("node");
  AddLeaf(node->add_leaves(), level);
  node->add_labels("a");
  node->add_blobs("b");
  node->add_tags("t");
  AddLeaf(&(*node->mutable_leaf_map())[level], level);
  for (int i = 0; i < 4; ++i) node->add_values(static_cast<uint32_t>(i));
  node->add_deltas(-level);
  AddLeaf(node->mutable_info(), level);
  node->add_left()->set_id(1);  // A sibling that ends at once.
  if (level + 1 >= depth) return;
  Node* next = nullptr;
  switch (level % 8) {
    case 0: next = node->add_children(); break;
    case 1: next = node->add_right(); break;
    case 2: next = &(*node->mutable_named())["next"]; break;
    case 3: next = node->mutable_first(); break;
    case 4: next = node->mutable_only(); break;
    case 5: next = node->add_more(); break;
    case 6: next = node->add_extra(); break;
    default: next = node->add_children(); break;
  }
  Fill(next, level + 1, depth);
}

std::string Tree(int depth) {
  Node root;
  Fill(&root, 0, depth);
  return root.SerializeAsString();
}

// The stack `parse` takes on `input`, into a fresh message or in place of one holding the same
// tree (each parser then clears the old one as it parses: upstream's Clear() recurses through it).
// The messages are made and destroyed outside the measurement: what is measured is the parse (a
// tree's destructor recurses, in upstream's generated code, alike for every parser). The least of
// kRuns measurements: one varies by up to about 100 bytes from run to run, for upstream's parser
// as for pbaccel's (glibc's per-thread malloc state, taken on a new thread's first allocation).
constexpr bool kFresh = false;
constexpr bool kInPlace = true;
constexpr int kRuns = 3;

template <typename Parse>
size_t ParseStack(const std::string& input, bool in_place, Parse parse) {
  size_t least = std::numeric_limits<size_t>::max();
  for (int run = 0; run < kRuns; ++run) {
    Node message;
    if (in_place) (void)message.ParsePartialFromString(input);  // Accepted or not, as it left it.
    least = std::min(least, StackUsed([&] { parse(&message); }));
  }
  return least;
}

// Under every kernel: the tree's packed fields (a node's values, a leaf's points) are decoded by
// the kernel's short-payload paths, on the stack being measured.
class StackTest : public testing::EveryKernelTest {};

TEST_P(StackTest, TreeCostsNoMoreStackThanUpstreamAtAnyDepth) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer moves and pads stack frames";
#endif
#if defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
  GTEST_SKIP() << "UndefinedBehaviorSanitizer's checks (and its build's frame pointers) change the "
                  "frames being compared";
#endif
#if __has_feature(thread_sanitizer)
  GTEST_SKIP() << "ThreadSanitizer's instrumentation (and its build's frame pointers) change the "
                  "frames being compared";
#endif
#endif
  (void)Node::descriptor();
  struct Used {
    size_t upstream, upstream_in_place, fresh, reused, reflection;
  };
  std::map<int, Used> at;
  for (const int depth : {1, 2, 3, 4, 6, 8, 12, 16, 24, 28, 32, 40, 48, 64, 80, 90, 100, 120}) {
    const std::string input = Tree(depth);
    // Every path once first, on a thread as measured: one-time initialization (descriptors,
    // registries, and the dynamic linker's lazy binding of a shared library's calls, which saves
    // the vector registers on the stack) is not measured.
    (void)StackUsed([&] {
      Node a, b, c;
      (void)a.ParseFromString(input);
      (void)ParseMessage(input, &b);
      (void)ParseMessage(input, &b);  // In place of its own parse.
      (void)ParseMessageByReflection(input, &c);
    });
    bool upstream_ok = false, fresh_ok = false, reused_ok = false, reflection_ok = false;
    const size_t upstream =
        ParseStack(input, kFresh, [&](Node* m) { upstream_ok = m->ParseFromString(input); });
    const size_t upstream_in_place =
        ParseStack(input, kInPlace, [&](Node* m) { (void)m->ParseFromString(input); });
    const size_t fresh =
        ParseStack(input, kFresh, [&](Node* m) { fresh_ok = ParseMessage(input, m).ok(); });
    const size_t reused =
        ParseStack(input, kInPlace, [&](Node* m) { reused_ok = ParseMessage(input, m).ok(); });
    const size_t reflection = ParseStack(
        input, kFresh, [&](Node* m) { reflection_ok = ParseMessageByReflection(input, m).ok(); });
    std::fprintf(stderr,
                 "depth %3d: upstream %6zu (in place %6zu), generated %6zu (in place %6zu), "
                 "reflection %6zu\n",
                 depth, upstream, upstream_in_place, fresh, reused, reflection);
    EXPECT_EQ(fresh_ok, upstream_ok) << depth;
    EXPECT_EQ(reused_ok, upstream_ok) << depth;
    EXPECT_EQ(reflection_ok, upstream_ok) << depth;
    EXPECT_LE(fresh, upstream + kGeneratedBytes + kNoiseBytes)
        << "depth " << depth << ": generated parser";
    EXPECT_LE(reused, upstream_in_place + kInPlaceBytes + kNoiseBytes)
        << "depth " << depth << ": generated parser, in place";
    EXPECT_LE(reflection, upstream + kReflectionWalkBytes + kNoiseBytes)
        << "depth " << depth << ": reflection walk";
    at[depth] = {upstream, upstream_in_place, fresh, reused, reflection};
  }
  // Per level past the hand-over (every parser still accepts at 80: upstream's limit is 100).
  // Signed: past the hand-over the generated parser's use may even shrink by a few bytes (aarch64).
  const auto growth = [&](size_t Used::*parser) {
    return static_cast<int64_t>(at[80].*parser) - static_cast<int64_t>(at[48].*parser);
  };
  constexpr int64_t kNoise = kNoiseBytes;
  EXPECT_LE(growth(&Used::fresh), growth(&Used::upstream) + kNoise)
      << "generated parser, per level";
  EXPECT_LE(growth(&Used::reused), growth(&Used::upstream_in_place) + kNoise)
      << "in place, per level";
  EXPECT_LE(growth(&Used::reflection), growth(&Used::upstream) + kNoise)
      << "reflection walk, per level";
}

TEST_P(StackTest, DeepestAcceptedTreeParsesOnASmallStack) {
#ifdef PBACCEL_ASAN
  GTEST_SKIP() << "AddressSanitizer moves and pads stack frames";
#endif
  int deepest = 1;  // The deepest tree upstream accepts (maps nest two levels).
  while (Node().ParseFromString(Tree(deepest + 1))) ++deepest;
  const std::string input = Tree(deepest);
  Node upstream;
  ASSERT_TRUE(upstream.ParseFromString(input));
  // Only the parses run on the small stack (in a child process, which exits 0 if the generated
  // parser's result equals upstream's); the messages are built and destroyed outside it.
  constexpr size_t kStack = 64 << 10;
  Node fresh, reused, walked;
  EXPECT_TRUE(ReturnsOnStack(kStack,
                             [&] {
                               if (!ParseMessage(input, &fresh).ok()) _exit(3);
                               if (!ParseMessage(input, &fresh).ok())
                                 _exit(4);  // In place: old elements reused.
                               if (!ParseMessageByReflection(input, &walked).ok()) _exit(5);
                             }))
      << "depth " << deepest;
  ASSERT_TRUE(ParseMessage(input, &reused).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(reused, upstream));
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(StackTest);

}  // namespace
}  // namespace pbaccel
