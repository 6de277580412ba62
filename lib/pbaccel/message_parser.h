// Copyright 2026 The pbaccel Authors.
//
// message_parser.h: parse a serialized message into a google::protobuf::Message, with every
// accelerable packed repeated field decoded by pbaccel's kernels, and everything else exactly as
// upstream protobuf does it.
//
//   MyRequest request;
//   absl::Status s = pbaccel::ParseMessage(bytes, &request);   // instead of ParseFromString
//
// Result: the same message upstream's ParseFromString / MergeFromString would produce, field by
// field (compare with MessageDifferencer; re-serializes to the same bytes), and the same accept /
// reject decision. Works for generated messages and DynamicMessage, on or off an Arena.
//
// Generated parsers: a type whose pbaccel_cc_parser library (tools/defs.bzl) is linked is parsed
// by its generated parser, which handles every field inline (see generated_parser.h); including
// the generated `foo.pbaccel.h` also gives exact-type overloads of these functions, which take
// MessageLite types too. The rest of this comment describes the path for types without one.
//
// How: the parser walks the message's fields in wire order. A packed repeated field of a varint
// type (int32, int64, uint32, uint64, sint32, sint64, bool, open enum) is counted, reserved exactly
// and decoded in place into the field's RepeatedField by the dispatched kernel; a packed
// fixed-width field (fixed32/64, sfixed32/64, float, double) is appended with one bulk copy; a
// submessage whose type contains such fields (at any depth) is parsed by this parser recursively.
// Every other run of fields - singular fields, strings, unpacked repeated fields, maps, groups,
// extensions (packed ones included), proto2 closed enums, unknown fields - is handed, in order, to
// upstream protobuf's own parser, so its semantics (last one wins, oneof clearing, merging,
// unknown-field preservation) are upstream's by construction. Small packed fields (under 64 bytes),
// small submessages (under 128) and small messages (under kSmallMessageBytes) stay with upstream
// too: nothing to win on them. A message type with nothing to accelerate is parsed by upstream in
// one call.
//
// The per-Descriptor parse plan is built on first use and cached for the life of the process
// (thread-safe) for types of the generated pool; a type of any other pool (a DynamicMessage of a
// pool the program builds, and may destroy and rebuild, perhaps at the same addresses) gets its
// plans built afresh for each parse of kSmallMessageBytes or more, so a plan can never outlive or
// mistake its descriptor. Concurrent calls on different messages are safe
// (//tests:concurrency_test, under ThreadSanitizer in CI). Recursion is limited like upstream's
// (default 100 nested messages or groups); the walk is iterative, so nesting costs no more stack
// than upstream's own parser uses. Allocation is bounded by the input: a packed field reserves
// exactly its element count, never more than its byte length. Inputs over 2 GiB (which upstream's
// ParseFromString accepts) are parsed in pieces of at most 1 GiB cut between top-level fields,
// which gives the same message.
//
// Errors (absl::Status, kInvalidArgument): malformed input, naming the field and the byte offset
// where upstream or the kernel rejected it; for ParseMessage/MergeMessage also missing proto2
// required fields (kInvalidArgument, listing them). After a failed parse the message holds what was
// merged before the error (as after a failed upstream parse): discard it. It never holds values
// read from beyond the input.

#ifndef PBACCEL_MESSAGE_PARSER_H_
#define PBACCEL_MESSAGE_PARSER_H_

#include "pbaccel/internal/requires_cxx17.h"

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"

namespace pbaccel {

// Messages shorter than this are parsed by upstream's parser in one call, without walking their
// fields: the walk and the hand-overs cost more than kernels save on the packed fields such a
// message can hold (with every other size choice: pbaccel/internal/size_policy.h).
inline constexpr size_t kSmallMessageBytes = 512;

// Clears `msg`, then parses `bytes` into it; fails if proto2 required fields are missing.
// Equivalent of msg->ParseFromString(bytes).
absl::Status ParseMessage(absl::string_view bytes, google::protobuf::Message* msg);

// Like ParseMessage without the required-field check (ParsePartialFromString).
absl::Status ParsePartialMessage(absl::string_view bytes, google::protobuf::Message* msg);

// Merges `bytes` into `msg` (MergeFromString): repeated fields append, singular fields are
// overwritten, submessages merge. Fails if required fields are missing afterwards.
absl::Status MergeMessage(absl::string_view bytes, google::protobuf::Message* msg);

// MergeMessage without the required-field check (MergePartialFromString).
absl::Status MergePartialMessage(absl::string_view bytes, google::protobuf::Message* msg);

// ParseMessage without generated parsers, even for a type that has one linked: the reflection walk
// described above. For benchmarks and tests that compare the two paths.
absl::Status ParseMessageByReflection(absl::string_view bytes, google::protobuf::Message* msg);
absl::Status ParsePartialMessageByReflection(absl::string_view bytes,
                                             google::protobuf::Message* msg);

// Whether ParseMessage(bytes, &msg) runs a generated parser for msg's type (its
// pbaccel_cc_parser library is linked and msg is that generated class, not a DynamicMessage).
bool HasGeneratedParser(const google::protobuf::Message& msg);

// Non-contiguous input. A Cord that is already flat is parsed in place. Otherwise the input is
// read into a buffer of about 256 KiB whose whole fields are merged into `msg` and dropped before
// more is read (merging a message's fields in pieces gives the same message), so memory stays at
// that buffer plus the parsed message, however long the input: a submessage longer than the
// buffer, at any depth, is entered and parsed the same way as its bytes arrive, as upstream's
// stream parser parses it; a string or bytes field longer than the buffer is held whole, as
// upstream holds it (internal/stream_parser.h). The stream's end (Next() returning false, which is
// also how a stream reports an error) ends the input, as for upstream; more than 2 GiB in all is
// rejected, as upstream's stream parser rejects it. Error byte offsets count from the start of the
// piece named in the message.
absl::Status ParseMessage(const absl::Cord& bytes, google::protobuf::Message* msg);
absl::Status ParsePartialMessage(const absl::Cord& bytes, google::protobuf::Message* msg);
absl::Status ParseMessage(google::protobuf::io::ZeroCopyInputStream* input,
                          google::protobuf::Message* msg);
absl::Status ParsePartialMessage(google::protobuf::io::ZeroCopyInputStream* input,
                                 google::protobuf::Message* msg);

}  // namespace pbaccel

#endif  // PBACCEL_MESSAGE_PARSER_H_
