// The consumer's own test: pbaccel::ParseMessage on its own message type, through the generated
// parser that orders_pbaccel links, equal to upstream's ParseFromString.

#include <string>

#include "gtest/gtest.h"
#include "orders.pb.h"
#include "orders.pbaccel.h"
#include "pbaccel/pbaccel.h"

namespace {

TEST(OrdersTest, ParsesLikeUpstream) {
  shop::Order order;
  order.set_id(42);
  order.set_customer("Ada");
  for (int i = 0; i < 100; ++i) order.add_price_deltas(i % 2 ? -i * 1000 : i * 1000);
  shop::Line* line = order.add_lines();
  line->set_product(7);
  for (uint32_t o = 0; o < 20; ++o) line->add_options(o * 300);
  const std::string bytes = order.SerializeAsString();

  shop::Order ours;
  ASSERT_TRUE(pbaccel::ParseMessage(bytes, &ours).ok());
  EXPECT_TRUE(pbaccel::HasGeneratedParser(ours));
  shop::Order theirs;
  ASSERT_TRUE(theirs.ParseFromString(bytes));
  EXPECT_EQ(ours.SerializeAsString(), theirs.SerializeAsString());

  // A truncated order is rejected, with the field and the byte offset in the message.
  const absl::Status s = pbaccel::ParseMessage(bytes.substr(0, bytes.size() - 3), &ours);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("byte offset"), std::string::npos) << s;
}

}  // namespace
