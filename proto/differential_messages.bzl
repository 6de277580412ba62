"""The message types of proto/ that the differential tests check, for both builds.

tests/BUILD's pbaccel_differential_test rules and cmake/tests/CMakeLists.txt (which reads these
lists: keep each entry a quoted full name on its own line) run the same types.
"""

# Full-runtime types: every message type of proto/'s test and workload schemas.
DIFFERENTIAL_MESSAGES = [
    "pbaccel.test.PackedFields",
    "pbaccel.bench.Posting",
    "pbaccel.bench.Batch",
    "pbaccel.bench.Address",
    "pbaccel.bench.Person",
    "pbaccel.bench.NoPacked",
    "pbaccel.bench.TinyPacked",
    "pbaccel.test2.Leaf",
    "pbaccel.test2.Middle",
    "pbaccel.test2.Everything",
    "pbaccel.test2.Recursive",
    "pbaccel.test2.Singulars2",
    "pbaccel.test2.Maps2",
    "pbaccel.test3.Level3",
    "pbaccel.test3.Level2",
    "pbaccel.test3.Level1",
    "pbaccel.test3.All3",
    "pbaccel.test3.Singulars3",
    "pbaccel.test3.Maps3",
    "pbaccel.editions2.Features",
    "pbaccel.editions3.Features",
]

# LITE_RUNTIME twins of the parser tests' schemas (proto/BUILD's genrule).
LITE_DIFFERENTIAL_MESSAGES = [
    "pbaccel.test2lite.Everything",
    "pbaccel.test2lite.Recursive",
    "pbaccel.test2lite.Singulars2",
    "pbaccel.test2lite.Maps2",
    "pbaccel.test3lite.All3",
    "pbaccel.test3lite.Singulars3",
    "pbaccel.test3lite.Maps3",
]

# Edition 2023 (proto/editions_2023.proto): protoc 27 or later, so the CMake build on protobuf 27.
EDITIONS_2023_MESSAGES = [
    "pbaccel.editions.Features",
]

# Edition 2024 (proto/editions_2024.proto): protoc 32 or later, so the CMake build on protobuf 33.5.
EDITION_2024_MESSAGES = [
    "pbaccel.editions2024.Strings",
    "pbaccel.editions2024.Leaf",
]
