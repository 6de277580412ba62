// A sample request for the Checkout service: order 42 with 100 price deltas, for the test here
// and the CMake consumer's serve_checkout (examples/cmake_consumer).

#ifndef SAMPLE_ORDER_H_
#define SAMPLE_ORDER_H_

#include <cstdint>

#include "orders.pb.h"

// Sets *total to the sum of its price deltas, which the service's receipt must give.
inline shop::Order SampleOrder(int64_t* total) {
  shop::Order order;
  order.set_id(42);
  *total = 0;
  for (int i = 1; i <= 100; ++i) {
    order.add_price_deltas(i * (i % 2 ? 1 : -3));
    *total += order.price_deltas(i - 1);
  }
  return order;
}

#endif  // SAMPLE_ORDER_H_
