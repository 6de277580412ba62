// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_export.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

// What an exported ArrowSchema or ArrowArray owns besides its buffers: its children.
template <typename T>
struct Children {
  std::vector<std::unique_ptr<T>> owned;
  std::vector<T*> pointers;  // What T::children points to.
};

struct SchemaPrivate {
  std::string format;
  std::string name;
  Children<ArrowSchema> children;
};

struct ArrayPrivate {
  std::vector<Block> owned;  // Buffers, freed with FreeBlock.
  std::vector<const void*> buffers;
  Children<ArrowArray> children;
};

// Releases a node's children (those not moved away), then the node: the C Data Interface's
// release callback for both structs.
template <typename T, typename Private>
void Release(T* node) {
  auto* p = static_cast<Private*>(node->private_data);
  for (T* child : p->children.pointers) {
    if (child->release != nullptr) child->release(child);
  }
  if constexpr (std::is_same_v<Private, ArrayPrivate>) {
    for (const Block& block : p->owned) FreeBlock(block);
  }
  delete p;
  node->release = nullptr;
}

// A new child of `parent`, a schema or an array node.
template <typename T, typename Private>
T* AddChild(T* parent) {
  auto* p = static_cast<Private*>(parent->private_data);
  p->children.owned.push_back(std::make_unique<T>());
  p->children.pointers.push_back(p->children.owned.back().get());
  parent->n_children = static_cast<int64_t>(p->children.pointers.size());
  parent->children = p->children.pointers.data();
  return p->children.pointers.back();
}
ArrowSchema* AddChild(ArrowSchema* parent) { return AddChild<ArrowSchema, SchemaPrivate>(parent); }
ArrowArray* AddChild(ArrowArray* parent) { return AddChild<ArrowArray, ArrayPrivate>(parent); }

// A schema node; children are added with AddChild.
void InitSchema(ArrowSchema* schema, std::string format, std::string name, bool nullable) {
  auto* p = new SchemaPrivate;
  p->format = std::move(format);
  p->name = std::move(name);
  *schema = ArrowSchema();
  schema->format = p->format.c_str();
  schema->name = p->name.c_str();
  schema->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  schema->release = Release<ArrowSchema, SchemaPrivate>;
  schema->private_data = p;
}

void InitArray(ArrowArray* array, size_t length) {
  auto* p = new ArrayPrivate;
  *array = ArrowArray();
  array->length = static_cast<int64_t>(length);
  array->release = Release<ArrowArray, ArrayPrivate>;
  array->private_data = p;
}

void AddBuffer(ArrowArray* array, Block owned) {
  auto* p = static_cast<ArrayPrivate*>(array->private_data);
  if (owned.data != nullptr) p->owned.push_back(owned);
  p->buffers.push_back(owned.data);
  array->n_buffers = static_cast<int64_t>(p->buffers.size());
  array->buffers = p->buffers.data();
}

// Bytes (0 or 1) packed into an LSB-first bitmap.
Block PackBits(const uint8_t* bytes, size_t n) {
  const size_t size = (n + 7) / 8;
  const Block block = AllocateBlock(size);
  auto* bits = reinterpret_cast<uint8_t*>(block.data);
  std::memset(bits, 0, size);
  for (size_t i = 0; i < n; ++i) bits[i >> 3] |= static_cast<uint8_t>((bytes[i] != 0) << (i & 7));
  return block;
}

// The validity buffer of `n` rows of `c`: a bitmap with array->null_count set, or NULL when no
// row is null.
void AddValidity(Column& c, size_t n, ArrowArray* array) {
  size_t nulls = 0;
  if (c.validity) {
    const uint8_t* bytes = c.validity_bytes.data<uint8_t>();
    for (size_t i = 0; i < n; ++i) nulls += bytes[i] == 0;
  }
  array->null_count = static_cast<int64_t>(nulls);
  AddBuffer(array, nulls == 0 ? Block() : PackBits(c.validity_bytes.data<uint8_t>(), n));
}

const char* ScalarFormat(ValueType type) {
  switch (type) {
    case ValueType::kBool: return "b";
    case ValueType::kInt32: return "i";
    case ValueType::kUInt32: return "I";
    case ValueType::kInt64: return "l";
    case ValueType::kUInt64: return "L";
    case ValueType::kFloat: return "f";
    case ValueType::kDouble: return "g";
    case ValueType::kUtf8: return "u";
    case ValueType::kBinary: return "z";
    default: return "+s";
  }
}

void ExportField(Column& c, size_t rows, ArrowSchema* schema, ArrowArray* array);

// The element layer of `c`: `n` elements, nullable (with `c`'s validity) or not (list items, map
// entries and the record batch itself).
void ExportElements(Column& c, size_t n, const std::string& name, bool nullable,
                    ArrowSchema* schema, ArrowArray* array) {
  InitSchema(schema, ScalarFormat(c.type), name, nullable);
  InitArray(array, n);
  if (nullable) {
    AddValidity(c, n, array);
  } else {
    AddBuffer(array, Block());
  }
  switch (c.type) {
    case ValueType::kStruct:
    case ValueType::kMap:
      for (auto& child : c.children) ExportField(*child, n, AddChild(schema), AddChild(array));
      break;
    case ValueType::kUtf8:
    case ValueType::kBinary:
      AddBuffer(array, c.values.Release());
      AddBuffer(array, c.data.Release());
      break;
    case ValueType::kBool: AddBuffer(array, PackBits(c.values.data<uint8_t>(), n)); break;
    default: AddBuffer(array, c.values.Release());
  }
}

void ExportField(Column& c, size_t rows, ArrowSchema* schema, ArrowArray* array) {
  if (!c.repeated) {
    ExportElements(c, rows, c.name, c.validity, schema, array);
    return;
  }
  const bool map = c.type == ValueType::kMap;
  InitSchema(schema, map ? "+m" : "+l", c.name, c.validity);
  InitArray(array, rows);
  AddValidity(c, rows, array);
  AddBuffer(array, c.list_offsets.Release());
  ExportElements(c, c.ElementCount(), map ? "entries" : "item", false, AddChild(schema),
                 AddChild(array));
}

}  // namespace

void ExportRecordBatch(Column& root, size_t rows, ArrowSchema* schema, ArrowArray* array) {
  ExportElements(root, rows, "", false, schema, array);
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
