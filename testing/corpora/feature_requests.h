// Copyright 2026 The pbaccel Authors.
//
// Request generation for the gRPC test and benchmark: FeatureBatch requests whose repeated fields
// follow the workloads of docs/workloads.md (W2 doc deltas, 1byte freqs, len1to10 ids, sint32W4
// deltas).

#ifndef PBACCEL_TESTING_CORPORA_FEATURE_REQUESTS_H_
#define PBACCEL_TESTING_CORPORA_FEATURE_REQUESTS_H_

#include <random>

#include "examples/feature_service.pb.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"

namespace pbaccel {
namespace examples {

// A request with `postings` postings of `per_posting` values each, and `n` values in each of the
// top-level repeated fields.
inline FeatureBatch MakeRequest(std::mt19937_64& rng, int postings, int per_posting, int n) {
  auto values = [&rng](const char* workload, int count) {
    return workloads::GenerateWireValues(*workloads::FindPayloadWorkload(workload),
                                         static_cast<size_t>(count), rng);
  };
  FeatureBatch b;
  b.set_model("model-" + std::to_string(rng() % 100));
  for (int p = 0; p < postings; ++p) {
    Posting* posting = b.add_postings();
    posting->set_term_id(rng() >> 20);
    for (uint64_t v : values("W2", per_posting)) posting->add_doc_deltas(static_cast<uint32_t>(v));
    for (uint64_t v : values("1byte", per_posting)) posting->add_freqs(static_cast<uint32_t>(v));
  }
  for (uint64_t v : values("len1to10", n)) b.add_feature_ids(v);
  for (uint64_t z : values("sint32W4", n)) b.add_deltas(testing::ZigZagDecode32(z));
  for (int i = 0; i < n; ++i) b.add_scores(static_cast<float>(rng() % 10000) / 100.0f);
  for (uint64_t v : values("bool", n)) b.add_flags(v != 0);
  return b;
}

}  // namespace examples
}  // namespace pbaccel

#endif  // PBACCEL_TESTING_CORPORA_FEATURE_REQUESTS_H_
