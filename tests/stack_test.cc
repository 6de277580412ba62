// Copyright 2026 The pbaccel Authors.
//
// Stack use on a wide tree-shaped schema (proto/tree_shapes.proto: many repeated message and
// string fields per level, maps of messages, a oneof of messages), at every depth up to past
// upstream's recursion limit, under every kernel, optimized and (in .ci/run) -c fastbuild, where
// the parsers are compiled optimized anyway (tools/optimize.bzl):
//   * pbaccel's generated parser (into a fresh message and in place of one holding the same tree,
//     every repeated field's old elements reused) and its reflection walk accept and reject as
//     upstream does;
//   * per nesting level past kGeneratedNestingLevels (from depth 16 to 80), their stack grows no
//     more than upstream's: generated parsers nest that many levels on the machine stack, then an
//     iterative walk nests on the heap, maps included (fresh messages still grow by the destructor
//     of the tree, reused ones by upstream's recursive Clear, both less than a parse level);
//   * at each depth they use at most kHandOverBytes more stack than upstream's parser: a
//     generated level's frame is smaller than protobuf 3.21's (its reuse state is one pointer
//     whatever the number of repeated fields: ReusedElements; map entries are parsed in it) but
//     larger than 27's table-driven parser's, and the walk past kGeneratedNestingLevels starts
//     with a fixed cost (its frames and a hand-over of each message's other fields to upstream's
//     parser): at depths around the hand-over pbaccel uses more than upstream, below and well past
//     it less (measurements: docs/stack.md);
//   * the deepest tree upstream accepts parses on a thread with a 64 KiB stack.

#include <map>
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/every_kernel.h"
#include "proto/tree_shapes.pb.h"
#include "proto/tree_shapes.pbaccel.h"
#include "tests/stack_probe.h"

namespace pbaccel {
namespace {

// The stack pbaccel may use beyond upstream's at any depth (see above).
constexpr size_t kHandOverBytes = 2 << 10;

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

// Under every kernel: the tree's packed fields (a node's values, a leaf's points) are decoded by
// the kernel's short-payload paths, on the stack being measured.
class StackTest : public testing::EveryKernelTest {};

TEST_P(StackTest, TreeCostsNoMoreStackThanUpstreamAtAnyDepth) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer moves and pads stack frames";
#endif
  Node::descriptor();
  struct Used {
    size_t upstream, fresh, reused, reflection;
  };
  std::map<int, Used> at;
  for (const int depth : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 80, 90, 96, 100, 120}) {
    const std::string input = Tree(depth);
    {  // Every path once first: one-time initialization (descriptors, registries) is not measured.
      Node a, b, c;
      (void)a.ParseFromString(input);
      (void)ParseMessage(input, &b);
      (void)ParseMessage(input, &b);  // In place of its own parse.
      (void)ParseMessageByReflection(input, &c);
    }
    bool upstream_ok = false, fresh_ok = false, reused_ok = false, reflection_ok = false;
    const size_t upstream = StackUsed([&] {
      Node n;
      upstream_ok = n.ParseFromString(input);
    });
    const size_t fresh = StackUsed([&] {
      Node n;
      fresh_ok = ParseMessage(input, &n).ok();
    });
    Node old;
    old.ParsePartialFromString(input);
    const size_t reused = StackUsed([&] { reused_ok = ParseMessage(input, &old).ok(); });
    const size_t reflection = StackUsed([&] {
      Node n;
      reflection_ok = ParseMessageByReflection(input, &n).ok();
    });
    std::fprintf(stderr,
                 "depth %3d: upstream %6zu, generated %6zu (reused %6zu), reflection %6zu\n", depth,
                 upstream, fresh, reused, reflection);
    EXPECT_EQ(fresh_ok, upstream_ok) << depth;
    EXPECT_EQ(reused_ok, upstream_ok) << depth;
    EXPECT_EQ(reflection_ok, upstream_ok) << depth;
    EXPECT_LE(fresh, upstream + kHandOverBytes) << "depth " << depth << ": generated parser";
    EXPECT_LE(reused, upstream + kHandOverBytes) << "depth " << depth << ": reused";
    EXPECT_LE(reflection, upstream + kHandOverBytes) << "depth " << depth << ": reflection walk";
    at[depth] = {upstream, fresh, reused, reflection};
  }
  // Per level past the hand-over (every parser still accepts at 80: upstream's limit is 100).
  const auto growth = [&](size_t Used::*parser) { return at[80].*parser - at[16].*parser; };
  const size_t upstream_growth = growth(&Used::upstream);
  EXPECT_LE(growth(&Used::fresh), upstream_growth) << "generated parser, per level";
  EXPECT_LE(growth(&Used::reused), upstream_growth) << "reused, per level";
  EXPECT_LE(growth(&Used::reflection), upstream_growth) << "reflection walk, per level";
}

TEST_P(StackTest, DeepestAcceptedTreeParsesOnASmallStack) {
#if defined(__SANITIZE_ADDRESS__)
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
