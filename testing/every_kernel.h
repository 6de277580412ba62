// Copyright 2026 The pbaccel Authors.
//
// every_kernel.h: value-parameterized GoogleTest suites over every registered kernel.
//
//   class MyTest : public pbaccel::testing::EveryKernelTest {};
//   TEST_P(MyTest, Decodes) { ... }  // runs with GetParam()'s kernel forced
//   PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(MyTest);
//
// The suite gets one instance per kernel compiled into the build, named after the kernel, whether
// or not this CPU can run it: on a CPU that cannot, the instance is skipped with the features it
// lacks ("[  SKIPPED ] ... kernel 'avx512' needs CPU features this machine lacks: avx512vbmi2"), so
// a test log says which kernels went untested here instead of silently leaving them out.

#ifndef PBACCEL_TESTING_EVERY_KERNEL_H_
#define PBACCEL_TESTING_EVERY_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "pbaccel/kernels.h"

namespace pbaccel {
namespace testing {

// The names of every kernel compiled into this build, in priority order.
std::vector<std::string> AllKernelNames();

// Empty if this CPU can run the kernel `name`; otherwise why not ("kernel 'avx512' needs CPU
// features this machine lacks: avx512vbmi avx512vbmi2", or "no kernel named ...").
std::string KernelSkipReason(absl::string_view name);

// A fixture whose parameter is a kernel name: SetUp skips the test with KernelSkipReason when the
// CPU cannot run the kernel, and otherwise forces the kernel for the test's duration.
class EveryKernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;

 private:
  std::unique_ptr<ScopedKernelOverride> force_;
};

}  // namespace testing
}  // namespace pbaccel

#define PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(fixture)                                  \
  INSTANTIATE_TEST_SUITE_P(                                                            \
      EveryKernel, fixture, ::testing::ValuesIn(::pbaccel::testing::AllKernelNames()), \
      [](const ::testing::TestParamInfo<std::string>& info) { return info.param; })

#endif  // PBACCEL_TESTING_EVERY_KERNEL_H_
