// A Checkout server on the given address (default: an ephemeral port on 127.0.0.1).

#include <iostream>
#include <memory>

#include "checkout_service.h"
#include "grpcpp/grpcpp.h"

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
