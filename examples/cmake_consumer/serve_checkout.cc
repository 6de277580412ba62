// The Bazel consumer's Checkout service (../consumer/checkout_service.h), built with CMake against
// pbaccel::grpc: a server on 127.0.0.1, one valid and one truncated request from a client. Exits 0
// if pbaccel parsed both (pbaccel::GrpcRequestsParsed: the switch took effect in the generated
// service code, whose header includes orders_grpc.h), the wiring check reported nothing
// (pbaccel::GrpcUnwiredMethods), the reply is right and the truncated request was refused with
// pbaccel's error.

#include <cstdio>
#include <memory>
#include <string>

#include "checkout_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "pbaccel/grpc.h"
#include "sample_order.h"

int main() {
  CheckoutService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;
  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  const std::unique_ptr<shop::Checkout::Stub> stub = shop::Checkout::NewStub(channel);

  const uint64_t before = pbaccel::GrpcRequestsParsed();
  int64_t total;
  const shop::Order order = SampleOrder(&total);
  grpc::ClientContext ctx;
  shop::Receipt receipt;
  const grpc::Status placed = stub->Place(&ctx, order, &receipt);
  const bool right = placed.ok() && receipt.order_id() == 42 && receipt.total() == total;

  // The same request cut short, as raw bytes.
  const std::string bytes = order.SerializeAsString();
  grpc::Slice slice(bytes.substr(0, bytes.size() - 1));
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub generic(channel);
  grpc::ClientContext raw_ctx;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      generic.PrepareUnaryCall(&raw_ctx, "/shop.Checkout/Place", request, &cq);
  call->StartCall();
  grpc::Status refused;
  call->Finish(&response, &refused, reinterpret_cast<void*>(1));
  void* tag;
  bool ok;
  cq.Next(&tag, &ok);
  const bool rejected = refused.error_code() == grpc::StatusCode::INTERNAL &&
                        refused.error_message().find("byte") != std::string::npos;

  const uint64_t parsed = pbaccel::GrpcRequestsParsed() - before;
  const size_t unwired = pbaccel::GrpcUnwiredMethods().size();
  std::printf(
      "Checkout over gRPC: reply %s, truncated request %s (\"%s\"), pbaccel parsed %llu of 2 "
      "requests, %zu unwired methods\n",
      right ? "right" : "WRONG", rejected ? "refused" : "NOT REFUSED",
      refused.error_message().c_str(), static_cast<unsigned long long>(parsed), unwired);
  server->Shutdown();
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return right && rejected && parsed == 2 && unwired == 0 ? 0 : 1;
}
