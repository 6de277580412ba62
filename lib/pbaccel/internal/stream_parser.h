// Copyright 2026 The pbaccel Authors.
//
// stream_parser.h: parsing a message whose bytes arrive in pieces (a ZeroCopyInputStream, a
// fragmented Cord) in bounded memory: the parsed result plus a buffer of about `buffer_bytes`,
// however long the input.
//
// How. Merging a message's fields in pieces gives the same message as parsing them at once, at
// every nesting level. So the parser keeps a stack of levels (the message being filled and the
// bytes of it still to come; the top level is unbounded) and, for the level on top, merges the
// whole fields the buffer holds (MergePiece, with the nesting budget left at that depth) and drops
// them before reading more. A field longer than the buffer is:
//   * entered, if it is a length-delimited submessage field of the level's type (not a map entry,
//     not an extension) and the nesting budget allows it: its message (MutableMessage, or
//     AddMessage for a repeated field) becomes the new top level, its tag and length are dropped,
//     and its fields arrive like the top level's; the level ends after exactly its length;
//   * held whole otherwise (a string or bytes field, an unknown field, a group, a map entry), as
//     upstream holds such a field.
// Upstream's stream parser accepts and rejects the same inputs: a submessage longer than what
// encloses it, or cut by the input's end, is rejected; more than 2 GiB in all is rejected, as
// upstream's stream parser rejects it. The stream's end (Next() returning false, which is also how
// a stream reports an error) ends the input. On failure the message holds what was merged before
// the failing piece (as upstream's does); error byte offsets count from the start of the piece
// named in the message.

#ifndef PBACCEL_INTERNAL_STREAM_PARSER_H_
#define PBACCEL_INTERNAL_STREAM_PARSER_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"

namespace pbaccel {
namespace internal {

// The buffer ParseMessage(ZeroCopyInputStream*) and ParseMessage(Cord) use.
inline constexpr size_t kStreamBufferBytes = 256 << 10;

// What a parse did, for tests: the submessages it entered (fields longer than the buffer parsed
// as they arrived) and the most bytes its buffer held at once.
struct StreamParseStats {
  size_t submessages_entered = 0;
  size_t max_buffered_bytes = 0;
};

// An input in pieces.
class Chunks {
 public:
  // Sets *chunk to the input's next piece and returns true, or returns false at its end.
  virtual bool Next(absl::string_view* chunk) = 0;

 protected:
  ~Chunks() = default;
};

// Clears `msg` and parses the input `chunks` gives into it (see above); `check_required`: as
// ParseMessage (true) or ParsePartialMessage (false).
absl::Status ParseChunks(Chunks* chunks, google::protobuf::Message* msg, bool check_required,
                         size_t buffer_bytes = kStreamBufferBytes,
                         StreamParseStats* stats = nullptr);

// A ZeroCopyInputStream's buffers (empty ones skipped).
class StreamChunks final : public Chunks {
 public:
  explicit StreamChunks(google::protobuf::io::ZeroCopyInputStream* input) : input_(input) {}
  bool Next(absl::string_view* chunk) override;

 private:
  google::protobuf::io::ZeroCopyInputStream* input_;
};

// A Cord's chunks.
class CordChunks final : public Chunks {
 public:
  explicit CordChunks(const absl::Cord& cord) : it_(cord.chunk_begin()), end_(cord.chunk_end()) {}
  bool Next(absl::string_view* chunk) override;

 private:
  absl::Cord::ChunkIterator it_;
  absl::Cord::ChunkIterator end_;
};

// Merges the whole fields in `bytes` into `msg` (no required-field check) with `budget` nesting
// levels left, as a parse of a message at that depth would: its generated parser if one is
// linked, else the reflection walk (message_parser.cc).
absl::Status MergePiece(absl::string_view bytes, google::protobuf::Message* msg, int budget);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_STREAM_PARSER_H_
