// Copyright 2026 The pbaccel Authors.
//
// The example FeatureService: both methods digest every value of the request, so two servers (or
// two methods) that parsed the same bytes differently would answer differently.

#ifndef PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_
#define PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_

#include <cstdint>
#include <cstring>

#include "examples/feature_service.grpc.pb.h"

namespace pbaccel {
namespace examples {

// Works for FeatureBatch and FeatureBatchPlain alike.
template <typename Batch>
ScoreReply Digest(const Batch& b) {
  uint64_t h = 1469598103934665603ull;
  uint32_t n = 0;
  auto mix = [&](uint64_t v) {
    h = (h ^ v) * 1099511628211ull;
    ++n;
  };
  for (char c : b.model()) mix(static_cast<uint8_t>(c));
  for (const Posting& p : b.postings()) {
    mix(p.term_id());
    for (uint32_t d : p.doc_deltas()) mix(d);
    for (uint32_t f : p.freqs()) mix(f);
  }
  for (uint64_t id : b.feature_ids()) mix(id);
  for (int32_t d : b.deltas()) mix(static_cast<uint32_t>(d));
  for (float s : b.scores()) {
    uint32_t bits;
    std::memcpy(&bits, &s, 4);
    mix(bits);
  }
  for (bool f : b.flags()) mix(f);
  ScoreReply reply;
  reply.set_checksum(h);
  reply.set_values(n);
  return reply;
}

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
};

}  // namespace examples
}  // namespace pbaccel

#endif  // PBACCEL_EXAMPLES_FEATURE_SERVICE_IMPL_H_
