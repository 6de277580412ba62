// Copyright 2026 The pbaccel Authors.
//
// pbaccel_python.cc: the extension module pbaccel._pbaccel, the C++ half of the Python package
// (python/pbaccel/__init__.py is the other half and the documented API).
//
//   Schema(file_descriptor_set: bytes, message_name: str)
//       A message type from a serialized FileDescriptorSet, in a descriptor pool of its own.
//   Schema.decode(records, nulls, fields, delta_fields, null_bad_records)
//       -> (schema capsule, array capsule, [(index, error), ...])
//       `records`: a list of bytes-like objects (None for a null record), or a list of
//       (schema capsule, array capsule) pairs of Arrow binary / large_binary arrays. The input is
//       read in place (no copy) with the GIL released; the capsules are the Arrow PyCapsule
//       interface's ("arrow_schema", "arrow_array"), holding the batch DecodeToArrow exported.
//   decode_packed(payload, dtype, strict) -> numpy array
//   kernel(), kernels(), KernelOverride(name)
//
// Errors: pbaccel's statuses raise _pbaccel.DecodeError (a ValueError); the message is the
// library's, naming the record, field and byte offset.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "pbaccel/pbaccel.h"

namespace nb = nanobind;

namespace pbaccel {
namespace python {
namespace {

// Raised as _pbaccel.DecodeError.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw DecodeError(std::string(status.message()));
}

// --- Descriptors -----------------------------------------------------------------------------

// Collects a FileDescriptorSet's build errors for the exception's message.
class ErrorText : public google::protobuf::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element,
                const google::protobuf::Message*, ErrorLocation,
                const std::string& message) override {
    absl::StrAppend(&text_, text_.empty() ? "" : "; ", filename, ": ", element, ": ", message);
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A message type from a serialized FileDescriptorSet, in a pool the object owns. Files are
// built dependencies first, whatever their order in the set.
class Schema {
 public:
  Schema(nb::bytes file_descriptor_set, const std::string& message_name) {
    google::protobuf::FileDescriptorSet set;
    if (!set.ParseFromArray(file_descriptor_set.c_str(),
                            static_cast<int>(file_descriptor_set.size()))) {
      throw DecodeError("the descriptor is not a serialized FileDescriptorSet");
    }
    std::vector<const google::protobuf::FileDescriptorProto*> pending;
    for (const auto& file : set.file()) pending.push_back(&file);
    while (!pending.empty()) {
      std::vector<const google::protobuf::FileDescriptorProto*> blocked;
      for (const auto* file : pending) {
        if (pool_.FindFileByName(file->name()) != nullptr) continue;  // Listed twice.
        bool ready = true;
        for (const std::string& dependency : file->dependency()) {
          ready = ready && pool_.FindFileByName(dependency) != nullptr;
        }
        if (!ready) {
          blocked.push_back(file);
          continue;
        }
        ErrorText errors;
        if (pool_.BuildFileCollectingErrors(*file, &errors) == nullptr) {
          throw DecodeError(absl::StrCat("FileDescriptorSet: ", errors.text()));
        }
      }
      if (blocked.size() == pending.size()) {
        throw DecodeError(absl::StrCat("FileDescriptorSet: ", blocked.front()->name(),
                                       " imports a file the set does not hold (protoc "
                                       "--include_imports writes them all)"));
      }
      pending = std::move(blocked);
    }
    type_ = pool_.FindMessageTypeByName(message_name);
    if (type_ == nullptr) {
      throw DecodeError(absl::StrCat("no message type \"", message_name,
                                     "\" in the FileDescriptorSet (a full name, with package)"));
    }
  }

  const google::protobuf::Descriptor* type() const { return type_; }

 private:
  google::protobuf::DescriptorPool pool_;
  const google::protobuf::Descriptor* type_ = nullptr;
};

// --- The Arrow PyCapsule interface -------------------------------------------------------------

// Capsules that own an exported schema or array: released (if no consumer moved it out) and
// freed with the capsule.
nb::capsule SchemaCapsule(std::unique_ptr<ArrowSchema> schema) {
  return nb::capsule(schema.release(), "arrow_schema", [](void* p) noexcept {
    auto* s = static_cast<ArrowSchema*>(p);
    if (s->release != nullptr) s->release(s);
    delete s;
  });
}

nb::capsule ArrayCapsule(std::unique_ptr<ArrowArray> array) {
  return nb::capsule(array.release(), "arrow_array", [](void* p) noexcept {
    auto* a = static_cast<ArrowArray*>(p);
    if (a->release != nullptr) a->release(a);
    delete a;
  });
}

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  void* p = PyCapsule_GetPointer(capsule.ptr(), name);
  if (p == nullptr) {
    PyErr_Clear();
    throw nb::type_error(absl::StrCat("expected an Arrow PyCapsule named \"", name, "\"").c_str());
  }
  return static_cast<T*>(p);
}

// An imported Arrow array of records, moved out of its capsule (the consumer's side of the
// protocol) and released when this object goes.
class ImportedArray {
 public:
  ImportedArray(nb::handle schema_capsule, nb::handle array_capsule) {
    ArrowSchema* schema = CapsulePointer<ArrowSchema>(schema_capsule, "arrow_schema");
    ArrowArray* array = CapsulePointer<ArrowArray>(array_capsule, "arrow_array");
    if (array->release == nullptr) throw nb::value_error("the Arrow array was already consumed");
    format_ = schema->format != nullptr ? schema->format : "";
    if (format_ != "z" && format_ != "Z") {
      throw nb::type_error(absl::StrCat("records: an Arrow array of binary or large_binary "
                                        "(format \"z\" or \"Z\"), not format \"",
                                        format_, "\"")
                               .c_str());
    }
    array_ = *array;
    array->release = nullptr;  // Moved: this object releases it.
  }
  ImportedArray(ImportedArray&& other) noexcept : array_(other.array_), format_(other.format_) {
    other.array_.release = nullptr;
  }
  ImportedArray(const ImportedArray&) = delete;
  ~ImportedArray() {
    if (array_.release != nullptr) array_.release(&array_);
  }

  // Appends the records' views and null flags.
  void AppendTo(std::vector<absl::string_view>* records, std::vector<uint8_t>* nulls) const {
    const auto* validity = static_cast<const uint8_t*>(array_.buffers[0]);
    const char* data = static_cast<const char*>(array_.buffers[2]);
    for (int64_t i = 0; i < array_.length; ++i) {
      const int64_t at = array_.offset + i;
      const bool null = array_.null_count != 0 && validity != nullptr &&
                        ((validity[at >> 3] >> (at & 7)) & 1) == 0;
      int64_t begin, end;
      if (format_ == "z") {
        const auto* offsets = static_cast<const int32_t*>(array_.buffers[1]);
        begin = offsets[at];
        end = offsets[at + 1];
      } else {
        const auto* offsets = static_cast<const int64_t*>(array_.buffers[1]);
        begin = offsets[at];
        end = offsets[at + 1];
      }
      records->emplace_back(null ? nullptr : data + begin, null ? 0 : end - begin);
      nulls->push_back(null ? 1 : 0);
    }
  }

 private:
  ArrowArray array_{};
  std::string format_;
};

// --- Decoding ----------------------------------------------------------------------------------

using BadRecords = std::vector<std::tuple<size_t, std::string>>;

// Decodes `views` (with their null flags, or none) into the capsules and the bad records.
nb::tuple DecodeViews(const Schema& schema, absl::Span<const absl::string_view> views,
                      absl::Span<const uint8_t> nulls, const std::vector<std::string>& fields,
                      const std::vector<std::string>& delta_fields, bool null_bad_records) {
  ColumnarOptions options;
  options.fields = fields;
  options.delta_fields = delta_fields;
  if (null_bad_records) options.on_bad_record = ColumnarOptions::OnBadRecord::kNull;
  auto out_schema = std::make_unique<ArrowSchema>();
  auto out_array = std::make_unique<ArrowArray>();
  out_schema->release = nullptr;
  out_array->release = nullptr;
  ColumnarReport report;
  absl::Status status;
  {
    nb::gil_scoped_release unlocked;
    const bool any_null = std::find(nulls.begin(), nulls.end(), 1) != nulls.end();
    status = any_null ? DecodeToArrow(schema.type(), views, nulls, options, out_schema.get(),
                                      out_array.get(), &report)
                      : DecodeToArrow(schema.type(), views, options, out_schema.get(),
                                      out_array.get(), &report);
  }
  ThrowIfError(status);
  BadRecords bad;
  for (const auto& b : report.bad_records)
    bad.emplace_back(b.index, std::string(b.error.message()));
  return nb::make_tuple(SchemaCapsule(std::move(out_schema)), ArrayCapsule(std::move(out_array)),
                        bad);
}

nb::tuple Decode(const Schema& schema, nb::list records, const std::vector<std::string>& fields,
                 const std::vector<std::string>& delta_fields, bool null_bad_records) {
  std::vector<absl::string_view> views;
  std::vector<uint8_t> nulls;
  std::vector<ImportedArray> arrays;  // Alive until the decode is done.
  std::vector<Py_buffer> buffers;     // The same, for bytes-like records that are not bytes.
  struct ReleaseBuffers {
    std::vector<Py_buffer>* buffers;
    ~ReleaseBuffers() {
      for (Py_buffer& b : *buffers) PyBuffer_Release(&b);
    }
  } release_buffers{&buffers};
  views.reserve(records.size());
  nulls.reserve(records.size());
  for (nb::handle item : records) {
    if (item.is_none()) {
      views.emplace_back();
      nulls.push_back(1);
    } else if (PyBytes_Check(item.ptr())) {
      views.emplace_back(PyBytes_AS_STRING(item.ptr()),
                         static_cast<size_t>(PyBytes_GET_SIZE(item.ptr())));
      nulls.push_back(0);
    } else if (PyTuple_Check(item.ptr())) {  // An Arrow array's capsules.
      nb::tuple pair = nb::borrow<nb::tuple>(item);
      if (pair.size() != 2) throw nb::type_error("records: a (schema, array) capsule pair");
      arrays.emplace_back(pair[0], pair[1]);
      arrays.back().AppendTo(&views, &nulls);
    } else {
      Py_buffer buffer;
      if (PyObject_GetBuffer(item.ptr(), &buffer, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        throw nb::type_error(
            absl::StrCat("records[", views.size(), "]: expected bytes, a bytes-like object or None")
                .c_str());
      }
      buffers.push_back(buffer);
      views.emplace_back(static_cast<const char*>(buffer.buf), static_cast<size_t>(buffer.len));
      nulls.push_back(0);
    }
  }
  return DecodeViews(schema, views, nulls, fields, delta_fields, null_bad_records);
}

nb::tuple DecodeDelimited(const Schema& schema, nb::bytes stream,
                          const std::vector<std::string>& fields,
                          const std::vector<std::string>& delta_fields, bool null_bad_records) {
  absl::StatusOr<std::vector<absl::string_view>> split =
      SplitDelimitedRecords(absl::string_view(stream.c_str(), stream.size()));
  ThrowIfError(split.status());
  // The views point into `stream`, which the caller's reference keeps alive.
  return DecodeViews(schema, *split, {}, fields, delta_fields, null_bad_records);
}

// --- One packed payload to numpy ---------------------------------------------------------------

// A numpy array of `count` elements of T in memory it owns.
template <typename T>
struct OwnedArray {
  T* data;
  nb::capsule owner;
  explicit OwnedArray(size_t count)
      : data(new T[count == 0 ? 1 : count]),
        owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); }) {}
  nb::object ToNumpy(size_t count) {
    return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {count}, owner));
  }
};

template <typename T, typename Decode>
nb::object DecodeVarints(absl::string_view payload, Decode decode) {
  size_t count;
  {
    nb::gil_scoped_release unlocked;
    const VarintCount counted = CountVarints(payload);
    // A payload that ends inside a varint gets room for it, so that the decode names the error.
    count = counted.count + (counted.ends_inside_varint ? 1 : 0);
  }
  OwnedArray<T> out(count);
  absl::StatusOr<size_t> decoded;
  {
    nb::gil_scoped_release unlocked;
    decoded = decode(payload, absl::Span<T>(out.data, count));
  }
  ThrowIfError(decoded.status());
  return out.ToNumpy(*decoded);
}

template <typename T>
nb::object DecodeFixed(absl::string_view payload, const std::string& dtype) {
  if (payload.size() % sizeof(T) != 0) {
    throw DecodeError(absl::StrCat("packed ", dtype, ": a payload of ", payload.size(),
                                   " bytes is not a whole number of ", sizeof(T), "-byte values"));
  }
  const size_t count = payload.size() / sizeof(T);
  OwnedArray<T> out(count);
  std::memcpy(out.data, payload.data(), payload.size());  // Little-endian, as the wire is.
  return out.ToNumpy(count);
}

nb::object DecodePacked(nb::bytes payload_object, const std::string& dtype, bool strict) {
  const absl::string_view payload(payload_object.c_str(), payload_object.size());
  const DecodeOptions options{strict};
#define PBACCEL_VARINT_DTYPE(name, T, Fn)                                                \
  if (dtype == name) {                                                                   \
    return DecodeVarints<T>(payload, [options](absl::string_view p, absl::Span<T> out) { \
      return Fn(p, out, options);                                                        \
    });                                                                                  \
  }
  PBACCEL_VARINT_DTYPE("int32", int32_t, DecodePackedInt32)
  PBACCEL_VARINT_DTYPE("int64", int64_t, DecodePackedInt64)
  PBACCEL_VARINT_DTYPE("uint32", uint32_t, DecodePackedUInt32)
  PBACCEL_VARINT_DTYPE("uint64", uint64_t, DecodePackedUInt64)
  PBACCEL_VARINT_DTYPE("sint32", int32_t, DecodePackedSInt32)
  PBACCEL_VARINT_DTYPE("sint64", int64_t, DecodePackedSInt64)
  PBACCEL_VARINT_DTYPE("bool", bool, DecodePackedBool)
  PBACCEL_VARINT_DTYPE("enum", int32_t, DecodePackedInt32)
#undef PBACCEL_VARINT_DTYPE
  if (dtype == "fixed32") return DecodeFixed<uint32_t>(payload, dtype);
  if (dtype == "sfixed32") return DecodeFixed<int32_t>(payload, dtype);
  if (dtype == "float") return DecodeFixed<float>(payload, dtype);
  if (dtype == "fixed64") return DecodeFixed<uint64_t>(payload, dtype);
  if (dtype == "sfixed64") return DecodeFixed<int64_t>(payload, dtype);
  if (dtype == "double") return DecodeFixed<double>(payload, dtype);
  throw nb::value_error(
      absl::StrCat("decode_packed: unknown dtype \"", dtype,
                   "\" (int32, int64, uint32, uint64, sint32, sint64, bool, enum, fixed32, "
                   "sfixed32, float, fixed64, sfixed64, double)")
          .c_str());
}

// --- Kernels -----------------------------------------------------------------------------------

// A ScopedKernelOverride as a context manager: `with KernelOverride("bmi2"): ...`.
class KernelOverride {
 public:
  explicit KernelOverride(std::string name) : name_(std::move(name)) {}
  void Enter() {
    if (active_ != nullptr) throw nb::value_error("KernelOverride: already entered");
    auto scoped = std::make_unique<ScopedKernelOverride>(name_);
    if (!scoped->ok()) {
      throw nb::value_error(
          absl::StrCat("no kernel \"", name_, "\" that this CPU runs (pbaccel.kernels())").c_str());
    }
    active_ = std::move(scoped);
  }
  void Exit() { active_.reset(); }

 private:
  std::string name_;
  std::unique_ptr<ScopedKernelOverride> active_;
};

}  // namespace
}  // namespace python
}  // namespace pbaccel

NB_MODULE(_pbaccel, m) {
  using namespace pbaccel::python;
  nb::exception<DecodeError>(m, "DecodeError", PyExc_ValueError);

  nb::class_<Schema>(m, "Schema")
      .def(nb::init<nb::bytes, const std::string&>(), nb::arg("file_descriptor_set"),
           nb::arg("message_name"))
      .def_prop_ro("full_name", [](const Schema& s) { return s.type()->full_name(); })
      .def("decode", &Decode, nb::arg("records"), nb::arg("fields"), nb::arg("delta_fields"),
           nb::arg("null_bad_records"))
      .def("decode_delimited", &DecodeDelimited, nb::arg("stream"), nb::arg("fields"),
           nb::arg("delta_fields"), nb::arg("null_bad_records"));

  m.def("decode_packed", &DecodePacked, nb::arg("payload"), nb::arg("dtype"),
        nb::arg("strict") = false);
  m.def("kernel", [] { return std::string(pbaccel::ActiveKernelName()); });
  m.def("auto_kernel", [] { return std::string(pbaccel::AutoSelectedKernelName()); });
  m.def("kernels", [] {
    std::vector<std::tuple<std::string, bool, std::string>> out;
    for (const pbaccel::KernelInfo& k : pbaccel::DescribeKernels()) {
      out.emplace_back(std::string(k.name), k.supported,
                       k.supported ? std::string(k.summary) : "missing " + k.missing_features);
    }
    return out;
  });
  nb::class_<KernelOverride>(m, "KernelOverride")
      .def(nb::init<std::string>(), nb::arg("name"))
      .def(
          "__enter__",
          [](KernelOverride& k) {
            k.Enter();
            return &k;
          },
          nb::rv_policy::reference)
      .def("__exit__", [](KernelOverride& k, nb::args) { k.Exit(); });
}
