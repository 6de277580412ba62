// The Checkout service: parses nothing itself; gRPC hands it shop.Order requests, which pbaccel
// has parsed (orders_grpc.h).

#ifndef CHECKOUT_SERVICE_H_
#define CHECKOUT_SERVICE_H_

#include "orders.grpc.pb.h"

class CheckoutService final : public shop::Checkout::Service {
  grpc::Status Place(grpc::ServerContext*, const shop::Order* order,
                     shop::Receipt* receipt) override {
    int64_t total = 0;
    for (const int64_t delta : order->price_deltas()) total += delta;
    receipt->set_order_id(order->id());
    receipt->set_total(total);
    return grpc::Status::OK;
  }
};

#endif  // CHECKOUT_SERVICE_H_
