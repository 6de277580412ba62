"""Records to Arrow columns from Python, side by side in one run, one core: pbaccel against
upstream's Python protobuf (parse each record, then the same fields into pyarrow), protarrow
(upstream's parse, then its converter), ptars (Rust, from the serialized records) and Spark's
from_protobuf on one executor core (and pbaccel through mapInArrow in the same Spark).

    python python/bench.py [--data DIR ...] [--reps N] [--no-spark]

Corpora: testing/data and any --data directories of the same layout (osm/, mvt/<area>/, pprof/),
e.g. ../shared/realdata. Every way decodes every field of every record; each way's batch is
checked equal to pbaccel's before it is timed (Spark's rows are checked by tests/test_spark.py).
Rows: MB/s of serialized input and records/s, the best of --reps runs, and pbaccel's speed-up.
Spark needs PySpark and PBACCEL_SPARK_PROTOBUF_JAR (see tests/test_spark.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The installed package, not the source directory next to this script (which has no extension).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pyarrow as pa  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor  # noqa: E402

import pbaccel  # noqa: E402
from pbaccel import files  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = ["proto/osmformat.proto", "proto/vector_tile.proto", "proto/profile.proto"]
CORPORA = {
    "osm": ("OSMPBF.PrimitiveBlock", "osm/*.osm.pbf"),
    "mvt": ("vector_tile.Tile", "mvt/*/*.mvt*"),
    "pprof": ("perftools.profiles.Profile", "pprof/*.pb*"),
}


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def best_of(reps, fn):
    best = float("inf")
    result = None
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


# --- Upstream's Python protobuf, then the same fields into pyarrow -------------------------------


def to_row(message):
    return {f.name: _value(message, f) for f in message.DESCRIPTOR.fields}


def _value(message, field):
    value = getattr(message, field.name)
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        return [(k, _element(value[k], value_field)) for k in value]
    if field.is_repeated:
        if field.message_type is None:
            return list(value)
        return [to_row(v) for v in value]
    if field.has_presence and not message.HasField(field.name):
        return None
    return _element(value, field)


def _element(value, field):
    if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
        return to_row(value)
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="*", default=[], help="more corpus directories")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-spark", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        desc_path = Path(tmp) / "schemas.desc"
        subprocess.run(["protoc", "-I.", f"--descriptor_set_out={desc_path}", "--include_imports",
                        *SCHEMAS], cwd=REPO, check=True)
        descriptor_set = desc_path.read_bytes()
        pool = descriptor_pool.DescriptorPool()
        fds = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
        for file in fds.file:
            pool.Add(file)

        print(f"CPU: {cpu_name()}; kernel {pbaccel.kernel()}; Python {platform.python_version()}, "
              f"pyarrow {pa.__version__}, protobuf {_version('google.protobuf')}, "
              f"best of {args.reps}")
        dirs = [REPO / "testing" / "data"] + [Path(d) for d in args.data]
        spark = None if args.no_spark else _spark()
        header = f"{'corpus':<8}{'way':<34}{'MB/s':>9}{'records/s':>12}{'pbaccel is':>12}"
        print(header)
        for corpus, (name, pattern) in CORPORA.items():
            records = [r for d in dirs for p in sorted(d.glob(pattern))
                       for r in files.records_from_path(str(p))]
            if not records:
                continue
            size = sum(map(len, records))
            cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
            decoder = pbaccel.Decoder(descriptor_set, name)
            rows = []

            def row(way, seconds):
                rows.append((way, seconds))

            seconds, ours = best_of(args.reps, lambda: decoder.decode(records))
            row("pbaccel", seconds)

            def upstream():
                parsed = [cls.FromString(r) for r in records]
                return pa.RecordBatch.from_pylist([to_row(m) for m in parsed],
                                                  schema=decoder.schema)

            seconds, theirs = best_of(args.reps, upstream)
            assert theirs.equals(ours), f"{corpus}: upstream+pyarrow batch differs from pbaccel's"
            row("protobuf parse + pyarrow", seconds)
            try:
                import protarrow

                def with_protarrow():
                    parsed = [cls.FromString(r) for r in records]
                    return protarrow.messages_to_record_batch(parsed, cls)

                seconds, _ = best_of(args.reps, with_protarrow)
                row(f"protarrow {_version('protarrow')}", seconds)
            except ImportError:
                pass
            try:
                import ptars

                handler = ptars.HandlerPool([cls.DESCRIPTOR.file]).get_for_message(cls.DESCRIPTOR)
                seconds, _ = best_of(args.reps, lambda: handler.list_to_record_batch(records))
                row(f"ptars {_version('ptars')}", seconds)
            except ImportError:
                pass
            if spark is not None:
                for way, seconds in _spark_rows(spark, records, name, str(desc_path), descriptor_set,
                                                args.reps):
                    row(way, seconds)
            base = rows[0][1]
            for way, seconds in rows:
                ratio = "" if way == "pbaccel" else f"{seconds / base:.1f}x"
                print(f"{corpus:<8}{way:<34}{size / seconds / 1e6:>9.1f}"
                      f"{len(records) / seconds:>12,.0f}{ratio:>12}")
        if spark is not None:
            spark.stop()


def _version(module):
    try:
        return __import__(module, fromlist=["__version__"]).__version__
    except Exception:
        return "?"


def _spark():
    jar = os.environ.get("PBACCEL_SPARK_PROTOBUF_JAR", "")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        print("(no Spark rows: PySpark is not installed)")
        return None
    if not Path(jar).is_file() or shutil.which("java") is None:
        print("(no Spark rows: PBACCEL_SPARK_PROTOBUF_JAR or java missing)")
        return None
    sys.path.insert(0, str(REPO / "python" / "examples"))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "python" / "examples"), os.environ.get("PYTHONPATH", "")])
    session = (SparkSession.builder.master("local[1]").config("spark.jars", jar)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def _spark_rows(spark, records, name, desc_path, descriptor_set, reps):
    """One executor core (local[1]); the records cached in the JVM first; each way's columns
    written to Spark's noop sink, so that every row is produced and nothing else is timed."""
    from pyspark.sql.protobuf.functions import from_protobuf

    import spark_decode

    df = spark.createDataFrame([(r,) for r in records], "record binary").cache()
    df.count()

    def run(frame):
        frame.write.format("noop").mode("overwrite").save()

    theirs = df.select(from_protobuf("record", name, descFilePath=desc_path).alias("m")).select("m.*")
    ours = spark_decode.decode_records(df, "record", descriptor_set, name)
    out = []
    seconds, _ = best_of(reps, lambda: run(ours))
    out.append(("pbaccel in Spark (mapInArrow)", seconds))
    seconds, _ = best_of(reps, lambda: run(theirs))
    out.append(("Spark from_protobuf", seconds))
    df.unpersist()
    return out


if __name__ == "__main__":
    main()
