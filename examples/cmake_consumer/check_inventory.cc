// The consumer's edition 2023 schema (inventory.proto) through pbaccel's differential checker:
// random and malformed inputs, every kernel this CPU runs, both of pbaccel's paths, against
// upstream. Exits 0 if every input agrees.

#include <cstdio>
#include <string>

#include "absl/log/initialize.h"
#include "inventory.pb.h"
#include "inventory.pbaccel.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/differential.h"

int main() {
  // Abseil's logging initialized, so that the checker keeps upstream's lines about the malformed
  // inputs (invalid UTF-8) off stderr (pbaccel/testing/differential.h; protobuf 22 and later).
  absl::InitializeLog();
  // One typed parse first (the exact-type overload of inventory.pbaccel.h).
  depot::Inventory inventory;
  depot::Item* item = inventory.add_items();
  item->set_sku(1234567);
  item->set_title("hinge");
  item->set_condition(depot::USED);
  for (uint32_t q = 0; q < 40; ++q) item->add_quantities(q * 300);
  depot::Inventory parsed;
  if (!pbaccel::ParseMessage(inventory.SerializeAsString(), &parsed).ok() ||
      parsed.SerializeAsString() != inventory.SerializeAsString()) {
    std::printf("depot.Inventory: the typed parse DIFFERS\n");
    return 1;
  }
  pbaccel::testing::DifferentialOptions options;
  options.iterations = 50;
  const pbaccel::testing::DifferentialReport report =
      pbaccel::testing::RunDifferential(depot::Inventory::default_instance(), options);
  for (const std::string& failure : report.failures) std::printf("%s\n", failure.c_str());
  std::printf(
      "depot.Inventory (edition 2023): %zu valid and %zu malformed inputs, generated parser %s: "
      "%s\n",
      report.valid_cases, report.malformed_cases, report.generated_parser ? "linked" : "missing",
      report.failures.empty() ? "agrees with upstream" : "DIFFERS");
  return report.failures.empty() && report.generated_parser && report.valid_cases > 0 ? 0 : 1;
}
