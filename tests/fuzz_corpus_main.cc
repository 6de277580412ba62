// Copyright 2026 The pbaccel Authors.
//
// Replays files through LLVMFuzzerInitialize and LLVMFuzzerTestOneInput without libFuzzer: the
// checked-in seed corpus runs as an ordinary test in every build (gcc, ASan, UBSan), and a crash
// file can be replayed the same way: fuzz_corpus_test FILE...
//
// With --types=tests/fuzz_corpus_types.txt (tools/make_fuzz_seeds.py writes it beside the seeds)
// every file must be a seed listed there, and the fuzzer must parse it as the type listed for what
// the build compiled: --with=editions (edition 2023) and --with=edition_2024, passed by the build
// that compiled them. So a seed meant for a type this build has is proven to reach that type (a
// type the selector lost would leave its seeds parsed, and passing, as another one).
//
//   fuzz_corpus_test [--types=MANIFEST [--with=FEATURE]...] FILE...

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/message_fuzzer.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// A manifest line: the seed's name, then "feature=type" choices in order; the first whose feature
// the build has ("-": every build) is the type. Lines starting with '#' are comments.
using Choices = std::vector<std::pair<std::string, std::string>>;

bool ReadManifest(const std::string& path, std::map<std::string, Choices>* seeds) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, choice;
    words >> name;
    Choices& choices = (*seeds)[name];
    while (words >> choice) {
      const size_t eq = choice.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "%s: malformed choice '%s' for %s\n", path.c_str(), choice.c_str(),
                     name.c_str());
        return false;
      }
      choices.emplace_back(choice.substr(0, eq), choice.substr(eq + 1));
    }
    if (choices.empty() || choices.back().first != "-") {
      std::fprintf(stderr, "%s: %s has no choice for every build ('-=TYPE' last)\n", path.c_str(),
                   name.c_str());
      return false;
    }
  }
  return true;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::string manifest;
  std::set<std::string> features = {"-"};
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--types=", 0) == 0) {
      manifest = arg.substr(8);
    } else if (arg.rfind("--with=", 0) == 0) {
      features.insert(arg.substr(7));
    } else {
      files.push_back(arg);
    }
  }
  std::map<std::string, Choices> seeds;
  if (!manifest.empty() && !ReadManifest(manifest, &seeds)) return 1;
  int failed = 0;
  std::set<std::string> seen;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    if (!manifest.empty()) {
      const std::string name = BaseName(path);
      seen.insert(name);
      const auto seed = seeds.find(name);
      if (seed == seeds.end()) {
        std::fprintf(stderr, "%s: not in %s (rerun tools/make_fuzz_seeds.py)\n", path.c_str(),
                     manifest.c_str());
        ++failed;
      } else if (!bytes.empty()) {
        std::string expected;
        for (const auto& [feature, type] : seed->second) {
          if (features.count(feature) != 0) {
            expected = type;
            break;
          }
        }
        const std::string actual = FuzzInputTypeName(static_cast<uint8_t>(bytes[0]));
        if (actual != expected) {
          std::fprintf(stderr, "%s: parsed as %s, expected %s\n", path.c_str(), actual.c_str(),
                       expected.c_str());
          ++failed;
        }
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  for (const auto& seed : seeds) {
    if (seen.count(seed.first) == 0) {
      std::fprintf(stderr, "%s lists %s, which no argument names\n", manifest.c_str(),
                   seed.first.c_str());
      ++failed;
    }
  }
  std::printf("%zu replayed, %d checks failed\n", files.size(), failed);
  return failed == 0 && !files.empty() ? 0 : 1;
}
