// Copyright 2026 The pbaccel Authors.

#include "pbaccel/testing/every_kernel.h"

#include "absl/strings/str_cat.h"

namespace pbaccel {
namespace testing {

std::vector<std::string> AllKernelNames() {
  std::vector<std::string> names;
  for (const KernelInfo& k : DescribeKernels()) names.emplace_back(k.name);
  return names;
}

std::string KernelSkipReason(absl::string_view name) {
  for (const KernelInfo& k : DescribeKernels()) {
    if (k.name != name) continue;
    if (k.supported) return "";
    return absl::StrCat("kernel '", name,
                        "' needs CPU features this machine lacks: ", k.missing_features);
  }
  return absl::StrCat("no kernel named '", name, "' in this build");
}

void EveryKernelTest::SetUp() {
  const std::string reason = KernelSkipReason(GetParam());
  if (!reason.empty()) GTEST_SKIP() << reason;
  force_ = std::make_unique<ScopedKernelOverride>(GetParam());
  ASSERT_TRUE(force_->ok()) << GetParam();
  ASSERT_EQ(ActiveKernelName(), GetParam());
}

}  // namespace testing
}  // namespace pbaccel
