// Copyright 2026 The pbaccel Authors.
//
// //bench:grpc_bench: what the gRPC switch (pbaccel/grpc.h) saves a real gRPC server, switch on
// against switch off, side by side in one run.
//
//   * server: two servers of the example services (examples/feature_service_impl.h, sync API),
//     each a child process of this one (this binary with --serve), one started with
//     PBACCEL_GRPC=off. A load generator of kClientThreads threads, each with one blocking call in
//     flight on 127.0.0.1, sends the same requests to each server in turn (interleaved rounds).
//     Per request: the server process's CPU time (clock_getcpuclockid: every thread of the
//     server, gRPC's included) and the wall time (requests/s). Requests: `batch`, a
//     msg_batch-shaped FeatureBatch (FeatureService.Score); `tiles`, the real vector tiles of
//     testing/data (TileService.Summarize, vector_tile.Tile). The replies of the two servers are
//     compared first.
//   * deserialize: grpc::SerializationTraits<grpc::protobuf::MessageLite>::Deserialize, the call
//     every synchronous unary handler makes, on the same requests in this process, switch on
//     against off (SetGrpcSwitch), as one slice and as 16 KiB slices.
//
//   ./bazelw run -c opt //bench:grpc_bench [-- --csv] [-- --rounds=N]

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/timing.h"
#include "examples/feature_service_impl.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/server_builder.h"
#include "pbaccel/cpu_features.h"
#include "pbaccel/grpc.h"
#include "pbaccel/kernels.h"
#include "testing/corpora/feature_requests.h"
#include "testing/corpora/realdata_corpus.h"

namespace pbaccel {
namespace bench {
namespace {

using corpora::Corpus;
using corpora::DefaultDataDir;
using corpora::LoadMvt;

using examples::FeatureBatch;
using examples::ScoreReply;

constexpr int kClientThreads = 4;

// --serve: the example services on 127.0.0.1; prints the port, serves until stdin closes.
int Serve() {
  examples::FeatureServiceImpl features;
  examples::TileServiceImpl tiles;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.RegisterService(&features);
  builder.RegisterService(&tiles);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) return 1;
  std::printf("%d\n", port);
  std::fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
  }
  server->Shutdown();
  return 0;
}

// A server child process with the switch on or off.
class ServerProcess {
 public:
  ServerProcess(const char* self, bool switch_on) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      setenv("PBACCEL_GRPC", switch_on ? "on" : "off", 1);
      execl(self, self, "--serve", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    stdin_ = to_child[1];
    FILE* out = fdopen(from_child[0], "r");
    if (out == nullptr || std::fscanf(out, "%d", &port_) != 1) port_ = 0;
    if (out != nullptr) std::fclose(out);
    if (clock_getcpuclockid(pid_, &cpu_clock_) != 0) port_ = 0;
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(64 << 20);
    std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials(), args);
    features_ = examples::FeatureService::NewStub(channel);
    tiles_ = examples::TileService::NewStub(channel);
  }
  ~ServerProcess() {
    if (stdin_ >= 0) close(stdin_);  // The child shuts down.
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  bool ok() const { return pid_ > 0 && port_ > 0; }
  examples::FeatureService::Stub& features() const { return *features_; }
  examples::TileService::Stub& tiles() const { return *tiles_; }
  // CPU time of every thread of the server so far, in ns.
  double CpuNs() const {
    timespec ts;
    clock_gettime(cpu_clock_, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  clockid_t cpu_clock_{};
  std::unique_ptr<examples::FeatureService::Stub> features_;
  std::unique_ptr<examples::TileService::Stub> tiles_;
};

// One kind of request: a call that sends request i and returns its reply's checksum.
struct Workload {
  std::string name;
  size_t requests;  // Distinct requests (sent in turn).
  double bytes;     // Mean request size.
  std::function<uint64_t(const ServerProcess&, size_t)> call;
};

struct Sample {
  double cpu_ns_per_request, wall_ns_per_request;
};

// Sends `total` requests from kClientThreads threads; returns the server's CPU and the wall time
// per request.
Sample Round(const ServerProcess& server, const Workload& w, size_t total) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  const double cpu0 = server.CpuNs(), t0 = NowNs();
  std::vector<std::thread> threads;
  for (int t = 0; t < kClientThreads; ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < total;) {
        if (w.call(server, i % w.requests) == 0) failed = true;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double wall = NowNs() - t0, cpu = server.CpuNs() - cpu0;
  if (failed) {
    std::fprintf(stderr, "grpc_bench: a %s request failed\n", w.name.c_str());
    std::exit(1);
  }
  return {cpu / total, wall / total};
}

grpc::ByteBuffer ToBuffer(const std::string& bytes, size_t slice_size) {
  std::vector<grpc::Slice> slices;
  for (size_t i = 0; i < bytes.size(); i += slice_size) {
    slices.emplace_back(bytes.data() + i, std::min(slice_size, bytes.size() - i));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

int Main(int argc, char** argv) {
  bool csv = false;
  int rounds = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--serve") == 0) return Serve();
    if (std::strcmp(argv[i], "--csv") == 0) csv = true;
    if (std::strncmp(argv[i], "--rounds=", 9) == 0) rounds = std::max(1, std::atoi(argv[i] + 9));
  }
  // The servers first, before this process starts any gRPC thread.
  ServerProcess off("/proc/self/exe", false), on("/proc/self/exe", true);
  if (!off.ok() || !on.ok()) {
    std::fprintf(stderr, "grpc_bench: cannot start the server processes\n");
    return 1;
  }
  const std::string dir = DefaultDataDir();
  absl::StatusOr<Corpus> mvt = dir.empty() ? absl::NotFoundError("testing/data") : LoadMvt(dir);
  if (!mvt.ok()) {
    std::fprintf(stderr, "grpc_bench: %s\n", std::string(mvt.status().message()).c_str());
    return 1;
  }
  std::vector<vector_tile::Tile> tiles(mvt->messages.size());
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i].ParseFromString(mvt->messages[i]);
  std::mt19937_64 rng(42);
  const FeatureBatch batch = examples::MakeRequest(rng, 8, 512, 1024);

  std::vector<Workload> workloads = {
      {"batch", 1, static_cast<double>(batch.ByteSizeLong()),
       [&](const ServerProcess& server, size_t) -> uint64_t {
         grpc::ClientContext ctx;
         ScoreReply reply;
         const grpc::Status status = server.features().Score(&ctx, batch, &reply);
         return status.ok() ? reply.checksum() | 1 : 0;
       }},
      {"tiles", tiles.size(), static_cast<double>(mvt->bytes()) / tiles.size(),
       [&](const ServerProcess& server, size_t i) -> uint64_t {
         grpc::ClientContext ctx;
         ScoreReply reply;
         const grpc::Status status = server.tiles().Summarize(&ctx, tiles[i], &reply);
         return status.ok() ? reply.checksum() | 1 : 0;
       }}};

  // "CPU: <brand> (vendor, family, model)": DescribeCpu's first line.
  const std::string cpu_report = DescribeCpu(DetectedCpu());
  const std::string cpu = cpu_report.substr(0, cpu_report.find('\n'));
  if (csv) {
    std::printf("section,request,bytes,switch,server_cpu_ns_per_request,requests_per_s\n");
  } else {
    std::printf("gRPC %s, %d client threads on 127.0.0.1, %s, pbaccel kernel %s\n",
                grpc::Version().c_str(), kClientThreads, cpu.c_str(),
                std::string(ActiveKernelName()).c_str());
    std::printf("%-7s %-6s %9s %-7s %18s %14s %13s %9s\n", "section", "request", "bytes", "switch",
                "server CPU us/req", "median", "requests/s", "CPU saved");
  }
  for (const Workload& w : workloads) {
    for (size_t i = 0; i < w.requests; ++i) {  // Both servers give every answer of upstream's.
      if (w.call(on, i) != w.call(off, i)) {
        std::fprintf(stderr, "grpc_bench: the servers answer %s request %zu differently\n",
                     w.name.c_str(), i);
        return 1;
      }
    }
    const size_t total = std::max<size_t>(w.requests, static_cast<size_t>(4e7 / w.bytes));
    std::vector<Sample> off_samples, on_samples;
    for (int r = 0; r < rounds; ++r) {
      off_samples.push_back(Round(off, w, total));
      on_samples.push_back(Round(on, w, total));
    }
    auto cpu_of = [](const std::vector<Sample>& s) {
      std::vector<double> v;
      for (const Sample& x : s) v.push_back(x.cpu_ns_per_request);
      return v;
    };
    auto wall_of = [](const std::vector<Sample>& s) {
      std::vector<double> v;
      for (const Sample& x : s) v.push_back(x.wall_ns_per_request);
      return v;
    };
    const double off_cpu = Min(cpu_of(off_samples)), on_cpu = Min(cpu_of(on_samples));
    for (const bool sw : {false, true}) {
      const std::vector<Sample>& s = sw ? on_samples : off_samples;
      const double cpu_min = Min(cpu_of(s)), rps = 1e9 / Min(wall_of(s));
      if (csv) {
        std::printf("server,%s,%.0f,%s,%.0f,%.0f\n", w.name.c_str(), w.bytes, sw ? "on" : "off",
                    cpu_min, rps);
      } else {
        std::printf("%-7s %-6s %9.0f %-7s %18.1f %14.1f %13.0f %8.0f%%\n", "server", w.name.c_str(),
                    w.bytes, sw ? "on" : "off", cpu_min / 1e3, Median(cpu_of(s)) / 1e3, rps,
                    sw ? 100 * (1 - on_cpu / off_cpu) : 0.0);
      }
    }
    std::fflush(stdout);
  }

  // In-process deserialization through the MessageLite traits (sync unary handlers' call).
  const std::string batch_bytes = batch.SerializeAsString();
  FeatureBatch fb;
  vector_tile::Tile tile;
  struct Input {
    const char* name;
    std::vector<std::string> messages;
    google::protobuf::MessageLite* msg;  // Each is parsed into (reused).
  };
  const std::vector<Input> inputs = {{"batch", {batch_bytes}, &fb},
                                     {"tiles", mvt->messages, &tile}};
  for (const Input& input : inputs) {
    for (const size_t slice : {size_t{0}, size_t{16384}}) {
      std::vector<grpc::ByteBuffer> buffers;
      double bytes = 0;
      for (const std::string& m : input.messages) {
        buffers.push_back(ToBuffer(m, slice == 0 ? m.size() : slice));
        bytes += m.size();
      }
      auto run = [&](bool sw) {
        return [&, sw] {
          SetGrpcSwitch(sw);
          int ok = 0;
          for (const grpc::ByteBuffer& b : buffers) {
            grpc::ByteBuffer copy(b);  // Shares the slices (reference counted).
            ok += grpc::SerializationTraits<grpc::protobuf::MessageLite>::Deserialize(&copy,
                                                                                      input.msg)
                      .ok();
          }
          return ok;
        };
      };
      std::vector<Impl> impls = {{"off", run(false)}, {"on", run(true)}};
      const uint64_t parsed = GrpcRequestsParsed();
      if (impls[0].run() != buffers.size() || impls[1].run() != buffers.size() ||
          GrpcRequestsParsed() - parsed != buffers.size()) {
        std::fprintf(stderr, "grpc_bench: deserialization failed or pbaccel did not run\n");
        return 1;
      }
      const auto s = TimeInterleaved(impls, 1, 15, 2e7);
      const char* label = slice == 0 ? "1 slice" : "16K sl.";
      for (size_t i = 0; i < impls.size(); ++i) {
        const double per = Min(s[i]) / buffers.size();
        if (csv) {
          std::printf("deserialize_%s,%s,%.0f,%s,%.0f,\n", slice == 0 ? "1slice" : "16k",
                      input.name, bytes / buffers.size(), impls[i].name.c_str(), per);
        } else {
          std::printf("%-7s %-6s %9.0f %-7s %18.2f %14.2f %13s %8.0f%%  (%s)\n", "deser.",
                      input.name, bytes / buffers.size(), impls[i].name.c_str(), per / 1e3,
                      Median(s[i]) / buffers.size() / 1e3, "-",
                      i == 1 ? 100 * (1 - Min(s[1]) / Min(s[0])) : 0.0, label);
        }
      }
    }
  }
  SetGrpcSwitch(true);
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
