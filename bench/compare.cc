// //bench:compare: pbaccel against upstream protobuf, side by side.
// Until the kernels land it prints the CPU features pbaccel detects.

#include <cstdio>

#include "pbaccel/pbaccel.h"

int main() {
  std::fputs(pbaccel::DescribeCpu(pbaccel::DetectedCpu()).c_str(), stdout);
  return 0;
}
