// Decodes a packed field with pbaccel under every kernel this CPU runs and checks the values.

#include <cstdio>
#include <string>

#include "google/protobuf/repeated_field.h"
#include "pbaccel/pbaccel.h"

int main() {
  std::string payload;  // 1, 300, 70000 as varints, 1000 times.
  for (int i = 0; i < 1000; ++i) payload += std::string("\x01\xac\x02\xf0\xa2\x04", 6);
  int failures = 0;
  for (absl::string_view kernel : pbaccel::SupportedKernels()) {
    pbaccel::ScopedKernelOverride use(kernel);
    google::protobuf::RepeatedField<uint32_t> values;
    const absl::Status s = pbaccel::DecodePackedUInt32(payload, &values);
    const bool ok = s.ok() && values.size() == 3000 && values[0] == 1 && values[1] == 300 &&
                    values[2] == 70000 && values[2999] == 70000;
    std::printf("%-18s %s\n", std::string(kernel).c_str(), ok ? "ok" : "WRONG");
    failures += !ok;
  }
  return failures == 0 ? 0 : 1;
}
