// A Checkout server: parses nothing itself; gRPC hands it shop.Order requests.

#include <iostream>
#include <memory>

#include "grpcpp/grpcpp.h"
#include "orders.grpc.pb.h"
#include "pbaccel/grpc.h"

namespace {

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

}  // namespace

int main(int argc, char** argv) {
  CheckoutService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(argc > 1 ? argv[1] : "127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  std::cout << "listening on port " << port << std::endl;
  server->Wait();
}
