// Copyright 2026 The pbaccel Authors.
//
// The gRPC switch (pbaccel/grpc.h) through real servers on 127.0.0.1 (ephemeral ports), real
// clients, under every kernel:
//   * every method kind (unary, client-streaming, server-streaming, bidirectional) on the sync
//     and the callback API (examples/feature_service_impl.h), and a LITE_RUNTIME request type
//     (tests/grpc_lite.proto) and real vector tiles (testing/data) on sync unary methods: answers
//     equal to a local digest of the request, and pbaccel::GrpcRequestsParsed() grows by exactly
//     the number of requests sent, so a request that gRPC's own path deserialized fails the test;
//     with the switch off, the same answers and no growth;
//   * malformed requests (sent as raw bytes): the same status code as the same bytes parsed by
//     upstream (ScorePlain), with pbaccel's error message where gRPC's is empty - on unary and
//     server-streaming methods, where the deserializer's status reaches the client.

#include <memory>
#include <random>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "examples/feature_service_impl.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "pbaccel/grpc.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/every_kernel.h"
#include "testing/corpora/feature_requests.h"
#include "testing/corpora/realdata_corpus.h"
#include "tests/grpc_lite.grpc.pb.h"

namespace pbaccel {
namespace examples {
namespace {

using grpclite::LiteBatch;
using grpclite::LiteReply;

LiteReply LiteDigest(const LiteBatch& batch) {
  Digester d;
  std::vector<const LiteBatch*> todo = {&batch};
  while (!todo.empty()) {
    const LiteBatch* b = todo.back();
    todo.pop_back();
    d.MixString(b->name());
    for (uint64_t id : b->ids()) d.Mix(id);
    for (int32_t v : b->deltas()) d.Mix(uint64_t{static_cast<uint32_t>(v)});
    for (const LiteBatch& child : b->children()) todo.push_back(&child);
  }
  const ScoreReply r = d.Reply();
  LiteReply reply;
  reply.set_checksum(r.checksum());
  reply.set_values(r.values());
  return reply;
}

class LiteServiceImpl final : public grpclite::LiteService::Service {
  ::grpc::Status Score(::grpc::ServerContext*, const LiteBatch* request,
                       LiteReply* reply) override {
    *reply = LiteDigest(*request);
    return ::grpc::Status::OK;
  }
};

LiteBatch MakeLiteBatch(std::mt19937_64& rng, int depth) {
  LiteBatch b;
  b.set_name("lite-" + std::to_string(rng() % 1000));
  const int n = static_cast<int>(rng() % 200);
  for (int i = 0; i < n; ++i) b.add_ids(rng() >> (rng() % 64));
  for (int i = 0; i < n; ++i) b.add_deltas(static_cast<int32_t>(rng() % 2001) - 1000);
  if (depth > 0) {
    for (int i = 0; i < 3; ++i) *b.add_children() = MakeLiteBatch(rng, depth - 1);
  }
  return b;
}

// Counts the requests pbaccel parsed while it lives.
class ParsedCounter {
 public:
  ParsedCounter() : start_(GrpcRequestsParsed()) {}
  uint64_t count() const { return GrpcRequestsParsed() - start_; }

 private:
  uint64_t start_;
};

// Restores the switch.
class ScopedSwitch {
 public:
  explicit ScopedSwitch(bool on) : old_(GrpcSwitchOn()) { SetGrpcSwitch(on); }
  ~ScopedSwitch() { SetGrpcSwitch(old_); }

 private:
  bool old_;
};

// A server on 127.0.0.1 with the example services on one API, and a channel to it.
struct Server {
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<FeatureService::Stub> stub;

  explicit Server(grpc::Service* feature_service, grpc::Service* tile_service = nullptr,
                  grpc::Service* lite_service = nullptr) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.RegisterService(feature_service);
    if (tile_service != nullptr) builder.RegisterService(tile_service);
    if (lite_service != nullptr) builder.RegisterService(lite_service);
    server = builder.BuildAndStart();
    if (server == nullptr || port == 0) return;
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(64 << 20);
    args.SetMaxReceiveMessageSize(64 << 20);
    channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                        grpc::InsecureChannelCredentials(), args);
    stub = FeatureService::NewStub(channel);
  }
  ~Server() {
    if (server) server->Shutdown();
  }

  // Sends raw bytes as the request of the unary `method`.
  grpc::Status RawUnary(const std::string& method, const std::string& bytes) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext ctx;
    return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        channel.get(),
        grpc::internal::RpcMethod(method.c_str(), grpc::internal::RpcMethod::NORMAL_RPC), &ctx,
        request, &response);
  }

  // Sends raw bytes as the request of the server-streaming `method`; reads every reply.
  grpc::Status RawServerStreaming(const std::string& method, const std::string& bytes) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
        grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
            channel.get(),
            grpc::internal::RpcMethod(method.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING),
            &ctx, request));
    grpc::ByteBuffer reply;
    while (reader->Read(&reply)) {
    }
    return reader->Finish();
  }
};

class GrpcSwitchTest : public testing::EveryKernelTest {
 protected:
  FeatureServiceImpl sync_service_;
  FeatureCallbackServiceImpl callback_service_;
  TileServiceImpl tile_service_;
  LiteServiceImpl lite_service_;
};

// Requests from tiny to ~1 MB (the large ones arrive in several slices).
std::vector<FeatureBatch> MakeRequests(std::mt19937_64& rng, int count) {
  std::vector<FeatureBatch> requests;
  for (int i = 0; i < count; ++i) {
    const int scale = i % 6;
    requests.push_back(MakeRequest(rng, scale, 8 << (2 * scale), 4 << (2 * scale)));
  }
  return requests;
}

TEST_P(GrpcSwitchTest, EveryMethodKindOnBothApisParsesRequestsWithPbaccel) {
  std::mt19937_64 rng(1);
  const std::vector<FeatureBatch> requests = MakeRequests(rng, 12);
  for (grpc::Service* service : std::vector<grpc::Service*>{&sync_service_, &callback_service_}) {
    const char* api = service == &sync_service_ ? "sync" : "callback";
    Server server(service);
    ASSERT_NE(server.stub, nullptr);
    for (const bool on : {true, false}) {
      SCOPED_TRACE(std::string(api) + (on ? ", switch on" : ", switch off"));
      const ScopedSwitch scoped_switch(on);
      const uint64_t expected = on ? requests.size() : 0;
      {  // Unary, against the same bytes parsed by upstream and a local digest.
        const ParsedCounter parsed;
        for (const FeatureBatch& request : requests) {
          FeatureBatchPlain plain;
          ASSERT_TRUE(plain.ParseFromString(request.SerializeAsString()));
          ScoreReply fast, slow;
          grpc::ClientContext c1, c2;
          ASSERT_TRUE(server.stub->Score(&c1, request, &fast).ok());
          ASSERT_TRUE(server.stub->ScorePlain(&c2, plain, &slow).ok());
          EXPECT_EQ(fast.SerializeAsString(), Digest(request).SerializeAsString());
          EXPECT_EQ(fast.SerializeAsString(), slow.SerializeAsString());
        }
        EXPECT_EQ(parsed.count(), expected) << "unary";
      }
      {  // Client streaming: all requests in one call.
        const ParsedCounter parsed;
        grpc::ClientContext ctx;
        ScoreReply reply;
        std::unique_ptr<grpc::ClientWriter<FeatureBatch>> writer =
            server.stub->ScoreStream(&ctx, &reply);
        Digester all;
        for (const FeatureBatch& request : requests) {
          ASSERT_TRUE(writer->Write(request));
          all.MixBatch(request);
        }
        ASSERT_TRUE(writer->WritesDone());
        ASSERT_TRUE(writer->Finish().ok());
        EXPECT_EQ(reply.SerializeAsString(), all.Reply().SerializeAsString());
        EXPECT_EQ(parsed.count(), expected) << "client streaming";
      }
      {  // Server streaming: one call per request.
        const ParsedCounter parsed;
        for (const FeatureBatch& request : requests) {
          grpc::ClientContext ctx;
          std::unique_ptr<grpc::ClientReader<ScoreReply>> reader =
              server.stub->ScoreEach(&ctx, request);
          std::vector<std::string> replies;
          ScoreReply reply;
          while (reader->Read(&reply)) replies.push_back(reply.SerializeAsString());
          ASSERT_TRUE(reader->Finish().ok());
          ASSERT_EQ(replies.size(), 1u + request.postings_size());
          EXPECT_EQ(replies[0], Digest(request).SerializeAsString());
          for (int p = 0; p < request.postings_size(); ++p) {
            EXPECT_EQ(replies[1 + p], Digest(request.postings(p)).SerializeAsString());
          }
        }
        EXPECT_EQ(parsed.count(), expected) << "server streaming";
      }
      {  // Bidirectional: a reply per request.
        const ParsedCounter parsed;
        grpc::ClientContext ctx;
        std::unique_ptr<grpc::ClientReaderWriter<FeatureBatch, ScoreReply>> stream =
            server.stub->ScoreChat(&ctx);
        for (const FeatureBatch& request : requests) {
          ASSERT_TRUE(stream->Write(request));
          ScoreReply reply;
          ASSERT_TRUE(stream->Read(&reply));
          EXPECT_EQ(reply.SerializeAsString(), Digest(request).SerializeAsString());
        }
        ASSERT_TRUE(stream->WritesDone());
        ASSERT_TRUE(stream->Finish().ok());
        EXPECT_EQ(parsed.count(), expected) << "bidirectional";
      }
    }
  }
}

TEST_P(GrpcSwitchTest, MalformedRequestsAreRejectedLikeUpstreamWithPbaccelsMessage) {
  std::mt19937_64 rng(2);
  const std::string valid = MakeRequest(rng, 2, 300, 200).SerializeAsString();
  Server server(&sync_service_);
  ASSERT_NE(server.stub, nullptr);
  int rejected = 0;
  const ParsedCounter parsed;
  int sent = 0;
  for (const std::string& bytes : testing::Mutate(valid, rng, 150)) {
    const grpc::Status fast = server.RawUnary("/pbaccel.examples.FeatureService/Score", bytes);
    const grpc::Status slow = server.RawUnary("/pbaccel.examples.FeatureService/ScorePlain", bytes);
    const grpc::Status each =
        server.RawServerStreaming("/pbaccel.examples.FeatureService/ScoreEach", bytes);
    sent += 2;
    ASSERT_EQ(fast.error_code(), slow.error_code()) << fast.error_message();
    ASSERT_EQ(each.error_code(), slow.error_code()) << each.error_message();
    if (!fast.ok()) {
      EXPECT_EQ(fast.error_code(), grpc::StatusCode::INTERNAL);
      // Upstream says nothing about a malformed message; pbaccel says where it is.
      EXPECT_EQ(slow.error_message(), "");
      EXPECT_NE(fast.error_message().find("byte"), std::string::npos) << fast.error_message();
      EXPECT_EQ(each.error_message(), fast.error_message());
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 20);
  EXPECT_EQ(parsed.count(), static_cast<uint64_t>(sent));
  {  // Switch off: gRPC's own path, gRPC's own (empty) message.
    const ScopedSwitch off(false);
    const std::string truncated = valid.substr(0, valid.size() - 3);
    const grpc::Status fast = server.RawUnary("/pbaccel.examples.FeatureService/Score", truncated);
    EXPECT_EQ(fast.error_code(), grpc::StatusCode::INTERNAL);
    EXPECT_EQ(fast.error_message(), "");
  }
  // Still serving.
  ScoreReply reply;
  grpc::ClientContext ctx;
  EXPECT_TRUE(server.stub->Score(&ctx, MakeRequest(rng, 1, 10, 10), &reply).ok());
}

TEST_P(GrpcSwitchTest, LiteRuntimeRequestsUseTheirGeneratedParser) {
  Server server(&sync_service_, nullptr, &lite_service_);
  ASSERT_NE(server.stub, nullptr);
  auto stub = grpclite::LiteService::NewStub(server.channel);
  std::mt19937_64 rng(3);
  const ParsedCounter parsed;
  for (int i = 0; i < 20; ++i) {
    const LiteBatch request = MakeLiteBatch(rng, i % 3);
    LiteReply reply;
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub->Score(&ctx, request, &reply).ok());
    EXPECT_EQ(reply.SerializeAsString(), LiteDigest(request).SerializeAsString());
  }
  EXPECT_EQ(parsed.count(), 20u);
  const std::string bytes = MakeLiteBatch(rng, 1).SerializeAsString();
  const grpc::Status truncated =
      server.RawUnary("/pbaccel.grpclite.LiteService/Score", bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(truncated.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(truncated.error_message().find("byte"), std::string::npos) << truncated.error_message();
  EXPECT_EQ(parsed.count(), 21u);
}

TEST_P(GrpcSwitchTest, RealVectorTilesGetTheAnswersOfTheirUpstreamParse) {
  const std::string dir = corpora::DefaultDataDir();
  ASSERT_FALSE(dir.empty()) << "testing/data not found in the runfiles";
  absl::StatusOr<corpora::Corpus> corpus = corpora::LoadMvt(dir);
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  ASSERT_GT(corpus->messages.size(), 50u);
  Server server(&sync_service_, &tile_service_);
  ASSERT_NE(server.stub, nullptr);
  auto stub = TileService::NewStub(server.channel);
  const ParsedCounter parsed;
  for (const std::string& bytes : corpus->messages) {
    vector_tile::Tile tile;
    ASSERT_TRUE(tile.ParseFromString(bytes));
    ScoreReply reply;
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub->Summarize(&ctx, tile, &reply).ok());
    EXPECT_EQ(reply.SerializeAsString(), TileDigest(tile).SerializeAsString());
  }
  EXPECT_EQ(parsed.count(), corpus->messages.size());
}

PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(GrpcSwitchTest);

// The registry of request types has no fixed capacity: a thousand more types than the test's own
// (as a server linking many services has) are each found with their own deserializer, and the
// types registered before them still are.
template <int N>
struct ManyType {};
template <int N>
::grpc::Status DeserializeMany(::grpc::ByteBuffer*, google::protobuf::MessageLite*) {
  return ::grpc::Status(::grpc::StatusCode::UNKNOWN, std::to_string(N));
}
struct ManyEntry {
  const std::type_info* type;
  grpc_internal::DeserializeFn deserialize;
};
// Every ManyType<N> with its deserializer (a pack expansion in an initializer: no fold, whose
// nesting clang limits to 256).
template <int... N>
std::vector<ManyEntry> ManyTypes(std::integer_sequence<int, N...>) {
  return {ManyEntry{&typeid(ManyType<N>), &DeserializeMany<N>}...};
}

// The wiring check (pbaccel/grpc.h) has nothing to report for these services, whose generated
// code sees their PBACCEL_GRPC_USE_FOR lines (//tests:grpc_unwired_test: one that does not).
TEST_P(GrpcSwitchTest, WiredServicesAreNotReported) {
  Server server(&sync_service_, &tile_service_, &lite_service_);
  ASSERT_NE(server.server, nullptr);
  Server callback_server(&callback_service_);
  ASSERT_NE(callback_server.server, nullptr);
  EXPECT_TRUE(GrpcUnwiredMethods().empty()) << GrpcUnwiredMethods()[0];
}

TEST(GrpcRegistryTest, TakesAnyNumberOfTypes) {
  ASSERT_NE(grpc_internal::FindRequestType(typeid(examples::FeatureBatch)), nullptr);
  const std::vector<ManyEntry> many = ManyTypes(std::make_integer_sequence<int, 1000>());
  for (int round = 0; round < 2; ++round) {  // The second time: one entry each still.
    for (const ManyEntry& e : many) {
      EXPECT_TRUE(grpc_internal::RegisterRequestType(*e.type, e.deserialize));
    }
    int found = 0;
    for (const ManyEntry& e : many)
      found += grpc_internal::FindRequestType(*e.type) == e.deserialize;
    EXPECT_EQ(found, 1000);
  }
  EXPECT_NE(grpc_internal::FindRequestType(typeid(examples::FeatureBatch)), nullptr);
  EXPECT_EQ(grpc_internal::FindRequestType(typeid(ManyType<1000>)), nullptr);
}

}  // namespace
}  // namespace examples
}  // namespace pbaccel
