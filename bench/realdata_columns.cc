// Copyright 2026 The pbaccel Authors.

#include "bench/realdata_columns.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/osmformat.pb.h"
#include "proto/vector_tile.pb.h"
#include "protozero/pbf_reader.hpp"

namespace pbaccel {
namespace bench {
namespace {

// --- The column buffers of the baselines (Arrow's layout: offsets, values, validity) -------------

template <typename T>
struct List {
  std::vector<int32_t> offsets{0};
  std::vector<T> values;
  template <typename It>
  void AddRow(It begin, It end) {
    values.insert(values.end(), begin, end);
    offsets.push_back(static_cast<int32_t>(values.size()));
  }
  void Clear() {
    offsets.assign(1, 0);
    values.clear();
  }
};

template <typename T>
struct Nullable {
  std::vector<T> values;
  std::vector<uint8_t> valid;
  void Add(bool present, T v) {
    values.push_back(present ? v : T());
    valid.push_back(present);
  }
  void Clear() {
    values.clear();
    valid.clear();
  }
};

struct Strings {
  std::vector<int32_t> offsets{0};
  std::string data;
  void Add(const char* p, size_t n) {
    data.append(p, n);
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  void Clear() {
    offsets.assign(1, 0);
    data.clear();
  }
};

// Count and wrapping sum, as corpora::ViewChecksum defines them.
template <typename T>
void Add(const std::vector<T>& values, corpora::ViewChecksum* c) {
  for (T v : values) c->sum += static_cast<uint64_t>(static_cast<int64_t>(v));
  c->values += values.size();
}
template <typename T>
void Add(const Nullable<T>& column, corpora::ViewChecksum* c) {
  for (size_t i = 0; i < column.values.size(); ++i) {
    if (!column.valid[i]) continue;
    ++c->values;
    c->sum += static_cast<uint64_t>(static_cast<int64_t>(column.values[i]));
  }
}
void Add(const Strings& s, corpora::ViewChecksum* c) {
  c->values += s.offsets.size() - 1;
  c->sum += s.data.size();
}

// The checksum of an exported batch: every leaf's present values.
void AddArrow(const ArrowSchema& s, const ArrowArray& a, corpora::ViewChecksum* c) {
  const std::string format = s.format;
  if (format[0] == '+') {
    for (int64_t k = 0; k < a.n_children; ++k) AddArrow(*s.children[k], *a.children[k], c);
    return;
  }
  const auto* validity = static_cast<const uint8_t*>(a.buffers[0]);
  const auto valid = [&](int64_t i) {
    return validity == nullptr || ((validity[i >> 3] >> (i & 7)) & 1);
  };
  for (int64_t i = 0; i < a.length; ++i) {
    if (!valid(i)) continue;
    ++c->values;
    const char* values = static_cast<const char*>(a.buffers[1]);
    switch (format[0]) {
      case 'i':
        c->sum += static_cast<uint64_t>(int64_t{reinterpret_cast<const int32_t*>(values)[i]});
        break;
      case 'I': c->sum += reinterpret_cast<const uint32_t*>(values)[i]; break;
      case 'l': c->sum += static_cast<uint64_t>(reinterpret_cast<const int64_t*>(values)[i]); break;
      case 'L': c->sum += reinterpret_cast<const uint64_t*>(values)[i]; break;
      case 'u':
      case 'z': {
        const auto* offsets = reinterpret_cast<const int32_t*>(values);
        c->sum += static_cast<uint64_t>(offsets[i + 1] - offsets[i]);
        break;
      }
      default: break;
    }
  }
}

ColumnarWay PbaccelWay(const google::protobuf::Descriptor* type, std::vector<std::string> fields) {
  ColumnarOptions options;
  options.fields = std::move(fields);
  return {"pbaccel",
          [type, options](const std::vector<std::string>& records,
                          bool checksum) -> absl::StatusOr<corpora::ViewChecksum> {
            const std::vector<absl::string_view> views(records.begin(), records.end());
            ArrowRecordBatch out;
            absl::Status s = DecodeToArrow(type, views, options, &out.schema, &out.array);
            if (!s.ok()) return s;
            corpora::ViewChecksum c;
            if (checksum) {
              AddArrow(out.schema, out.array, &c);
            } else {
              c.values = static_cast<uint64_t>(out.array.length);
            }
            return c;
          }};
}

// --- OSM --------------------------------------------------------------------------------------

struct OsmColumns {
  std::vector<uint8_t> stringtable_valid;
  List<int32_t> s_lists;  // StringTable.s: offsets into the strings below.
  Strings s;
  std::vector<int32_t> groups{0};
  std::vector<uint8_t> dense_valid;
  List<int64_t> dense_id, dense_lat, dense_lon;
  List<int32_t> dense_keys_vals;
  std::vector<int32_t> ways{0};
  std::vector<int64_t> way_id;
  List<uint32_t> way_keys, way_vals;
  List<int64_t> way_refs;

  void Clear() {
    stringtable_valid.clear();
    s_lists.Clear();
    s.Clear();
    groups.assign(1, 0);
    dense_valid.clear();
    dense_id.Clear();
    dense_lat.Clear();
    dense_lon.Clear();
    dense_keys_vals.Clear();
    ways.assign(1, 0);
    way_id.clear();
    way_keys.Clear();
    way_vals.Clear();
    way_refs.Clear();
  }
  corpora::ViewChecksum Checksum() const {
    corpora::ViewChecksum c;
    Add(s, &c);
    for (const auto* l : {&dense_id, &dense_lat, &dense_lon, &way_refs}) Add(l->values, &c);
    Add(dense_keys_vals.values, &c);
    Add(way_id, &c);
    Add(way_keys.values, &c);
    Add(way_vals.values, &c);
    return c;
  }
  // A row of s_lists: the strings added since the last row.
  void CloseStrings() { s_lists.offsets.push_back(static_cast<int32_t>(s.offsets.size() - 1)); }
};

void CopyOsm(const OSMPBF::PrimitiveBlock& b, OsmColumns* c) {
  c->stringtable_valid.push_back(b.has_stringtable());
  for (const std::string& str : b.stringtable().s()) c->s.Add(str.data(), str.size());
  c->CloseStrings();
  for (const OSMPBF::PrimitiveGroup& g : b.primitivegroup()) {
    c->dense_valid.push_back(g.has_dense());
    const OSMPBF::DenseNodes& d = g.dense();
    c->dense_id.AddRow(d.id().begin(), d.id().end());
    c->dense_lat.AddRow(d.lat().begin(), d.lat().end());
    c->dense_lon.AddRow(d.lon().begin(), d.lon().end());
    c->dense_keys_vals.AddRow(d.keys_vals().begin(), d.keys_vals().end());
    for (const OSMPBF::Way& w : g.ways()) {
      c->way_id.push_back(w.id());
      c->way_keys.AddRow(w.keys().begin(), w.keys().end());
      c->way_vals.AddRow(w.vals().begin(), w.vals().end());
      c->way_refs.AddRow(w.refs().begin(), w.refs().end());
    }
    c->ways.push_back(static_cast<int32_t>(c->way_id.size()));
  }
  c->groups.push_back(static_cast<int32_t>(c->dense_valid.size()));
}

template <typename T, typename Range>
void AddRange(List<T>* list, const Range& r) {
  list->values.insert(list->values.end(), r.begin(), r.end());
}
template <typename T>
void CloseRow(List<T>* list) {
  list->offsets.push_back(static_cast<int32_t>(list->values.size()));
}

void ReadOsmProtozero(absl::string_view block, OsmColumns* c) {
  protozero::pbf_reader b(block.data(), block.size());
  bool has_stringtable = false;
  while (b.next()) {
    if (b.tag_and_type() == protozero::tag_and_type(OSMPBF::PrimitiveBlock::kStringtableFieldNumber,
                                                    protozero::pbf_wire_type::length_delimited)) {
      has_stringtable = true;
      protozero::pbf_reader st = b.get_message();
      while (
          st.next(OSMPBF::StringTable::kSFieldNumber, protozero::pbf_wire_type::length_delimited)) {
        const protozero::data_view v = st.get_view();
        c->s.Add(v.data(), v.size());
      }
    } else if (b.tag_and_type() ==
               protozero::tag_and_type(OSMPBF::PrimitiveBlock::kPrimitivegroupFieldNumber,
                                       protozero::pbf_wire_type::length_delimited)) {
      protozero::pbf_reader g = b.get_message();
      bool has_dense = false;
      while (g.next()) {
        if (g.tag_and_type() ==
            protozero::tag_and_type(OSMPBF::PrimitiveGroup::kDenseFieldNumber,
                                    protozero::pbf_wire_type::length_delimited)) {
          has_dense = true;
          protozero::pbf_reader d = g.get_message();
          while (d.next()) {
            switch (d.tag_and_type()) {
              case protozero::tag_and_type(OSMPBF::DenseNodes::kIdFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->dense_id, d.get_packed_sint64());
                break;
              case protozero::tag_and_type(OSMPBF::DenseNodes::kLatFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->dense_lat, d.get_packed_sint64());
                break;
              case protozero::tag_and_type(OSMPBF::DenseNodes::kLonFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->dense_lon, d.get_packed_sint64());
                break;
              case protozero::tag_and_type(OSMPBF::DenseNodes::kKeysValsFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->dense_keys_vals, d.get_packed_int32());
                break;
              default: d.skip();
            }
          }
        } else if (g.tag_and_type() ==
                   protozero::tag_and_type(OSMPBF::PrimitiveGroup::kWaysFieldNumber,
                                           protozero::pbf_wire_type::length_delimited)) {
          protozero::pbf_reader w = g.get_message();
          int64_t id = 0;
          while (w.next()) {
            switch (w.tag_and_type()) {
              case protozero::tag_and_type(OSMPBF::Way::kIdFieldNumber,
                                           protozero::pbf_wire_type::varint):
                id = w.get_int64();
                break;
              case protozero::tag_and_type(OSMPBF::Way::kKeysFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->way_keys, w.get_packed_uint32());
                break;
              case protozero::tag_and_type(OSMPBF::Way::kValsFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->way_vals, w.get_packed_uint32());
                break;
              case protozero::tag_and_type(OSMPBF::Way::kRefsFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->way_refs, w.get_packed_sint64());
                break;
              default: w.skip();
            }
          }
          c->way_id.push_back(id);
          CloseRow(&c->way_keys);
          CloseRow(&c->way_vals);
          CloseRow(&c->way_refs);
        } else {
          g.skip();
        }
      }
      c->dense_valid.push_back(has_dense);
      CloseRow(&c->dense_id);
      CloseRow(&c->dense_lat);
      CloseRow(&c->dense_lon);
      CloseRow(&c->dense_keys_vals);
      c->ways.push_back(static_cast<int32_t>(c->way_id.size()));
    } else {
      b.skip();
    }
  }
  c->stringtable_valid.push_back(has_stringtable);
  c->CloseStrings();
  c->groups.push_back(static_cast<int32_t>(c->dense_valid.size()));
}

// --- Vector tiles -------------------------------------------------------------------------------

struct TileColumns {
  std::vector<int32_t> layers{0};
  Strings name;
  std::vector<int32_t> features{0};
  Nullable<uint64_t> feature_id;
  List<uint32_t> tags;
  Nullable<int32_t> type;
  List<uint32_t> geometry;
  List<int32_t> key_lists;
  Strings keys;
  Nullable<uint32_t> extent;

  void Clear() {
    layers.assign(1, 0);
    name.Clear();
    features.assign(1, 0);
    feature_id.Clear();
    tags.Clear();
    type.Clear();
    geometry.Clear();
    key_lists.Clear();
    keys.Clear();
    extent.Clear();
  }
  corpora::ViewChecksum Checksum() const {
    corpora::ViewChecksum c;
    Add(name, &c);
    Add(feature_id, &c);
    Add(tags.values, &c);
    Add(type, &c);
    Add(geometry.values, &c);
    Add(keys, &c);
    Add(extent, &c);
    return c;
  }
};

void CopyTile(const vector_tile::Tile& t, TileColumns* c) {
  for (const vector_tile::Tile::Layer& l : t.layers()) {
    c->name.Add(l.name().data(), l.name().size());
    for (const vector_tile::Tile::Feature& f : l.features()) {
      c->feature_id.Add(f.has_id(), f.id());
      c->tags.AddRow(f.tags().begin(), f.tags().end());
      c->type.Add(f.has_type(), f.type());
      c->geometry.AddRow(f.geometry().begin(), f.geometry().end());
    }
    c->features.push_back(static_cast<int32_t>(c->type.values.size()));
    for (const std::string& k : l.keys()) c->keys.Add(k.data(), k.size());
    c->key_lists.offsets.push_back(static_cast<int32_t>(c->keys.offsets.size() - 1));
    c->extent.Add(l.has_extent(), l.extent());
  }
  c->layers.push_back(static_cast<int32_t>(c->extent.values.size()));
}

void ReadTileProtozero(absl::string_view tile, TileColumns* c) {
  protozero::pbf_reader t(tile.data(), tile.size());
  while (
      t.next(vector_tile::Tile::kLayersFieldNumber, protozero::pbf_wire_type::length_delimited)) {
    protozero::pbf_reader l = t.get_message();
    bool has_extent = false;
    uint32_t extent = 0;
    while (l.next()) {
      switch (l.tag_and_type()) {
        case protozero::tag_and_type(vector_tile::Tile_Layer::kNameFieldNumber,
                                     protozero::pbf_wire_type::length_delimited): {
          const protozero::data_view v = l.get_view();
          c->name.Add(v.data(), v.size());
          break;
        }
        case protozero::tag_and_type(vector_tile::Tile_Layer::kFeaturesFieldNumber,
                                     protozero::pbf_wire_type::length_delimited): {
          protozero::pbf_reader f = l.get_message();
          bool has_id = false, has_type = false;
          uint64_t id = 0;
          int32_t type = 0;
          while (f.next()) {
            switch (f.tag_and_type()) {
              case protozero::tag_and_type(vector_tile::Tile_Feature::kIdFieldNumber,
                                           protozero::pbf_wire_type::varint):
                has_id = true;
                id = f.get_uint64();
                break;
              case protozero::tag_and_type(vector_tile::Tile_Feature::kTagsFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->tags, f.get_packed_uint32());
                break;
              case protozero::tag_and_type(vector_tile::Tile_Feature::kTypeFieldNumber,
                                           protozero::pbf_wire_type::varint):
                has_type = true;
                type = f.get_enum();
                break;
              case protozero::tag_and_type(vector_tile::Tile_Feature::kGeometryFieldNumber,
                                           protozero::pbf_wire_type::length_delimited):
                AddRange(&c->geometry, f.get_packed_uint32());
                break;
              default: f.skip();
            }
          }
          c->feature_id.Add(has_id, id);
          CloseRow(&c->tags);
          c->type.Add(has_type, type);
          CloseRow(&c->geometry);
          break;
        }
        case protozero::tag_and_type(vector_tile::Tile_Layer::kKeysFieldNumber,
                                     protozero::pbf_wire_type::length_delimited): {
          const protozero::data_view v = l.get_view();
          c->keys.Add(v.data(), v.size());
          break;
        }
        case protozero::tag_and_type(vector_tile::Tile_Layer::kExtentFieldNumber,
                                     protozero::pbf_wire_type::varint):
          has_extent = true;
          extent = l.get_uint32();
          break;
        default: l.skip();
      }
    }
    c->features.push_back(static_cast<int32_t>(c->type.values.size()));
    c->key_lists.offsets.push_back(static_cast<int32_t>(c->keys.offsets.size() - 1));
    c->extent.Add(has_extent, extent);
  }
  c->layers.push_back(static_cast<int32_t>(c->extent.values.size()));
}

// The baselines: upstream's parse (one reused message) plus copies, and protozero; each with its
// own columns, cleared (capacity kept) for every run.
template <typename Message, typename Columns>
ColumnarWay UpstreamWay(void (*copy)(const Message&, Columns*)) {
  auto message = std::make_shared<Message>();
  auto columns = std::make_shared<Columns>();
  return {"protobuf+copy",
          [message, columns, copy](const std::vector<std::string>& records,
                                   bool checksum) -> absl::StatusOr<corpora::ViewChecksum> {
            columns->Clear();
            for (const std::string& r : records) {
              if (!message->ParseFromString(r)) return absl::InvalidArgumentError("parse failed");
              copy(*message, columns.get());
            }
            return checksum ? columns->Checksum() : corpora::ViewChecksum{records.size(), 0};
          }};
}

template <typename Columns>
ColumnarWay ProtozeroWay(void (*read)(absl::string_view, Columns*)) {
  auto columns = std::make_shared<Columns>();
  return {"protozero",
          [columns, read](const std::vector<std::string>& records,
                          bool checksum) -> absl::StatusOr<corpora::ViewChecksum> {
            columns->Clear();
            try {
              for (const std::string& r : records) read(r, columns.get());
            } catch (const protozero::exception& e) {
              return absl::InvalidArgumentError(e.what());
            }
            return checksum ? columns->Checksum() : corpora::ViewChecksum{records.size(), 0};
          }};
}

}  // namespace

std::vector<ColumnarWay> OsmColumnarWays() {
  return {PbaccelWay(OSMPBF::PrimitiveBlock::descriptor(),
                     {"stringtable", "primitivegroup.dense.id", "primitivegroup.dense.lat",
                      "primitivegroup.dense.lon", "primitivegroup.dense.keys_vals",
                      "primitivegroup.ways.id", "primitivegroup.ways.keys",
                      "primitivegroup.ways.vals", "primitivegroup.ways.refs"}),
          UpstreamWay<OSMPBF::PrimitiveBlock, OsmColumns>(&CopyOsm),
          ProtozeroWay<OsmColumns>(&ReadOsmProtozero)};
}

std::vector<ColumnarWay> TileColumnarWays() {
  return {PbaccelWay(vector_tile::Tile::descriptor(),
                     {"layers.name", "layers.features", "layers.keys", "layers.extent"}),
          UpstreamWay<vector_tile::Tile, TileColumns>(&CopyTile),
          ProtozeroWay<TileColumns>(&ReadTileProtozero)};
}

}  // namespace bench
}  // namespace pbaccel
