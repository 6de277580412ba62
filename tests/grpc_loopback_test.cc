// Copyright 2026 The pbaccel Authors.
//
// The gRPC integration on loopback: a real server (examples/feature_service_impl.h) on
// 127.0.0.1 with an ephemeral port, a real client. FeatureService.Score parses requests with
// pbaccel (PBACCEL_GRPC_USE_FOR), ScorePlain parses the same bytes with upstream protobuf; every
// valid request must get identical answers from both (and match a local digest), every malformed
// raw request (sent through a raw ByteBuffer call) the same status code from both, and the server
// must keep serving.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "examples/feature_requests.h"
#include "examples/feature_service_impl.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "pbaccel/testing/differential.h"

namespace pbaccel {
namespace examples {
namespace {

class GrpcLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(64 << 20);
    channel_ = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port_),
                                         grpc::InsecureChannelCredentials(), args);
    stub_ = FeatureService::NewStub(channel_);
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
  }

  // Sends raw bytes as the request of `method`; returns the status.
  grpc::Status RawCall(const std::string& method, const std::string& bytes) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext ctx;
    return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        channel_.get(),
        grpc::internal::RpcMethod(method.c_str(), grpc::internal::RpcMethod::NORMAL_RPC), &ctx,
        request, &response);
  }

  FeatureServiceImpl service_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<FeatureService::Stub> stub_;
  int port_ = 0;
};

TEST_F(GrpcLoopbackTest, ValidRequestsGetIdenticalAnswers) {
  std::mt19937_64 rng(1);
  int checked = 0;
  for (int i = 0; i < 60; ++i) {
    // From tiny to ~1 MB requests (the large ones arrive in several slices).
    const int scale = i % 6;
    const FeatureBatch request = MakeRequest(rng, scale, 8 << (2 * scale), 4 << (2 * scale));
    FeatureBatchPlain plain;
    ASSERT_TRUE(plain.ParseFromString(request.SerializeAsString()));
    ScoreReply fast, slow;
    grpc::ClientContext c1, c2;
    ASSERT_TRUE(stub_->Score(&c1, request, &fast).ok());
    ASSERT_TRUE(stub_->ScorePlain(&c2, plain, &slow).ok());
    const ScoreReply local = Digest(request);
    EXPECT_EQ(fast.checksum(), slow.checksum()) << i;
    EXPECT_EQ(fast.values(), slow.values()) << i;
    EXPECT_EQ(fast.checksum(), local.checksum()) << i;
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

TEST_F(GrpcLoopbackTest, MalformedRequestsAreRejectedLikeUpstreamAndTheServerKeepsServing) {
  std::mt19937_64 rng(2);
  const std::string valid = MakeRequest(rng, 2, 300, 200).SerializeAsString();
  int rejected = 0;
  for (const std::string& bytes : testing::Mutate(valid, rng, 200)) {
    const grpc::Status fast = RawCall("/pbaccel.examples.FeatureService/Score", bytes);
    const grpc::Status slow = RawCall("/pbaccel.examples.FeatureService/ScorePlain", bytes);
    ASSERT_EQ(fast.error_code(), slow.error_code()) << fast.error_message();
    if (!fast.ok()) {
      EXPECT_EQ(fast.error_code(), grpc::StatusCode::INTERNAL);
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 20);
  // Still serving.
  ScoreReply reply;
  grpc::ClientContext ctx;
  EXPECT_TRUE(stub_->Score(&ctx, MakeRequest(rng, 1, 10, 10), &reply).ok());
}

}  // namespace
}  // namespace examples
}  // namespace pbaccel
