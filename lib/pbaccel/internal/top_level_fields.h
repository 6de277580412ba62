// Copyright 2026 The pbaccel Authors.
//
// top_level_fields.h: where a serialized message may be cut between top-level fields.
//
// Merging a message's bytes in pieces cut between top-level fields gives exactly what merging
// them whole gives: protobuf applies fields in order (repeated fields append, singular ones
// overwrite, submessages merge), so parsing [a, c) equals parsing [a, b) then merging [b, c) when
// b is a field boundary. That lets the parsers take streams, Cords and inputs over 2 GiB a piece at
// a time, with a bounded buffer.

#ifndef PBACCEL_INTERNAL_TOP_LEVEL_FIELDS_H_
#define PBACCEL_INTERNAL_TOP_LEVEL_FIELDS_H_

#include <climits>
#include <cstddef>

#include "absl/status/status.h"

namespace pbaccel {
namespace internal {

struct FieldsPrefix {
  size_t bytes = 0;        // Whole top-level fields from the start: a place to cut.
  bool need_more = false;  // The data ends inside the field after them (a stream may complete it).
};

// The longest prefix of [p, end) made of whole top-level fields and at most `max` bytes long, or
// the first field alone if it is longer than `max`. A field that is malformed whatever bytes follow
// (a tag or varint too long, field number 0, wire type 6 or 7, a length of 2 GiB or more, an
// end-group tag) is included with everything after it, so that the parser sees it and rejects it
// as upstream would; a field cut short by `end` (or a group that does not close before it) is not
// included, and need_more is set.
// Reads: only bytes in [p, end).
FieldsPrefix WholeTopLevelFields(const char* p, const char* end, size_t max);

// For a parser that takes at most 2 GiB at a time (upstream's hand-overs do): calls
// parse(piece_begin, piece_end) on all of [p, end) when it is at most INT_MAX bytes, else on
// pieces of at most 1 GiB cut between top-level fields until the rest is at most INT_MAX bytes
// (upstream's ParseFromString accepts longer messages; merging the pieces gives the same message).
// Returns false as soon as a call does. An empty input makes no call.
template <typename Parse>  // bool(const char* piece_begin, const char* piece_end)
bool ForEachPiece(const char* p, const char* end, Parse parse) {
  while (p < end) {
    const char* stop = end;
    if (end - p > INT_MAX) {
      const FieldsPrefix prefix = WholeTopLevelFields(p, end, size_t{1} << 30);
      if (prefix.bytes != 0) stop = p + prefix.bytes;  // Else the rest: the parser rejects it.
    }
    if (!parse(p, stop)) return false;
    p = stop;
  }
  return true;
}

// `s` (an error about a piece of a longer input, with byte offsets from the piece's start) saying
// where the piece started: `piece_offset` bytes into the input. OK and piece_offset 0 unchanged.
absl::Status InPiece(const absl::Status& s, size_t piece_offset);

}  // namespace internal
}  // namespace pbaccel

#endif  // PBACCEL_INTERNAL_TOP_LEVEL_FIELDS_H_
