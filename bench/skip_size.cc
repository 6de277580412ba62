// Copyright 2026 The pbaccel Authors.
//
// //bench:skip_size: the skip/size module against upstream protobuf and a byte-at-a-time loop,
// side by side (interleaved repetitions, minimum reported; bench/timing.h).
//
//   ./bazelw run //bench:skip_size              # table
//   ./bazelw run //bench:skip_size -- --csv     # operation,workload,n,implementation,ns_per_item
//
// Operations (items: integers for count/skip/size, messages for find_field):
//   count       varints in a payload: `bytewise` loop, `pbaccel` (auto), each kernel
//   skip        position after all but the last varint: `bytewise`, `pbaccel`
//   size        encoded size of the decoded array: `upstream` (WireFormatLite::<Type>Size of a
//               RepeatedField), `pbaccel`, each kernel
//   find_field  the last field of msg1000 (1,000 length-delimited fields before it): `upstream`
//               (ParseFromString of the message), `pbaccel` (FindField)

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/timing.h"
#include "google/protobuf/repeated_field.h"
#include "google/protobuf/wire_format_lite.h"
#include "pbaccel/pbaccel.h"
#include "pbaccel/testing/wire_builder.h"
#include "pbaccel/testing/workloads.h"
#include "proto/message_workloads.pb.h"

namespace pbaccel {
namespace bench {
namespace {

using google::protobuf::RepeatedField;
using google::protobuf::internal::WireFormatLite;

struct Row {
  std::string operation, workload;
  size_t n;
  std::string implementation;
  double min_ns, median_ns;
};

std::vector<Row> Measure(const std::string& op, const std::string& workload, size_t n, size_t items,
                         const std::vector<Impl>& impls, int reps) {
  const auto samples = TimeInterleaved(impls, items, reps, 2e6);
  std::vector<Row> rows;
  for (size_t i = 0; i < impls.size(); ++i) {
    rows.push_back({op, workload, n, impls[i].name, Min(samples[i]), Median(samples[i])});
  }
  return rows;
}

size_t BytewiseCount(const std::string& p) {
  size_t c = 0;
  for (char ch : p) c += (static_cast<uint8_t>(ch) & 0x80) == 0;
  return c;
}

size_t BytewiseSkip(const std::string& p, size_t n) {
  size_t i = 0;
  for (; n > 0 && i < p.size(); ++i) n -= (static_cast<uint8_t>(p[i]) & 0x80) == 0;
  return i;
}

std::vector<Row> PayloadRows(const workloads::PayloadWorkload& w, size_t n, int reps) {
  const std::vector<uint64_t> wire = workloads::GenerateWireValues(w, n);
  const std::string payload = testing::EncodePacked(wire);
  std::vector<Row> rows;
  // count
  std::vector<Impl> impls = {{"bytewise", [&] { return BytewiseCount(payload); }},
                             {"pbaccel", [&] { return CountVarints(payload).count; }}};
  std::vector<std::string> kernels;
  for (absl::string_view k : SupportedKernels()) kernels.emplace_back(k);
  for (const std::string& k : kernels) {
    impls.push_back({k, [&payload, k] {
                       ScopedKernelOverride force(k);
                       return CountVarints(payload).count;
                     }});
  }
  for (const Impl& impl : impls) {
    if (impl.run() != n) {
      std::fprintf(stderr, "skip_size: count mismatch (%s)\n", impl.name.c_str());
      std::exit(1);
    }
  }
  auto r = Measure("count", std::string(w.name), n, n, impls, reps);
  rows.insert(rows.end(), r.begin(), r.end());
  // skip
  impls = {{"bytewise", [&] { return BytewiseSkip(payload, n - 1); }},
           {"pbaccel", [&] { return *SkipVarints(payload, n - 1); }}};
  if (impls[0].run() != impls[1].run()) {
    std::fprintf(stderr, "skip_size: skip mismatch\n");
    std::exit(1);
  }
  r = Measure("skip", std::string(w.name), n, n, impls, reps);
  rows.insert(rows.end(), r.begin(), r.end());
  // size, on the workload's own type
  RepeatedField<uint32_t> u32;
  RepeatedField<int32_t> i32;
  RepeatedField<uint64_t> u64;
  for (uint64_t v : wire) {
    u32.Add(static_cast<uint32_t>(v));
    i32.Add(static_cast<int32_t>(v));
    u64.Add(v);
  }
  // sint32 values whose zigzag forms are the workload's wire values.
  RepeatedField<int32_t> s32;
  for (uint64_t v : wire) s32.Add(testing::ZigZagDecode32(v));
  using FT = workloads::FieldType;
  std::function<uint64_t()> up, ours;
  switch (w.type) {
    case FT::kInt32:
      up = [&] { return WireFormatLite::Int32Size(i32); };
      ours = [&] { return EncodedSizeInt32(i32); };
      break;
    case FT::kSInt32:
      up = [&] { return WireFormatLite::SInt32Size(s32); };
      ours = [&] { return EncodedSizeSInt32(s32); };
      break;
    case FT::kUInt64:
    case FT::kInt64:
    case FT::kSInt64:
      up = [&] { return WireFormatLite::UInt64Size(u64); };
      ours = [&] { return EncodedSizeUInt64(u64); };
      break;
    default:
      up = [&] { return WireFormatLite::UInt32Size(u32); };
      ours = [&] { return EncodedSizeUInt32(u32); };
      break;
  }
  impls = {{"upstream", up}, {"pbaccel", ours}};
  for (const std::string& k : kernels) {
    impls.push_back({k, [ours, k] {
                       ScopedKernelOverride force(k);
                       return ours();
                     }});
  }
  for (const Impl& impl : impls) {
    if (impl.run() != up()) {
      std::fprintf(stderr, "skip_size: size mismatch (%s, %s)\n", w.name.data(), impl.name.c_str());
      std::exit(1);
    }
  }
  r = Measure("size", std::string(w.name), n, n, impls, reps);
  rows.insert(rows.end(), r.begin(), r.end());
  return rows;
}

std::vector<Row> FindFieldRows(int reps) {
  Msg1000 msg;
  std::string chunk(48, 'x');
  for (int i = 0; i < 1000; ++i) {
    chunk[0] = static_cast<char>(i);
    msg.add_chunks(chunk);
  }
  msg.set_tail("the last field");
  const std::string bytes = msg.SerializeAsString();
  Msg1000 parsed;
  std::vector<Impl> impls = {
      {"upstream", [&] { return parsed.ParseFromString(bytes) ? parsed.tail().size() : 0; }},
      {"pbaccel", [&] {
         absl::StatusOr<std::vector<Field>> f = FindField(bytes, 2);
         return f.ok() && !f->empty() ? f->back().data.size() : 0;
       }}};
  if (impls[0].run() != impls[1].run()) {
    std::fprintf(stderr, "skip_size: find_field mismatch\n");
    std::exit(1);
  }
  return Measure("find_field", "msg1000", 1, 1, impls, reps);
}

int Main(int argc, char** argv) {
  bool csv = false;
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      reps = std::max(1, std::atoi(argv[i] + 7));
    } else {
      std::fprintf(stderr, "usage: skip_size [--csv] [--reps=N]\n");
      return 2;
    }
  }
  if (csv) {
    std::printf("operation,workload,n,implementation,ns_per_item\n");
  } else {
    std::fputs(DescribeCpu(DetectedCpu()).c_str(), stdout);
    std::printf("%-11s %-11s %-8s %-13s %12s %12s %10s\n", "operation", "workload", "n",
                "implementation", "ns/item min", "median", "speedup");
  }
  auto emit = [&](const std::vector<Row>& rows) {
    const double base = rows.front().min_ns;  // upstream or bytewise comes first.
    for (const Row& r : rows) {
      if (csv) {
        std::printf("%s,%s,%zu,%s,%.4f\n", r.operation.c_str(), r.workload.c_str(), r.n,
                    r.implementation.c_str(), r.min_ns);
      } else {
        std::printf("%-11s %-11s %-8zu %-13s %12.4f %12.4f %9.2fx\n", r.operation.c_str(),
                    r.workload.c_str(), r.n, r.implementation.c_str(), r.min_ns, r.median_ns,
                    base / r.min_ns);
      }
    }
    std::fflush(stdout);
  };
  for (const workloads::PayloadWorkload& w : workloads::PayloadWorkloads()) {
    for (size_t n : {size_t{4096}, size_t{1048576}}) {
      const std::vector<Row> rows = PayloadRows(w, n, reps);
      // Group by operation for the speedup column.
      std::vector<Row> group;
      for (const Row& r : rows) {
        if (!group.empty() && group.front().operation != r.operation) {
          emit(group);
          group.clear();
        }
        group.push_back(r);
      }
      emit(group);
    }
  }
  emit(FindFieldRows(reps));
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace pbaccel

int main(int argc, char** argv) { return pbaccel::bench::Main(argc, argv); }
