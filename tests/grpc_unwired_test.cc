// Copyright 2026 The pbaccel Authors.
//
// The gRPC switch's wiring check (pbaccel/grpc.h): SumRequest is switched on here, in the test's
// own file, but the service's generated code (tests/grpc_unwired.grpc.pb.cc, from a
// cc_grpc_library without additional_header_includes) never sees the line, so gRPC's own parser
// would take its requests. Starting a server reports each such method once, on stderr and in
// GrpcUnwiredMethods(); a method whose request type is not switched on is not reported.
// (//tests:grpc_loopback_test checks that wired services are not reported.)

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "pbaccel/grpc.h"
#include "tests/grpc_unwired.grpc.pb.h"

PBACCEL_GRPC_USE_FOR(pbaccel::unwired::SumRequest);

namespace pbaccel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class SumServiceImpl final : public unwired::SumService::Service {};

std::unique_ptr<grpc::Server> StartServer(grpc::Service* service) {
  grpc::ServerBuilder builder;
  builder.RegisterService(service);
  return builder.BuildAndStart();
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GrpcWiringTest, AnUnwiredSwitchIsReportedOncePerMethodWhenAServerStarts) {
  EXPECT_THAT(GrpcUnwiredMethods(), IsEmpty());  // Nothing is checked before a server starts.
  SumServiceImpl service;

  testing::internal::CaptureStderr();
  std::unique_ptr<grpc::Server> first = StartServer(&service);
  const std::string first_stderr = testing::internal::GetCapturedStderr();
  ASSERT_NE(first, nullptr);
  const std::string why =
      " reaches gRPC's own parser (tests/grpc_unwired.grpc.pb.cc did not see PBACCEL_GRPC_USE_FOR)";
  EXPECT_THAT(
      GrpcUnwiredMethods(),
      ElementsAre("/pbaccel.unwired.SumService/Sum: pbaccel.unwired.SumRequest" + why,
                  "/pbaccel.unwired.SumService/SumStream: pbaccel.unwired.SumRequest" + why));
  EXPECT_EQ(Count(first_stderr, "pbaccel: /pbaccel.unwired.SumService/Sum:"), 1) << first_stderr;
  EXPECT_EQ(Count(first_stderr, "pbaccel: /pbaccel.unwired.SumService/SumStream:"), 1);
  EXPECT_THAT(first_stderr, HasSubstr("additional_header_includes"));
  EXPECT_THAT(first_stderr, Not(HasSubstr("/Echo")));
  first->Shutdown();

  // A second server with the same service: the same list, nothing printed again.
  testing::internal::CaptureStderr();
  std::unique_ptr<grpc::Server> second = StartServer(&service);
  const std::string second_stderr = testing::internal::GetCapturedStderr();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(GrpcUnwiredMethods().size(), 2u);
  EXPECT_THAT(second_stderr, Not(HasSubstr("pbaccel:")));
  second->Shutdown();
}

}  // namespace
}  // namespace pbaccel
