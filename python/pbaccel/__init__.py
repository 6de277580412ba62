"""pbaccel: protobuf records decoded in bulk into Arrow columns, packed fields by SIMD kernels.

    import pbaccel
    decoder = pbaccel.Decoder(open("osm.desc", "rb").read(), "OSMPBF.PrimitiveBlock",
                              fields=["stringtable", "primitivegroup.dense"])
    batch = decoder.decode(blocks)              # a pyarrow.RecordBatch
    ids = pbaccel.decode_packed(payload, "sint64")  # a numpy array

Columns, their types and the semantics are the C++ library's (lib/pbaccel/columnar.h; the
README's "Columns" section): one column per selected field, named after it; a record's fields
decoded exactly as upstream protobuf's parser would (last value wins, submessages merge, closed
enums, required fields); packed fields decoded by the kernel chosen for this CPU (`kernel()`).
The decoded buffers are handed to pyarrow through the Arrow C Data Interface, not copied.
"""

from __future__ import annotations

import os
from typing import Iterable, List, Optional, Sequence, Tuple

import pyarrow as pa

from . import _pbaccel
from ._pbaccel import DecodeError, decode_packed

__all__ = [
    "Decoder",
    "DecodeError",
    "decode_packed",
    "kernel",
    "kernels",
    "use_kernel",
    "file_descriptor_set",
]

__version__ = "0.1.0"


def kernel() -> str:
    """The name of the kernel decoding now (PBACCEL_KERNEL, a use_kernel block, or this CPU's)."""
    return _pbaccel.kernel()


def kernels() -> List[Tuple[str, bool, str]]:
    """Every kernel built in, fastest first: (name, this CPU runs it, summary or what it lacks)."""
    return _pbaccel.kernels()


def use_kernel(name: str):
    """A context manager under which every decode in the process uses kernel `name`.

        with pbaccel.use_kernel("scalar"):
            batch = decoder.decode(records)

    Raises ValueError on entry for a kernel this CPU cannot run. Meant for tests and benchmarks;
    PBACCEL_KERNEL=<name> in the environment chooses one for the whole process.
    """
    return _pbaccel.KernelOverride(name)


def file_descriptor_set(descriptor) -> bytes:
    """A serialized FileDescriptorSet holding `descriptor`'s file and every file it imports.

    `descriptor`: serialized FileDescriptorSet bytes (returned as they are), a path to such a file
    (`protoc --descriptor_set_out=F --include_imports`), a generated module (`foo_pb2`), its
    `DESCRIPTOR` (a FileDescriptor), or a message class or its Descriptor.
    """
    if isinstance(descriptor, (bytes, bytearray, memoryview)):
        return bytes(descriptor)
    if isinstance(descriptor, (str, os.PathLike)):
        with open(descriptor, "rb") as f:
            return f.read()
    file = _file_descriptor_of(descriptor)
    from google.protobuf import descriptor_pb2  # Upstream's Python protobuf, for its objects.

    files = descriptor_pb2.FileDescriptorSet()
    seen = set()

    def add(f):  # Dependencies first.
        if f.name in seen:
            return
        seen.add(f.name)
        for dependency in f.dependencies:
            add(dependency)
        f.CopyToProto(files.file.add())

    add(file)
    return files.SerializeToString()


def _file_descriptor_of(descriptor):
    if hasattr(descriptor, "DESCRIPTOR"):  # A generated module or message class.
        descriptor = descriptor.DESCRIPTOR
    if hasattr(descriptor, "dependencies") and hasattr(descriptor, "CopyToProto"):
        return descriptor  # A FileDescriptor.
    if hasattr(descriptor, "file") and hasattr(descriptor, "full_name"):
        return descriptor.file  # A message Descriptor.
    raise TypeError(
        "descriptor: FileDescriptorSet bytes, a path to one, a generated module, a "
        f"FileDescriptor or a message Descriptor; not {type(descriptor).__name__}"
    )


def _message_name_of(descriptor) -> Optional[str]:
    if hasattr(descriptor, "DESCRIPTOR") and hasattr(descriptor.DESCRIPTOR, "full_name"):
        descriptor = descriptor.DESCRIPTOR  # A message class.
    if hasattr(descriptor, "full_name") and hasattr(descriptor, "fields"):
        return descriptor.full_name  # A message Descriptor.
    return None


class _Exported:
    """The exported batch's capsules, for pyarrow's Arrow PyCapsule import."""

    __slots__ = ("_capsules",)

    def __init__(self, schema_capsule, array_capsule):
        self._capsules = (schema_capsule, array_capsule)

    def __arrow_c_array__(self, requested_schema=None):
        return self._capsules


def _to_batch(schema_capsule, array_capsule) -> pa.RecordBatch:
    return pa.record_batch(_Exported(schema_capsule, array_capsule))


class Decoder:
    """Decodes serialized records of one message type into pyarrow RecordBatches.

    Decoder(descriptor, message_name=None, fields=None, delta_fields=None)

    `descriptor`: see file_descriptor_set(); `message_name` is the type's full name
    ("OSMPBF.PrimitiveBlock"), optional when `descriptor` is a message class or Descriptor.
    `fields`: field names or dotted paths ("layers.features.geometry"), one column each; None:
    every field. `delta_fields`: repeated integer fields (among the columns) whose delta-coded
    values become their running sums.

    A Decoder holds its own descriptor pool (the C++ library's) and may be used from many threads
    at once; decodes release the GIL.
    """

    def __init__(
        self,
        descriptor,
        message_name: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
        delta_fields: Optional[Sequence[str]] = None,
    ):
        if message_name is None:
            message_name = _message_name_of(descriptor)
            if message_name is None:
                raise TypeError("message_name: the message type's full name, e.g. 'pkg.Message'")
        self._schema = _pbaccel.Schema(file_descriptor_set(descriptor), message_name)
        self._fields = list(fields or [])
        self._delta_fields = list(delta_fields or [])
        if isinstance(fields, str) or isinstance(delta_fields, str):
            raise TypeError("fields and delta_fields are lists of names, not one string")
        # Checks the selection now (an empty batch builds the columns) and keeps its schema.
        self._arrow_schema = self.decode([]).schema

    @property
    def message_name(self) -> str:
        return self._schema.full_name

    @property
    def schema(self) -> pa.Schema:
        """The batches' schema (nullable rows excepted: see decode())."""
        return self._arrow_schema

    def decode(self, records, on_bad_record: str = "raise") -> pa.RecordBatch:
        """The records decoded into one RecordBatch, a row per record.

        `records`: a list (or other iterable) of bytes-like objects, None for a null record; or a
        pyarrow binary / large_binary Array or ChunkedArray (read in place, no copy), whose nulls
        are null rows. When a batch can hold null rows (None or Arrow nulls in the input, or
        on_bad_record="null"), every column is nullable.

        A malformed record raises DecodeError naming the record index, the field and the byte
        offset, and nothing is returned; on_bad_record="null" makes it a null row instead (see
        decode_report() for the errors).
        """
        return self.decode_report(records, on_bad_record)[0]

    def decode_report(
        self, records, on_bad_record: str = "null"
    ) -> Tuple[pa.RecordBatch, List[Tuple[int, str]]]:
        """decode(), also returning [(record index, error message)] for each bad record made null."""
        schema, array, bad = self._schema.decode(
            _record_list(records), self._fields, self._delta_fields, _null_bad(on_bad_record)
        )
        return _to_batch(schema, array), bad

    def decode_delimited(self, data, on_bad_record: str = "raise") -> pa.RecordBatch:
        """decode() over a length-delimited stream (a varint length before each record, as
        writeDelimitedTo and SerializeDelimitedToOstream write them)."""
        schema, array, _ = self._schema.decode_delimited(
            bytes(data), self._fields, self._delta_fields, _null_bad(on_bad_record)
        )
        return _to_batch(schema, array)


def _null_bad(on_bad_record: str) -> bool:
    if on_bad_record not in ("raise", "null"):
        raise ValueError(f'on_bad_record: "raise" or "null", not {on_bad_record!r}')
    return on_bad_record == "null"


def _record_list(records) -> list:
    if isinstance(records, pa.ChunkedArray):
        return [chunk.__arrow_c_array__() for chunk in records.chunks]
    if isinstance(records, pa.Array):
        return [records.__arrow_c_array__()]
    if isinstance(records, (bytes, bytearray, memoryview, str)):
        raise TypeError("records: a list of records (or an Arrow array), not one record")
    if isinstance(records, list):
        return records
    return list(records)
