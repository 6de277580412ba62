// Copyright 2026 The pbaccel Authors.

#include "testing/corpora/realdata_corpus.h"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/fileformat.pb.h"

namespace pbaccel {
namespace corpora {
namespace {

namespace fs = std::filesystem;

double NowNs() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Inflates zlib (window_bits 15) or gzip (15 + 16) data; `size_hint` sizes the output up front.
absl::StatusOr<std::string> Inflate(absl::string_view in, int window_bits, size_t size_hint) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return absl::InternalError("inflateInit2 failed");
  std::string out(std::max<size_t>(size_hint, in.size() * 4), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.total_out == out.size()) out.resize(out.size() * 2);
    z.next_out = reinterpret_cast<Bytef*>(&out[z.total_out]);
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
  }
  const size_t total = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return absl::DataLossError(absl::StrCat("zlib: inflate returned ", rc));
  out.resize(total);
  return out;
}

std::vector<fs::path> SortedFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  } else {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Corpus `name`: one message per file under dir/name (recursive), for files ending in one of
// `suffixes`; gzip files (by their magic bytes) are inflated first. `what` names the files in the
// error when there are none.
absl::StatusOr<Corpus> LoadFilePerMessage(absl::string_view dir, const char* name,
                                          std::initializer_list<absl::string_view> suffixes,
                                          const char* what) {
  Corpus corpus;
  corpus.name = name;
  for (const fs::path& path : SortedFiles(fs::path(std::string(dir)) / name, true)) {
    const std::string file_name = path.string();
    if (std::none_of(suffixes.begin(), suffixes.end(),
                     [&](absl::string_view s) { return absl::EndsWith(file_name, s); })) {
      continue;
    }
    absl::StatusOr<std::string> file = ReadFile(path);
    if (!file.ok()) return file.status();
    ++corpus.files;
    if (file->size() >= 2 && static_cast<uint8_t>((*file)[0]) == 0x1f &&
        static_cast<uint8_t>((*file)[1]) == 0x8b) {
      absl::StatusOr<std::string> inflated = Inflate(*file, 15 + 16, 0);
      if (!inflated.ok()) {
        return absl::DataLossError(absl::StrCat(file_name, ": ", inflated.status().message()));
      }
      corpus.messages.push_back(*std::move(inflated));
    } else {
      corpus.messages.push_back(*std::move(file));
    }
  }
  if (corpus.messages.empty()) {
    return absl::NotFoundError(absl::StrCat("no ", what, " under ", dir, "/", name));
  }
  return corpus;
}

}  // namespace

size_t Corpus::bytes() const {
  size_t total = 0;
  for (const std::string& m : messages) total += m.size();
  return total;
}

absl::StatusOr<Corpus> LoadOsm(absl::string_view dir) {
  Corpus corpus;
  corpus.name = "osm";
  for (const fs::path& path : SortedFiles(fs::path(std::string(dir)) / "osm", false)) {
    if (!absl::EndsWith(path.string(), ".osm.pbf")) continue;
    absl::StatusOr<std::string> file = ReadFile(path);
    if (!file.ok()) return file.status();
    ++corpus.files;
    size_t pos = 0;
    const std::string& f = *file;
    while (pos < f.size()) {
      const auto error = [&](absl::string_view what) {
        return absl::DataLossError(
            absl::StrCat(path.string(), ": frame at byte ", pos, ": ", what));
      };
      if (f.size() - pos < 4) return error("truncated length");
      const uint32_t header_size = (static_cast<uint32_t>(static_cast<uint8_t>(f[pos])) << 24) |
                                   (static_cast<uint32_t>(static_cast<uint8_t>(f[pos + 1])) << 16) |
                                   (static_cast<uint32_t>(static_cast<uint8_t>(f[pos + 2])) << 8) |
                                   static_cast<uint32_t>(static_cast<uint8_t>(f[pos + 3]));
      OSMPBF::BlobHeader header;
      if (header_size > f.size() - pos - 4 ||
          !header.ParseFromArray(f.data() + pos + 4, static_cast<int>(header_size))) {
        return error("malformed BlobHeader");
      }
      const size_t blob_start = pos + 4 + header_size;
      if (static_cast<uint64_t>(header.datasize()) > f.size() - blob_start) {
        return error("truncated Blob");
      }
      OSMPBF::Blob blob;
      if (!blob.ParseFromArray(f.data() + blob_start, header.datasize())) {
        return error("malformed Blob");
      }
      pos = blob_start + static_cast<size_t>(header.datasize());
      if (header.type() != "OSMData") continue;  // OSMHeader: the file's header block.
      if (blob.has_raw()) {
        corpus.messages.push_back(blob.raw());
      } else if (blob.has_zlib_data()) {
        const double t0 = NowNs();
        absl::StatusOr<std::string> block =
            Inflate(blob.zlib_data(), 15, static_cast<size_t>(blob.raw_size()));
        corpus.inflate_ns += NowNs() - t0;
        if (!block.ok()) return error(block.status().message());
        if (blob.has_raw_size() && block->size() != static_cast<size_t>(blob.raw_size())) {
          return error("inflated size differs from raw_size");
        }
        corpus.messages.push_back(*std::move(block));
      } else {
        return error("Blob with a compression this benchmark does not read (lzma, lz4, zstd)");
      }
    }
  }
  if (corpus.messages.empty()) {
    return absl::NotFoundError(absl::StrCat("no OSMData blocks under ", dir, "/osm"));
  }
  return corpus;
}

absl::StatusOr<Corpus> LoadMvt(absl::string_view dir) {
  return LoadFilePerMessage(dir, "mvt", {".mvt", ".mvt.gz"}, ".mvt files");
}

absl::StatusOr<Corpus> LoadPprof(absl::string_view dir) {
  return LoadFilePerMessage(dir, "pprof", {".pb", ".pb.gz"}, "profiles (.pb, .pb.gz)");
}

std::string DefaultDataDir() {
  // `bazel run` and `bazel test` start in the runfiles tree's workspace directory; TEST_SRCDIR is
  // set by `bazel test`.
  std::vector<std::string> candidates = {"testing/data"};
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    candidates.push_back(absl::StrCat(srcdir, "/pbaccel/testing/data"));
  }
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    candidates.push_back(absl::StrCat(ws, "/testing/data"));
  }
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::is_directory(fs::path(c) / "osm", ec)) return c;
  }
  return "";
}

}  // namespace corpora
}  // namespace pbaccel
