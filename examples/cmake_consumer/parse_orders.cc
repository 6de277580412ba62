// Parses an order with pbaccel (its generated parser) and upstream protobuf; exits 0 if they agree
// and a truncated order is rejected.

#include <cstdio>
#include <string>

#include "orders.pb.h"
#include "orders.pbaccel.h"
#include "pbaccel/pbaccel.h"

int main() {
  shop::Order order;
  order.set_id(42);
  order.set_customer("Ada");
  for (int i = 0; i < 100; ++i) order.add_price_deltas(i % 2 ? -i * 1000 : i * 1000);
  order.add_lines()->set_product(7);
  const std::string bytes = order.SerializeAsString();

  shop::Order ours;
  const absl::Status s = pbaccel::ParseMessage(bytes, &ours);
  shop::Order theirs;
  const bool upstream_ok = theirs.ParseFromString(bytes);
  const bool same = s.ok() && upstream_ok && ours.SerializeAsString() == theirs.SerializeAsString();
  const bool rejects = !pbaccel::ParseMessage(bytes.substr(0, bytes.size() - 3), &ours).ok();
  std::printf("pbaccel %s, generated parser %s, kernel %s: %s\n", s.ok() ? "ok" : "failed",
              pbaccel::HasGeneratedParser(ours) ? "linked" : "missing",
              std::string(pbaccel::ActiveKernelName()).c_str(),
              same && rejects ? "agrees with upstream" : "DIFFERS");
  return same && rejects && pbaccel::HasGeneratedParser(ours) ? 0 : 1;
}
