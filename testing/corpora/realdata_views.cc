// Copyright 2026 The pbaccel Authors.

#include "testing/corpora/realdata_views.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "pbaccel/field_reader.h"
#include "pbaccel/packed_varint.h"
#include "pbaccel/packed_view.h"
#include "protozero/pbf_reader.hpp"
#include "testing/corpora/page_start.h"

namespace pbaccel {
namespace corpora {
namespace {

// Field numbers (proto/osmformat.proto, proto/vector_tile.proto).
constexpr uint32_t kBlockGroup = 2;       // PrimitiveBlock.primitivegroup
constexpr uint32_t kGroupDense = 2;       // PrimitiveGroup.dense
constexpr uint32_t kGroupWays = 3;        // PrimitiveGroup.ways
constexpr uint32_t kDenseId = 1;          // DenseNodes.id, sint64 delta
constexpr uint32_t kDenseLat = 8;         // DenseNodes.lat, sint64 delta
constexpr uint32_t kDenseLon = 9;         // DenseNodes.lon, sint64 delta
constexpr uint32_t kDenseKeysVals = 10;   // DenseNodes.keys_vals, int32
constexpr uint32_t kWayRefs = 8;          // Way.refs, sint64 delta
constexpr uint32_t kTileLayers = 3;       // Tile.layers
constexpr uint32_t kLayerFeatures = 2;    // Layer.features
constexpr uint32_t kFeatureTags = 2;      // Feature.tags, uint32
constexpr uint32_t kFeatureGeometry = 4;  // Feature.geometry, uint32

// Adds every value of `values` (any iterable range) to the checksum: one count and one wrapping
// sum, kept in locals so each value costs an add, not a store through `c`. Both readers use these
// two loops, so they do the same work per value.
template <typename Range>
void AddRange(Range values, ViewChecksum* c) {
  uint64_t count = 0;
  uint64_t sum = 0;
  for (auto v : values) {
    ++count;
    sum += static_cast<uint64_t>(v);
  }
  c->values += count;
  c->sum += sum;
}

// Adds the running sums of a packed sint64 range (delta coding).
template <typename Range>
void AddDeltaRange(Range values, ViewChecksum* c) {
  uint64_t count = 0;
  uint64_t sum = 0;
  int64_t running = 0;
  for (int64_t v : values) {
    running += v;
    ++count;
    sum += static_cast<uint64_t>(running);
  }
  c->values += count;
  c->sum += sum;
}

// --- pbaccel: FieldReader walks; each payload is read one of three ways -------------------------

// How a pbaccel user reads a packed payload: decoded into a scratch span (DecodePacked*), the
// fastest; PackedView::ForEach with a callback; or range-for over a PackedView.
enum class Consume { kSpan, kForEach, kIterator };

// DecodePacked* for the packed types the corpora hold, told where the message holding the payload
// ends (the span forms' buffer end: a tiny payload followed by more of the message may take the
// kernel's unbounded tiny decoder).
template <PackedType kType, typename T>
absl::StatusOr<size_t> DecodeSpan(absl::string_view payload, const char* buffer_end,
                                  absl::Span<T> out) {
  if constexpr (kType == PackedType::kInt32) return DecodePackedInt32(payload, buffer_end, out);
  if constexpr (kType == PackedType::kUInt32) return DecodePackedUInt32(payload, buffer_end, out);
  if constexpr (kType == PackedType::kSInt64) return DecodePackedSInt64(payload, buffer_end, out);
}

// The scratch span of a read of `message` as kHow says (kSpan; the others read into PackedView's
// own buffers and get an empty span): a reusable buffer, passed whole, as a caller keeping one
// scratch buffer passes it (the kernels may store whole vectors past the values, packed_varint.h,
// which a span of exactly a payload's count leaves them no room for), starting at a page, as
// packed_varint.h advises (page_start.h). Taken once per message, with an element per byte of the
// message: a value takes at least a byte, so no payload of the message holds more. (Taken per
// payload, its lookup and size test were work of the benchmark's own that no caller keeping a
// buffer does; docs/speed.md, "One scratch span per message".)
template <Consume kHow, PackedType kType>
absl::Span<typename PackedView<kType>::value_type> ScratchFor(absl::string_view message) {
  using T = typename PackedView<kType>::value_type;
  if constexpr (kHow == Consume::kSpan) {
    thread_local std::vector<T> buffer;
    return SpanFromAPage(&buffer, message.size());
  } else {
    return absl::Span<T>();
  }
}

// Adds the payload's values (kDelta: their running sums) to the checksum, read as kHow says (kSpan:
// decoded into `out`, the message's scratch span); the payload lies in a message ending at
// `buffer_end`.
template <Consume kHow, PackedType kType, bool kDelta>
absl::Status AddPayload(absl::string_view payload, const char* buffer_end,
                        absl::Span<typename PackedView<kType>::value_type> out, ViewChecksum* c) {
  using T = typename PackedView<kType>::value_type;
  if constexpr (kHow == Consume::kSpan) {
    absl::StatusOr<size_t> n = DecodeSpan<kType>(payload, buffer_end, out);
    if (!n.ok()) return n.status();
    if constexpr (kDelta) {
      AddDeltaRange(out.subspan(0, *n), c);
    } else {
      AddRange(out.subspan(0, *n), c);
    }
    return absl::OkStatus();
  } else {
    static_cast<void>(buffer_end);  // PackedView reads only the payload,
    static_cast<void>(out);         // into buffers of its own.
    // The loops of AddRange / AddDeltaRange, over a callback or an iterator that reports errors.
    uint64_t count = 0;
    uint64_t sum = 0;
    int64_t running = 0;
    const auto add = [&](T v) {
      ++count;
      if constexpr (kDelta) {
        running += static_cast<int64_t>(v);
        sum += static_cast<uint64_t>(running);
      } else {
        sum += static_cast<uint64_t>(v);
      }
    };
    const PackedView<kType> view(payload);
    absl::Status s;
    if constexpr (kHow == Consume::kForEach) {
      s = view.ForEach(add);
    } else {
      auto it = view.begin();
      for (const auto end = view.end(); it != end; ++it) add(*it);
      s = it.error();
    }
    c->values += count;
    c->sum += sum;
    return s;
  }
}

// Calls `on_field(field)` for every length-delimited top-level field of `bytes` numbered `number`.
template <typename Fn>
absl::Status ForEach(absl::string_view bytes, uint32_t number, Fn on_field) {
  FieldReader reader(bytes);
  Field f;
  while (reader.Next(&f)) {
    if (f.number != number || f.wire_type != WireType::kLengthDelimited) continue;
    absl::Status s = on_field(f.data);
    if (!s.ok()) return s;
  }
  return reader.status();
}

template <Consume kHow>
absl::StatusOr<ViewChecksum> ReadOsmBlock(absl::string_view block) {
  ViewChecksum c;
  const char* const end = block.data() + block.size();
  const auto sint64s = ScratchFor<kHow, PackedType::kSInt64>(block);
  const auto int32s = ScratchFor<kHow, PackedType::kInt32>(block);
  absl::Status s = ForEach(block, kBlockGroup, [&](absl::string_view group) {
    FieldReader reader(group);
    Field f;
    while (reader.Next(&f)) {
      if (f.wire_type != WireType::kLengthDelimited) continue;
      absl::Status st;
      if (f.number == kGroupDense) {
        FieldReader dense(f.data);
        Field d;
        while (dense.Next(&d) && st.ok()) {
          if (d.wire_type != WireType::kLengthDelimited) continue;
          if (d.number == kDenseId || d.number == kDenseLat || d.number == kDenseLon) {
            st = AddPayload<kHow, PackedType::kSInt64, true>(d.data, end, sint64s, &c);
          } else if (d.number == kDenseKeysVals) {
            st = AddPayload<kHow, PackedType::kInt32, false>(d.data, end, int32s, &c);
          }
        }
        if (st.ok()) st = dense.status();
      } else if (f.number == kGroupWays) {
        st = ForEach(f.data, kWayRefs, [&](absl::string_view refs) {
          return AddPayload<kHow, PackedType::kSInt64, true>(refs, end, sint64s, &c);
        });
      }
      if (!st.ok()) return st;
    }
    return reader.status();
  });
  if (!s.ok()) return s;
  return c;
}

template <Consume kHow>
absl::StatusOr<ViewChecksum> ReadTile(absl::string_view tile) {
  ViewChecksum c;
  const char* const end = tile.data() + tile.size();
  const auto uint32s = ScratchFor<kHow, PackedType::kUInt32>(tile);
  absl::Status s = ForEach(tile, kTileLayers, [&](absl::string_view layer) {
    return ForEach(layer, kLayerFeatures, [&](absl::string_view feature) {
      FieldReader reader(feature);
      Field f;
      while (reader.Next(&f)) {
        if (f.wire_type != WireType::kLengthDelimited) continue;
        if (f.number == kFeatureTags || f.number == kFeatureGeometry) {
          absl::Status st = AddPayload<kHow, PackedType::kUInt32, false>(f.data, end, uint32s, &c);
          if (!st.ok()) return st;
        }
      }
      return reader.status();
    });
  });
  if (!s.ok()) return s;
  return c;
}

}  // namespace

std::vector<NamedView> PbaccelOsmViews() {
  return {{"pbaccel", &ReadOsmBlock<Consume::kSpan>},
          {"pbaccel_foreach", &ReadOsmBlock<Consume::kForEach>},
          {"pbaccel_iterator", &ReadOsmBlock<Consume::kIterator>}};
}
std::vector<NamedView> PbaccelTileViews() {
  return {{"pbaccel", &ReadTile<Consume::kSpan>},
          {"pbaccel_foreach", &ReadTile<Consume::kForEach>},
          {"pbaccel_iterator", &ReadTile<Consume::kIterator>}};
}

// --- protozero: pbf_reader and its packed iterators, as libosmium and vtzero read -------------

absl::StatusOr<ViewChecksum> ReadOsmBlockProtozero(absl::string_view block) {
  ViewChecksum c;
  try {
    protozero::pbf_reader b(block.data(), block.size());
    while (b.next(kBlockGroup, protozero::pbf_wire_type::length_delimited)) {
      protozero::pbf_reader group = b.get_message();
      while (group.next()) {
        if (group.tag() == kGroupDense &&
            group.wire_type() == protozero::pbf_wire_type::length_delimited) {
          protozero::pbf_reader dense = group.get_message();
          while (dense.next()) {
            switch (dense.tag_and_type()) {
              case protozero::tag_and_type(kDenseId, protozero::pbf_wire_type::length_delimited):
              case protozero::tag_and_type(kDenseLat, protozero::pbf_wire_type::length_delimited):
              case protozero::tag_and_type(kDenseLon, protozero::pbf_wire_type::length_delimited):
                AddDeltaRange(dense.get_packed_sint64(), &c);
                break;
              case protozero::tag_and_type(kDenseKeysVals,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(dense.get_packed_int32(), &c);
                break;
              default: dense.skip();
            }
          }
        } else if (group.tag() == kGroupWays &&
                   group.wire_type() == protozero::pbf_wire_type::length_delimited) {
          protozero::pbf_reader way = group.get_message();
          while (way.next(kWayRefs, protozero::pbf_wire_type::length_delimited)) {
            AddDeltaRange(way.get_packed_sint64(), &c);
          }
        } else {
          group.skip();
        }
      }
    }
  } catch (const protozero::exception& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return c;
}

absl::StatusOr<ViewChecksum> ReadTileProtozero(absl::string_view tile) {
  ViewChecksum c;
  try {
    protozero::pbf_reader t(tile.data(), tile.size());
    while (t.next(kTileLayers, protozero::pbf_wire_type::length_delimited)) {
      protozero::pbf_reader layer = t.get_message();
      while (layer.next(kLayerFeatures, protozero::pbf_wire_type::length_delimited)) {
        protozero::pbf_reader feature = layer.get_message();
        while (feature.next()) {
          if ((feature.tag() == kFeatureTags || feature.tag() == kFeatureGeometry) &&
              feature.wire_type() == protozero::pbf_wire_type::length_delimited) {
            AddRange(feature.get_packed_uint32(), &c);
          } else {
            feature.skip();
          }
        }
      }
    }
  } catch (const protozero::exception& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return c;
}

absl::Status CheckViewsAgree(absl::string_view corpus_name,
                             const std::vector<std::string>& messages, ViewFn protozero,
                             const std::vector<NamedView>& pbaccel) {
  for (size_t i = 0; i < messages.size(); ++i) {
    const absl::StatusOr<ViewChecksum> b = protozero(messages[i]);
    for (const auto& [name, view] : pbaccel) {
      const absl::StatusOr<ViewChecksum> a = view(messages[i]);
      if (!a.ok() || !b.ok() || !(*a == *b)) {
        return absl::InternalError(absl::StrCat(
            corpus_name, " message ", i, ": ", name, "'s and protozero's reads differ (",
            a.ok() ? absl::StrCat(a->values, " values, sum ", a->sum) : a.status().ToString(),
            " vs ",
            b.ok() ? absl::StrCat(b->values, " values, sum ", b->sum) : b.status().ToString(),
            ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace corpora
}  // namespace pbaccel
