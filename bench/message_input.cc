// Copyright 2026 The pbaccel Authors.

#include "bench/message_input.h"

#include <cstdio>
#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/differential.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/message_workloads.pb.h"

namespace pbaccel {
namespace bench {
namespace {

std::vector<uint64_t> Values(const char* workload, size_t n, std::mt19937_64& rng) {
  return workloads::GenerateWireValues(*workloads::FindPayloadWorkload(workload), n, rng);
}

std::string Text(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

std::string MakeBatch(std::mt19937_64& rng) {
  Batch b;
  b.set_name(Text(rng, 16));
  b.set_timestamp_us(static_cast<int64_t>(rng() >> 12));
  for (int p = 0; p < 8; ++p) {
    Posting* posting = b.add_postings();
    posting->set_term_id(rng() >> 20);
    for (uint64_t v : Values("W2", 512, rng)) posting->add_doc_deltas(static_cast<uint32_t>(v));
    for (uint64_t v : Values("1byte", 512, rng)) posting->add_freqs(static_cast<uint32_t>(v));
  }
  for (uint64_t z : Values("sint32W4", 4096, rng)) b.add_scores(testing::ZigZagDecode32(z));
  for (int i = 0; i < 1024; ++i) b.add_weights(static_cast<float>(rng() % 100000) / 1000.0f);
  for (uint64_t v : Values("len1to10", 2048, rng)) b.add_ids(static_cast<int64_t>(v));
  for (uint64_t v : Values("bool", 1024, rng)) b.add_flags(v != 0);
  for (int i = 0; i < 4; ++i)
    (*b.mutable_labels())[Text(rng, 8)] = static_cast<int32_t>(rng() % 1000);
  return b.SerializeAsString();
}

std::string MakeNoPacked(std::mt19937_64& rng) {
  NoPacked m;
  m.set_title(Text(rng, 40));
  m.set_created_us(static_cast<int64_t>(rng() >> 12));
  for (int i = 0; i < 16; ++i) {
    Person* p = m.add_people();
    p->set_name(Text(rng, 12));
    p->set_id(static_cast<int32_t>(rng() % 1000000));
    p->set_email(Text(rng, 20));
    p->mutable_address()->set_street(Text(rng, 24));
    p->mutable_address()->set_city(Text(rng, 10));
    p->mutable_address()->set_zip(static_cast<uint32_t>(rng() % 100000));
    for (int k = 0; k < 2; ++k) p->add_phones(Text(rng, 10));
    p->set_verified(rng() & 1);
    p->set_score(static_cast<double>(rng() % 1000) / 7.0);
  }
  m.mutable_origin()->set_city(Text(rng, 10));
  m.set_blob(Text(rng, 64));
  return m.SerializeAsString();
}

void FillTiny(TinyPacked* t, std::mt19937_64& rng, int depth) {
  for (int i = 0; i < 4; ++i) {
    t->add_a(static_cast<uint32_t>(rng() % 300));
    t->add_b(static_cast<int64_t>(rng() % 100000));
    t->add_c(static_cast<int32_t>(rng() % 200) - 100);
    t->add_d(rng() & 1);
  }
  t->set_name(Text(rng, 8));
  if (depth > 0) {
    for (int i = 0; i < 2; ++i) FillTiny(t->add_children(), rng, depth - 1);
  }
}

std::string MakeTiny(std::mt19937_64& rng) {
  TinyPacked t;
  FillTiny(&t, rng, 1);
  return t.SerializeAsString();
}

const google::protobuf::Message* BatchPrototype() { return &Batch::default_instance(); }
const google::protobuf::Message* NoPackedPrototype() { return &NoPacked::default_instance(); }
const google::protobuf::Message* TinyPrototype() { return &TinyPacked::default_instance(); }

const MessageWorkload kWorkloads[] = {
    {"msg_batch", 64, &BatchPrototype},
    {"msg_nopacked", 2048, &NoPackedPrototype},
    {"msg_tinypacked", 4096, &TinyPrototype},
};

}  // namespace

absl::Span<const MessageWorkload> MessageWorkloads() { return kWorkloads; }

MessageInput MakeMessageInput(const MessageWorkload& workload, uint64_t seed, size_t count) {
  MessageInput input;
  input.workload = &workload;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < (count != 0 ? count : workload.count); ++i) {
    if (workload.name == "msg_batch") input.messages.push_back(MakeBatch(rng));
    if (workload.name == "msg_nopacked") input.messages.push_back(MakeNoPacked(rng));
    if (workload.name == "msg_tinypacked") input.messages.push_back(MakeTiny(rng));
  }
  return input;
}

MessageOutputs::MessageOutputs(const MessageWorkload& workload)
    : upstream(workload.prototype()->New()), pbaccel(workload.prototype()->New()) {}

uint64_t ParseMessagesWithUpstream(const MessageInput& input, MessageOutputs* out) {
  uint64_t sum = 0;
  for (const std::string& m : input.messages) {
    if (!out->upstream->ParseFromString(m)) {
      std::fprintf(stderr, "bench: upstream rejected a %s message\n", input.workload->name.data());
      std::abort();
    }
    sum += m.size();
  }
  return sum;
}

uint64_t ParseMessagesWithPbaccel(const MessageInput& input, MessageOutputs* out,
                                  bool by_reflection) {
  uint64_t sum = 0;
  for (const std::string& m : input.messages) {
    const absl::Status s = by_reflection ? ParseMessageByReflection(m, out->pbaccel.get())
                                         : ParseMessage(m, out->pbaccel.get());
    if (!s.ok()) {
      std::fprintf(stderr, "bench: pbaccel rejected a %s message: %s\n",
                   input.workload->name.data(), s.ToString().c_str());
      std::abort();
    }
    sum += m.size();
  }
  return sum;
}

std::string VerifyMessages(const MessageInput& input) {
  MessageOutputs out(*input.workload);
  for (size_t i = 0; i < input.messages.size(); ++i) {
    if (!out.upstream->ParseFromString(input.messages[i])) return "upstream rejected the input";
    for (const bool by_reflection : {false, true}) {
      const absl::Status s = by_reflection
                                 ? ParseMessageByReflection(input.messages[i], out.pbaccel.get())
                                 : ParseMessage(input.messages[i], out.pbaccel.get());
      const char* path = by_reflection ? " (reflection path)" : "";
      if (!s.ok()) return absl::StrCat("message ", i, path, ": ", s.ToString());
      if (testing::DeterministicSerialization(*out.upstream) !=
          testing::DeterministicSerialization(*out.pbaccel)) {
        return absl::StrCat("message ", i, path, " differs from upstream's");
      }
    }
  }
  return "";
}

}  // namespace bench
}  // namespace pbaccel
