// Copyright 2026 The pbaccel Authors.
//
// pbaccel_cc_parser on proto_library targets with strip_import_prefix and import_prefix, and on
// one whose file sits in a subdirectory of its package: the generated headers are included by
// their files' import paths, as cc_proto_library's are, the typed overloads compile, every type's
// generated parser is registered (submessages of the imported files' types included), and they
// parse as upstream does under every kernel. cc_grpc_library's header is included the same way.

#include <string>
#include <type_traits>

#include "acme/orders.grpc.pb.h"
#include "acme/orders.pbaccel.h"
#include "gtest/gtest.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/differential.h"
#include "tests/prefixed/acme/notes.pbaccel.h"
#include "vendor/tests/prefixed/acme/items.pbaccel.h"

namespace pbaccel {
namespace {

using test::acme::Order;
using test::acme::items::Item;
using test::acme::notes::Note;

Order SomeOrder(int items) {
  Order order;
  order.set_id(1234567);
  for (int i = 0; i < 40; ++i) order.add_deltas((i % 2 ? -1 : 1) * (int64_t{1} << (i % 40)));
  for (int i = 0; i < items; ++i) {
    Item* item = order.add_items();
    item->set_sku(static_cast<uint64_t>(i) * 7919);
    for (uint32_t c = 0; c < static_cast<uint32_t>(i % 20); ++c) item->add_counts(c * c * 300);
    item->set_name("item " + std::to_string(i));
  }
  order.mutable_note()->set_text("leave at the door");
  for (int i = 0; i < items; ++i) order.mutable_note()->add_marks(-i * 1000);
  return order;
}

// The service's generated code compiles from the moved file's header path.
static_assert(std::is_polymorphic_v<test::acme::OrderDesk::Service>);

TEST(ImportPrefixTest, GeneratedParsersOfMovedFilesParseAsUpstream) {
  EXPECT_TRUE(HasGeneratedParser(Order::default_instance()));
  EXPECT_TRUE(HasGeneratedParser(Item::default_instance()));
  EXPECT_TRUE(HasGeneratedParser(Note::default_instance()));
  for (int items : {0, 1, 5, 40}) {
    const std::string bytes = SomeOrder(items).SerializeAsString();
    Order ours;
    ASSERT_TRUE(ParseMessage(bytes, &ours).ok());  // The typed overload, from the header.
    EXPECT_EQ(ours.SerializeAsString(), bytes);
    EXPECT_EQ(testing::CompareWithUpstream(bytes, Order::default_instance()), "");
    Item item;
    ASSERT_TRUE(ParseMessage(SomeOrder(items + 1).items(items).SerializeAsString(), &item).ok());
    EXPECT_EQ(item.sku(), static_cast<uint64_t>(items) * 7919);
    Note note;
    ASSERT_TRUE(ParseMessage(SomeOrder(items).note().SerializeAsString(), &note).ok());
    EXPECT_EQ(note.marks_size(), items);
  }
}

}  // namespace
}  // namespace pbaccel
