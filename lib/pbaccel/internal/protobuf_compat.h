// Copyright 2026 The pbaccel Authors.
//
// protobuf_compat.h: the one place where pbaccel's code differs by protobuf release. Everything
// else calls these names and compiles unchanged against every release this header knows.
//
// Tested: protobuf 3.21.12 (Debian 12; the Bazel build) and 27.2 (the protobuf-src crate; the CMake
// build, third_party/protobuf27); compiled against 25.1, 30.0, 33.5 and 35.1
// (tools/protobuf_api_check.py). Written for the API changes announced up to v35
// (docs/protobuf_versions.md). Each difference below is keyed on GOOGLE_PROTOBUF_VERSION and
// names the release that made it:
//
//   v22  StringPiece removed (inputs are absl::string_view); internal::IsStructurallyValidUTF8
//        removed (utf8_range); protobuf logs through Abseil (stubs/logging.h removed).
//   v23  FileDescriptor::syntax() deprecated (removed in v26): closedness, UTF-8 validation and
//        packedness come from feature-resolved accessors, which are right for editions files too.
//   v27  Arena::CreateMessage deprecated (removed in v30): Arena::Create.
//   v28  FieldDescriptor::cpp_string_type(); v30 clears ctype from options in its favour.
//   v30  Descriptor names and MessageLite::GetTypeName() are absl::string_view (callers convert
//        with std::string(...) where they need a string).
//   v33  FieldOptions::weak() deprecated (IsWeakField).
//   v35  Parse and serialize functions [[nodiscard]]; its Abseil deprecates MutexLock(Mutex*)
//        (pbaccel locks with std::mutex).
//
// Internal: not part of pbaccel's API.

#ifndef PBACCEL_INTERNAL_PROTOBUF_COMPAT_H_
#define PBACCEL_INTERNAL_PROTOBUF_COMPAT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"  // FieldOptions::ctype(), through v29.
#include "google/protobuf/message_lite.h"
#include "google/protobuf/stubs/common.h"  // GOOGLE_PROTOBUF_VERSION, in every release.

// Releases are numbered major * 1000000 + minor * 1000 + patch: 3.21.12 is 3021012, 27.2 (its C++
// runtime 5.27.2) is 5027002.
#define PBACCEL_PROTOBUF_AT_LEAST(cpp_major, minor) \
  (GOOGLE_PROTOBUF_VERSION >= (cpp_major)*1000000 + (minor)*1000)

// Whether this protobuf knows editions (`edition = "2023"` files): protoc 27 is the first release
// that compiles them without an experimental flag, and the first the plugin declares them for.
#define PBACCEL_PROTOBUF_HAS_EDITIONS PBACCEL_PROTOBUF_AT_LEAST(5, 27)

#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
#include "absl/base/log_severity.h"
#include "absl/log/globals.h"
#include "absl/log/initialize.h"
#include "absl/log/log_entry.h"
#include "absl/log/log_sink.h"
#include "absl/log/log_sink_registry.h"
#include "utf8_validity.h"  // utf8_range, which protobuf 22+ installs and links.
#else
#include "google/protobuf/stubs/logging.h"
#endif

namespace pbaccel {
namespace internal {
namespace compat {

// --- Parsing a flat buffer -----------------------------------------------------------------------

// Upstream's flat-buffer parser (what ParseFromString runs) on [data, data + size), with `kFlags`
// (kParse, kParsePartial, kMerge, kMergePartial). Returns whether upstream accepted it.
template <google::protobuf::MessageLite::ParseFlags kFlags>
inline bool ParseFlat(google::protobuf::MessageLite* msg, const char* data, size_t size) {
#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
  return msg->ParseFrom<kFlags>(absl::string_view(data, size));
#else
  return msg->ParseFrom<kFlags>(google::protobuf::StringPiece(data, size));
#endif
}

// Whether [data, data + size) is structurally valid UTF-8, by the validator upstream's parser uses
// for strings that require it.
inline bool IsStructurallyValidUtf8(const char* data, size_t size) {
#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
  return utf8_range::IsStructurallyValid(absl::string_view(data, size));
#else
  return google::protobuf::internal::IsStructurallyValidUTF8(data, static_cast<int>(size));
#endif
}

// --- What a field's declaration means to upstream's C++ parser -----------------------------------

// Whether an enum field is closed for upstream's C++ runtime: a value that is not one of the enum's
// numbers goes to the unknown fields instead of into the field. Proto2 fields are closed whatever
// their enum (C++'s legacy rule, also for a proto3 enum); proto3 ones open; editions decide by the
// enum's `enum_type` feature and the field's `(pb.cpp).legacy_closed_enum`. False for other fields.
inline bool IsClosedEnumField(const google::protobuf::FieldDescriptor* f) {
  if (f->type() != google::protobuf::FieldDescriptor::TYPE_ENUM) return false;
#if PBACCEL_PROTOBUF_AT_LEAST(4, 23)
  return f->legacy_enum_field_treated_as_closed();
#else
  return f->file()->syntax() != google::protobuf::FileDescriptor::SYNTAX_PROTO3;
#endif
}

// Whether upstream rejects a parse in which this field holds invalid UTF-8: proto3 `string`
// fields, editions ones unless `utf8_validation = NONE`. (Proto2's are not checked.)
inline bool RequiresUtf8Validation(const google::protobuf::FieldDescriptor* f) {
#if PBACCEL_PROTOBUF_AT_LEAST(4, 23)
  return f->requires_utf8_validation();
#else
  return f->type() == google::protobuf::FieldDescriptor::TYPE_STRING &&
         f->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3;
#endif
}

// How the generated C++ class stores a string or bytes field, which decides its accessors.
enum class StringStorage {
  kString,       // std::string: mutable_x(), add_x() returning std::string*.
  kView,         // Edition 2023's `(pb.cpp).string_type = VIEW`: no mutable_x() for singular ones.
  kCord,         // absl::Cord (`ctype = CORD` or `string_type = CORD`).
  kStringPiece,  // `ctype = STRING_PIECE`: protobuf's internal representation.
  kPrivate,      // A std::string behind private accessors: a storage the release's C++ code does
                 // not implement (from v28, CORD on a repeated, extension or `string` field).
};

// The storage of a string or bytes field as its declaration states it before editions features
// (ctype), or, from v28, as the runtime resolves it. Protobuf 27 resolves `string_type` only in
// protoc: a code generator asks its CodeGenerator for the resolved features instead.
//
// From v28 the runtime stores a CORD it does not implement as a std::string and protoc hides that
// field's accessors. Which fields: v28-29 hide where the declared ctype differs from the storage
// (cpp_string_type()), which a `string_type` feature alone never does; v30 folds ctype into the
// feature and hides by the feature (IsStringFieldWithPrivatizedAccessors, the generator's own
// test).
inline StringStorage DeclaredStringStorage(const google::protobuf::FieldDescriptor* f) {
#if PBACCEL_PROTOBUF_AT_LEAST(6, 30)
  if (google::protobuf::internal::cpp::IsStringFieldWithPrivatizedAccessors(*f)) {
    return StringStorage::kPrivate;
  }
#endif
#if PBACCEL_PROTOBUF_AT_LEAST(5, 28)
  using CppStringType = google::protobuf::FieldDescriptor::CppStringType;
  const CppStringType storage = f->cpp_string_type();
#if !PBACCEL_PROTOBUF_AT_LEAST(6, 30)
  const auto effective = storage == CppStringType::kCord ? google::protobuf::FieldOptions::CORD
                                                         : google::protobuf::FieldOptions::STRING;
  if (f->options().ctype() != effective) return StringStorage::kPrivate;
#endif
  switch (storage) {
    case CppStringType::kView: return StringStorage::kView;
    case CppStringType::kCord: return StringStorage::kCord;
    default: return StringStorage::kString;
  }
#else
  switch (f->options().ctype()) {
    case google::protobuf::FieldOptions::CORD: return StringStorage::kCord;
    case google::protobuf::FieldOptions::STRING_PIECE: return StringStorage::kStringPiece;
    default: return StringStorage::kString;
  }
#endif
}

// Whether the field is declared `[weak = true]` (left to upstream wherever it is parsed). The
// option is deprecated from v33 (weak fields are going away), so its accessor warns; this is the
// one place that reads it.
inline bool IsWeakField(const google::protobuf::FieldDescriptor* f) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return f->options().weak();
#pragma GCC diagnostic pop
}

// --- Arenas --------------------------------------------------------------------------------------

// A new T (a generated message class) owned by `arena`.
// (Before v27, Arena::Create treats a message as an opaque object: fields on the heap.)
template <typename T>
inline T* CreateOnArena(google::protobuf::Arena* arena) {
#if PBACCEL_PROTOBUF_AT_LEAST(5, 27)
  return google::protobuf::Arena::Create<T>(arena);
#else
  return google::protobuf::Arena::CreateMessage<T>(arena);
#endif
}

// --- Upstream's log lines ------------------------------------------------------------------------

// Upstream logs some parse outcomes (a proto3 string's invalid UTF-8; a message missing required
// fields) where a test expects them by the hundred. While a ScopedUpstreamLogHandler is alive,
// every line upstream logs goes to its handler instead of stderr; on destruction the previous
// handler (or stderr) takes them again. Scopes nest; only the innermost handler sees a line.
// Through v21 protobuf's own SetLogHandler; from v22, an Abseil log sink (Abseil's other log lines
// are taken too) with Abseil's stderr output off while a handler is in place, which holds only
// once the program has called InitializeUpstreamLogging() (below): until then Abseil writes every
// line to stderr as well. Not thread-safe: for tests.
using UpstreamLogHandler = void (*)(bool fatal, absl::string_view file, int line,
                                    absl::string_view message);

// For a test program's main, once, before anything logs (pbaccel's differential main and fuzzer
// call it): from v22, absl::InitializeLog(), before which Abseil writes every line to stderr
// whatever its stderr threshold and log sinks; through v21 nothing (protobuf's SetLogHandler needs
// none).
inline void InitializeUpstreamLogging() {
#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
  absl::InitializeLog();
#endif
}

// A handler that drops every line (as protobuf's LogSilencer did).
inline void DropLogLine(bool, absl::string_view, int, absl::string_view) {}

class ScopedUpstreamLogHandler {
 public:
  explicit ScopedUpstreamLogHandler(UpstreamLogHandler handler) : previous_(Swap(handler)) {}
  ~ScopedUpstreamLogHandler() { Swap(previous_); }
  ScopedUpstreamLogHandler(const ScopedUpstreamLogHandler&) = delete;
  ScopedUpstreamLogHandler& operator=(const ScopedUpstreamLogHandler&) = delete;

 private:
  static UpstreamLogHandler& Current() {
    static UpstreamLogHandler current = nullptr;
    return current;
  }
#if PBACCEL_PROTOBUF_AT_LEAST(4, 22)
  class Sink final : public absl::LogSink {
   public:
    void Send(const absl::LogEntry& e) override {
      if (UpstreamLogHandler h = Current()) {
        h(e.log_severity() == absl::LogSeverity::kFatal, e.source_filename(), e.source_line(),
          e.text_message());
      }
    }
  };
  // Installs `handler` (nullptr: none), returns the one it replaces.
  static UpstreamLogHandler Swap(UpstreamLogHandler handler) {
    static Sink* const sink = [] {
      auto* s = new Sink();
      absl::AddLogSink(s);
      return s;
    }();
    static absl::LogSeverityAtLeast stderr_threshold = absl::StderrThreshold();
    (void)sink;
    const UpstreamLogHandler previous = Current();
    if (previous == nullptr && handler != nullptr) {
      stderr_threshold = absl::StderrThreshold();
      absl::SetStderrThreshold(absl::LogSeverityAtLeast::kInfinity);
    } else if (previous != nullptr && handler == nullptr) {
      absl::SetStderrThreshold(stderr_threshold);
    }
    Current() = handler;
    return previous;
  }
#else
  static void Forward(google::protobuf::LogLevel level, const char* file, int line,
                      const std::string& message) {
    if (UpstreamLogHandler h = Current()) {
      h(level == google::protobuf::LOGLEVEL_FATAL, file, line, message);
    }
  }
  static UpstreamLogHandler Swap(UpstreamLogHandler handler) {
    static google::protobuf::LogHandler* stderr_handler = nullptr;
    const UpstreamLogHandler previous = Current();
    if (previous == nullptr && handler != nullptr) {
      stderr_handler = google::protobuf::SetLogHandler(&Forward);
    } else if (previous != nullptr && handler == nullptr) {
      google::protobuf::SetLogHandler(stderr_handler);
    }
    Current() = handler;
    return previous;
  }
#endif

  UpstreamLogHandler previous_;
};

}  // namespace compat
}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_PROTOBUF_COMPAT_H_
