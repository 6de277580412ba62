// Copyright 2026 The pbaccel Authors.
//
// //bench:realdata: pbaccel against upstream protobuf and protozero on real OpenStreetMap PBF
// blocks and Mapbox vector tiles (bench/realdata_bench.h says what is measured and how).
//
//   ./bazelw run -c opt //bench:realdata              # a table
//   ./bazelw run -c opt //bench:realdata -- --csv     #
//   corpus,messages,bytes,implementation,mode,mb_per_s options: --data=DIR (default: the vendored
//   testing/data), --reps=N (default 15), --pprof (also the pprof profiles under DIR/pprof: corpus
//   pprof, message parsers only), --mode=M (time only the rows of mode M: reuse, stream, fresh,
//   arena, view or columns; for profiling one of them)
//
// Exits 1 if a corpus cannot be read or pbaccel's results differ from upstream's or protozero's.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "bench/realdata_bench.h"
#include "testing/corpora/realdata_corpus.h"

int main(int argc, char** argv) {
  using pbaccel::bench::RealDataOptions;
  RealDataOptions options;
  options.data_dir = pbaccel::corpora::DefaultDataDir();
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--csv") {
      csv = true;
    } else if (absl::ConsumePrefix(&a, "--mode=")) {
      options.mode = std::string(a);
    } else if (a == "--pprof") {
      options.pprof = true;
    } else if (absl::ConsumePrefix(&a, "--data=")) {
      options.data_dir = std::string(a);
    } else if (absl::ConsumePrefix(&a, "--reps=") && absl::SimpleAtoi(a, &options.reps) &&
               options.reps > 0) {
    } else {
      std::fprintf(stderr,
                   "usage: realdata [--csv] [--data=DIR] [--reps=N] [--mode=M] [--pprof]\n");
      return 2;
    }
  }
  if (options.data_dir.empty()) {
    std::fprintf(stderr,
                 "realdata: testing/data not found; run it with bazel run, or pass --data\n");
    return 1;
  }
  const auto result = pbaccel::bench::RunRealData(options);
  if (!result.ok()) {
    std::fprintf(stderr, "realdata: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  const std::string text =
      csv ? pbaccel::bench::RealDataCsv(*result) : pbaccel::bench::RealDataTable(*result);
  std::fputs(text.c_str(), stdout);
  return 0;
}
