// Copyright 2026 The pbaccel Authors.
//
// //bench:grpc_bench: what pbaccel saves a gRPC server, side by side in one run (interleaved
// repetitions, minimum and median; bench/timing.h):
//   * deserialize: server-side request deserialization, SerializationTraits<FeatureBatch>
//     (pbaccel, PBACCEL_GRPC_USE_FOR) against SerializationTraits<FeatureBatchPlain> (gRPC's
//     upstream-protobuf traits) on the same bytes, as one slice and as 16 KiB slices;
//   * end_to_end: requests per second over loopback (127.0.0.1, a real server and a synchronous
//     client), FeatureService.Score (pbaccel) against ScorePlain (upstream).
//
//   ./bazelw run //bench:grpc_bench [-- --csv]

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/timing.h"
#include "examples/feature_requests.h"
#include "examples/feature_service_impl.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server_builder.h"

namespace pbaccel {
namespace bench {
namespace {

using examples::FeatureBatch;
using examples::FeatureBatchPlain;

grpc::ByteBuffer ToBuffer(const std::string& bytes, size_t slice_size) {
  std::vector<grpc::Slice> slices;
  for (size_t i = 0; i < bytes.size(); i += slice_size) {
    slices.emplace_back(bytes.data() + i, std::min(slice_size, bytes.size() - i));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

int Main(int argc, char** argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  std::mt19937_64 rng(42);
  struct Size {
    const char* name;
    int postings, per_posting, n;
  };
  const Size sizes[] = {{"small", 1, 16, 16}, {"batch", 8, 512, 1024}};
  if (csv) {
    std::printf("operation,request,slices,implementation,ns_per_request\n");
  } else {
    std::printf("%-11s %-6s %-7s %-10s %14s %14s %9s\n", "operation", "request", "slices", "parser",
                "ns/request min", "median", "speedup");
  }
  auto print = [&](const char* op, const char* request, const std::string& slices,
                   const std::vector<Impl>& impls, const std::vector<std::vector<double>>& s) {
    for (size_t i = 0; i < impls.size(); ++i) {
      if (csv) {
        std::printf("%s,%s,%s,%s,%.1f\n", op, request, slices.c_str(), impls[i].name.c_str(),
                    Min(s[i]));
      } else {
        std::printf("%-11s %-6s %-7s %-10s %14.1f %14.1f %8.2fx\n", op, request, slices.c_str(),
                    impls[i].name.c_str(), Min(s[i]), Median(s[i]), Min(s[0]) / Min(s[i]));
      }
    }
    std::fflush(stdout);
  };
  // Deserialization.
  for (const Size& size : sizes) {
    const std::string bytes =
        examples::MakeRequest(rng, size.postings, size.per_posting, size.n).SerializeAsString();
    for (size_t slice : {bytes.size(), size_t{16384}}) {
      const grpc::ByteBuffer buffer = ToBuffer(bytes, slice);
      FeatureBatch fast;
      FeatureBatchPlain slow;
      std::vector<Impl> impls = {
          {"upstream",
           [&] {
             grpc::ByteBuffer b(buffer);  // Shares the slices (reference counted).
             return grpc::SerializationTraits<FeatureBatchPlain>::Deserialize(&b, &slow).ok()
                        ? slow.feature_ids_size()
                        : 0;
           }},
          {"pbaccel", [&] {
             grpc::ByteBuffer b(buffer);
             return grpc::SerializationTraits<FeatureBatch>::Deserialize(&b, &fast).ok()
                        ? fast.feature_ids_size()
                        : 0;
           }}};
      if (impls[0].run() != impls[1].run() ||
          fast.SerializeAsString() != slow.SerializeAsString()) {
        std::fprintf(stderr, "grpc_bench: pbaccel's result differs from upstream's\n");
        return 1;
      }
      const auto s = TimeInterleaved(impls, 1, 21, 2e6);
      const size_t nslices = (bytes.size() + slice - 1) / slice;
      print("deserialize", size.name, std::to_string(nslices), impls, s);
    }
  }
  // End to end over loopback.
  examples::FeatureServiceImpl service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "grpc_bench: no server\n");
    return 1;
  }
  auto stub = examples::FeatureService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (const Size& size : sizes) {
    const FeatureBatch request =
        examples::MakeRequest(rng, size.postings, size.per_posting, size.n);
    FeatureBatchPlain plain;
    plain.ParseFromString(request.SerializeAsString());
    std::vector<Impl> impls = {
        {"upstream",
         [&] {
           grpc::ClientContext ctx;
           examples::ScoreReply reply;
           return stub->ScorePlain(&ctx, plain, &reply).ok() ? reply.values() : 0;
         }},
        {"pbaccel", [&] {
           grpc::ClientContext ctx;
           examples::ScoreReply reply;
           return stub->Score(&ctx, request, &reply).ok() ? reply.values() : 0;
         }}};
    if (impls[0].run() != impls[1].run()) {
      std::fprintf(stderr, "grpc_bench: replies differ\n");
      return 1;
    }
    const auto s = TimeInterleaved(impls, 1, 15, 20e6);
    print("end_to_end", size.name, "-", impls, s);
    if (!csv) {
      std::printf("%-11s %-6s requests/s: upstream %.0f, pbaccel %.0f\n", "", size.name,
                  1e9 / Min(s[0]), 1e9 / Min(s[1]));
    }
  }
  server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
