// Copyright 2026 The pbaccel Authors.
//
// pbaccel::DecodeToArrow against upstream protobuf (testing/columnar_check.h: every column's every
// value against reflection on upstream's parse, and the C Data Interface's layout rules), under
// every kernel: the real corpora, random messages of every test type, their mutations (accepted
// and rejected exactly as upstream does, the error naming the record), the semantics that make a
// column differ from a naive copy (last value, merges, oneofs, map keys, closed enums), selections,
// delimited streams and bad records made null. One test proves the kernel decodes a packed payload
// straight into the exported column's buffer.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "pbaccel/columnar.h"
#include "pbaccel/internal/columnar_decode.h"
#include "pbaccel/internal/columnar_memory.h"
#include "pbaccel/internal/kernel_registry.h"
#include "pbaccel/internal/protobuf_compat.h"
#include "pbaccel/internal/utf8_replace.h"
#include "pbaccel/testing/columnar_check.h"
#include "pbaccel/testing/every_kernel.h"
#include "pbaccel/testing/mutation.h"
#include "pbaccel/testing/random_message.h"
#include "pbaccel/testing/wire_builder.h"
#include "proto/message_workloads.pb.h"
#include "proto/osmformat.pb.h"
#include "proto/packed_fields.pb.h"
#include "proto/parser_test2.pb.h"
#include "proto/parser_test3.pb.h"
#include "proto/profile.pb.h"
#include "proto/vector_tile.pb.h"
#include "testing/corpora/realdata_corpus.h"
#include "tests/varint_test_util.h"

namespace pbaccel {
namespace {

using google::protobuf::Message;
using testing::CompareColumnsWithUpstream;

std::vector<absl::string_view> Views(const std::vector<std::string>& records) {
  return std::vector<absl::string_view>(records.begin(), records.end());
}

ColumnarOptions Select(std::vector<std::string> fields) {
  ColumnarOptions options;
  options.fields = std::move(fields);
  return options;
}

class ColumnarTest : public testing::EveryKernelTest {};
PBACCEL_INSTANTIATE_FOR_EVERY_KERNEL(ColumnarTest);

std::string DataDir() { return corpora::DefaultDataDir(); }

std::string Serialize(const Message& m) { return m.SerializePartialAsString(); }

TEST_P(ColumnarTest, OsmBlocks) {
  const absl::StatusOr<corpora::Corpus> osm = corpora::LoadOsm(DataDir());
  ASSERT_TRUE(osm.ok()) << osm.status();
  ASSERT_FALSE(osm->messages.empty());
  const auto records = Views(osm->messages);
  const Message& type = OSMPBF::PrimitiveBlock::default_instance();
  EXPECT_EQ(CompareColumnsWithUpstream(type, records), "");
  EXPECT_EQ(CompareColumnsWithUpstream(type, records,
                                       Select({"primitivegroup.dense", "primitivegroup.ways.refs",
                                               "stringtable", "granularity"})),
            "");
}

TEST_P(ColumnarTest, VectorTiles) {
  const absl::StatusOr<corpora::Corpus> mvt = corpora::LoadMvt(DataDir());
  ASSERT_TRUE(mvt.ok()) << mvt.status();
  ASSERT_FALSE(mvt->messages.empty());
  const auto records = Views(mvt->messages);
  const Message& type = vector_tile::Tile::default_instance();
  EXPECT_EQ(CompareColumnsWithUpstream(type, records), "");
  EXPECT_EQ(CompareColumnsWithUpstream(
                type, records, Select({"layers.features.geometry", "layers.name", "layers.keys"})),
            "");
}

// Decodes `records` as `type` with `options` and returns how many fields took the decoder's
// general path (GeneralPathFieldsForTesting); -1 if the batch fails.
int64_t GeneralPathFields(const google::protobuf::Descriptor* type,
                          absl::Span<const absl::string_view> records,
                          const ColumnarOptions& options) {
  const uint64_t before = internal::columnar::GeneralPathFieldsForTesting();
  ArrowRecordBatch out;
  if (!DecodeToArrow(type, records, options, &out.schema, &out.array).ok()) return -1;
  return static_cast<int64_t>(internal::columnar::GeneralPathFieldsForTesting() - before);
}

// The one-byte-tag path (columnar_columns.h's FastTag) takes plain fields of numbers 1-15: varint
// scalars, closed enums (an unknown value keeps the old one), packed runs, repeated submessages
// and unselected length-delimited fields; required fields, oneof members, strings and two-byte
// tags go the general way. Values it cannot read go the general way too, which names the error.
TEST_P(ColumnarTest, OneByteTagsTakeTheFastPath) {
  vector_tile::Tile tile;
  vector_tile::Tile_Layer* layer = tile.add_layers();
  layer->set_name("roads");  // Required, as is version: the general path.
  layer->set_version(2);
  layer->add_keys("class");  // Unselected below: skipped by the fast path.
  layer->add_values()->set_string_value("primary");
  for (int i = 0; i < 3; ++i) {
    vector_tile::Tile_Feature* feature = layer->add_features();
    feature->set_id(i == 1 ? 1u << 30 : i);  // A five-byte varint: the fast path reads it too.
    feature->add_tags(0);
    feature->add_tags(0);
    feature->set_type(vector_tile::Tile_GeomType_LINESTRING);
    for (int v = 0; v < 40; ++v) feature->add_geometry(static_cast<uint32_t>(v * 37));
  }
  std::string record = tile.SerializeAsString();
  // A feature whose type is a value the closed enum lacks (upstream keeps LINESTRING).
  std::string odd_feature = layer->features(0).SerializeAsString();
  testing::AppendTag(3, 0, &odd_feature);
  testing::AppendVarint(9, &odd_feature);
  vector_tile::Tile_Layer second;
  second.set_name("rivers");
  second.set_version(2);
  std::string odd_layer = second.SerializeAsString();
  testing::AppendTag(2, 2, &odd_layer);
  odd_layer += testing::Varint(odd_feature.size()) + odd_feature;
  std::string odd = record;
  testing::AppendTag(3, 2, &odd);
  odd += testing::Varint(odd_layer.size()) + odd_layer;
  const absl::string_view records[] = {record, odd};
  const ColumnarOptions features = Select({"layers.features"});
  EXPECT_EQ(CompareColumnsWithUpstream(tile, records, features), "");
  EXPECT_EQ(CompareColumnsWithUpstream(tile, records), "");
  // Every field but the layers' required ones (two in the first record's layer, four in the
  // second record's two) took the fast path.
  EXPECT_EQ(GeneralPathFields(vector_tile::Tile::descriptor(), records, features), 6);

  // test2.Everything: req (required) and p_bool (field 16: a two-byte tag) go the general way,
  // p_int32 and middle's packed_i32 the fast one.
  test2::Everything everything;
  everything.set_req(1);
  everything.add_p_int32(-5);
  everything.add_p_bool(true);
  everything.mutable_middle()->add_packed_i32(3);
  const std::string plain = Serialize(everything);
  const absl::string_view one[] = {plain};
  EXPECT_EQ(CompareColumnsWithUpstream(everything, one), "");
  EXPECT_EQ(GeneralPathFields(test2::Everything::descriptor(), one, ColumnarOptions()), 3);

  // Malformed where the fast path reads: a varint of eleven bytes, a packed length past the
  // record's end. The general path rejects them, naming the field, as upstream rejects them.
  const std::string good = Serialize(everything);
  std::string long_varint;
  testing::AppendTag(1, 0, &long_varint);
  long_varint += std::string(10, '\x80') + std::string(1, '\x01');
  std::string past_end;
  testing::AppendTag(10, 2, &past_end);
  past_end += testing::Varint(50) + std::string("\x01\x02", 2);
  for (const std::string& bad : {long_varint, past_end}) {
    const std::string bad_record = good + bad;
    const absl::string_view bad_records[] = {bad_record};
    EXPECT_EQ(CompareColumnsWithUpstream(everything, bad_records), "");
    ArrowRecordBatch out;
    const absl::Status status = DecodeToArrow(test2::Everything::descriptor(), bad_records,
                                              ColumnarOptions(), &out.schema, &out.array);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_TRUE(absl::StrContains(status.message(), bad == long_varint
                                                        ? "pbaccel.test2.Everything.req"
                                                        : "pbaccel.test2.Everything.p_int32"))
        << status;
  }
}

// delta_fields: OSM's delta-coded ids and refs as their running sums, list by list.
TEST_P(ColumnarTest, DeltaFieldsAsRunningSums) {
  const absl::StatusOr<corpora::Corpus> osm = corpora::LoadOsm(DataDir());
  ASSERT_TRUE(osm.ok()) << osm.status();
  const auto records = Views(osm->messages);
  ColumnarOptions options = Select({"primitivegroup.dense.id", "primitivegroup.ways.refs"});
  options.delta_fields = {"primitivegroup.dense.id", "primitivegroup.ways.refs"};
  ArrowRecordBatch out;
  ASSERT_TRUE(
      DecodeToArrow(OSMPBF::PrimitiveBlock::descriptor(), records, options, &out.schema, &out.array)
          .ok());
  // primitivegroup: list<struct<dense: struct<id: list<int64>>, ways: list<struct<refs: ...>>>>
  const ArrowArray& groups = *out.array.children[0]->children[0];
  const ArrowArray& ids = *groups.children[0]->children[0];
  const ArrowArray& ways = *groups.children[1]->children[0];
  const ArrowArray& refs = *ways.children[0];
  const auto* id_offsets = static_cast<const int32_t*>(ids.buffers[1]);
  const auto* id_values = static_cast<const int64_t*>(ids.children[0]->buffers[1]);
  const auto* ref_offsets = static_cast<const int32_t*>(refs.buffers[1]);
  const auto* ref_values = static_cast<const int64_t*>(refs.children[0]->buffers[1]);
  int64_t group = 0, way = 0;
  for (const std::string& bytes : osm->messages) {
    OSMPBF::PrimitiveBlock block;
    ASSERT_TRUE(block.ParseFromString(bytes));
    for (const OSMPBF::PrimitiveGroup& g : block.primitivegroup()) {
      int64_t sum = 0;
      ASSERT_EQ(id_offsets[group + 1] - id_offsets[group], g.dense().id_size());
      for (int i = 0; i < g.dense().id_size(); ++i) {
        sum += g.dense().id(i);
        ASSERT_EQ(id_values[id_offsets[group] + i], sum);
      }
      for (const OSMPBF::Way& w : g.ways()) {
        int64_t ref = 0;
        ASSERT_EQ(ref_offsets[way + 1] - ref_offsets[way], w.refs_size());
        for (int i = 0; i < w.refs_size(); ++i) {
          ref += w.refs(i);
          ASSERT_EQ(ref_values[ref_offsets[way] + i], ref);
        }
        ++way;
      }
      ++group;
    }
  }
  options.delta_fields = {"primitivegroup.ways"};  // Not a list of integers.
  ArrowRecordBatch bad;
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeToArrow(OSMPBF::PrimitiveBlock::descriptor(), records,
                                                    options, &bad.schema, &bad.array)));
}

// A proto3 schema no part of the columnar code was written against.
TEST_P(ColumnarTest, PprofProfiles) {
  const absl::StatusOr<corpora::Corpus> pprof = corpora::LoadPprof(DataDir());
  ASSERT_TRUE(pprof.ok()) << pprof.status();
  ASSERT_FALSE(pprof->messages.empty());
  EXPECT_EQ(CompareColumnsWithUpstream(perftools::profiles::Profile::default_instance(),
                                       Views(pprof->messages)),
            "");
}

const Message* const kTypes[] = {
    &test2::Everything::default_instance(),  &test2::Middle::default_instance(),
    &test2::Recursive::default_instance(),   &test2::Singulars2::default_instance(),
    &test2::Maps2::default_instance(),       &test3::All3::default_instance(),
    &test3::Singulars3::default_instance(),  &test3::Maps3::default_instance(),
    &test::PackedFields::default_instance(), &bench::Batch::default_instance(),
    &bench::Person::default_instance(),
};

// Random contents of every field kind, packed and unpacked records interleaved; then the same
// records mutated, one batch per record (accepted and rejected as upstream decides, the error
// naming the record) and all in one batch with bad records made null.
TEST_P(ColumnarTest, RandomMessagesAndMutations) {
  std::mt19937_64 rng(20261127);
  testing::RandomMessageOptions options;
  options.max_repeated = 40;
  for (const Message* type : kTypes) {
    SCOPED_TRACE(type->GetTypeName());
    std::vector<std::string> valid;
    for (int i = 0; i < 30; ++i) {
      std::unique_ptr<Message> m(type->New());
      testing::FillRandom(m.get(), rng, options);
      valid.push_back(testing::EncodeInterleaved(*m, rng));
    }
    ASSERT_EQ(CompareColumnsWithUpstream(*type, Views(valid)), "");
    std::vector<std::string> mutated;
    for (size_t i = 0; i < 8; ++i) {
      for (std::string& bad : testing::Mutate(valid[i], rng, 12)) mutated.push_back(std::move(bad));
    }
    for (size_t i = 0; i < mutated.size(); ++i) {
      const absl::string_view one[] = {mutated[i]};
      ASSERT_EQ(CompareColumnsWithUpstream(*type, one), "") << "mutation " << i;
    }
    ColumnarOptions null_bad;
    null_bad.on_bad_record = ColumnarOptions::OnBadRecord::kNull;
    ASSERT_EQ(CompareColumnsWithUpstream(*type, Views(mutated), null_bad), "");
  }
}

// Types from a FileDescriptorSet (a pool of their own, DynamicMessage prototypes), as Python and
// Spark users have them: the same columns, the same accepted and rejected records.
TEST_P(ColumnarTest, TypesFromADescriptorPool) {
  google::protobuf::DescriptorPool pool;
  for (const google::protobuf::FileDescriptor* file :
       {test2::Everything::descriptor()->file(), vector_tile::Tile::descriptor()->file()}) {
    google::protobuf::FileDescriptorProto proto;
    file->CopyTo(&proto);
    ASSERT_NE(pool.BuildFile(proto), nullptr) << proto.name();
  }
  google::protobuf::DynamicMessageFactory factory(&pool);
  std::mt19937_64 rng(11);
  for (const char* name : {"pbaccel.test2.Everything", "pbaccel.test2.Recursive",
                           "pbaccel.test2.Maps2", "vector_tile.Tile"}) {
    SCOPED_TRACE(name);
    const google::protobuf::Descriptor* type = pool.FindMessageTypeByName(name);
    ASSERT_NE(type, nullptr);
    const Message& prototype = *factory.GetPrototype(type);
    std::vector<std::string> records;
    for (int i = 0; i < 20; ++i) {
      std::unique_ptr<Message> m(prototype.New());
      testing::RandomMessageOptions options;
      options.max_repeated = 20;
      testing::FillRandom(m.get(), rng, options);
      records.push_back(testing::EncodeInterleaved(*m, rng));
      for (std::string& bad : testing::Mutate(records.back(), rng, 2)) {
        const absl::string_view one[] = {bad};
        ASSERT_EQ(CompareColumnsWithUpstream(prototype, one), "");
      }
    }
    ASSERT_EQ(CompareColumnsWithUpstream(prototype, Views(records)), "");
  }
}

// Occurrences of one record's fields that upstream merges, replaces or drops.
TEST_P(ColumnarTest, MergesAsUpstream) {
  test2::Everything a, b, c;
  a.set_req(1);
  a.set_str("first");
  a.mutable_middle()->mutable_leaf()->set_x(5);
  a.mutable_middle()->add_packed_i32(1);
  a.mutable_choice_leaf()->set_x(7);
  a.mutable_choice_leaf()->add_packed_s64(-3);
  (*a.mutable_str_map())["k"] = 1;
  (*a.mutable_leaf_map())[4].set_x(1);
  b.set_str("second");                    // The last string wins.
  b.mutable_middle()->add_packed_i32(2);  // Merged: [1, 2], leaf.x kept.
  b.set_choice_int(3);                    // Replaces choice_leaf ...
  (*b.mutable_str_map())["k"] = 2;        // A later entry with the same key replaces the first.
  (*b.mutable_leaf_map())[4].add_packed_s64(9);  // Replaced whole, not merged.
  c.mutable_choice_leaf()->add_packed_s64(8);    // ... which starts afresh here: [8], no x.
  const std::string record = Serialize(a) + Serialize(b) + Serialize(c);
  const absl::string_view records[] = {record};
  EXPECT_EQ(CompareColumnsWithUpstream(test2::Everything::default_instance(), records), "");
  // The same with only some columns, the oneof's other members unselected.
  EXPECT_EQ(CompareColumnsWithUpstream(test2::Everything::default_instance(), records,
                                       Select({"choice_leaf", "middle.packed_i32", "str_map"})),
            "");
}

TEST_P(ColumnarTest, ClosedEnumsAsUpstream) {
  std::string record;
  testing::AppendTag(1, 0, &record);  // req
  testing::AppendVarint(1, &record);
  testing::AppendTag(17, 2, &record);  // p_enum: 1, 3 (unknown), 5
  record += testing::Varint(3) + testing::EncodePacked({1, 3, 5});
  testing::AppendTag(34, 0, &record);  // u_enum: 4 (unknown), 0
  testing::AppendVarint(4, &record);
  testing::AppendTag(34, 0, &record);
  testing::AppendVarint(0, &record);
  testing::AppendTag(24, 2, &record);  // p_contiguous: -1 and 7 (unknown)
  const std::string contiguous = testing::EncodePacked({~uint64_t{0}, 7});
  record += testing::Varint(contiguous.size()) + contiguous;
  testing::AppendTag(71, 0, &record);  // contiguous: 2, then 9 (unknown: stays 2)
  testing::AppendVarint(2, &record);
  testing::AppendTag(71, 0, &record);
  testing::AppendVarint(9, &record);
  std::string maps;
  for (uint64_t value : {1u, 2u, 5u}) {  // Maps2.closed: {1: 1}, {1: 2 (unknown: dropped)}, {2: 5}
    std::string entry;
    testing::AppendTag(1, 0, &entry);
    testing::AppendVarint(value == 5 ? 2 : 1, &entry);
    testing::AppendTag(2, 0, &entry);
    testing::AppendVarint(value, &entry);
    testing::AppendTag(1, 2, &maps);
    maps += testing::Varint(entry.size()) + entry;
  }
  const absl::string_view everything[] = {record};
  EXPECT_EQ(CompareColumnsWithUpstream(test2::Everything::default_instance(), everything), "");
  const absl::string_view maps2[] = {maps};
  EXPECT_EQ(CompareColumnsWithUpstream(test2::Maps2::default_instance(), maps2), "");
}

using testing::LengthDelimitedField;
using testing::VarintField;

// Builds parser_test2.proto into `pool`, then `file_text` (a FileDescriptorProto in text format,
// depending on it): types of a pool of their own, as Python and Spark users load them.
bool BuildWithTest2(const char* file_text, google::protobuf::DescriptorPool* pool) {
  google::protobuf::FileDescriptorProto test2_file, file;
  test2::Everything::descriptor()->file()->CopyTo(&test2_file);
  if (pool->BuildFile(test2_file) == nullptr ||
      !google::protobuf::TextFormat::ParseFromString(file_text, &file)) {
    return false;
  }
  file.add_dependency(test2_file.name());
  return pool->BuildFile(file) != nullptr;
}

// A record, and whether upstream accepts it as the type the test names.
struct RecordCase {
  const char* what;
  std::string record;
  bool accepted;
};

// Upstream decides `c` as `type` as the case says, and the columns agree with upstream.
void ExpectColumnsAsUpstream(const Message& type, const RecordCase& c) {
  SCOPED_TRACE(c.what);
  {
    // Upstream logs each record it rejects for a missing required field.
    internal::compat::ScopedUpstreamLogHandler quiet(&internal::compat::DropLogLine);
    std::unique_ptr<Message> upstream(type.New());
    EXPECT_EQ(upstream->ParseFromString(c.record), c.accepted);
  }
  const absl::string_view one[] = {c.record};
  EXPECT_EQ(CompareColumnsWithUpstream(type, one), "");
}

// Known extensions hold no column, but upstream parses them: a malformed one, or a message-typed
// one missing a required field once its occurrences are merged, rejects the record. The
// generated pool's extensions of Everything, and (from a pool of its own, as Python and Spark
// users load types) message, group and closed-enum extensions.
TEST_P(ColumnarTest, KnownExtensionsCheckedAsUpstream) {
  google::protobuf::DescriptorPool pool;
  ASSERT_TRUE(BuildWithTest2(
      R"pb(
        name: "columnar_extensions_test.proto"
        package: "pbaccel.test2x"
        syntax: "proto2"
        message_type {
          name: "ExtGroup"
          field { name: "id" number: 1 label: LABEL_REQUIRED type: TYPE_INT32 }
        }
        message_type {
          name: "Extended"
          extension_range { start: 100 end: 200 }
        }
        message_type {
          name: "Choice"
          oneof_decl { name: "c" }
          field {
            name: "a"
            number: 1
            label: LABEL_OPTIONAL
            type: TYPE_MESSAGE
            type_name: ".pbaccel.test2x.Extended"
            oneof_index: 0
          }
          field { name: "b" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 oneof_index: 0 }
        }
        extension {
          name: "in_extended"
          number: 100
          label: LABEL_OPTIONAL
          type: TYPE_MESSAGE
          type_name: ".pbaccel.test2.Required2"
          extendee: ".pbaccel.test2x.Extended"
        }
        extension {
          name: "ext_required"
          number: 1003
          label: LABEL_OPTIONAL
          type: TYPE_MESSAGE
          type_name: ".pbaccel.test2.Required2"
          extendee: ".pbaccel.test2.Everything"
        }
        extension {
          name: "ext_required_list"
          number: 1004
          label: LABEL_REPEATED
          type: TYPE_MESSAGE
          type_name: ".pbaccel.test2.Required2"
          extendee: ".pbaccel.test2.Everything"
        }
        extension {
          name: "extgroup"
          number: 1005
          label: LABEL_OPTIONAL
          type: TYPE_GROUP
          type_name: ".pbaccel.test2x.ExtGroup"
          extendee: ".pbaccel.test2.Everything"
        }
        extension {
          name: "ext_closed"
          number: 1006
          label: LABEL_REPEATED
          type: TYPE_ENUM
          type_name: ".pbaccel.test2.Closed"
          extendee: ".pbaccel.test2.Everything"
          options { packed: true }
        }
      )pb",
      &pool));
  google::protobuf::DynamicMessageFactory factory(&pool);
  const Message& dynamic =
      *factory.GetPrototype(pool.FindMessageTypeByName("pbaccel.test2.Everything"));

  std::string req;  // req = 1: every record has it.
  testing::AppendTag(1, 0, &req);
  testing::AppendVarint(1, &req);
  const std::string id = VarintField(1, 5);                  // Required2.id / ExtGroup.id
  const std::string note = LengthDelimitedField(2, "note");  // Required2.note
  std::string group_start, group_end;
  testing::AppendTag(1005, 3, &group_start);
  testing::AppendTag(1005, 4, &group_end);
  const RecordCase cases[] = {
      {"ext_packed", req + LengthDelimitedField(1000, testing::EncodePacked({1, 300})), true},
      {"ext_packed unpacked", req + VarintField(1000, 7), true},
      {"ext_packed truncated varint", req + LengthDelimitedField(1000, "\x80"), false},
      {"ext_packed of another wire type: unknown", req + "\xc5\x3e\x01\x02\x03\x04", true},
      {"ext_leaf", req + LengthDelimitedField(1001, VarintField(1, 3)), true},
      {"ext_leaf malformed", req + LengthDelimitedField(1001, "\x08\x80"), false},
      {"ext_leaf truncated tag", req + LengthDelimitedField(1001, "\x80"), false},
      {"ext_required", req + LengthDelimitedField(1003, id), true},
      {"ext_required without id", req + LengthDelimitedField(1003, note), false},
      {"ext_required, id in a later occurrence",
       req + LengthDelimitedField(1003, note) + LengthDelimitedField(1003, id), true},
      {"ext_required_list, one without id",
       req + LengthDelimitedField(1004, id + note) + LengthDelimitedField(1004, note), false},
      {"extgroup", req + group_start + id + group_end, true},
      {"extgroup without id", req + group_start + group_end, false},
      {"extgroup without its end", req + group_start + id, false},
      {"ext_closed with an unknown value",
       req + LengthDelimitedField(1006, testing::EncodePacked({1, 99})), true},
  };
  for (const RecordCase& c : cases) {
    ExpectColumnsAsUpstream(dynamic, c);
    // The generated type knows only ext_packed, ext_leaf and ext_unpacked.
    const absl::string_view one[] = {c.record};
    EXPECT_EQ(CompareColumnsWithUpstream(test2::Everything::default_instance(), one), "") << c.what;
  }
  // The error names the record, the extension and where it starts.
  const absl::string_view bad[] = {cases[0].record, cases[2].record};
  ArrowRecordBatch out;
  const absl::Status status = DecodeToArrow(test2::Everything::descriptor(), bad, ColumnarOptions(),
                                            &out.schema, &out.array);
  EXPECT_EQ(status.message(),
            absl::StrCat("record 1 (pbaccel.test2.Everything): extension rejected by protobuf: "
                         "in pbaccel.test2.ext_packed (field 1000) at byte ",
                         req.size()));
  const absl::string_view missing[] = {cases[8].record};
  const absl::Status required =
      DecodeToArrow(dynamic.GetDescriptor(), missing, ColumnarOptions(), &out.schema, &out.array);
  EXPECT_TRUE(absl::StrContains(required.message(),
                                "missing required field pbaccel.test2x.ext_required: id"))
      << required;
  // A selection leaves extensions, as every field it does not name, checked as wire data only.
  EXPECT_TRUE(
      DecodeToArrow(test2::Everything::descriptor(), bad, Select({"str"}), &out.schema, &out.array)
          .ok());

  // A oneof's message member set again after another member starts afresh, its extensions too.
  const Message& choice =
      *factory.GetPrototype(pool.FindMessageTypeByName("pbaccel.test2x.Choice"));
  const auto a = [&](const std::string& required2) {
    return LengthDelimitedField(1, LengthDelimitedField(100, required2));
  };
  const std::string b = VarintField(2, 1);
  const RecordCase oneof_cases[] = {
      {"a's extension merged", a(note) + a(id), true},
      {"a's extension with id, then b, then a's without", a(id) + b + a(note), false},
      {"a's extension without id, then b, then a's with", a(note) + b + a(id), true},
  };
  for (const RecordCase& c : oneof_cases) ExpectColumnsAsUpstream(choice, c);
}

// A MessageSet's extensions come as items (group 1: type_id, message) as well as fields; upstream
// parses the items whose type_id it knows.
TEST_P(ColumnarTest, MessageSetItemsCheckedAsUpstream) {
  google::protobuf::DescriptorPool pool;
  ASSERT_TRUE(BuildWithTest2(
      R"pb(
        name: "columnar_message_set_test.proto"
        package: "pbaccel.test2x"
        syntax: "proto2"
        message_type {
          name: "Set"
          options { message_set_wire_format: true }
          extension_range { start: 4 end: 536870912 }
        }
        message_type {
          name: "Holder"
          field {
            name: "set"
            number: 1
            label: LABEL_OPTIONAL
            type: TYPE_MESSAGE
            type_name: ".pbaccel.test2x.Set"
          }
          field { name: "x" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 }
        }
        extension {
          name: "in_set"
          number: 100
          label: LABEL_OPTIONAL
          type: TYPE_MESSAGE
          type_name: ".pbaccel.test2.Required2"
          extendee: ".pbaccel.test2x.Set"
        }
      )pb",
      &pool));
  google::protobuf::DynamicMessageFactory factory(&pool);
  const Message& holder =
      *factory.GetPrototype(pool.FindMessageTypeByName("pbaccel.test2x.Holder"));

  auto item = [&](uint64_t type_id, const std::string& message) {
    std::string out;
    testing::AppendTag(1, 3, &out);
    out += VarintField(2, type_id) + LengthDelimitedField(3, message);
    testing::AppendTag(1, 4, &out);
    return out;
  };
  auto in_holder = [&](const std::string& set) {
    return LengthDelimitedField(1, set) + VarintField(2, 7);
  };
  const std::string id = VarintField(1, 5);  // Required2.id
  const RecordCase cases[] = {
      {"an item", in_holder(item(100, id)), true},
      {"an item of an unknown type_id", in_holder(item(200, "\x80")), true},
      {"an item whose message is malformed", in_holder(item(100, "\x08\x80")), false},
      {"an item whose message lacks a required field", in_holder(item(100, "")), false},
      {"the extension as a field", in_holder(LengthDelimitedField(100, id)), true},
      {"the extension as a field, malformed", in_holder(LengthDelimitedField(100, "\x08")), false},
  };
  for (const RecordCase& c : cases) ExpectColumnsAsUpstream(holder, c);
}

TEST_P(ColumnarTest, ErrorNamesRecordFieldAndOffset) {
  test2::Everything ok;
  ok.set_req(1);
  const std::string good = Serialize(ok);
  std::string bad = good;
  testing::AppendTag(15, 2, &bad);  // p_sint64 whose last varint runs past the payload.
  bad += testing::Varint(3) + std::string("\x01\x02\x80", 3);
  const absl::string_view records[] = {good, good, bad};
  ArrowRecordBatch out;
  const absl::Status status = DecodeToArrow(test2::Everything::descriptor(), records,
                                            ColumnarOptions(), &out.schema, &out.array);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_TRUE(absl::StartsWith(status.message(), "record 2 (pbaccel.test2.Everything): "))
      << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "pbaccel.test2.Everything.p_sint64")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), absl::StrCat("at byte ", good.size() + 2)))
      << status;
  EXPECT_EQ(out.array.release, nullptr);  // Nothing exported.
  EXPECT_EQ(out.schema.release, nullptr);

  // Missing required fields: rejected as ParseFromString rejects them.
  const absl::string_view missing[] = {""};
  const absl::Status required = DecodeToArrow(test2::Everything::descriptor(), missing,
                                              ColumnarOptions(), &out.schema, &out.array);
  EXPECT_TRUE(absl::StrContains(required.message(),
                                "missing required field "
                                "pbaccel.test2.Everything.req"))
      << required;

  ColumnarOptions null_bad;
  null_bad.on_bad_record = ColumnarOptions::OnBadRecord::kNull;
  ColumnarReport report;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records, null_bad, &out.schema,
                            &out.array, &report)
                  .ok());
  ASSERT_EQ(report.bad_records.size(), 1u);
  EXPECT_EQ(report.bad_records[0].index, 2u);
  EXPECT_EQ(report.bad_records[0].error, status);
  EXPECT_EQ(out.array.length, 3);
  EXPECT_EQ(out.array.children[0]->null_count, 1);
}

// Null records (a nullable binary column's nulls) are null rows; their views are not read, and
// every column is nullable whether or not a batch holds a null.
TEST_P(ColumnarTest, NullRecordsAreNullRows) {
  test2::Everything first;
  first.set_req(7);
  first.add_p_sint64(-3);
  test2::Everything second;
  second.set_req(9);
  const std::string a = Serialize(first);
  const std::string b = Serialize(second);
  const std::string unread(3, '\xff');  // Malformed: a null record must not be decoded.
  const absl::string_view records[] = {a, unread, b};
  const uint8_t nulls[] = {0, 1, 0};
  ArrowRecordBatch out;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records, nulls, ColumnarOptions(),
                            &out.schema, &out.array)
                  .ok());
  ASSERT_EQ(out.array.length, 3);
  for (int64_t i = 0; i < out.array.n_children; ++i) {
    EXPECT_NE(out.schema.children[i]->flags & ARROW_FLAG_NULLABLE, 0)
        << out.schema.children[i]->name;
    const ArrowArray& column = *out.array.children[i];
    ASSERT_NE(column.buffers[0], nullptr) << out.schema.children[i]->name;
    EXPECT_EQ(static_cast<const uint8_t*>(column.buffers[0])[0] & 2, 0)  // Row 1 is null.
        << out.schema.children[i]->name;
  }
  const ArrowArray& req = *out.array.children[0];  // int32: validity, values.
  const uint8_t validity = static_cast<const uint8_t*>(req.buffers[0])[0];
  EXPECT_EQ(validity & 7, 5);
  EXPECT_EQ(static_cast<const int32_t*>(req.buffers[1])[0], 7);
  EXPECT_EQ(static_cast<const int32_t*>(req.buffers[1])[2], 9);
  // The list column: the null row holds no elements.
  const ArrowArray& p_sint64 = *out.array.children[3 + 5];
  ASSERT_STREQ(out.schema.children[3 + 5]->name, "p_sint64");
  const int32_t* offsets = static_cast<const int32_t*>(p_sint64.buffers[1]);
  EXPECT_EQ(offsets[1] - offsets[0], 1);
  EXPECT_EQ(offsets[2], offsets[1]);
  EXPECT_EQ(offsets[3], offsets[2]);

  // A batch without nulls, and an empty one, in this form: the same nullable schema.
  const uint8_t none[] = {0, 0, 0};
  const absl::string_view good[] = {a, b, a};
  ArrowRecordBatch all;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), good, none, ColumnarOptions(),
                            &all.schema, &all.array)
                  .ok());
  EXPECT_NE(all.schema.children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  EXPECT_EQ(all.array.children[0]->null_count, 0);
  ArrowRecordBatch empty;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), {}, absl::Span<const uint8_t>(),
                            ColumnarOptions(), &empty.schema, &empty.array)
                  .ok());
  EXPECT_NE(empty.schema.children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  // One flag per record, or an error.
  ArrowRecordBatch mismatch;
  EXPECT_TRUE(absl::IsInvalidArgument(
      DecodeToArrow(test2::Everything::descriptor(), good, absl::Span<const uint8_t>(nulls, 2),
                    ColumnarOptions(), &mismatch.schema, &mismatch.array)));
  EXPECT_EQ(mismatch.array.release, nullptr);
}

// Unicode's own example of maximal subparts (Unicode 15, section 3.9, table 3-8), and the cases
// around each lead byte's second-byte range.
TEST(Utf8ReplaceTest, MaximalSubpartsBecomeOneReplacementEach) {
  using internal::ReplaceIllFormedUtf8;
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ReplaceIllFormedUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + r + r + r + "b" + r + "c" + r + r + "d");
  EXPECT_EQ(ReplaceIllFormedUtf8("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80");             // Well-formed: unchanged.
  EXPECT_EQ(ReplaceIllFormedUtf8("\xC0\xAF"), r + r);                  // Overlong lead bytes.
  EXPECT_EQ(ReplaceIllFormedUtf8("\xE0\x80\xAF"), r + r + r);          // E0 needs A0..BF.
  EXPECT_EQ(ReplaceIllFormedUtf8("\xED\xA0\x80"), r + r + r);          // Surrogates.
  EXPECT_EQ(ReplaceIllFormedUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // Past U+10FFFF.
  EXPECT_EQ(ReplaceIllFormedUtf8("\xF0\x9F\x98"), r);                  // Truncated at the end.
  EXPECT_EQ(ReplaceIllFormedUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

// A proto2 string (upstream does not check its UTF-8) with ill-formed bytes: accepted, as upstream
// accepts it, and a well-formed utf8 column with U+FFFD for them; a proto3 one is rejected.
TEST_P(ColumnarTest, UncheckedStringsAreWellFormedInTheColumn) {
  test2::Everything m;
  m.set_req(1);
  m.set_str(std::string("ok\xC3(\xFF", 5));
  const std::string record = Serialize(m);
  const absl::string_view records[] = {record};
  EXPECT_EQ(CompareColumnsWithUpstream(test2::Everything::default_instance(), records), "");
  ArrowRecordBatch out;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records, ColumnarOptions(),
                            &out.schema, &out.array)
                  .ok());
  ASSERT_STREQ(out.schema.children[1]->name, "str");
  const ArrowArray& str = *out.array.children[1];
  const int32_t* offsets = static_cast<const int32_t*>(str.buffers[1]);
  EXPECT_EQ(std::string(static_cast<const char*>(str.buffers[2]) + offsets[0],
                        static_cast<size_t>(offsets[1] - offsets[0])),
            "ok\xEF\xBF\xBD(\xEF\xBF\xBD");

  std::string proto3;  // All3.s_str (field 2) is a proto3 string: upstream checks it.
  testing::AppendTag(2, 2, &proto3);
  proto3 += testing::Varint(2) + std::string("\xC3(", 2);
  const absl::string_view bad[] = {proto3};
  ArrowRecordBatch rejected;
  const absl::Status status = DecodeToArrow(test3::All3::descriptor(), bad, ColumnarOptions(),
                                            &rejected.schema, &rejected.array);
  EXPECT_TRUE(absl::StrContains(status.message(), "invalid UTF-8")) << status;
}

// A released batch's buffers go to the cache (columnar_memory.h), and the next batch takes them.
TEST(ColumnarMemoryTest, ReleasedBuffersAreReused) {
  std::vector<std::string> records;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50; ++i) {
    bench::Batch m;
    testing::FillRandom(&m, rng, testing::RandomMessageOptions());
    records.push_back(Serialize(m));
  }
  size_t cached = 0;
  for (int round = 0; round < 2; ++round) {
    ArrowRecordBatch out;
    ASSERT_TRUE(DecodeToArrow(bench::Batch::descriptor(), Views(records), ColumnarOptions(),
                              &out.schema, &out.array)
                    .ok());
    if (round == 1) {
      EXPECT_LT(internal::columnar::CachedBytesForTesting(), cached);
    }
    out.array.release(&out.array);
    cached = internal::columnar::CachedBytesForTesting();
    EXPECT_GT(cached, 0u);
  }
}

// No records: a batch of length 0 with every column, which pyarrow imports like any other.
TEST(ColumnarSchemaTest, EmptyBatch) {
  ArrowRecordBatch out;
  ASSERT_TRUE(
      DecodeToArrow(test2::Everything::descriptor(), {}, ColumnarOptions(), &out.schema, &out.array)
          .ok());
  EXPECT_EQ(out.array.length, 0);
  EXPECT_EQ(out.array.n_children, test2::Everything::descriptor()->field_count());
  EXPECT_EQ(testing::CheckArrowLayout(out.schema, out.array), "");
}

TEST(ColumnarSchemaTest, SelectionErrors) {
  ArrowRecordBatch out;
  const absl::string_view none[] = {""};
  for (const char* path : {"nope", "str.x", "str_map.key", "middle.nope"}) {
    const absl::Status s = DecodeToArrow(test2::Everything::descriptor(), none, Select({path}),
                                         &out.schema, &out.array);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << path << ": " << s;
  }
}

// The fixed mapping: names, formats, nullability.
TEST(ColumnarSchemaTest, Mapping) {
  ArrowRecordBatch out;
  test2::Everything m;
  m.set_req(1);
  const std::string record = Serialize(m);
  const absl::string_view records[] = {record};
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records,
                            Select({"req", "p_sint64", "p_fixed32", "str", "raw", "middle",
                                    "str_map", "grp", "p_bool", "p_double"}),
                            &out.schema, &out.array)
                  .ok());
  ASSERT_EQ(out.schema.n_children, 10);
  auto format = [&](int k) { return std::string(out.schema.children[k]->format); };
  auto item = [&](int k) { return std::string(out.schema.children[k]->children[0]->format); };
  EXPECT_EQ(format(0), "i");
  EXPECT_EQ(format(1), "+l");
  EXPECT_EQ(item(1), "l");
  EXPECT_EQ(item(2), "I");
  EXPECT_EQ(format(3), "u");
  EXPECT_EQ(format(4), "z");
  EXPECT_EQ(format(5), "+s");
  EXPECT_EQ(format(6), "+m");
  EXPECT_EQ(format(7), "+s");
  EXPECT_EQ(item(8), "b");
  EXPECT_EQ(item(9), "g");
  EXPECT_STREQ(out.schema.children[5]->name, "middle");
  EXPECT_NE(out.schema.children[0]->flags & ARROW_FLAG_NULLABLE, 0);  // proto2: presence.
  EXPECT_EQ(out.schema.children[1]->flags & ARROW_FLAG_NULLABLE, 0);  // A list is never null.
  EXPECT_EQ(testing::CheckArrowLayout(out.schema, out.array), "");

  // Proto3 implicit presence: never null; `optional`: nullable.
  ArrowRecordBatch p3;
  const absl::string_view empty[] = {""};
  ASSERT_TRUE(DecodeToArrow(test3::Singulars3::descriptor(), empty, ColumnarOptions(), &p3.schema,
                            &p3.array)
                  .ok());
  for (int64_t k = 0; k < p3.schema.n_children; ++k) {
    const google::protobuf::FieldDescriptor* f =
        test3::Singulars3::descriptor()->FindFieldByName(p3.schema.children[k]->name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ((p3.schema.children[k]->flags & ARROW_FLAG_NULLABLE) != 0,
              !f->is_repeated() && f->has_presence())
        << f->name();
  }
  // A recursive type: below its first level, the bytes.
  ArrowRecordBatch rec;
  ASSERT_TRUE(DecodeToArrow(test2::Recursive::descriptor(), empty, ColumnarOptions(), &rec.schema,
                            &rec.array)
                  .ok());
  EXPECT_STREQ(rec.schema.children[0]->format, "z");
}

TEST_P(ColumnarTest, DelimitedStream) {
  std::mt19937_64 rng(7);
  std::string stream;
  std::vector<std::string> records;
  for (int i = 0; i < 20; ++i) {
    bench::Batch m;
    testing::FillRandom(&m, rng, testing::RandomMessageOptions());
    records.push_back(Serialize(m));
    testing::AppendVarint(records.back().size(), &stream);
    stream += records.back();
  }
  const absl::StatusOr<std::vector<absl::string_view>> split = SplitDelimitedRecords(stream);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), records.size());
  EXPECT_EQ(CompareColumnsWithUpstream(bench::Batch::default_instance(), *split), "");
  ArrowRecordBatch out;
  ASSERT_TRUE(DecodeDelimitedToArrow(bench::Batch::descriptor(), stream, ColumnarOptions(),
                                     &out.schema, &out.array)
                  .ok());
  EXPECT_EQ(out.array.length, 20);
  const absl::Status truncated =
      SplitDelimitedRecords(stream.substr(0, stream.size() - 1)).status();
  EXPECT_TRUE(absl::StrContains(truncated.message(), "record 19")) << truncated;
}

// The kernel decodes a packed payload into the column's own buffer, the one exported: the active
// kernel's sint64 decoder, wrapped to count its calls and record where it wrote.
internal::DecodeFn g_sint64_decoder = nullptr;
int g_calls = 0;
const void* g_out = nullptr;
internal::DecodeResult CountingDecoder(const uint8_t* p, const uint8_t* end, void* out, size_t cap,
                                       uint64_t delta_base) {
  ++g_calls;
  g_out = out;
  return g_sint64_decoder(p, end, out, cap, delta_base);
}

TEST_P(ColumnarTest, KernelDecodesIntoTheColumn) {
  internal::KernelDescriptor counting = internal::ActiveKernel();
  const int format = static_cast<int>(internal::VarintFormat::kSInt64);
  g_sint64_decoder = counting.decode[format][0];
  counting.decode[format][0] = &CountingDecoder;
  internal::ScopedActiveKernelForTesting use(counting);
  std::vector<uint64_t> values;
  for (int i = 0; i < 1000; ++i) values.push_back(testing::ZigZagEncode64(i * 7919 - 500000));
  std::string record;
  testing::AppendTag(1, 0, &record);  // req
  testing::AppendVarint(1, &record);
  record += testing::LengthDelimitedField(15, testing::EncodePacked(values));  // p_sint64
  const absl::string_view records[] = {record};
  g_calls = 0;
  ArrowRecordBatch out;
  ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records, Select({"p_sint64"}),
                            &out.schema, &out.array)
                  .ok());
  EXPECT_EQ(g_calls, 1);
  const ArrowArray& items = *out.array.children[0]->children[0];
  ASSERT_EQ(items.length, 1000);
  EXPECT_EQ(g_out, items.buffers[1]);
  EXPECT_EQ(static_cast<const int64_t*>(items.buffers[1])[999], 999 * 7919 - 500000);
}

// A short packed payload (17 to 64 bytes) goes to the active kernel's window decoder where it has
// one and the record goes on for kWindowReadableBytes from the payload's start (a string after
// it), else to its bounded tiny decoder, as in the generated parsers (size_policy.h); both
// decoders count their calls here. The column holds the values either way.
TEST_P(ColumnarTest, ShortPayloadsTakeTheWindowOrTheBoundedDecoder) {
  testing::ScopedCountingBoundedTinyDecoder bounded(internal::VarintFormat::kSInt64);
  testing::ScopedCountingWindowDecoder window(internal::VarintFormat::kSInt64);
  const bool has_window =
      internal::ActiveKernel().WindowDecoder(internal::VarintFormat::kSInt64) != nullptr;
  std::vector<uint64_t> values;  // A way's refs: a node id, then small deltas; 25 bytes.
  values.push_back(testing::ZigZagEncode64(int64_t{1} << 33));
  for (int i = 0; i < 20; ++i) values.push_back(testing::ZigZagEncode64(i % 2 == 0 ? 3 : -2));
  for (const bool string_after : {false, true}) {
    SCOPED_TRACE(string_after ? "a string after it" : "last in the record");
    std::string record;
    testing::AppendTag(1, 0, &record);  // req
    testing::AppendVarint(1, &record);
    record += testing::LengthDelimitedField(15, testing::EncodePacked(values));          // p_sint64
    if (string_after) record += testing::LengthDelimitedField(2, std::string(80, 'x'));  // str
    const absl::string_view records[] = {record};
    bounded.ResetCalls();
    window.ResetCalls();
    ArrowRecordBatch out;
    ASSERT_TRUE(DecodeToArrow(test2::Everything::descriptor(), records, Select({"p_sint64"}),
                              &out.schema, &out.array)
                    .ok());
    const bool takes_window = has_window && string_after;
    EXPECT_EQ(window.calls(), takes_window ? 1 : 0);
    EXPECT_EQ(bounded.calls(), takes_window ? 0 : 1);
    const ArrowArray& items = *out.array.children[0]->children[0];
    ASSERT_EQ(items.length, static_cast<int64_t>(values.size()));
    const auto* got = static_cast<const int64_t*>(items.buffers[1]);
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(got[i], testing::ZigZagDecode64(values[i])) << i;
    }
  }
}

}  // namespace
}  // namespace pbaccel
