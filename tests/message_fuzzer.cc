// Copyright 2026 The pbaccel Authors.
//
// libFuzzer target: arbitrary bytes against upstream protobuf and every pbaccel kernel.
//
// The first byte picks what the rest is (its value mod 8): a serialized message of one of the test
// types (0-3) or of the real-data schemas (5: an OSM PrimitiveBlock, 6: a vector tile, 7: a pprof
// profile), parsed by upstream and by pbaccel::ParseMessage under every supported kernel (same
// decision, same message, same bytes; each type's generated parser is linked, so ParseMessage runs
// it; the test types 0, 1 and 3 also as their LITE_RUNTIME twins, test2lite/test3lite, whose only
// pbaccel parser is the generated one, compared by re-serialization), or (4) a packed varint
// payload (decoded by every kernel in every format, both modes and three output capacities,
// compared with the scalar reference: same status, offset, count and values; and, windows of it
// inside the input, by the public span forms given a buffer end and by PackedView, every type
// under every kernel, against the scalar kernel's span form without one: same status and
// values). Every message is
// also decoded into Arrow columns (pbaccel::DecodeToArrow) under every supported kernel, as a batch
// of itself and an empty record, failing the batch and with bad records made null, and checked
// against upstream (testing/columnar_check.h). Any difference aborts. tools/make_fuzz_seeds.py
// writes the seeds (tests/fuzz_corpus), among them excerpts of the vendored real data.
//
//   ./bazelw build --config=fuzz //tests:message_fuzzer
//   bazel-bin/tests/message_fuzzer -max_total_time=60 /tmp/corpus tests/fuzz_corpus

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/message.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/kernels.h"
#include "pbaccel/packed_varint.h"
#include "pbaccel/packed_view.h"
#include "pbaccel/testing/columnar_check.h"
#include "pbaccel/testing/differential.h"
#include "proto/message_workloads.pb.h"
#include "proto/osmformat.pb.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test2_lite.pb.h"
#include "proto/parser_test2_lite.pbaccel.h"
#include "proto/parser_test3.pb.h"
#include "proto/parser_test3_lite.pb.h"
#include "proto/parser_test3_lite.pbaccel.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "tests/varint_test_util.h"

namespace {

using pbaccel::internal::DecodeResult;
using pbaccel::internal::KernelDescriptor;
using pbaccel::internal::VarintFormat;

void CheckKernels(const uint8_t* data, size_t size) {
  const pbaccel::internal::KernelEntry* scalar = pbaccel::internal::FindKernel("scalar");
  const size_t count = scalar->kernel->count_terminators(data, data + size);
  // Output capacities: exactly the count (as the API reserves), half of it (the output fills
  // first), and one slot per byte (a reused field's spare capacity).
  for (const size_t cap : {count, count / 2, size}) {
    for (int f = 0; f < pbaccel::internal::kNumVarintFormats; ++f) {
      for (bool strict : {false, true}) {
        const auto format = static_cast<VarintFormat>(f);
        const size_t elem = pbaccel::testing::OutputSize(format);
        std::vector<uint64_t> expected(cap + 1), got(cap + 1);
        const DecodeResult want =
            scalar->kernel->Decoder(format, strict)(data, data + size, expected.data(), cap, 7);
        for (absl::string_view name : pbaccel::SupportedKernels()) {
          const KernelDescriptor& k = *pbaccel::internal::FindKernel(name)->kernel;
          std::fill(got.begin(), got.end(), 0);
          const DecodeResult r = k.Decoder(format, strict)(data, data + size, got.data(), cap, 7);
          if (r.status != want.status || r.pos != want.pos || r.count != want.count ||
              std::memcmp(got.data(), expected.data(), r.count * elem) != 0) {
            std::fprintf(stderr,
                         "kernel %s differs from scalar: format %d strict %d cap %zu (status "
                         "%d/%d, count %zu/%zu)\n",
                         k.name, f, strict, cap, static_cast<int>(r.status),
                         static_cast<int>(want.status), r.count, want.count);
            std::abort();
          }
        }
      }
    }
  }
}

// One type's span form given a buffer end (packed_varint.h) on `payload`, which lies in a buffer
// ending at `buffer_end`, under the active kernel, against the span form without one under the
// scalar kernel: the same status (code and message) and, when it succeeds, the same values.
// Output spans: one value per payload byte and 16 more (room for decode_tiny's whole stores), the
// reference's count exactly, and one short of it (refused alike).
template <typename T, typename WithEnd, typename WithoutEnd>
std::string CompareSpanForm(const char* type, absl::string_view payload, const char* buffer_end,
                            absl::string_view kernel, WithEnd with_end, WithoutEnd without_end) {
  const auto span = [](std::vector<uint64_t>* storage, size_t n) {
    storage->assign(n / (8 / sizeof(T)) + 1, 0);
    return absl::Span<T>(reinterpret_cast<T*>(storage->data()), n);
  };
  std::vector<uint64_t> want_storage, got_storage;
  const size_t roomy = payload.size() + 16;
  absl::StatusOr<size_t> want;
  {
    pbaccel::ScopedKernelOverride scalar("scalar");
    want = without_end(payload, span(&want_storage, roomy));
  }
  std::vector<size_t> caps = {roomy};
  if (want.ok()) caps.push_back(*want);
  if (want.ok() && *want > 0) caps.push_back(*want - 1);
  for (const size_t cap : caps) {
    absl::StatusOr<size_t> expected = want;
    std::vector<uint64_t> expected_storage = want_storage;
    if (cap != roomy) {
      pbaccel::ScopedKernelOverride scalar("scalar");
      expected = without_end(payload, span(&expected_storage, cap));
    }
    const absl::StatusOr<size_t> got = with_end(payload, buffer_end, span(&got_storage, cap));
    const bool same =
        got.ok() == expected.ok() &&
        (got.ok() ? *got == *expected && std::memcmp(got_storage.data(), expected_storage.data(),
                                                     *got * sizeof(T)) == 0
                  : got.status() == expected.status());
    if (!same) {
      return absl::StrCat(
          "span form with a buffer end, kernel ", kernel, ", ", type, ", ", payload.size(),
          "-byte payload with ", buffer_end - payload.data(), " bytes to the buffer end, room ",
          cap, ": ", got.ok() ? absl::StrCat(*got, " values") : got.status().ToString(),
          " against the scalar span form's ",
          expected.ok() ? absl::StrCat(*expected, " values") : expected.status().ToString());
    }
  }
  return "";
}

// PackedView's ForEach and iterator for type kType on `payload` under the active kernel, against
// the scalar kernel's span form (`without_end`, as above): the same values when that succeeds;
// when it fails, the same status from both (values decoded before the malformed chunk may have
// been handed out).
template <pbaccel::PackedType kType, typename WithoutEnd>
std::string CompareView(const char* type, absl::string_view payload, absl::string_view kernel,
                        WithoutEnd without_end) {
  using T = typename pbaccel::PackedView<kType>::value_type;
  std::vector<uint64_t> storage(payload.size() / (8 / sizeof(T)) + 1);
  const absl::Span<T> span(reinterpret_cast<T*>(storage.data()), payload.size());
  absl::StatusOr<size_t> want;
  {
    pbaccel::ScopedKernelOverride scalar("scalar");
    want = without_end(payload, span);
  }
  const pbaccel::PackedView<kType> view(payload);
  std::vector<T> each;
  const absl::Status each_status = view.ForEach([&each](T v) { each.push_back(v); });
  std::vector<T> iterated;
  auto it = view.begin();
  for (const auto stop = view.end(); it != stop; ++it) iterated.push_back(*it);
  const absl::Status iterated_status = it.error();
  const auto same = [&](const absl::Status& status, const std::vector<T>& values) {
    if (!want.ok()) return status == want.status();
    return status.ok() && values.size() == *want &&
           std::equal(values.begin(), values.end(), span.begin());
  };
  const char* const form = !same(each_status, each)           ? "ForEach"
                           : !same(iterated_status, iterated) ? "iterator"
                                                              : nullptr;
  if (form == nullptr) return "";
  return absl::StrCat("PackedView's ", form, ", kernel ", kernel, ", ", type, ", ", payload.size(),
                      "-byte payload: ", each.size(), " / ", iterated.size(), " values, ",
                      each_status.ToString(), " / ", iterated_status.ToString(),
                      ", against the scalar span form's ",
                      want.ok() ? absl::StrCat(*want, " values") : want.status().ToString());
}

// The span forms given a buffer end and PackedView, every type under every supported kernel, on
// windows of the input whose buffer end is the input's end: the whole input, its first half, its
// first 16 bytes and 16 bytes from a third in (payloads decode_tiny may take, with the rest of the
// input behind them to read past into; the sanitizers see any read beyond the input), and a third
// of it from a third in.
std::string CheckSpanForms(const uint8_t* data, size_t size) {
  const char* const begin = reinterpret_cast<const char*>(data);
  const char* const end = begin + size;
  const size_t third = size / 3;
  const absl::string_view windows[] = {
      absl::string_view(begin, size), absl::string_view(begin, size / 2),
      absl::string_view(begin, std::min<size_t>(size, 16)),
      absl::string_view(begin + third, std::min<size_t>(size - third, 16)),
      absl::string_view(begin + third, third)};
  for (absl::string_view kernel : pbaccel::SupportedKernels()) {
    pbaccel::ScopedKernelOverride force(kernel);
    for (const absl::string_view payload : windows) {
#define PBACCEL_COMPARE_SPAN_FORM(Name, Format, T)                                           \
  {                                                                                          \
    const auto without_end = [](absl::string_view p, absl::Span<T> out) {                    \
      return pbaccel::DecodePacked##Name(p, out);                                            \
    };                                                                                       \
    std::string diff = CompareSpanForm<T>(                                                   \
        #Name, payload, end, kernel,                                                         \
        [](absl::string_view p, const char* e, absl::Span<T> out) {                          \
          return pbaccel::DecodePacked##Name(p, e, out);                                     \
        },                                                                                   \
        without_end);                                                                        \
    if (diff.empty()) {                                                                      \
      diff = CompareView<pbaccel::PackedType::k##Name>(#Name, payload, kernel, without_end); \
    }                                                                                        \
    if (!diff.empty()) return diff;                                                          \
  }
      PBACCEL_PACKED_VARINT_TYPES(PBACCEL_COMPARE_SPAN_FORM)
#undef PBACCEL_COMPARE_SPAN_FORM
    }
  }
  return "";
}

// DecodeToArrow against upstream on `bytes` (then an empty record, which some types reject:
// required fields) under every supported kernel, both ways of handling a bad record.
std::string CheckColumns(absl::string_view bytes, const google::protobuf::Message& prototype) {
  const absl::string_view records[] = {bytes, absl::string_view()};
  pbaccel::ColumnarOptions null_bad;
  null_bad.on_bad_record = pbaccel::ColumnarOptions::OnBadRecord::kNull;
  for (absl::string_view kernel : pbaccel::SupportedKernels()) {
    pbaccel::ScopedKernelOverride force(kernel);
    for (const pbaccel::ColumnarOptions& options : {pbaccel::ColumnarOptions(), null_bad}) {
      std::string diff = pbaccel::testing::CompareColumnsWithUpstream(prototype, records, options);
      if (!diff.empty()) return absl::StrCat("columns, kernel ", kernel, ": ", diff);
    }
  }
  return "";
}

struct LiteTwin {
  const google::protobuf::MessageLite* prototype;
  pbaccel::gen::MergeFn merge;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // Indexed by the selector mod 8; 4 (a raw payload) has no type.
  static const google::protobuf::Message* const kTypes[8] = {
      &pbaccel::test2::Everything::default_instance(),
      &pbaccel::test3::All3::default_instance(),
      &pbaccel::bench::Batch::default_instance(),
      &pbaccel::test2::Recursive::default_instance(),
      nullptr,
      &OSMPBF::PrimitiveBlock::default_instance(),
      &vector_tile::Tile::default_instance(),
      &perftools::profiles::Profile::default_instance(),
  };
  const uint8_t selector = data[0] % 8;
  ++data;
  --size;
  if (kTypes[selector] == nullptr) {
    CheckKernels(data, size);
    const std::string diff = CheckSpanForms(data, size);
    if (!diff.empty()) {
      std::fprintf(stderr, "%s\n", diff.c_str());
      std::abort();
    }
    return 0;
  }
  // The LITE_RUNTIME twins of the test types (the same schemas, package test2lite / test3lite).
  static const LiteTwin kLiteTwins[8] = {
      {&pbaccel::test2lite::Everything::default_instance(),
       &pbaccel::gen::MergeThunk<pbaccel::test2lite::Everything>},
      {&pbaccel::test3lite::All3::default_instance(),
       &pbaccel::gen::MergeThunk<pbaccel::test3lite::All3>},
      {nullptr, nullptr},
      {&pbaccel::test2lite::Recursive::default_instance(),
       &pbaccel::gen::MergeThunk<pbaccel::test2lite::Recursive>},
  };
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string diff = pbaccel::testing::CompareWithUpstream(bytes, *kTypes[selector]);
  if (diff.empty() && kLiteTwins[selector].prototype != nullptr) {
    diff = pbaccel::testing::CompareLiteWithUpstream(bytes, *kLiteTwins[selector].prototype,
                                                     kLiteTwins[selector].merge);
  }
  if (diff.empty()) diff = CheckColumns(bytes, *kTypes[selector]);
  if (!diff.empty()) {
    std::fprintf(stderr, "%s\n", diff.c_str());
    std::abort();
  }
  return 0;
}
