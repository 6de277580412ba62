// Copyright 2026 The pbaccel Authors.
//
// An example gRPC server whose FeatureService.Score requests are parsed by pbaccel (ScorePlain:
// the same request parsed by upstream, for comparison).
//
//   ./bazelw run //examples:feature_server -- 127.0.0.1:50051

#include <cstdio>
#include <memory>
#include <string>

#include "examples/feature_service_impl.h"
#include "grpcpp/server_builder.h"
#include "pbaccel/kernels.h"

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  pbaccel::examples::FeatureServiceImpl service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "feature_server: cannot listen on %s\n", address.c_str());
    return 1;
  }
  const absl::string_view kernel = pbaccel::ActiveKernelName();
  std::printf("feature_server listening on %s (pbaccel kernel %.*s)\n", address.c_str(),
              static_cast<int>(kernel.size()), kernel.data());
  std::fflush(stdout);
  server->Wait();
  return 0;
}
