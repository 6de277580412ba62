// Copyright 2026 The pbaccel Authors.
//
// An example gRPC server whose FeatureService requests (every method but ScorePlain, which parses
// the same request with upstream, for comparison) and TileService requests are parsed by pbaccel
// (examples/feature_traits.h; PBACCEL_GRPC=off turns that off).
//
//   ./bazelw run //examples:feature_server -- 127.0.0.1:50051

#include <cstdio>
#include <memory>
#include <string>

#include "examples/feature_service_impl.h"
#include "grpcpp/server_builder.h"
#include "pbaccel/grpc.h"
#include "pbaccel/kernels.h"

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  pbaccel::examples::FeatureServiceImpl service;
  pbaccel::examples::TileServiceImpl tiles;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.RegisterService(&tiles);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "feature_server: cannot listen on %s\n", address.c_str());
    return 1;
  }
  const absl::string_view kernel = pbaccel::ActiveKernelName();
  std::printf("feature_server listening on %s (pbaccel kernel %.*s, gRPC switch %s)\n",
              address.c_str(), static_cast<int>(kernel.size()), kernel.data(),
              pbaccel::GrpcSwitchOn() ? "on" : "off");
  std::fflush(stdout);
  server->Wait();
  return 0;
}
