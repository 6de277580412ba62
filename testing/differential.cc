// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/differential.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/kernels.h"
#include "pbaccel/message_parser.h"
#include "pbaccel/testing/wire_builder.h"

namespace pbaccel {
namespace testing {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

std::string Hex(absl::string_view bytes) {
  return absl::BytesToHexString(bytes.substr(0, 256)) + (bytes.size() > 256 ? "..." : "");
}

}  // namespace

std::string DeterministicSerialization(const google::protobuf::MessageLite& m) {
  std::string out;
  bool ok;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    ok = m.SerializePartialToCodedStream(&coded);
  }
  // Upstream refuses only a message of 2 GiB or more: no bytes, rather than some of them.
  if (!ok) out = "(not serializable: 2 GiB or more)";
  return out;
}

namespace {

// What upstream makes of an input, for messages of type M (Message or MessageLite): the partial
// parse (kept, with its deterministic serialization, when accepted) and whether the full parse,
// which also checks required fields, accepts it.
template <typename M>
struct UpstreamParse {
  std::unique_ptr<M> partial;
  bool partial_ok;
  bool full_ok;
  std::string expected;  // partial's deterministic serialization; "" when rejected.
};

template <typename M>
UpstreamParse<M> ParseWithUpstream(absl::string_view bytes, const M& prototype) {
  const std::string input(bytes);
  UpstreamParse<M> upstream;
  upstream.partial.reset(prototype.New());
  upstream.partial_ok = upstream.partial->ParsePartialFromString(input);
  upstream.full_ok = std::unique_ptr<M>(prototype.New())->ParseFromString(input);
  if (upstream.partial_ok) upstream.expected = DeterministicSerialization(*upstream.partial);
  return upstream;
}

// A generated parser parses in place of a message's old contents (generated_parser.h: reused
// elements): into messages that already hold the input parsed twice (more old elements than the
// input has) and its first half (fewer; possibly a failed parse's leftovers), the result must be
// upstream's, and so must a MergeFrom afterwards, which takes the repeated fields' kept elements
// (they must have been left cleared).
std::string CompareReusedParse(absl::string_view bytes, const Message& prototype,
                               const UpstreamParse<Message>& upstream,
                               google::protobuf::util::MessageDifferencer& differencer) {
  const Message& partial = *upstream.partial;
  const std::string twice = absl::StrCat(bytes, bytes);
  const std::string half(bytes.substr(0, bytes.size() / 2));
  for (const std::string* old : {&twice, &half}) {
    const char* what = old == &twice ? "parsed in place of the input twice: "
                                     : "parsed in place of the input's first half: ";
    for (const bool check_required : {false, true}) {
      for (const bool on_arena : {false, true}) {  // An arena's message is cleared as upstream's.
        google::protobuf::Arena arena;
        std::unique_ptr<Message> on_heap(on_arena ? nullptr : prototype.New());
        Message* const ours = on_arena ? prototype.New(&arena) : on_heap.get();
        (void)ours->ParsePartialFromString(*old);  // Whatever it leaves, accepted or not.
        const absl::Status s =
            check_required ? ParseMessage(bytes, ours) : ParsePartialMessage(bytes, ours);
        const bool ok = check_required ? upstream.full_ok : upstream.partial_ok;
        const std::string how = absl::StrCat(what, on_arena ? "on an arena, " : "", "upstream ");
        if (s.ok() != ok) {
          return absl::StrCat(how, ok ? "accepts" : "rejects", ", pbaccel says ", s.ToString());
        }
        if (!s.ok()) continue;
        if (!differencer.Compare(partial, *ours) ||
            DeterministicSerialization(*ours) != upstream.expected) {
          return absl::StrCat(how, "gives ", partial.ShortDebugString(), ", pbaccel ",
                              ours->ShortDebugString());
        }
        std::unique_ptr<Message> merged(partial.New());
        merged->CopyFrom(partial);
        merged->MergeFrom(partial);
        ours->MergeFrom(partial);
        if (DeterministicSerialization(*ours) != DeterministicSerialization(*merged)) {
          return absl::StrCat(how,
                              "and pbaccel differ after a MergeFrom (uncleared kept elements)");
        }
      }
    }
  }
  return "";
}

}  // namespace

std::string CompareWithUpstream(absl::string_view bytes, const Message& prototype) {
  // Upstream logs missing required fields and invalid UTF-8.
  internal::compat::ScopedUpstreamLogHandler quiet(&internal::compat::DropLogLine);
  const UpstreamParse<Message> upstream = ParseWithUpstream(bytes, prototype);
  const Message& partial = *upstream.partial;
  const bool partial_ok = upstream.partial_ok;
  const bool full_ok = upstream.full_ok;
  const std::string& expected = upstream.expected;
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  // Both of pbaccel's paths: the generated parser when one is linked for the type, and the
  // reflection walk.
  const bool generated = HasGeneratedParser(prototype);
  const std::vector<absl::string_view> kernels = SupportedKernels();
  // The in-place parses (CompareReusedParse) under one kernel per input, chosen by its size, so
  // that a run over many inputs covers every kernel at a fraction of the cost of all for each.
  const absl::string_view reuse_kernel = kernels[bytes.size() % kernels.size()];
  for (absl::string_view kernel : kernels) {
    for (const bool use_generated : {true, false}) {
      if (use_generated && !generated) continue;
      ScopedKernelOverride force(kernel);
      std::unique_ptr<Message> ours(prototype.New());
      const absl::Status s = use_generated ? ParsePartialMessage(bytes, ours.get())
                                           : ParsePartialMessageByReflection(bytes, ours.get());
      const std::string where =
          absl::StrCat("kernel ", kernel, ", ", use_generated ? "generated parser" : "reflection",
                       ", ", prototype.GetDescriptor()->full_name(), ", input ", Hex(bytes), ": ");
      if (s.ok() != partial_ok) {
        return absl::StrCat(where, "upstream ", partial_ok ? "accepts" : "rejects",
                            ", pbaccel says ", s.ToString());
      }
      if (partial_ok) {
        if (!differencer.Compare(partial, *ours)) {
          std::string report;
          google::protobuf::util::MessageDifferencer reporter;
          reporter.set_field_comparator(&comparator);
          reporter.ReportDifferencesToString(&report);
          reporter.Compare(partial, *ours);
          return absl::StrCat(where, "messages differ: ", report);
        }
        const std::string got = DeterministicSerialization(*ours);
        if (got != expected) {
          size_t at = 0;
          while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
          return absl::StrCat(where, "re-serialized bytes differ from byte ", at, " of ",
                              expected.size(), " (pbaccel ", got.size(), " bytes): upstream ",
                              Hex(absl::string_view(expected).substr(at > 8 ? at - 8 : 0, 40)),
                              " pbaccel ",
                              Hex(absl::string_view(got).substr(at > 8 ? at - 8 : 0, 40)));
        }
      }
      std::unique_ptr<Message> ours_full(prototype.New());
      const absl::Status sf = use_generated ? ParseMessage(bytes, ours_full.get())
                                            : ParseMessageByReflection(bytes, ours_full.get());
      if (sf.ok() != full_ok) {
        return absl::StrCat(where, "(required fields) upstream ", full_ok ? "accepts" : "rejects",
                            ", pbaccel says ", sf.ToString());
      }
      if (use_generated && kernel == reuse_kernel) {
        const std::string reused = CompareReusedParse(bytes, prototype, upstream, differencer);
        if (!reused.empty()) return absl::StrCat(where, reused);
      }
    }
  }
  return "";
}

std::string CompareLiteWithUpstream(absl::string_view bytes,
                                    const google::protobuf::MessageLite& prototype,
                                    gen::MergeFn merge) {
  const auto parse = [merge](absl::string_view in, google::protobuf::MessageLite* msg,
                             bool partial) {
    return gen::Run(in, msg, partial ? gen::Mode::kParsePartial : gen::Mode::kParse, merge);
  };
  using google::protobuf::MessageLite;
  internal::compat::ScopedUpstreamLogHandler quiet(&internal::compat::DropLogLine);
  const UpstreamParse<MessageLite> upstream = ParseWithUpstream(bytes, prototype);
  const bool partial_ok = upstream.partial_ok;
  const std::string& expected = upstream.expected;
  for (absl::string_view kernel : SupportedKernels()) {
    ScopedKernelOverride force(kernel);
    const std::string where = absl::StrCat("kernel ", kernel, ", generated parser, ",
                                           prototype.GetTypeName(), ", input ", Hex(bytes), ": ");
    std::unique_ptr<MessageLite> ours(prototype.New());
    const absl::Status s = parse(bytes, ours.get(), /*partial=*/true);
    if (s.ok() != partial_ok) {
      return absl::StrCat(where, "upstream ", partial_ok ? "accepts" : "rejects", ", pbaccel says ",
                          s.ToString());
    }
    if (partial_ok) {
      if (DeterministicSerialization(*ours) != expected) {
        return absl::StrCat(where, "re-serialized bytes differ: upstream ", Hex(expected),
                            " pbaccel ", Hex(DeterministicSerialization(*ours)));
      }
      // In place of its own earlier parse: the old elements are reused.
      const absl::Status again = parse(bytes, ours.get(), /*partial=*/true);
      if (!again.ok() || DeterministicSerialization(*ours) != expected) {
        return absl::StrCat(where, "parsed again in place: ", again.ToString(), ", bytes ",
                            Hex(DeterministicSerialization(*ours)));
      }
    }
    std::unique_ptr<MessageLite> ours_full(prototype.New());
    const absl::Status sf = parse(bytes, ours_full.get(), /*partial=*/false);
    if (sf.ok() != upstream.full_ok) {
      return absl::StrCat(where, "(required fields) upstream ",
                          upstream.full_ok ? "accepts" : "rejects", ", pbaccel says ",
                          sf.ToString());
    }
  }
  return "";
}

namespace {

// The report of the run in progress on this thread, which CountUpstreamLogLine counts into.
thread_local DifferentialReport* g_counting_report = nullptr;

// Counts a line upstream logged into the report of the run in progress; prints a fatal one too.
void CountUpstreamLogLine(bool fatal, absl::string_view file, int line, absl::string_view message) {
  DifferentialReport* report = g_counting_report;
  if (report != nullptr && report->upstream_log_lines++ == 0) {
    report->first_upstream_log_line = absl::StrCat(file, ":", line, ": ", message);
  }
  if (fatal) {
    std::fprintf(stderr, "libprotobuf FATAL %s\n",
                 absl::StrCat(file, ":", line, " ", message).c_str());
  }
}

// While alive, the lines upstream logs (outside the comparisons, which drop their own) are counted
// into `report`; the run before it (if any) counts again afterwards.
class CountUpstreamLogLines {
 public:
  explicit CountUpstreamLogLines(DifferentialReport* report)
      : outer_(std::exchange(g_counting_report, report)) {}
  ~CountUpstreamLogLines() { g_counting_report = outer_; }
  CountUpstreamLogLines(const CountUpstreamLogLines&) = delete;
  CountUpstreamLogLines& operator=(const CountUpstreamLogLines&) = delete;

 private:
  DifferentialReport* const outer_;
  internal::compat::ScopedUpstreamLogHandler handler_{&CountUpstreamLogLine};
};

// The inputs of a differential run: random messages of `prototype`'s type (a generated type, or a
// DynamicMessage twin of a LITE_RUNTIME type) interleaved, their mutations and truncations, and
// nesting around the recursion limit; each is passed to `compare` ("" when pbaccel agrees with
// upstream), and `rejected_by_upstream` says whether upstream rejects it.
template <typename Compare, typename Rejects>
DifferentialReport RunInputs(const Message& prototype, const DifferentialOptions& options,
                             Compare compare, Rejects rejected_by_upstream) {
  DifferentialReport report;
  const CountUpstreamLogLines count(&report);
  for (const KernelInfo& k : DescribeKernels()) {
    if (k.supported) {
      report.kernels_run.emplace_back(k.name);
    } else {
      report.kernels_skipped.push_back(absl::StrCat(k.name, " (", k.missing_features, ")"));
    }
  }
  std::mt19937_64 rng(options.seed);
  auto check = [&](absl::string_view bytes, bool malformed) {
    (malformed ? report.malformed_cases : report.valid_cases)++;
    if (rejected_by_upstream(bytes)) report.rejected++;
    std::string diff = compare(bytes);
    if (!diff.empty() && report.failures.size() < 20) report.failures.push_back(std::move(diff));
  };
  report.random_messages = IterationsToRun(options.iterations);
  for (int i = 0; i < report.random_messages; ++i) {
    std::unique_ptr<Message> msg(prototype.New());
    FillRandom(msg.get(), rng, options);
    const std::string bytes = EncodeInterleaved(*msg, rng);
    check(bytes, false);
    for (const std::string& m :
         Mutate(bytes, rng, static_cast<size_t>(options.mutations_per_message))) {
      check(m, true);
    }
    if (i == 0) {
      // Truncation at every byte of one message's first 4,096 (at every k-th byte when
      // IterationsToRun asks for a share: the cuts are spread over the same bytes).
      const size_t span = std::min<size_t>(bytes.size(), 4096);
      const size_t cuts = static_cast<size_t>(IterationsToRun(static_cast<int>(span)));
      const size_t stride = cuts == 0 ? 1 : (span + cuts - 1) / cuts;
      for (size_t cut = 0; cut < span; cut += stride) check(bytes.substr(0, cut), true);
    }
  }
  // Nesting around the recursion limit, through any self-referencing submessage field.
  const Descriptor* d = prototype.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->type() != FieldDescriptor::TYPE_MESSAGE || f->message_type() != d || f->is_map())
      continue;
    for (int depth : {98, 99, 100, 101, 102, 150}) {
      std::string bytes;
      // Innermost first: a packed field worth accelerating, then wrap depth times.
      std::unique_ptr<Message> leaf(prototype.New());
      std::mt19937_64 leaf_rng(depth);
      DifferentialOptions flat;
      flat.max_depth = 0;
      FillRandom(leaf.get(), leaf_rng, flat);
      bytes = leaf->SerializePartialAsString();
      for (int k = 0; k < depth; ++k) {
        std::string wrapped;
        AppendTag(static_cast<uint64_t>(f->number()), 2, &wrapped);
        AppendVarint(bytes.size(), &wrapped);
        bytes = wrapped + bytes;
      }
      check(bytes, true);
    }
  }
  return report;
}

}  // namespace

DifferentialReport RunDifferential(const Message& prototype, const DifferentialOptions& options) {
  DifferentialReport report = RunInputs(
      prototype, options,
      [&](absl::string_view bytes) { return CompareWithUpstream(bytes, prototype); },
      [&](absl::string_view bytes) {
        std::unique_ptr<Message> probe(prototype.New());
        return !probe->ParsePartialFromString(std::string(bytes));
      });
  report.generated_parser = HasGeneratedParser(prototype);
  return report;
}

DifferentialReport RunLiteDifferential(const Message& twin,
                                       const google::protobuf::MessageLite& prototype,
                                       gen::MergeFn merge, const DifferentialOptions& options) {
  DifferentialReport report = RunInputs(
      twin, options,
      [&](absl::string_view bytes) { return CompareLiteWithUpstream(bytes, prototype, merge); },
      [&](absl::string_view bytes) {
        std::unique_ptr<google::protobuf::MessageLite> probe(prototype.New());
        return !probe->ParsePartialFromString(std::string(bytes));
      });
  report.generated_parser = true;
  return report;
}

}  // namespace testing
}  // namespace pbaccel
