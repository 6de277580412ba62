// Copyright 2026 The pbaccel Authors.

#include "pbaccel/internal/columnar_export.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace pbaccel {
namespace internal {
namespace columnar {
namespace {

// What an exported ArrowSchema owns.
struct SchemaPrivate {
  std::string format;
  std::string name;
  std::vector<std::unique_ptr<ArrowSchema>> children;
  std::vector<ArrowSchema*> child_pointers;
};

// What an exported ArrowArray owns.
struct ArrayPrivate {
  std::vector<Block> owned;  // Buffers, freed with FreeBlock.
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowArray>> children;
  std::vector<ArrowArray*> child_pointers;
};

void ReleaseSchema(ArrowSchema* schema) {
  auto* p = static_cast<SchemaPrivate*>(schema->private_data);
  for (ArrowSchema* child : p->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete p;
  schema->release = nullptr;
}

void ReleaseArray(ArrowArray* array) {
  auto* p = static_cast<ArrayPrivate*>(array->private_data);
  for (ArrowArray* child : p->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  for (const Block& block : p->owned) FreeBlock(block);
  delete p;
  array->release = nullptr;
}

// A schema node; children are added with AddChild.
SchemaPrivate* InitSchema(ArrowSchema* schema, std::string format, std::string name,
                          bool nullable) {
  auto* p = new SchemaPrivate;
  p->format = std::move(format);
  p->name = std::move(name);
  *schema = ArrowSchema();
  schema->format = p->format.c_str();
  schema->name = p->name.c_str();
  schema->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  schema->release = ReleaseSchema;
  schema->private_data = p;
  return p;
}

ArrowSchema* AddChild(ArrowSchema* parent) {
  auto* p = static_cast<SchemaPrivate*>(parent->private_data);
  p->children.push_back(std::make_unique<ArrowSchema>());
  p->child_pointers.push_back(p->children.back().get());
  parent->n_children = static_cast<int64_t>(p->child_pointers.size());
  parent->children = p->child_pointers.data();
  return p->child_pointers.back();
}

ArrayPrivate* InitArray(ArrowArray* array, size_t length) {
  auto* p = new ArrayPrivate;
  *array = ArrowArray();
  array->length = static_cast<int64_t>(length);
  array->release = ReleaseArray;
  array->private_data = p;
  return p;
}

ArrowArray* AddChild(ArrowArray* parent) {
  auto* p = static_cast<ArrayPrivate*>(parent->private_data);
  p->children.push_back(std::make_unique<ArrowArray>());
  p->child_pointers.push_back(p->children.back().get());
  parent->n_children = static_cast<int64_t>(p->child_pointers.size());
  parent->children = p->child_pointers.data();
  return p->child_pointers.back();
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

// The element layer of `c`: `n` elements, with `c`'s validity when `with_validity`.
void ExportElements(Column& c, size_t n, bool with_validity, const std::string& name, bool nullable,
                    ArrowSchema* schema, ArrowArray* array) {
  InitSchema(schema, ScalarFormat(c.type), name, nullable);
  InitArray(array, n);
  if (with_validity) {
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
    ExportElements(c, rows, c.validity, c.name, c.nullable, schema, array);
    return;
  }
  const bool map = c.type == ValueType::kMap;
  InitSchema(schema, map ? "+m" : "+l", c.name, c.nullable);
  InitArray(array, rows);
  AddValidity(c, rows, array);
  AddBuffer(array, c.list_offsets.Release());
  ExportElements(c, c.ElementCount(), false, map ? "entries" : "item", false, AddChild(schema),
                 AddChild(array));
}

}  // namespace

void ExportRecordBatch(Column& root, size_t rows, ArrowSchema* schema, ArrowArray* array) {
  ExportElements(root, rows, false, "", false, schema, array);
}

}  // namespace columnar
}  // namespace internal
}  // namespace pbaccel
