// The Checkout service on 127.0.0.1: answers are right, and pbaccel parsed every request (its
// counter grows by one per call), a truncated one included (pbaccel's message says where).

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "checkout_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "pbaccel/grpc.h"
#include "sample_order.h"

TEST(CheckoutTest, PbaccelParsesTheRequests) {
  CheckoutService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  std::unique_ptr<shop::Checkout::Stub> stub = shop::Checkout::NewStub(channel);

  const uint64_t parsed = pbaccel::GrpcRequestsParsed();
  int64_t total;
  const shop::Order order = SampleOrder(&total);
  grpc::ClientContext ctx;
  shop::Receipt receipt;
  ASSERT_TRUE(stub->Place(&ctx, order, &receipt).ok());
  EXPECT_EQ(receipt.order_id(), 42u);
  EXPECT_EQ(receipt.total(), total);
  EXPECT_EQ(pbaccel::GrpcRequestsParsed() - parsed, 1u);

  // A truncated request, sent as raw bytes.
  const std::string bytes = order.SerializeAsString();
  grpc::Slice slice(bytes.substr(0, bytes.size() - 1));
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub generic(channel);
  grpc::ClientContext raw_ctx;
  grpc::Status status;
  bool done = false;
  std::mutex mu;
  std::condition_variable cv;
  generic.UnaryCall(&raw_ctx, "/shop.Checkout/Place", grpc::StubOptions(), &request, &response,
                    [&](grpc::Status s) {
                      std::lock_guard<std::mutex> lock(mu);
                      status = s;
                      done = true;
                      cv.notify_one();
                    });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(status.error_message().find("byte"), std::string::npos) << status.error_message();
  EXPECT_EQ(pbaccel::GrpcRequestsParsed() - parsed, 2u);
  server->Shutdown();
}
