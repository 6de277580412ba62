// Copyright 2026 The pbaccel Authors.

#include "bench/realdata_bench.h"

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/realdata_columns.h"
#include "bench/timing.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/util/message_differencer.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/kernels.h"
#include "pbaccel/message_parser.h"
#include "proto/osmformat.pbaccel.h"
#include "proto/profile.pbaccel.h"
#include "proto/vector_tile.pbaccel.h"
#include "testing/corpora/realdata_corpus.h"
#include "testing/corpora/realdata_views.h"

namespace pbaccel {
namespace bench {
namespace {

using corpora::Corpus;
using corpora::LoadMvt;
using corpora::LoadOsm;
using corpora::LoadPprof;
using corpora::NamedView;
using corpora::PbaccelOsmViews;
using corpora::PbaccelTileViews;
using corpora::ReadOsmBlockProtozero;
using corpora::ReadTileProtozero;
using corpora::ViewChecksum;
using corpora::ViewFn;

using google::protobuf::Message;

// Whether `ours` (ParseMessage's status and message) equals upstream's parse (ok and message).
template <typename T>
bool SameAsUpstream(bool upstream_ok, const T& upstream, const absl::Status& s, const T& ours) {
  return upstream_ok && s.ok() &&
         google::protobuf::util::MessageDifferencer::Equals(upstream, ours) &&
         upstream.SerializeAsString() == ours.SerializeAsString();
}

// upstream's ParseFromString and ParseMessage with and without the generated parser agree on
// every message of the corpus (as type T): parsed into a new message, and parsed in turn into one
// message that holds the previous input's contents (mode "stream").
template <typename T>
absl::Status VerifyParsers(const Corpus& corpus) {
  T generated_stream, reflection_stream;
  for (size_t i = 0; i < corpus.messages.size(); ++i) {
    T upstream, generated, reflection;
    const bool upstream_ok = upstream.ParseFromString(corpus.messages[i]);
    const struct {
      const char* path;
      absl::Status status;
      const T& msg;
    } ours[] = {
        {"generated", ParseMessage(corpus.messages[i], &generated), generated},
        {"reflection", ParseMessageByReflection(corpus.messages[i], &reflection), reflection},
        {"generated (stream)", ParseMessage(corpus.messages[i], &generated_stream),
         generated_stream},
        {"reflection (stream)", ParseMessageByReflection(corpus.messages[i], &reflection_stream),
         reflection_stream}};
    for (const auto& [path, s, msg] : ours) {
      if (!SameAsUpstream(upstream_ok, upstream, s, msg)) {
        return absl::InternalError(absl::StrCat(corpus.name, " message ", i, ": pbaccel's ", path,
                                                " path (", s.ToString(), ") and upstream (",
                                                upstream_ok ? "ok" : "rejected", ") differ"));
      }
    }
  }
  return absl::OkStatus();
}

// A corpus's zero-copy readers: protozero's and pbaccel's three (implementation names as in the
// CSV: pbaccel reads into a span, pbaccel_foreach and pbaccel_iterator through PackedView). A
// corpus without them (pprof) has protozero == nullptr and no view rows.
struct Views {
  ViewFn protozero = nullptr;
  std::vector<NamedView> pbaccel;
};

struct Candidate {
  std::string implementation;
  std::string mode;
  std::function<uint64_t()> run;
};

// The message-parser candidates for type T over `corpus`, four modes per parser. The messages
// parsed again and again live in `reused`: each parser has its own, one per input ("reuse") and
// one for the whole corpus ("stream").
template <typename T>
std::vector<Candidate> ParserCandidates(const Corpus& corpus,
                                        std::vector<std::unique_ptr<T>>* reused) {
  const auto upstream = [](const std::string& bytes, T* msg) {
    return msg->ParseFromString(bytes) ? 1u : 0u;
  };
  // The generated parser: the overload proto/*.pbaccel.h declares for T.
  const auto generated = [](const std::string& bytes, T* msg) {
    return ParseMessage(bytes, msg).ok() ? 1u : 0u;
  };
  const auto reflection = [](const std::string& bytes, T* msg) {
    return ParseMessageByReflection(bytes, msg).ok() ? 1u : 0u;
  };
  std::vector<Candidate> out;
  const std::vector<std::string>* messages = &corpus.messages;
  const std::pair<const char*, unsigned (*)(const std::string&, T*)> parsers[] = {
      {"protobuf", +upstream}, {"pbaccel", +generated}, {"pbaccel_reflection", +reflection}};
  for (const auto& entry : parsers) {
    // Plain copies, not structured bindings: clang 14 cannot capture those in the lambdas below.
    const std::string name = entry.first;
    const auto parse = entry.second;
    // This parser's messages, [first, first + size]: filled here, before anything is timed, parser
    // by parser (its inputs, then its stream message with each), so that where their elements lie
    // in the heap does not depend on which rows run (--mode) or on the timing's warm-up order.
    // Filling pbaccel's first instead moves no reused row beyond the rounds' spread; interleaving
    // the parsers input by input reads pbaccel's held-out tiles 15 % slower (docs/speed.md, "Where
    // the reused messages lie in the heap").
    const size_t first = reused->size();
    for (size_t i = 0; i <= messages->size(); ++i) reused->push_back(std::make_unique<T>());
    for (size_t i = 0; i < messages->size(); ++i) {
      parse((*messages)[i], (*reused)[first + i].get());
    }
    for (const std::string& m : *messages) parse(m, (*reused)[first + messages->size()].get());
    out.push_back({name, "reuse", [messages, reused, first, parse]() {
                     uint64_t sum = 0;
                     for (size_t i = 0; i < messages->size(); ++i) {
                       sum += parse((*messages)[i], (*reused)[first + i].get());
                     }
                     return sum;
                   }});
    out.push_back({name, "stream", [messages, reused, first, parse]() {
                     T* msg = (*reused)[first + messages->size()].get();
                     uint64_t sum = 0;
                     for (const std::string& m : *messages) sum += parse(m, msg);
                     return sum;
                   }});
    out.push_back({name, "fresh", [messages, parse]() {
                     uint64_t sum = 0;
                     for (const std::string& m : *messages) {
                       T msg;
                       sum += parse(m, &msg);
                     }
                     return sum;
                   }});
    out.push_back({name, "arena", [messages, parse]() {
                     uint64_t sum = 0;
                     for (const std::string& m : *messages) {
                       google::protobuf::Arena arena;
                       sum += parse(m, pbaccel::internal::compat::CreateOnArena<T>(&arena));
                     }
                     return sum;
                   }});
  }
  return out;
}

std::vector<Candidate> ViewCandidates(const Corpus& corpus, const Views& views) {
  if (views.protozero == nullptr) return {};
  const std::vector<std::string>* messages = &corpus.messages;
  const auto run = [messages](ViewFn view) {
    return [messages, view]() {
      uint64_t sum = 0;
      for (const std::string& m : *messages) sum += view(m)->sum;
      return sum;
    };
  };
  std::vector<Candidate> out = {{"protozero", "view", run(views.protozero)}};
  for (const auto& [name, view] : views.pbaccel) out.push_back({name, "view", run(view)});
  return out;
}

void Time(const Corpus& corpus, const std::vector<Candidate>& candidates,
          const RealDataOptions& options, RealDataResult* result) {
  std::vector<Impl> impls;
  std::vector<const Candidate*> timed;
  for (const Candidate& c : candidates) {
    if (!options.mode.empty() && c.mode != options.mode) continue;
    impls.push_back({c.implementation + "/" + c.mode, c.run});
    timed.push_back(&c);
  }
  const size_t bytes = corpus.bytes();
  // ns per byte, per implementation and round.
  const auto samples = TimeInterleaved(impls, bytes, options.reps, options.sample_ns);
  for (size_t i = 0; i < timed.size(); ++i) {
    result->rows.push_back({corpus.name, corpus.messages.size(), bytes, timed[i]->implementation,
                            timed[i]->mode, 1e3 / Min(samples[i])});
  }
}

// The columnar ways (realdata_columns.h), mode "columns", after checking that they agree.
absl::StatusOr<std::vector<Candidate>> ColumnarCandidates(const Corpus& corpus,
                                                          std::vector<ColumnarWay> ways,
                                                          RealDataResult* result) {
  std::vector<Candidate> out;
  const std::vector<std::string>* messages = &corpus.messages;
  absl::StatusOr<ViewChecksum> first;
  for (ColumnarWay& way : ways) {
    const absl::StatusOr<ViewChecksum> c = way.run(*messages, true);
    if (!c.ok())
      return absl::InternalError(
          absl::StrCat(corpus.name, " columns, ", way.name, ": ", c.status().message()));
    if (out.empty()) first = c;
    if (!(*c == *first)) {
      return absl::InternalError(absl::StrCat(corpus.name, " columns: ", way.name,
                                              "'s checksum differs from ", ways[0].name, "'s"));
    }
    auto run = way.run;
    out.push_back(
        {way.name, "columns", [messages, run]() { return run(*messages, false)->values; }});
  }
  if (!ways.empty()) {
    result->notes.push_back(
        absl::StrFormat("%s columns: %llu values, equal checksums for every way", corpus.name,
                        static_cast<unsigned long long>(first->values)));
  }
  return out;
}

template <typename T>
absl::Status RunCorpus(const Corpus& corpus, const Views& views, const RealDataOptions& options,
                       RealDataResult* result, std::vector<ColumnarWay> columnar = {}) {
  absl::Status s = VerifyParsers<T>(corpus);
  if (s.ok() && views.protozero != nullptr) {
    s = corpora::CheckViewsAgree(corpus.name, corpus.messages, views.protozero, views.pbaccel);
  }
  if (!s.ok()) return s;
  absl::StatusOr<std::vector<Candidate>> columns =
      ColumnarCandidates(corpus, std::move(columnar), result);
  if (!columns.ok()) return columns.status();
  result->notes.push_back(absl::StrFormat(
      "%s: %zu files, %zu messages, %.1f MB; pbaccel verified equal to upstream on every message, "
      "into a new message and in turn into one (MessageDifferencer, re-serialized bytes)%s",
      corpus.name, corpus.files, corpus.messages.size(), corpus.bytes() / 1e6,
      views.protozero != nullptr ? " and to protozero's read (checksums)" : ""));
  std::vector<std::unique_ptr<T>> reused;
  std::vector<Candidate> candidates = ParserCandidates<T>(corpus, &reused);
  for (Candidate& c : ViewCandidates(corpus, views)) {
    candidates.push_back(std::move(c));
  }
  for (Candidate& c : *columns) candidates.push_back(std::move(c));
  Time(corpus, candidates, options, result);
  return absl::OkStatus();
}

double Speed(const RealDataResult& r, const std::string& corpus, const std::string& impl,
             const std::string& mode) {
  for (const RealDataRow& row : r.rows) {
    if (row.corpus == corpus && row.implementation == impl && row.mode == mode) return row.mb_per_s;
  }
  return 0;
}

}  // namespace

absl::StatusOr<RealDataResult> RunRealData(const RealDataOptions& options) {
  RealDataResult result;
  absl::StatusOr<Corpus> osm = LoadOsm(options.data_dir);
  if (!osm.ok()) return osm.status();
  result.notes.push_back(absl::StrFormat(
      "osm: zlib inflated the %zu blocks (%.1f MB) in %.1f ms (not in the parse times)",
      osm->messages.size(), osm->bytes() / 1e6, osm->inflate_ns / 1e6));
  absl::Status s = RunCorpus<OSMPBF::PrimitiveBlock>(
      *osm, {&ReadOsmBlockProtozero, PbaccelOsmViews()}, options, &result, OsmColumnarWays());
  if (!s.ok()) return s;
  absl::StatusOr<Corpus> mvt = LoadMvt(options.data_dir);
  if (!mvt.ok()) return mvt.status();
  s = RunCorpus<vector_tile::Tile>(*mvt, {&ReadTileProtozero, PbaccelTileViews()}, options, &result,
                                   TileColumnarWays());
  if (!s.ok()) return s;
  if (options.pprof) {
    absl::StatusOr<Corpus> pprof = LoadPprof(options.data_dir);
    if (!pprof.ok()) return pprof.status();
    s = RunCorpus<perftools::profiles::Profile>(*pprof, Views{}, options, &result);
    if (!s.ok()) return s;
  }
  result.notes.push_back(absl::StrCat("pbaccel's kernel: ", ActiveKernelName()));
  return result;
}

std::string RealDataCsv(const RealDataResult& result) {
  std::string out = "corpus,messages,bytes,implementation,mode,mb_per_s\n";
  for (const RealDataRow& r : result.rows) {
    absl::StrAppendFormat(&out, "%s,%zu,%zu,%s,%s,%.1f\n", r.corpus, r.messages, r.bytes,
                          r.implementation, r.mode, r.mb_per_s);
  }
  return out;
}

std::string RealDataTable(const RealDataResult& result) {
  std::string out;
  absl::StrAppendFormat(&out, "%-6s %-18s %-7s %10s %12s %12s\n", "corpus", "impl", "mode", "MB/s",
                        "records/s", "vs baseline");
  for (const RealDataRow& r : result.rows) {
    const char* baseline = r.mode == "view"      ? "protozero"
                           : r.mode == "columns" ? "protobuf+copy"
                                                 : "protobuf";
    const double base = Speed(result, r.corpus, baseline, r.mode);
    const double records_per_s =
        r.mb_per_s * 1e6 * static_cast<double>(r.messages) / static_cast<double>(r.bytes);
    absl::StrAppendFormat(&out, "%-6s %-18s %-7s %10.1f %12.0f %11.2fx\n", r.corpus,
                          r.implementation, r.mode, r.mb_per_s, records_per_s,
                          base > 0 ? r.mb_per_s / base : 0);
  }
  out +=
      "(baseline: upstream protobuf's ParseFromString in the same mode; for mode view, "
      "protozero; for mode columns (records to Arrow columns, bench/realdata_columns.h), "
      "ParseFromString into a reused message plus copying the fields into the same column "
      "buffers. pbaccel: the generated parser (pbaccel_cc_parser); pbaccel_reflection: "
      "ParseMessage without it)\n";
  for (const std::string& n : result.notes) absl::StrAppend(&out, n, "\n");
  return out;
}

}  // namespace bench
}  // namespace pbaccel
