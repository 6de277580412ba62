// Copyright 2026 The pbaccel Authors.
//
// main() of pbaccel_differential_test (tools/defs.bzl): one gtest case per message type named in
// --messages, each running pbaccel::testing::RunDifferential and failing on any difference.
//
//   differential_test --messages=pkg.A,pkg.B [--iterations=N] [--seed=S]

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "pbaccel/testing/differential.h"

namespace {

pbaccel::testing::DifferentialOptions g_options;

// One message type, registered at run time from --messages.
class DifferentialTest : public ::testing::Test {
 public:
  explicit DifferentialTest(std::string type) : type_(std::move(type)) {}

  void TestBody() override {
    const google::protobuf::Descriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type_);
    ASSERT_NE(d, nullptr) << "message type " << type_
                          << " is not linked in: add its cc_proto_library to deps";
    const google::protobuf::Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
    const pbaccel::testing::DifferentialReport report = RunDifferential(*prototype, g_options);
    std::printf(
        "%s: %zu valid and %zu malformed inputs, %zu rejected by both; paths: %s; kernels run: %s",
        type_.c_str(), report.valid_cases, report.malformed_cases, report.rejected,
        report.generated_parser ? "generated parser and reflection"
                                : "reflection (no generated parser linked)",
        absl::StrJoin(report.kernels_run, " ").c_str());
    if (!report.kernels_skipped.empty()) {
      std::printf("; skipped, this CPU lacks: %s",
                  absl::StrJoin(report.kernels_skipped, ", ").c_str());
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
  std::vector<std::string> messages;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--messages=")) {
      messages = absl::StrSplit(a, ',', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&a, "--iterations=")) {
      if (!absl::SimpleAtoi(a, &g_options.iterations)) return 2;
    } else if (absl::ConsumePrefix(&a, "--seed=")) {
      if (!absl::SimpleAtoi(a, &g_options.seed)) return 2;
    }
  }
  if (messages.empty()) {
    std::fprintf(stderr, "usage: %s --messages=pkg.A,pkg.B [--iterations=N] [--seed=S]\n", argv[0]);
    return 2;
  }
  for (const std::string& type : messages) {
    ::testing::RegisterTest("Differential", type.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [type]() -> ::testing::Test* { return new DifferentialTest(type); });
  }
  return RUN_ALL_TESTS();
}
