// Copyright 2026 The pbaccel Authors.
//
// libFuzzer target: arbitrary bytes against upstream protobuf and every pbaccel kernel.
//
// The first byte picks what the rest is (its value mod 8): a serialized message of one of the test
// types (0-3) or of the real-data schemas (5: an OSM PrimitiveBlock, 6: a vector tile, 7: a pprof
// profile; and, built on protobuf 27 or later, PBACCEL_PROTOBUF_HAS_EDITIONS, a first byte of 0xF0
// or more picks proto/editions_2023.proto's Features, every feature beside its default, and in
// builds that compiled proto/editions_2024.proto, PBACCEL_TEST_EDITION_2024, one of 0xF8 or more
// its Strings, VIEW strings and CORD fields among them), parsed by
// upstream and by pbaccel::ParseMessage under every supported kernel (same decision, same message,
// same bytes; each type's generated parser is linked, so ParseMessage runs it; the test types 0, 1
// and 3 also as their LITE_RUNTIME twins, test2lite/test3lite, whose only pbaccel parser is the
// generated one, compared by re-serialization), or (4) a packed varint payload (decoded by every
// kernel in every format, both modes and three output capacities, compared with the scalar
// reference: same status, offset, count and values; and, windows of it inside the input, by the
// public span forms given a buffer end and by PackedView, every type under every kernel, against
// the scalar kernel's span form without one: same status and values). Every message is also decoded
// into Arrow columns (pbaccel::DecodeToArrow) under every supported kernel, as a batch of itself
// and an empty record, failing the batch and with bad records made null, and checked against
// upstream (testing/columnar_check.h). Any difference aborts. tools/make_fuzz_seeds.py writes the
// seeds (tests/fuzz_corpus), among them excerpts of the vendored real data.
//
//   ./bazelw build --config=fuzz //tests:message_fuzzer
//   bazel-bin/tests/message_fuzzer -max_total_time=60 /tmp/corpus tests/fuzz_corpus
//
// Against protobuf 33.5 (editions 2023 and 2024 included), CMake with clang:
// docs/protobuf_versions.md, "Fuzzing against protobuf 33.5".

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
#include "pbaccel/internal/protobuf_compat.h"
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
#if PBACCEL_PROTOBUF_HAS_EDITIONS
#include "proto/editions_2023.pb.h"
#endif
#if PBACCEL_TEST_EDITION_2024
#include "proto/editions_2024.pb.h"
#endif
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "tests/message_fuzzer.h"
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

// A span of n values of type T over `storage`, resized to hold them (zeroed).
template <typename T>
absl::Span<T> SpanOver(std::vector<uint64_t>* storage, size_t n) {
  storage->assign(n * sizeof(T) / sizeof(uint64_t) + 1, 0);
  return absl::Span<T>(reinterpret_cast<T*>(storage->data()), n);
}

// A decode's result against the reference's: the same status (code and message) and, where both
// succeed, the same values (in the storages given).
template <typename T>
bool SameDecode(const absl::StatusOr<size_t>& got, const std::vector<uint64_t>& got_values,
                const absl::StatusOr<size_t>& want, const std::vector<uint64_t>& want_values) {
  if (got.ok() != want.ok()) return false;
  if (!got.ok()) return got.status() == want.status();
  return *got == *want && std::memcmp(got_values.data(), want_values.data(), *got * sizeof(T)) == 0;
}

std::string Describe(const absl::StatusOr<size_t>& r) {
  return r.ok() ? absl::StrCat(*r, " values") : r.status().ToString();
}

// One varint type's public zero-copy forms on `payload`, which lies in a buffer ending at
// `buffer_end`, under every supported kernel: the span form given the buffer end (`with_end`) and
// PackedView's ForEach and iterator (kType), against the span form without it (`without_end`)
// under the scalar kernel, computed once. Output spans of the span form: one value per payload
// byte and 16 more (room for decode_tiny's whole stores), the reference's count exactly, and one
// short of it (refused alike). PackedView must give the reference's values, or when the reference
// fails its status (values decoded before the malformed chunk may have been handed out).
template <typename T, pbaccel::PackedType kType, typename WithEnd, typename WithoutEnd>
std::string CompareZeroCopyForms(const char* type, absl::string_view payload,
                                 const char* buffer_end, WithEnd with_end, WithoutEnd without_end) {
  struct Reference {
    size_t room;
    absl::StatusOr<size_t> result;
    std::vector<uint64_t> values;
  };
  std::vector<Reference> references;
  {
    pbaccel::ScopedKernelOverride scalar("scalar");
    const auto decode = [&](size_t room) {
      Reference r{room, 0, {}};
      r.result = without_end(payload, SpanOver<T>(&r.values, room));
      references.push_back(std::move(r));
    };
    decode(payload.size() + 16);
    const absl::StatusOr<size_t> count = references[0].result;
    if (count.ok()) decode(*count);
    if (count.ok() && *count > 0) decode(*count - 1);
  }
  const Reference& roomy = references[0];
  std::vector<uint64_t> got_values;
  for (absl::string_view kernel : pbaccel::SupportedKernels()) {
    pbaccel::ScopedKernelOverride force(kernel);
    for (const Reference& want : references) {
      const absl::StatusOr<size_t> got =
          with_end(payload, buffer_end, SpanOver<T>(&got_values, want.room));
      if (!SameDecode<T>(got, got_values, want.result, want.values)) {
        return absl::StrCat("span form with a buffer end, kernel ", kernel, ", ", type, ", ",
                            payload.size(), "-byte payload with ", buffer_end - payload.data(),
                            " bytes to the buffer end, room ", want.room, ": ", Describe(got),
                            " against the scalar span form's ", Describe(want.result));
      }
    }
    const pbaccel::PackedView<kType> view(payload);
    std::vector<T> each;
    const absl::Status each_status = view.ForEach([&each](T v) { each.push_back(v); });
    std::vector<T> iterated;
    auto it = view.begin();
    for (const auto stop = view.end(); it != stop; ++it) iterated.push_back(*it);
    const auto view_diff = [&](const char* form, const absl::Status& status,
                               const std::vector<T>& values) -> std::string {
      std::vector<uint64_t> storage;
      std::copy(values.begin(), values.end(), SpanOver<T>(&storage, values.size()).begin());
      const absl::StatusOr<size_t> got =
          status.ok() ? absl::StatusOr<size_t>(values.size()) : absl::StatusOr<size_t>(status);
      if (SameDecode<T>(got, storage, roomy.result, roomy.values)) return "";
      return absl::StrCat("PackedView's ", form, ", kernel ", kernel, ", ", type, ", ",
                          payload.size(), "-byte payload: ", Describe(got),
                          ", against the scalar span form's ", Describe(roomy.result));
    };
    std::string diff = view_diff("ForEach", each_status, each);
    if (diff.empty()) diff = view_diff("iterator", it.error(), iterated);
    if (!diff.empty()) return diff;
  }
  return "";
}

// The public zero-copy forms (CompareZeroCopyForms), every varint type, on windows of the input
// whose buffer end is the input's end: the whole input, its first half, its first 16 bytes and 16
// bytes from a third in (payloads decode_tiny may take, with the rest of the input behind them to
// read past into; the sanitizers see any read beyond the input), and a third of it from a third in.
std::string CheckZeroCopyForms(const uint8_t* data, size_t size) {
  const char* const begin = reinterpret_cast<const char*>(data);
  const char* const end = begin + size;
  const size_t third = size / 3;
  const absl::string_view windows[] = {
      absl::string_view(begin, size), absl::string_view(begin, size / 2),
      absl::string_view(begin, std::min<size_t>(size, 16)),
      absl::string_view(begin + third, std::min<size_t>(size - third, 16)),
      absl::string_view(begin + third, third)};
  for (const absl::string_view payload : windows) {
#define PBACCEL_COMPARE_ZERO_COPY_FORMS(Name, Format, T)                      \
  {                                                                           \
    std::string diff = CompareZeroCopyForms<T, pbaccel::PackedType::k##Name>( \
        #Name, payload, end,                                                  \
        [](absl::string_view p, const char* e, absl::Span<T> out) {           \
          return pbaccel::DecodePacked##Name(p, e, out);                      \
        },                                                                    \
        [](absl::string_view p, absl::Span<T> out) {                          \
          return pbaccel::DecodePacked##Name(p, out);                         \
        });                                                                   \
    if (!diff.empty()) return diff;                                           \
  }
    PBACCEL_PACKED_VARINT_TYPES(PBACCEL_COMPARE_ZERO_COPY_FORMS)
#undef PBACCEL_COMPARE_ZERO_COPY_FORMS
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

// The type an input's bytes after the first are parsed as, chosen by its first byte (the file
// comment); nullptr: a raw packed varint payload.
const google::protobuf::Message* InputType(uint8_t first) {
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
#if PBACCEL_TEST_EDITION_2024
  if (first >= 0xF8) return &pbaccel::editions2024::Strings::default_instance();
#endif
#if PBACCEL_PROTOBUF_HAS_EDITIONS
  if (first >= 0xF0) return &pbaccel::editions::Features::default_instance();
#endif
  return kTypes[first % 8];
}

}  // namespace

std::string FuzzInputTypeName(uint8_t first) {
  const google::protobuf::Message* type = InputType(first);
  return type == nullptr ? "payload" : std::string(type->GetDescriptor()->full_name());
}

// Once per process, before any input (libFuzzer calls it; so does fuzz_corpus_main.cc): upstream's
// log lines go where the comparisons' handlers send them (dropped), not to stderr.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pbaccel::internal::compat::InitializeUpstreamLogging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const google::protobuf::Message* type = InputType(data[0]);
  const uint8_t selector = data[0] % 8;
  // The selector's own type, not an editions one that overrides it, has a LITE_RUNTIME twin.
  const bool plain = type == InputType(selector);
  ++data;
  --size;
  if (type == nullptr) {
    CheckKernels(data, size);
    const std::string diff = CheckZeroCopyForms(data, size);
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
  std::string diff = pbaccel::testing::CompareWithUpstream(bytes, *type);
  if (diff.empty() && plain && kLiteTwins[selector].prototype != nullptr) {
    diff = pbaccel::testing::CompareLiteWithUpstream(bytes, *kLiteTwins[selector].prototype,
                                                     kLiteTwins[selector].merge);
  }
  if (diff.empty()) diff = CheckColumns(bytes, *type);
  if (!diff.empty()) {
    std::fprintf(stderr, "%s\n", diff.c_str());
    std::abort();
  }
  return 0;
}
