// Copyright 2026 The pbaccel Authors.
//
// instruction_counts: a fixed amount of decoding work and nothing else, repeated, for counting the
// instructions it retires where its time cannot be measured (AArch64 under qemu: docs/arm64.md;
// tools/arm64_instructions.sh runs it under qemu's instruction-counting plugin).
//
//   instruction_counts --workload=W2 --n=4096 --decoder=upstream|kernel:<name> --reps=R
//       a synthetic row (docs/workloads.md; bench/packed_input.h's inputs and operations, as
//       //bench:compare times them): upstream's ParseFromString of the message holding the packed
//       field, or a kernel's decode called directly;
//   instruction_counts --corpus=osm|tiles|pprof --data=DIR --decoder=upstream|pbaccel --reps=R
//       a real corpus (testing/corpora/realdata_corpus.h), every message parsed into one reused
//       message: upstream's ParseFromString, or pbaccel::ParseMessage (the generated parsers, with
//       the kernel PBACCEL_KERNEL names or the automatic one); --mode=reuse parses each input into
//       a message of its own, kept across the repetitions (realdata's "messages reused"),
//       --mode=fresh into a new message each time, --mode=arena into a new message on a new arena
//       (realdata's modes of those names);
//   instruction_counts --corpus=osm|tiles --data=DIR --decoder=view:<reader> ...
//       the zero-copy reads of every packed field (testing/corpora/realdata_views.h), <reader> as
//       realdata names it: pbaccel (FieldReader and DecodePacked* into a span), pbaccel_foreach,
//       pbaccel_iterator (PackedView's ForEach, range-for) or protozero (pbf_reader and its
//       packed iterators);
//   instruction_counts --corpus=osm|tiles --data=DIR --decoder=columns:<way>
//       the corpus to columns, <way> pbaccel or protobuf+copy (bench/realdata_columns.h's ways):
//       DecodeToArrow, or upstream's parse plus the copies into the same column buffers.
//
// Before the repetitions it checks the decoder's result against upstream's (exits 1 on a
// difference). Prints the units one repetition decodes (values, or message bytes), and a checksum
// of the values (a workload) or the number of messages parsed (a corpus).
// Two runs, with R and 2R repetitions, differ by exactly R repetitions' instructions: loading,
// checking and start-up cancel out.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "bench/packed_input.h"
#include "bench/realdata_columns.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/util/message_differencer.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/pbaccel.h"
#include "proto/osmformat.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "testing/corpora/realdata_corpus.h"
#include "testing/corpora/realdata_views.h"

namespace pbaccel {
namespace {

struct Options {
  std::string workload;
  size_t n = 4096;
  std::string corpus;
  std::string data = "testing/data";
  std::string decoder = "upstream";
  // realdata's modes: one message for the corpus ("stream"), one per input kept ("reuse"), a new
  // one per parse ("fresh"), a new one on a new arena per parse ("arena").
  std::string mode = "stream";
  long reps = 1;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "instruction_counts: %s\n", message.c_str());
  std::exit(1);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    const auto value = [&](absl::string_view flag, std::string* out) {
      if (!absl::StartsWith(arg, flag)) return false;
      *out = std::string(arg.substr(flag.size()));
      return true;
    };
    std::string v;
    if (value("--workload=", &o.workload) || value("--corpus=", &o.corpus) ||
        value("--data=", &o.data) || value("--decoder=", &o.decoder)) {
      continue;
    }
    if (value("--n=", &v) && absl::SimpleAtoi(v, &o.n)) continue;
    if (value("--mode=", &v) && (v == "reuse" || v == "stream" || v == "fresh" || v == "arena")) {
      o.mode = v;
      continue;
    }
    if (value("--reps=", &v) && absl::SimpleAtoi(v, &o.reps) && o.reps >= 0) continue;
    Fail("unknown or malformed argument: " + std::string(arg));
  }
  if (o.workload.empty() == o.corpus.empty()) Fail("give --workload=... or --corpus=...");
  return o;
}

int RunWorkload(const Options& o) {
  const workloads::PayloadWorkload* w = workloads::FindPayloadWorkload(o.workload);
  if (w == nullptr) Fail("no workload " + o.workload);
  const bench::PackedInput input = bench::MakePackedInput(*w, o.n);
  bench::DecodeOutputs out;
  const internal::KernelDescriptor* kernel = nullptr;
  if (absl::StartsWith(o.decoder, "kernel:")) {
    const internal::KernelEntry* entry = internal::FindKernel(o.decoder.substr(7));
    if (entry == nullptr) Fail("no kernel " + o.decoder.substr(7));
    kernel = entry->kernel;
    // Checked against upstream first, through the public API under this kernel.
    ScopedKernelOverride use(kernel->name);
    for (size_t i = 0; i < input.arrays; ++i) {
      if (bench::PbaccelValues(input, i) != bench::UpstreamValues(input, i)) {
        Fail("kernel " + std::string(kernel->name) + " differs from upstream on array " +
             std::to_string(i));
      }
    }
  } else if (o.decoder != "upstream") {
    Fail("--decoder for a workload: upstream or kernel:<name>");
  }
  uint64_t checksum = 0;
  for (long r = 0; r < o.reps; ++r) {
    checksum += kernel != nullptr ? bench::DecodeWithKernel(*kernel, input, &out)
                                  : bench::ParseWithUpstream(input, &out);
  }
  std::printf("workload %s n=%zu decoder=%s reps=%ld values_per_rep=%zu checksum=%llu\n",
              o.workload.c_str(), o.n, o.decoder.c_str(), o.reps, input.total_values(),
              static_cast<unsigned long long>(checksum));
  return 0;
}

// The zero-copy reads of a corpus: the one --decoder names (view:<reader>, a name of
// `pbaccel_views` or protozero), each of pbaccel's checked equal to protozero's on every message
// first.
int RunViews(const Options& o, const corpora::Corpus& corpus,
             const std::vector<corpora::NamedView>& pbaccel_views, corpora::ViewFn protozero_view) {
  const std::string name = o.decoder.substr(std::strlen("view:"));
  corpora::ViewFn view = name == "protozero" ? protozero_view : nullptr;
  for (const corpora::NamedView& v : pbaccel_views) {
    if (name == v.name) view = v.read;
  }
  if (view == nullptr) Fail("--decoder for views: view:protozero or view:<a pbaccel reader>");
  const absl::Status agree =
      corpora::CheckViewsAgree(corpus.name, corpus.messages, protozero_view, pbaccel_views);
  if (!agree.ok()) Fail(agree.ToString());
  uint64_t values = 0;
  for (long r = 0; r < o.reps; ++r) {
    for (const std::string& bytes : corpus.messages) {
      const absl::StatusOr<corpora::ViewChecksum> c = view(bytes);
      if (!c.ok()) Fail("a view rejected a message");
      values += c->values;
    }
  }
  std::printf(
      "corpus %s decoder=%s kernel=%s reps=%ld bytes_per_rep=%zu messages=%zu values=%llu\n",
      corpus.name.c_str(), o.decoder.c_str(), std::string(ActiveKernelName()).c_str(), o.reps,
      corpus.bytes(), corpus.messages.size(), static_cast<unsigned long long>(values));
  return 0;
}

// A corpus to columns by one of realdata_columns.h's ways, checked equal to protozero's first.
int RunColumns(const Options& o, const corpora::Corpus& corpus,
               const std::vector<bench::ColumnarWay>& ways) {
  const std::string name = o.decoder.substr(8);
  const bench::ColumnarWay* way = nullptr;
  const bench::ColumnarWay* reference = nullptr;
  for (const bench::ColumnarWay& w : ways) {
    if (w.name == name) way = &w;
    if (w.name == "protozero") reference = &w;
  }
  if (way == nullptr || reference == nullptr) Fail("no columnar way " + name);
  const absl::StatusOr<corpora::ViewChecksum> a = way->run(corpus.messages, true);
  const absl::StatusOr<corpora::ViewChecksum> b = reference->run(corpus.messages, true);
  if (!a.ok() || !b.ok() || !(*a == *b)) Fail(name + "'s columns differ from protozero's");
  uint64_t records = 0;
  for (long r = 0; r < o.reps; ++r) {
    const absl::StatusOr<corpora::ViewChecksum> c = way->run(corpus.messages, false);
    if (!c.ok()) Fail(name + " failed: " + c.status().ToString());
    records += c->values;
  }
  std::printf(
      "corpus %s decoder=%s kernel=%s reps=%ld bytes_per_rep=%zu messages=%zu "
      "records=%llu\n",
      corpus.name.c_str(), o.decoder.c_str(), std::string(ActiveKernelName()).c_str(), o.reps,
      corpus.bytes(), corpus.messages.size(), static_cast<unsigned long long>(records));
  return 0;
}

template <typename Message>
int RunCorpus(const Options& o, const corpora::Corpus& corpus) {
  const bool upstream = o.decoder == "upstream";
  if (!upstream && o.decoder != "pbaccel") Fail("--decoder for a corpus: upstream or pbaccel");
  // One message for the whole corpus (stream), or one per input (reuse); fresh and arena make
  // theirs in the loop, and are checked in one message as stream is.
  const bool reuse = o.mode == "reuse";
  std::vector<Message> messages(reuse ? corpus.messages.size() : 1);
  const auto message_for = [&](size_t i) -> Message& { return messages[reuse ? i : 0]; };
  const auto parse = [&](const std::string& bytes, Message* message) {
    return upstream ? message->ParseFromString(bytes) : ParseMessage(bytes, message).ok();
  };
  for (size_t i = 0; i < corpus.messages.size(); ++i) {
    const std::string& bytes = corpus.messages[i];
    Message& message = message_for(i);
    Message expected;
    if (!expected.ParseFromString(bytes)) Fail("upstream rejects a message of " + corpus.name);
    const absl::Status s = ParseMessage(bytes, &message);
    if (!s.ok() || !google::protobuf::util::MessageDifferencer::Equals(expected, message)) {
      Fail("pbaccel differs from upstream on " + corpus.name + ": " + s.ToString());
    }
  }
  // Nothing but the parses in the loop (both are calls into other libraries, which the compiler
  // keeps): work on the result per message would be counted for both decoders alike.
  uint64_t parsed = 0;
  for (long r = 0; r < o.reps; ++r) {
    for (size_t i = 0; i < corpus.messages.size(); ++i) {
      const std::string& bytes = corpus.messages[i];
      bool ok;
      if (o.mode == "fresh") {
        Message message;
        ok = parse(bytes, &message);
      } else if (o.mode == "arena") {
        google::protobuf::Arena arena;
        ok = parse(bytes, internal::compat::CreateOnArena<Message>(&arena));
      } else {
        ok = parse(bytes, &message_for(i));
      }
      if (!ok) Fail(std::string(upstream ? "upstream" : "pbaccel") + " rejected a message");
      ++parsed;
    }
  }
  std::printf(
      "corpus %s mode=%s decoder=%s kernel=%s reps=%ld bytes_per_rep=%zu messages=%zu "
      "parsed=%llu\n",
      corpus.name.c_str(), o.mode.c_str(), o.decoder.c_str(),
      std::string(ActiveKernelName()).c_str(), o.reps, corpus.bytes(), corpus.messages.size(),
      static_cast<unsigned long long>(parsed));
  return 0;
}

int Main(int argc, char** argv) {
  const Options o = ParseOptions(argc, argv);
  if (!o.workload.empty()) return RunWorkload(o);
  const auto load = [&](absl::StatusOr<corpora::Corpus> c) {
    if (!c.ok()) Fail(c.status().ToString());
    if (c->messages.empty()) Fail("no " + o.corpus + " files under " + o.data);
    return *std::move(c);
  };
  if (absl::StartsWith(o.decoder, "view:")) {
    if (o.corpus == "osm") {
      return RunViews(o, load(corpora::LoadOsm(o.data)), corpora::PbaccelOsmViews(),
                      &corpora::ReadOsmBlockProtozero);
    }
    if (o.corpus == "tiles") {
      return RunViews(o, load(corpora::LoadMvt(o.data)), corpora::PbaccelTileViews(),
                      &corpora::ReadTileProtozero);
    }
    Fail("views read osm and tiles");
  }
  if (absl::StartsWith(o.decoder, "columns:")) {
    if (o.corpus == "osm")
      return RunColumns(o, load(corpora::LoadOsm(o.data)), bench::OsmColumnarWays());
    if (o.corpus == "tiles") {
      return RunColumns(o, load(corpora::LoadMvt(o.data)), bench::TileColumnarWays());
    }
    Fail("columns read osm and tiles");
  }
  if (o.corpus == "osm")
    return RunCorpus<OSMPBF::PrimitiveBlock>(o, load(corpora::LoadOsm(o.data)));
  if (o.corpus == "tiles") return RunCorpus<vector_tile::Tile>(o, load(corpora::LoadMvt(o.data)));
  if (o.corpus == "pprof") {
    return RunCorpus<perftools::profiles::Profile>(o, load(corpora::LoadPprof(o.data)));
  }
  Fail("no corpus " + o.corpus + " (osm, tiles, pprof)");
}

}  // namespace
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::Main(argc, argv); }
