"""Protobuf records decoded into typed Spark columns by pbaccel, with DataFrame.mapInArrow.

    spark-submit [--master URL] spark_decode.py --descriptor schemas.desc \\
        --message OSMPBF.PrimitiveBlock [--fields stringtable primitivegroup.dense] \\
        --output blocks.parquet  INPUT [INPUT ...]

INPUTs are files (or directories, globs: anything Spark's binaryFile source reads): an OSM PBF file
gives its PrimitiveBlocks, any other file one message (gzip inflated), as pbaccel.files reads
them. The descriptor is a FileDescriptorSet (protoc --descriptor_set_out --include_imports). The
same script runs in local mode and on a cluster; every executor needs the pbaccel package
(`pip install ./python` on each node, or a wheel shipped with --py-files / an environment archive).

The columns are pbaccel's (the README's "Columns"), adapted to Spark's types the way Spark's own
from_protobuf adapts them: unsigned integers become the signed type of their width (the same
bits), everything else as decoded. Enums stay numbers (from_protobuf gives their names).

decode_records() is the reusable part: a DataFrame with a binary column in, the decoded columns out.
"""

from __future__ import annotations

import argparse
from typing import Iterator, List, Optional

import pyarrow as pa

import pbaccel
from pbaccel import files


def spark_arrow_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type Spark accepts for a pbaccel column type: unsigned -> signed, recursively."""
    unsigned = {pa.uint32(): pa.int32(), pa.uint64(): pa.int64(), pa.uint8(): pa.int8(),
                pa.uint16(): pa.int16()}
    if t in unsigned:
        return unsigned[t]
    if pa.types.is_map(t):
        return pa.map_(spark_arrow_type(t.key_type), spark_arrow_type(t.item_type))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(spark_arrow_type(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(spark_arrow_type(f.type)) for f in t])
    return t


def spark_schema(arrow_schema: pa.Schema):
    """The Spark StructType of a decoder's columns (after spark_arrow_type)."""
    from pyspark.sql import types as T

    def convert(t: pa.DataType):
        simple = {
            pa.int32(): T.IntegerType(), pa.int64(): T.LongType(), pa.float32(): T.FloatType(),
            pa.float64(): T.DoubleType(), pa.bool_(): T.BooleanType(), pa.string(): T.StringType(),
            pa.binary(): T.BinaryType(),
        }
        if t in simple:
            return simple[t]
        if pa.types.is_map(t):
            return T.MapType(convert(t.key_type), convert(t.item_type), True)
        if pa.types.is_list(t):
            return T.ArrayType(convert(t.value_type), True)
        if pa.types.is_struct(t):
            return T.StructType([T.StructField(f.name, convert(f.type), True) for f in t])
        raise TypeError(f"no Spark type for {t}")

    return T.StructType([T.StructField(f.name, convert(spark_arrow_type(f.type)), True)
                         for f in arrow_schema])


def decode_records(df, column: str, descriptor: bytes, message: str,
                   fields: Optional[List[str]] = None):
    """`df`'s binary column `column` decoded into one column per selected field."""
    arrow_schema = pbaccel.Decoder(descriptor, message, fields).schema
    schema = spark_schema(arrow_schema)
    boxed = not _arrow_udf_takes(schema)

    def decode(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        decoder = pbaccel.Decoder(descriptor, message, fields)  # One per task.
        for batch in batches:
            decoded = decoder.decode(batch.column(column))  # Arrow nulls -> null rows.
            arrays = [a.view(spark_arrow_type(a.type)) for a in decoded.columns]
            if boxed:
                arrays = [_box(a) for a in arrays]
            yield pa.RecordBatch.from_arrays(arrays, names=decoded.schema.names)

    if not boxed:
        return df.select(column).mapInArrow(decode, schema)
    from pyspark.sql import functions as F

    out = df.select(column).mapInArrow(decode, _boxed_struct(schema))
    return out.select([_unbox(F.col(f.name), f.dataType).alias(f.name) for f in schema])


# --- Structs for PySpark versions whose Arrow UDFs refuse them ----------------------------------
#
# PySpark 3.4 refuses, in mapInArrow's declared type, a struct directly inside a struct (a struct
# column included) and a map of structs. There each struct that is not a list's element is sent
# boxed, as a list of one struct (the same buffers, new offsets), and unboxed by Spark SQL
# expressions in the JVM.


def _arrow_udf_takes(schema) -> bool:
    from pyspark.sql.pandas.types import to_arrow_type

    try:
        to_arrow_type(schema)
        return True
    except TypeError:
        return False


def _boxed_struct(t):
    from pyspark.sql import types as T

    return T.StructType([T.StructField(f.name, _boxed(f.dataType), True) for f in t])


def _boxed(t):
    from pyspark.sql import types as T

    if isinstance(t, T.StructType):
        return T.ArrayType(_boxed_struct(t), True)
    if isinstance(t, T.ArrayType):  # A list's struct elements stay structs.
        e = t.elementType
        return T.ArrayType(_boxed_struct(e) if isinstance(e, T.StructType) else _boxed(e), True)
    if isinstance(t, T.MapType):
        return T.MapType(t.keyType, _boxed(t.valueType), True)
    return t


def _box(array: pa.Array, list_element: bool = False) -> pa.Array:
    """The Arrow side of _boxed."""
    import numpy as np

    t = array.type
    mask = array.is_null() if array.null_count else None
    if pa.types.is_struct(t):
        children = [_box(array.field(i)) for i in range(t.num_fields)]
        struct = pa.StructArray.from_arrays(children, names=[f.name for f in t], mask=mask)
        if list_element:
            return struct
        offsets = pa.array(np.arange(len(array) + 1, dtype=np.int32))
        return pa.ListArray.from_arrays(offsets, struct, mask=mask)
    if pa.types.is_map(t):
        return pa.MapArray.from_arrays(array.offsets, array.keys, _box(array.items), mask=mask)
    if pa.types.is_list(t):
        return pa.ListArray.from_arrays(array.offsets, _box(array.values, list_element=True),
                                        mask=mask)
    return array


def _unbox(col, t, list_element: bool = False):
    """The Spark SQL expression that undoes _box for a column of (unboxed) type t."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if isinstance(t, T.StructType):
        value = col if list_element else F.element_at(col, 1)
        rebuilt = F.struct(*[_unbox(value.getField(f.name), f.dataType).alias(f.name) for f in t])
        return F.when(value.isNull(), F.lit(None)).otherwise(rebuilt)
    if isinstance(t, T.ArrayType) and _has_struct(t.elementType):
        return F.transform(col, lambda x: _unbox(x, t.elementType, list_element=True))
    if isinstance(t, T.MapType) and _has_struct(t.valueType):
        return F.transform_values(col, lambda k, v: _unbox(v, t.valueType))
    return col


def _has_struct(t) -> bool:
    from pyspark.sql import types as T

    if isinstance(t, T.StructType):
        return True
    if isinstance(t, T.ArrayType):
        return _has_struct(t.elementType)
    if isinstance(t, T.MapType):
        return _has_struct(t.valueType)
    return False


def read_records(spark, inputs: List[str]):
    """A DataFrame of one binary column, `record`: the records of every input file."""
    from pyspark.sql import types as T

    def split(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content")
            out: List[bytes] = []
            for i, path in enumerate(paths):
                data = contents[i].as_py()
                out += files.osm_blocks(data) if path.endswith(".osm.pbf") else files.message_file(data)
            yield pa.RecordBatch.from_arrays([pa.array(out, pa.binary())], names=["record"])

    raw = spark.read.format("binaryFile").load(inputs).select("path", "content")
    return raw.mapInArrow(split, T.StructType([T.StructField("record", T.BinaryType())]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--descriptor", required=True, help="a FileDescriptorSet file")
    parser.add_argument("--message", required=True, help="the records' full message name")
    parser.add_argument("--fields", nargs="*", default=None, help="columns (default: all)")
    parser.add_argument("--output", help="a Parquet directory to write (default: show a few rows)")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("pbaccel spark_decode").getOrCreate()
    with open(args.descriptor, "rb") as f:
        descriptor = f.read()
    records = read_records(spark, args.inputs)
    decoded = decode_records(records, "record", descriptor, args.message, args.fields)
    if args.output:
        decoded.write.mode("overwrite").parquet(args.output)
        print(f"{decoded.count()} records of {args.message} written to {args.output}")
    else:
        decoded.show(5, truncate=80)
    spark.stop()


if __name__ == "__main__":
    main()
