// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/stream_parser.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "pbaccel/internal/field_errors.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/top_level_fields.h"
#include "pbaccel/internal/upstream_merge.h"
#include "pbaccel/internal/wire_reader.h"

namespace pbaccel {
namespace internal {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The top level's `left`: more than any input, so that it takes the same arithmetic as a
// submessage's without ever running out (inputs stop at 2 GiB).
constexpr size_t kUnbounded = SIZE_MAX;

// A message being filled: the top-level one, or a submessage field longer than the buffer.
struct Level {
  Message* msg;
  size_t left;  // Bytes of its fields still to come (the top level: kUnbounded, less what came).
  const FieldDescriptor* field;  // The field it is in (nullptr at the top level).
};

// If the field at [p, end) (longer than what is there) is a submessage field of level.msg's type
// that the stream may enter with `budget` nesting levels left, sets *child to its message and
// *header_bytes to its tag and length's size, and returns true.
bool EnterSubmessage(const char* p, const char* end, const Level& level, int budget, Level* child,
                     size_t* header_bytes) {
  if (budget <= 0) return false;  // Left whole: the piece's parse reports the recursion limit.
  WireField wire;
  WireError error;
  if (ReadField(p, end, &wire, &error) != nullptr || error != WireError::kLengthPastEnd ||
      wire.wire_type != WireType::kLengthDelimited) {
    return false;
  }
  uint64_t length;
  const char* payload = ReadVarintUpTo(wire.value, end, 5, &length);
  if (payload == nullptr) return false;
  *header_bytes = static_cast<size_t>(payload - p);
  if (*header_bytes + length > level.left) {
    return false;  // Longer than its enclosing message: the piece's parse rejects it.
  }
  const FieldDescriptor* field = level.msg->GetDescriptor()->FindFieldByNumber(wire.number);
  if (field == nullptr || field->type() != FieldDescriptor::TYPE_MESSAGE || field->is_map() ||
      compat::IsWeakField(field)) {
    return false;
  }
  const google::protobuf::Reflection* reflection = level.msg->GetReflection();
  Message* sub = field->is_repeated() ? reflection->AddMessage(level.msg, field)
                                      : reflection->MutableMessage(level.msg, field);
  *child = Level{sub, static_cast<size_t>(length), field};
  return true;
}

absl::Status CutShort(const Level& level) {
  return absl::InvalidArgumentError(absl::StrCat(
      "malformed ", level.msg->GetDescriptor()->full_name(), ": the input ends ", level.left,
      " bytes before the end of this submessage (field ", level.field->full_name(), ")"));
}

}  // namespace

absl::Status ParseChunks(Chunks* chunks, Message* msg, bool check_required, size_t buffer_bytes,
                         StreamParseStats* stats) {
  msg->Clear();
  const int top_budget = DefaultRecursionBudget();
  std::vector<Level> levels = {Level{msg, kUnbounded, nullptr}};
  std::string buffer;   // Input read and not yet merged.
  size_t consumed = 0;  // Input merged (and dropped from the buffer) before it.
  bool at_end = false;
  size_t want = buffer_bytes;  // Read until the buffer holds this much.
  StreamParseStats unused;
  StreamParseStats& s = stats != nullptr ? *stats : unused;
  while (true) {
    absl::string_view chunk;
    while (!at_end && buffer.size() < want) {
      if (!chunks->Next(&chunk)) {
        at_end = true;
      } else {
        buffer.append(chunk.data(), chunk.size());
        if (consumed + buffer.size() > static_cast<size_t>(INT_MAX)) {
          return absl::InvalidArgumentError(
              "message larger than 2 GiB: protobuf's stream parser rejects it");
        }
      }
    }
    s.max_buffered_bytes = std::max(s.max_buffered_bytes, buffer.size());
    Level& level = levels.back();
    const int budget = top_budget - static_cast<int>(levels.size() - 1);
    const char* const begin = buffer.data();
    const size_t available = std::min(buffer.size(), level.left);
    // Nothing more of this level is to come: the rest is here (parsed whole, no walk to find a
    // cut; most inputs end within their first buffer), or the input has ended.
    const bool rest_here = at_end || available == level.left;
    const size_t n =
        rest_here ? available : WholeTopLevelFields(begin, begin + available, buffer_bytes).bytes;
    if (n == 0 && !rest_here) {  // The next field is longer than the buffer.
      Level child;
      size_t header = 0;
      if (EnterSubmessage(begin, begin + available, level, budget, &child, &header)) {
        buffer.erase(0, header);
        consumed += header;
        level.left -= header + child.left;
        levels.push_back(child);  // `level` is not used after this.
        ++s.submessages_entered;
        want = buffer_bytes;
      } else {
        want = buffer.size() + buffer_bytes;  // Held whole: read on until it is.
      }
      continue;
    }
    if (n != 0) {
      const absl::Status merged = MergePiece(absl::string_view(begin, n), level.msg, budget);
      if (!merged.ok()) return InPiece(merged, consumed);
      buffer.erase(0, n);
      consumed += n;
      level.left -= n;
    }
    if (buffer.capacity() > 4 * buffer_bytes && buffer.size() < buffer_bytes) {
      buffer.shrink_to_fit();  // After a field held whole.
    }
    want = buffer_bytes;
    if (!rest_here) continue;
    if (levels.size() == 1) break;  // At the end of the input, all of it merged.
    if (level.left != 0) return InPiece(CutShort(level), consumed);
    levels.pop_back();
  }
  return check_required && !msg->IsInitialized() ? MissingRequiredFields(*msg) : absl::OkStatus();
}

bool StreamChunks::Next(absl::string_view* chunk) {
  const void* data;
  int size;
  do {
    if (!input_->Next(&data, &size)) return false;
  } while (size == 0);
  *chunk = absl::string_view(static_cast<const char*>(data), static_cast<size_t>(size));
  return true;
}

bool CordChunks::Next(absl::string_view* chunk) {
  if (it_ == end_) return false;
  *chunk = *it_;
  ++it_;
  return true;
}

}  // namespace internal
}  // namespace pbaccel
