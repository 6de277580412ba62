// Copyright 2026 The pbaccel Authors.
//
// The example services (feature_service.proto), on gRPC's sync and callback APIs. Every method
// digests every value of its requests, so two servers (or two methods) that parsed the same bytes
// differently would answer differently.

#ifndef PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_
#define PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "examples/feature_service.grpc.pb.h"

namespace pbaccel {
namespace examples {

// A running FNV-1a digest of values, and how many there were.
class Digester {
 public:
  void Mix(uint64_t v) {
    h_ = (h_ ^ v) * 1099511628211ull;
    ++n_;
  }
  void MixString(const std::string& s) {
    for (char c : s) Mix(uint64_t{static_cast<uint8_t>(c)});
  }
  void MixFloat(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    Mix(uint64_t{bits});
  }
  void MixDouble(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    Mix(bits);
  }
  void MixPosting(const Posting& p) {
    Mix(p.term_id());
    for (uint32_t d : p.doc_deltas()) Mix(uint64_t{d});
    for (uint32_t f : p.freqs()) Mix(uint64_t{f});
  }
  // Works for FeatureBatch and FeatureBatchPlain alike.
  template <typename Batch>
  void MixBatch(const Batch& b) {
    MixString(b.model());
    for (const Posting& p : b.postings()) MixPosting(p);
    for (uint64_t id : b.feature_ids()) Mix(id);
    for (int32_t d : b.deltas()) Mix(uint64_t{static_cast<uint32_t>(d)});
    for (float s : b.scores()) MixFloat(s);
    for (bool f : b.flags()) Mix(uint64_t{f});
  }
  void MixTile(const vector_tile::Tile& tile) {
    for (const vector_tile::Tile_Layer& layer : tile.layers()) {
      Mix(uint64_t{layer.version()});
      MixString(layer.name());
      Mix(uint64_t{layer.extent()});
      for (const std::string& key : layer.keys()) MixString(key);
      for (const vector_tile::Tile_Value& v : layer.values()) {
        MixString(v.string_value());
        MixFloat(v.float_value());
        MixDouble(v.double_value());
        Mix(static_cast<uint64_t>(v.int_value()));
        Mix(v.uint_value());
        Mix(static_cast<uint64_t>(v.sint_value()));
        Mix(uint64_t{v.bool_value()});
      }
      for (const vector_tile::Tile_Feature& f : layer.features()) {
        Mix(f.id());
        Mix(uint64_t{static_cast<uint32_t>(f.type())});
        for (uint32_t t : f.tags()) Mix(uint64_t{t});
        for (uint32_t g : f.geometry()) Mix(uint64_t{g});
      }
    }
  }
  ScoreReply Reply() const {
    ScoreReply reply;
    reply.set_checksum(h_);
    reply.set_values(n_);
    return reply;
  }

 private:
  uint64_t h_ = 1469598103934665603ull;
  uint32_t n_ = 0;
};

template <typename Batch>
ScoreReply Digest(const Batch& b) {
  Digester d;
  d.MixBatch(b);
  return d.Reply();
}

inline ScoreReply Digest(const Posting& p) {
  Digester d;
  d.MixPosting(p);
  return d.Reply();
}

inline ScoreReply TileDigest(const vector_tile::Tile& tile) {
  Digester d;
  d.MixTile(tile);
  return d.Reply();
}

// The sync API.
class FeatureServiceImpl final : public FeatureService::Service {
 public:
  ::grpc::Status Score(::grpc::ServerContext*, const FeatureBatch* request,
                       ScoreReply* reply) override {
    *reply = Digest(*request);
    return ::grpc::Status::OK;
  }
  ::grpc::Status ScorePlain(::grpc::ServerContext*, const FeatureBatchPlain* request,
                            ScoreReply* reply) override {
    *reply = Digest(*request);
    return ::grpc::Status::OK;
  }
  ::grpc::Status ScoreStream(::grpc::ServerContext*, ::grpc::ServerReader<FeatureBatch>* reader,
                             ScoreReply* reply) override {
    Digester d;
    FeatureBatch batch;
    while (reader->Read(&batch)) d.MixBatch(batch);
    *reply = d.Reply();
    return ::grpc::Status::OK;
  }
  ::grpc::Status ScoreEach(::grpc::ServerContext*, const FeatureBatch* request,
                           ::grpc::ServerWriter<ScoreReply>* writer) override {
    writer->Write(Digest(*request));
    for (const Posting& p : request->postings()) writer->Write(Digest(p));
    return ::grpc::Status::OK;
  }
  ::grpc::Status ScoreChat(::grpc::ServerContext*,
                           ::grpc::ServerReaderWriter<ScoreReply, FeatureBatch>* stream) override {
    FeatureBatch batch;
    while (stream->Read(&batch)) stream->Write(Digest(batch));
    return ::grpc::Status::OK;
  }
};

// The callback API: the same answers.
class FeatureCallbackServiceImpl final : public FeatureService::CallbackService {
 public:
  ::grpc::ServerUnaryReactor* Score(::grpc::CallbackServerContext* ctx, const FeatureBatch* request,
                                    ScoreReply* reply) override {
    *reply = Digest(*request);
    return Done(ctx);
  }
  ::grpc::ServerUnaryReactor* ScorePlain(::grpc::CallbackServerContext* ctx,
                                         const FeatureBatchPlain* request,
                                         ScoreReply* reply) override {
    *reply = Digest(*request);
    return Done(ctx);
  }
  ::grpc::ServerReadReactor<FeatureBatch>* ScoreStream(::grpc::CallbackServerContext*,
                                                       ScoreReply* reply) override {
    class Reactor final : public ::grpc::ServerReadReactor<FeatureBatch> {
     public:
      explicit Reactor(ScoreReply* reply) : reply_(reply) { StartRead(&batch_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          *reply_ = digester_.Reply();
          Finish(::grpc::Status::OK);
          return;
        }
        digester_.MixBatch(batch_);
        StartRead(&batch_);
      }
      void OnDone() override { delete this; }

     private:
      ScoreReply* reply_;
      FeatureBatch batch_;
      Digester digester_;
    };
    return new Reactor(reply);
  }
  ::grpc::ServerWriteReactor<ScoreReply>* ScoreEach(::grpc::CallbackServerContext*,
                                                    const FeatureBatch* request) override {
    class Reactor final : public ::grpc::ServerWriteReactor<ScoreReply> {
     public:
      explicit Reactor(const FeatureBatch& request) {
        replies_.push_back(Digest(request));
        for (const Posting& p : request.postings()) replies_.push_back(Digest(p));
        OnWriteDone(true);
      }
      void OnWriteDone(bool ok) override {
        if (ok && next_ < replies_.size()) {
          StartWrite(&replies_[next_++]);
        } else {
          Finish(::grpc::Status::OK);
        }
      }
      void OnDone() override { delete this; }

     private:
      std::vector<ScoreReply> replies_;
      size_t next_ = 0;
    };
    return new Reactor(*request);
  }
  ::grpc::ServerBidiReactor<FeatureBatch, ScoreReply>* ScoreChat(
      ::grpc::CallbackServerContext*) override {
    class Reactor final : public ::grpc::ServerBidiReactor<FeatureBatch, ScoreReply> {
     public:
      Reactor() { StartRead(&batch_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(::grpc::Status::OK);
          return;
        }
        reply_ = Digest(batch_);
        StartWrite(&reply_);
      }
      void OnWriteDone(bool ok) override {
        if (!ok) {
          Finish(::grpc::Status::OK);
          return;
        }
        StartRead(&batch_);
      }
      void OnDone() override { delete this; }

     private:
      FeatureBatch batch_;
      ScoreReply reply_;
    };
    return new Reactor();
  }

 private:
  static ::grpc::ServerUnaryReactor* Done(::grpc::CallbackServerContext* ctx) {
    ::grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    reactor->Finish(::grpc::Status::OK);
    return reactor;
  }
};

class TileServiceImpl final : public TileService::Service {
 public:
  ::grpc::Status Summarize(::grpc::ServerContext*, const vector_tile::Tile* tile,
                           ScoreReply* reply) override {
    *reply = TileDigest(*tile);
    return ::grpc::Status::OK;
  }
};

}  // namespace examples
}  // namespace pbaccel

#endif  // PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_
