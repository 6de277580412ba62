// Copyright 2026 The pbaccel Authors.
//
// The reuse slots of generated parsers (gen::Context::PushReuseSlots, lib/reuse_slots.cc): pushes
// never overlap and never move, whatever their sizes (past a block's 256 slots, and larger than a
// block); pops and the end of a Context (a failed parse unwinds without popping) give them back,
// so the next parse on the thread starts where the first did; and a wide message (more than
// kInlineReuseSlots reusable fields, its slots on the stack; tests/wide_reuse.proto) parsed in
// place of its old contents, failing half way and then succeeding, reuses every old element and
// equals upstream's parse.

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/parser_counters.h"
#include "pbaccel/pbaccel.h"
#include "tests/wide_reuse.pb.h"
#include "tests/wide_reuse.pbaccel.h"

namespace pbaccel {
namespace {

using gen::Context;
using gen::ReuseSlot;

constexpr char kInput[] = "";

// Pushes `sizes` in order on `ctx`, fills each push with its index, and checks that no push
// overwrote another.
std::vector<ReuseSlot*> PushAll(Context* ctx, const std::vector<int>& sizes) {
  std::vector<ReuseSlot*> pushed;
  for (size_t i = 0; i < sizes.size(); ++i) {
    ReuseSlot* s = ctx->PushReuseSlots(sizes[i]);
    for (int j = 0; j < sizes[i]; ++j) s[j] = {nullptr, static_cast<int>(i), j};
    pushed.push_back(s);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    for (int j = 0; j < sizes[i]; ++j) {
      EXPECT_EQ(pushed[i][j].reusable, static_cast<int>(i)) << "push " << i << " slot " << j;
      EXPECT_EQ(pushed[i][j].used, j);
    }
  }
  return pushed;
}

TEST(ReuseSlotsTest, PushesNeverOverlapAcrossBlocksAndPopsGiveThemBack) {
  Context ctx(kInput, kInput, 100);
  // 9 + 200 fit in the first block; 100 does not (a second one), 1000 is larger than a block.
  const std::vector<int> sizes = {9, 200, 100, 1000, 3, 256, 1};
  std::vector<ReuseSlot*> pushed = PushAll(&ctx, sizes);
  // Pop down to the first two and push again: the same places.
  for (size_t i = sizes.size(); i-- > 2;) ctx.PopReuseSlots(sizes[i]);
  const std::vector<ReuseSlot*> again = PushAll(&ctx, {100, 1000});
  EXPECT_EQ(again[0], pushed[2]);
  EXPECT_EQ(again[1], pushed[3]);
  EXPECT_EQ(pushed[0][3].reusable, 0);  // The first pushes kept their contents.
  EXPECT_EQ(pushed[1][199].used, 199);
}

TEST(ReuseSlotsTest, AContextReleasesWhatItDidNotPop) {
  ReuseSlot* first;
  {
    Context ctx(kInput, kInput, 100);
    first = ctx.PushReuseSlots(9);
    PushAll(&ctx, {200, 300, 5});  // Never popped: a failed parse unwinding.
  }
  {
    Context ctx(kInput, kInput, 100);
    EXPECT_EQ(ctx.PushReuseSlots(9), first);
    Context inner(kInput, kInput, 100);  // A parse inside a parse continues above it.
    ReuseSlot* above = inner.PushReuseSlots(4);
    EXPECT_NE(above, first);
    PushAll(&inner, {300});
  }
  Context ctx(kInput, kInput, 100);
  EXPECT_EQ(ctx.PushReuseSlots(1), first);
  ReuseSlot* other_thread = nullptr;
  std::thread([&] {
    Context elsewhere(kInput, kInput, 100);
    other_thread = elsewhere.PushReuseSlots(1);
  }).join();
  EXPECT_NE(other_thread, first);  // Each thread has its own slots.
}

using google::protobuf::util::MessageDifferencer;
using widereuse::Part;
using widereuse::Wide;

// Every message has more than kClearedInPlaceElements elements in a field, so none is reset by a
// plain Clear() (whose cleared elements upstream's Add() hands back uncounted): every old element
// is reused through ReusedElements.
void AddTexts(Part* part, int salt) {
  for (int i = 0; i <= gen::kClearedInPlaceElements; ++i) {
    part->add_texts("text" + std::to_string(salt + i));
  }
}

void FillPart(Part* part, int salt) {
  part->set_x(salt);
  part->add_points(static_cast<uint32_t>(salt));
  AddTexts(part, salt);
  AddTexts(part->add_sub(), -salt);
}

// Every reusable field set, `depth` levels of children.
void Fill(Wide* node, int depth, int salt) {
  node->set_id(static_cast<uint64_t>(salt));
  for (int i = 0; i <= gen::kClearedInPlaceElements; ++i) {
    node->add_names("name" + std::to_string(salt + i));
  }
  for (int i = 0; i < 3; ++i) {
    node->add_blobs(std::string(static_cast<size_t>(i + 1), 'b'));
    FillPart(node->add_parts(), salt + i);
    FillPart(node->add_more(), salt - i);
  }
  if (depth > 0) {
    for (int i = 0; i < 2; ++i) Fill(node->add_children(), depth - 1, salt + 10 * (i + 1));
  }
}

// The elements of every repeated message and string field in `node`'s tree.
int64_t Elements(const Part& part) {
  int64_t n = part.texts_size() + part.sub_size();
  for (const Part& sub : part.sub()) n += Elements(sub);
  return n;
}
int64_t Elements(const Wide& node) {
  int64_t n = node.children_size() + node.parts_size() + node.names_size() + node.blobs_size() +
              node.more_size();
  for (const Wide& child : node.children()) n += Elements(child);
  for (const Part& part : node.parts()) n += Elements(part);
  for (const Part& part : node.more()) n += Elements(part);
  return n;
}

TEST(ReuseSlotsTest, WideMessagesParsedInPlaceFailHalfWayThenReuseEveryOldElement) {
  Wide a, b;
  Fill(&a, 3, 1);
  Fill(&b, 3, 100);  // The same shape, other values.
  const std::string bytes_a = a.SerializeAsString(), bytes_b = b.SerializeAsString();
  ReuseSlot* start;
  {
    Context probe(kInput, kInput, 100);
    start = probe.PushReuseSlots(1);
  }
  Wide msg;
  ASSERT_TRUE(ParseMessage(bytes_a, &msg).ok());
  // Cut inside a deep child: the parse fails with slots pushed at several levels.
  for (size_t cut : {bytes_b.size() / 2, bytes_b.size() - 1}) {
    EXPECT_FALSE(ParseMessage(absl::string_view(bytes_b).substr(0, cut), &msg).ok()) << cut;
    Context after(kInput, kInput, 100);
    EXPECT_EQ(after.PushReuseSlots(1), start) << "slots left pushed after a failed parse";
  }
  ASSERT_TRUE(ParseMessage(bytes_a, &msg).ok());
  const uint64_t reused_before = gen::ReusedElementsForTesting();
  ASSERT_TRUE(ParseMessage(bytes_b, &msg).ok());
  EXPECT_EQ(static_cast<int64_t>(gen::ReusedElementsForTesting() - reused_before), Elements(b));
  EXPECT_TRUE(MessageDifferencer::Equals(msg, b));
  EXPECT_EQ(msg.SerializeAsString(), bytes_b);
}

}  // namespace
}  // namespace pbaccel
