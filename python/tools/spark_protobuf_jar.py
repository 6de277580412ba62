"""Prints the path of the spark-protobuf jar matching the installed PySpark (its version and Scala
binary version), fetching it from Maven Central into the local Maven repository first with
`mvn dependency:get` when it is not there yet.

    PBACCEL_SPARK_PROTOBUF_JAR=$(python python/tools/spark_protobuf_jar.py) pytest python/tests
"""

import re
import subprocess
import sys
from pathlib import Path

import pyspark


def main():
    version = pyspark.__version__
    jars = Path(pyspark.__file__).parent / "jars"
    scala = [m.group(1) for j in jars.glob("scala-library-*.jar")
             if (m := re.match(r"scala-library-(\d+\.\d+)\.", j.name))]
    if not scala:
        sys.exit(f"no scala-library jar in {jars}: cannot tell PySpark's Scala version")
    artifact = f"spark-protobuf_{scala[0]}"
    jar = (Path.home() / ".m2" / "repository" / "org" / "apache" / "spark" / artifact / version
           / f"{artifact}-{version}.jar")
    if not jar.is_file():
        subprocess.run(["mvn", "-q", "dependency:get",
                        f"-Dartifact=org.apache.spark:{artifact}:{version}", "-Dtransitive=false"],
                       check=True, stdout=sys.stderr)
    print(jar)


if __name__ == "__main__":
    main()
