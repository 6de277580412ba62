// Copyright 2026 The pbaccel Authors.
//
// main() of pbaccel_differential_test (tools/defs.bzl): one gtest case per message type named in
// --messages, each running pbaccel::testing::RunDifferential and failing on any difference. Each
// prints one line: the valid and malformed inputs, the paths (generated parser, reflection) and
// the kernels run, and how many lines upstream logged (counted, not printed). A LITE_RUNTIME type
// (no descriptor in the program) is tested with RunLiteDifferential: its generated parser, found
// by name, against upstream's lite parse, on inputs built from a DynamicMessage of its schema,
// read from --descriptor_sets (the FileDescriptorSets of its .proto and its imports, which the
// macro passes). A type that cannot be found fails with why: misspelt, or not linked.
//
//   differential_test --messages=pkg.A,pkg.B [--descriptor_sets=a.bin,b.bin] [--iterations=N]
//                     [--seed=S]

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/descriptor_database.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "pbaccel/generated_parser.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/testing/differential.h"

namespace {

pbaccel::testing::DifferentialOptions g_options;

// The schemas of LITE_RUNTIME types (--descriptor_sets): their full-runtime twins.
google::protobuf::SimpleDescriptorDatabase g_lite_schemas;
std::unique_ptr<google::protobuf::DescriptorPool> g_lite_pool;
google::protobuf::DynamicMessageFactory g_lite_factory;

// Adds every file of the FileDescriptorSet at `path` to g_lite_schemas.
bool ReadDescriptorSet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  google::protobuf::FileDescriptorSet set;
  if (!in || !set.ParseFromString(bytes.str())) {
    std::fprintf(stderr, "cannot read the FileDescriptorSet %s\n", path.c_str());
    return false;
  }
  for (const google::protobuf::FileDescriptorProto& file : set.file()) {
    google::protobuf::FileDescriptorProto known;
    if (!g_lite_schemas.FindFileByName(file.name(), &known)) g_lite_schemas.Add(file);
  }
  return true;
}

// Why `type` has no descriptor in the generated pool: misspelt (its package has other types), or
// its cc_proto_library is not linked (nothing of its package is), or it is a LITE_RUNTIME type
// (lite types have no descriptors, and this test builds its inputs by reflection).
std::string WhyNotFound(const std::string& type) {
  std::vector<std::string> all;
  // (A database that cannot list its names leaves `all` empty: the message only says less.)
  (void)google::protobuf::DescriptorPool::internal_generated_database()->FindAllMessageNames(&all);
  const size_t dot = type.rfind('.');
  const std::string package = dot == std::string::npos ? "" : type.substr(0, dot + 1);
  std::vector<std::string> same_package;
  for (const std::string& name : all) {
    if (absl::StartsWith(name, package) && name.find('.', package.size()) == std::string::npos) {
      same_package.push_back(name);
    }
  }
  if (!same_package.empty() && !package.empty()) {
    return absl::StrCat("no such message type: ", type,
                        " (linked types of its package: ", absl::StrJoin(same_package, ", "), ")");
  }
  return absl::StrCat(
      "message type ", type,
      " is not linked: add its cc_proto_library to deps (and, for a LITE_RUNTIME type, its "
      "pbaccel_cc_parser library, and its proto_library to lite_protos)");
}

// One message type, registered at run time from --messages.
class DifferentialTest : public ::testing::Test {
 public:
  explicit DifferentialTest(std::string type) : type_(std::move(type)) {}

  void TestBody() override {
    const google::protobuf::Descriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type_);
    const pbaccel::gen::Registration lite = pbaccel::gen::FindLiteParser(type_);
    pbaccel::testing::DifferentialReport report;
    const char* paths = "generated parser and reflection";
    if (d != nullptr) {
      const google::protobuf::Message* prototype =
          google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
      report = RunDifferential(*prototype, g_options);
      if (!report.generated_parser) paths = "reflection (no generated parser linked)";
    } else if (lite.merge != nullptr) {
      const google::protobuf::Descriptor* twin = g_lite_pool->FindMessageTypeByName(type_);
      if (twin == nullptr) {
        GTEST_FAIL() << type_ << " is a LITE_RUNTIME type with a generated parser, but its schema "
                     << "is not in --descriptor_sets (pbaccel_differential_test: name its "
                     << "proto_library in lite_protos)";
      }
      report = RunLiteDifferential(*g_lite_factory.GetPrototype(twin), *lite.prototype, lite.merge,
                                   g_options);
      paths = "generated parser (LITE_RUNTIME; inputs from its schema's DynamicMessage)";
    } else {
      GTEST_FAIL() << WhyNotFound(type_);
    }
    std::printf(
        "%s: %d random messages, %zu valid and %zu malformed inputs, %zu rejected by both; paths: "
        "%s; kernels run: %s",
        type_.c_str(), report.random_messages, report.valid_cases, report.malformed_cases,
        report.rejected, paths, absl::StrJoin(report.kernels_run, " ").c_str());
    if (!report.kernels_skipped.empty()) {
      std::printf("; skipped, this CPU lacks: %s",
                  absl::StrJoin(report.kernels_skipped, ", ").c_str());
    }
    if (report.upstream_log_lines > 0) {
      std::printf("; upstream logged %d line%s while parsing the malformed inputs (first: %s)",
                  report.upstream_log_lines, report.upstream_log_lines == 1 ? "" : "s",
                  report.first_upstream_log_line.c_str());
    }
    std::printf("\n");
    EXPECT_GT(report.valid_cases, 0u);
    for (const std::string& f : report.failures) ADD_FAILURE() << f;
  }

 private:
  std::string type_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  pbaccel::internal::compat::InitializeUpstreamLogging();
  std::vector<std::string> messages;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--messages=")) {
      messages = absl::StrSplit(a, ',', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&a, "--iterations=")) {
      if (!absl::SimpleAtoi(a, &g_options.iterations)) return 2;
    } else if (absl::ConsumePrefix(&a, "--seed=")) {
      if (!absl::SimpleAtoi(a, &g_options.seed)) return 2;
    } else if (absl::ConsumePrefix(&a, "--descriptor_sets=")) {
      for (absl::string_view path : absl::StrSplit(a, absl::ByAnyChar(", "), absl::SkipEmpty())) {
        if (!ReadDescriptorSet(std::string(path))) return 2;
      }
    }
  }
  g_lite_pool = std::make_unique<google::protobuf::DescriptorPool>(&g_lite_schemas);
  if (messages.empty()) {
    std::fprintf(stderr,
                 "usage: %s --messages=pkg.A,pkg.B [--descriptor_sets=a.bin,...] [--iterations=N] "
                 "[--seed=S]\n",
                 argv[0]);
    return 2;
  }
  for (const std::string& type : messages) {
    ::testing::RegisterTest("Differential", type.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [type]() -> ::testing::Test* { return new DifferentialTest(type); });
  }
  return RUN_ALL_TESTS();
}
