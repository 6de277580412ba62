"""examples/spark_decode.py, run as a user runs it (spark-submit, local mode), against Spark's own
from_protobuf (spark-protobuf from Maven Central, matching the PySpark version) on every row of
the real corpora.

Needs PySpark (pip install ./python[spark]), Java 17 and the spark-protobuf jar: PBACCEL_SPARK_PROTOBUF_JAR
names it (.ci/run fetches it once into its cache). Skipped, saying why, when one is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPORA, REPO, data_dirs

pyspark = pytest.importorskip("pyspark", reason="PySpark: pip install './python[spark]'")
JAR = os.environ.get("PBACCEL_SPARK_PROTOBUF_JAR", "")
if not JAR or not Path(JAR).is_file():
    pytest.skip("PBACCEL_SPARK_PROTOBUF_JAR names no spark-protobuf jar", allow_module_level=True)
if shutil.which("java") is None:
    pytest.skip("no java on PATH", allow_module_level=True)

EXAMPLE = REPO / "python" / "examples" / "spark_decode.py"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("pbaccel test_spark")
               .config("spark.jars", JAR).config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def canonical(value, field_descriptor=None, message_descriptor=None):
    """A Spark value as plain Python: rows as dicts, enums as numbers (from_protobuf gives names)."""
    from pyspark.sql import Row

    if isinstance(value, Row):
        d = value.asDict(recursive=False)
        if message_descriptor is None:
            message_descriptor = field_descriptor.message_type
        fields = message_descriptor.fields_by_name
        return {k: canonical(v, fields[k]) for k, v in d.items()}
    if field_descriptor is None:
        return value
    if isinstance(value, dict):
        entry = field_descriptor.message_type.fields_by_name
        return {canonical(k, entry["key"]): canonical(v, entry["value"]) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical(v, field_descriptor) for v in value]
    if value is None:
        return None
    if field_descriptor.message_type is not None and not isinstance(value, (bytes, bytearray)):
        return canonical(value, None, field_descriptor.message_type)
    if field_descriptor.enum_type is not None and isinstance(value, str):
        return field_descriptor.enum_type.values_by_name[value].number
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def implicit_defaults(row, message_descriptor):
    """Absent singular scalars as their default value. from_protobuf differs from pbaccel's
    mapping there both ways: it gives a field with presence its default when absent (pbaccel:
    null), and a field without presence null when it holds its default (pbaccel: the value).
    test_decode checks pbaccel's presence against upstream's parse exactly."""
    if row is None:
        return None
    out = {}
    for name, value in row.items():
        field = message_descriptor.fields_by_name[name]
        if value is None and field.message_type is None and not field.is_repeated:
            value = field.default_value
            if field.enum_type is not None and isinstance(value, str):
                value = field.enum_type.values_by_name[value].number
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            if isinstance(value, list):
                value = [implicit_defaults(v, field.message_type) for v in value]
            elif isinstance(value, dict):
                value = implicit_defaults(value, field.message_type)
        out[name] = value
    return out


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_spark_decode_matches_from_protobuf(spark, descriptor_set, upstream, tmp_path, corpus):
    from pyspark.sql.protobuf.functions import from_protobuf

    from pbaccel import files

    message_name, pattern = CORPORA[corpus]
    inputs = [str(p) for d in data_dirs() for p in sorted(d.glob(pattern))]
    descriptor_file = tmp_path / "schemas.desc"
    descriptor_file.write_bytes(descriptor_set)
    output = tmp_path / f"{corpus}.parquet"
    # The example, unchanged, as a user submits it.
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    run = subprocess.run(
        [str(spark_submit), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
         str(EXAMPLE), "--descriptor", str(descriptor_file), "--message", message_name,
         "--output", str(output), *inputs],
        env={**os.environ, "PYSPARK_PYTHON": sys.executable}, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr[-20000:]
    ours = spark.read.parquet(str(output)).collect()

    records = [r for path in inputs for r in files.records_from_path(path)]
    df = spark.createDataFrame([(r,) for r in records], "record binary")
    theirs = (df.select(from_protobuf("record", message_name, descFilePath=str(descriptor_file))
                        .alias("m")).select("m.*").collect())

    descriptor = upstream[message_name].DESCRIPTOR
    ours_rows = [implicit_defaults(canonical(r, None, descriptor), descriptor) for r in ours]
    theirs_rows = [implicit_defaults(canonical(r, None, descriptor), descriptor) for r in theirs]
    assert len(ours_rows) == len(theirs_rows) == len(records)
    # The example reads files in parallel: the same rows, in whatever order the job wrote them.
    key = repr
    ours_rows.sort(key=key)
    theirs_rows.sort(key=key)
    for i, (a, b) in enumerate(zip(ours_rows, theirs_rows)):
        assert a == b, f"{corpus}: row {i} differs"
