// Copyright 2026 The pbaccel Authors.
//
// kernel_info: prints the CPU as pbaccel sees it, every kernel compiled in (supported or not, and
// why), the automatic choice, and the kernel actually in use (after PBACCEL_KERNEL). Then decodes
// a small payload through the public API, so a bad PBACCEL_KERNEL shows its warning and the run
// shows it survives.
//
//   ./bazelw run //tools:kernel_info
//   PBACCEL_KERNEL=scalar ./bazelw run //tools:kernel_info

#include <cstdio>
#include <string>

#include "pbaccel/pbaccel.h"

int main() {
  std::fputs(pbaccel::DescribeCpu(pbaccel::DetectedCpu()).c_str(), stdout);
  std::printf("Kernels (priority order):\n");
  for (const pbaccel::KernelInfo& k : pbaccel::DescribeKernels()) {
    std::string status = k.supported
                             ? (k.auto_selectable ? "supported" : "supported, not auto: " + k.veto)
                             : "unsupported: lacks " + k.missing_features;
    std::printf("  %-14.*s %s\n      %.*s\n", static_cast<int>(k.name.size()), k.name.data(),
                status.c_str(), static_cast<int>(k.summary.size()), k.summary.data());
  }
  const absl::string_view automatic = pbaccel::AutoSelectedKernelName();
  std::printf("auto-selected: %.*s\n", static_cast<int>(automatic.size()), automatic.data());
  google::protobuf::RepeatedField<uint32_t> values;
  const std::string payload(40, '\x05');
  const absl::Status status = pbaccel::DecodePackedUInt32(payload, &values);
  const absl::string_view active = pbaccel::ActiveKernelName();
  std::printf("active: %.*s\n", static_cast<int>(active.size()), active.data());
  std::printf("decoded %d values: %s\n", values.size(), status.ToString().c_str());
  return status.ok() && values.size() == 40 ? 0 : 1;
}
