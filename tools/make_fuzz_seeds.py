#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus (tests/fuzz_corpus/): small valid and near-valid encodings for
each target the fuzzer's first byte selects (0: test2.Everything, 1: test3.All3, 2: bench.Batch,
3: test2.Recursive, 4: a raw packed varint payload; 0xF0 and up: edition 2023's Features, in builds
on protobuf 27 and later; 0xF8 and up: edition 2024's Strings, in builds that compiled it), and
excerpts of the vendored real data (testing/data; 5: OSMPBF.PrimitiveBlock, 6: vector_tile.Tile,
7: perftools.profiles.Profile): a real message with each repeated field cut to its first few
elements at every level, so that the fuzzer starts from the real schemas' shapes at a size it
mutates quickly. Also writes tests/fuzz_corpus_types.txt beside the directory: the type of each
file of the corpus (hand-added regressions included) by its first byte, for every build, which
fuzz_corpus_test checks. Deterministic; rerun to regenerate:

    python3 tools/make_fuzz_seeds.py tests/fuzz_corpus [testing/data]
"""
import gzip
import os
import random
import struct
import sys
import zlib


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire_type, payload=b""):
    tag = varint(number << 3 | wire_type)
    if wire_type == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


def zigzag(v):
    """sint32/sint64's encoding of v (|v| < 2**63) as an unsigned value."""
    return (v << 1) ^ (v >> 63)


def packed(values):
    return b"".join(varint(v) for v in values)


def read_varint(data, i):
    """The varint at data[i:] and the index after it."""
    v = shift = 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(data):
    """(number, wire_type, raw bytes of the whole field, payload of a length-delimited one)."""
    i = 0
    while i < len(data):
        start = i
        tag, i = read_varint(data, i)
        number, wire_type = tag >> 3, tag & 7
        payload = None
        if wire_type == 0:
            _, i = read_varint(data, i)
        elif wire_type == 1:
            i += 8
        elif wire_type == 5:
            i += 4
        elif wire_type == 2:
            n, i = read_varint(data, i)
            payload = data[i:i + n]
            i += n
        else:
            raise ValueError("unexpected wire type %d" % wire_type)
        yield number, wire_type, data[start:i], payload


# The real-data schemas, as far as the excerpts need them: each message's submessage fields (by
# number: the submessage's schema) and packed varint fields. LEAF: a message with neither (a
# profile's ValueType, Label, Line, Function, Mapping; a tile's Value; an OSM StringTable, Info).
LEAF = {"sub": {}, "packed": set()}
PROFILE = {"sub": {1: LEAF, 2: {"sub": {3: LEAF}, "packed": {1, 2}}, 3: LEAF,
                   4: {"sub": {4: LEAF}, "packed": set()}, 5: LEAF, 11: LEAF},
           "packed": {13}}
TILE = {"sub": {3: {"sub": {2: {"sub": {}, "packed": {2, 4}}, 4: LEAF}, "packed": set()}},
        "packed": set()}
DENSE_INFO = {"sub": {}, "packed": {1, 2, 3, 4, 5, 6}}
PRIMITIVE_BLOCK = {"sub": {1: LEAF, 2: {"sub": {
    1: {"sub": {4: LEAF}, "packed": {2, 3}},
    2: {"sub": {5: DENSE_INFO}, "packed": {1, 8, 9, 10}},
    3: {"sub": {4: LEAF}, "packed": {2, 3, 8, 9, 10}},
    4: {"sub": {4: LEAF}, "packed": {2, 3, 8, 9, 10}}}, "packed": set()}}, "packed": set()}


def excerpt(data, schema, keep=3, values=8):
    """`data` (a message of `schema`) with at most `keep` occurrences of each field number and at
    most `values` values in each packed field, at every level."""
    out = bytearray()
    seen = {}
    for number, wire_type, raw, payload in fields(data):
        seen[number] = seen.get(number, 0) + 1
        if seen[number] > keep:
            continue
        if wire_type == 2 and number in schema["sub"]:
            inner = excerpt(payload, schema["sub"][number], keep, values)
            out += field(number, 2, inner)
        elif wire_type == 2 and number in schema["packed"]:
            cut, i = bytearray(), 0
            for _ in range(values):
                if i >= len(payload):
                    break
                _, j = read_varint(payload, i)
                cut += payload[i:j]
                i = j
            out += field(number, 2, bytes(cut))
        else:
            out += raw
    return bytes(out)


def osm_blocks(path):
    """The OSMData blobs of an OSM PBF file, inflated, in file order."""
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        (header_size,) = struct.unpack(">I", data[i:i + 4])
        header = data[i + 4:i + 4 + header_size]
        kind, size = b"", 0
        for number, _, raw, payload in fields(header):
            if number == 1:
                kind = payload
            elif number == 3:
                size = read_varint(raw, 1)[0]
        blob = data[i + 4 + header_size:i + 4 + header_size + size]
        i += 4 + header_size + size
        if kind != b"OSMData":
            continue
        for number, _, raw, payload in fields(blob):
            if number == 1:
                yield payload
            elif number == 3:
                yield zlib.decompress(payload)


def first_osm_block_with(path, group_field):
    """The first OSMData block of the file with a PrimitiveGroup holding field `group_field`
    (2: dense nodes, 3: ways, 4: relations)."""
    for block in osm_blocks(path):
        for number, _, _, group in fields(block):
            if number == 2 and any(n == group_field for n, _, _, _ in fields(group)):
                return block
    raise ValueError("no block with group field %d in %s" % (group_field, path))


def real_data_seeds(data_dir):
    """Excerpts of the vendored real data: OSM blocks of dense nodes, ways and relations, a tile,
    and a CPU and a heap profile."""
    seeds = {}
    osm = os.path.join(data_dir, "osm", "valhalla_bench_sydney.osm.pbf")
    for name, group_field in (("dense", 2), ("ways", 3), ("relations", 4)):
        block = first_osm_block_with(osm, group_field)
        seeds["real_osm_" + name] = b"\x05" + excerpt(block, PRIMITIVE_BLOCK)
    tile_path = os.path.join(data_dir, "mvt")
    tiles = sorted(os.path.join(d, f) for d, _, fs in os.walk(tile_path) for f in fs
                   if f.endswith(".mvt"))
    with open(tiles[0], "rb") as f:
        seeds["real_vector_tile"] = b"\x06" + excerpt(f.read(), TILE)
    for kind in ("cpu", "mem"):
        with gzip.open(os.path.join(data_dir, "pprof", "go_sort.%s.pb.gz" % kind)) as f:
            seeds["real_pprof_" + kind] = b"\x07" + excerpt(f.read(), PROFILE)
    return seeds


def editions_seeds(small, wide):
    """Edition 2023's Features (selector 0xF0 and up, in builds on protobuf 27 and later; elsewhere
    they read as selector 0, test2.Everything): every feature's field, set as upstream parses it
    and set the other way (packed given expanded, expanded given packed, a delimited message given
    a length, unknown enum values for open and closed enums, invalid UTF-8 where it is checked and
    where not), and required_int missing."""
    leaf = field(1, 0, varint(3)) + field(2, 2, packed([zigzag(-5), zigzag(70000)])) + \
        field(3, 2, b"leaf")
    basic = field(1, 0, varint(0)) + field(2, 0, varint(0)) + field(3, 0, varint(5)) + \
        field(4, 2, "caf\u00e9".encode()) + field(5, 2, b"\xff\xfe") + field(6, 2, b"ok") + \
        field(7, 2, b"\xc3\x28") + field(8, 2, packed(small[:12])) + \
        b"".join(field(8, 0, varint(v)) for v in small[:3]) + \
        b"".join(field(9, 0, varint(v)) for v in small[:4]) + field(9, 2, packed(small[4:9])) + \
        field(10, 2, packed(wide[:6])) + field(11, 2, packed([zigzag(-7), 9, 300])) + \
        field(12, 2, packed([1, 0, 1])) + field(13, 1, struct.pack("<d", 2.5)) + \
        field(14, 2, struct.pack("<3I", 1, 2, 3)) + field(15, 0, varint(99)) + \
        field(16, 2, packed([1, 77, 5])) + field(17, 0, varint(9)) + \
        field(18, 2, packed([1, 9, 2])) + field(19, 0, varint(3)) + field(19, 2, packed([2, 8])) + \
        field(20, 0, varint(7)) + field(21, 2, packed([1, 7, 2])) + field(22, 0, varint(42)) + \
        field(23, 2, leaf) + field(24, 2, leaf) + field(24, 2, b"") + \
        field(25, 3) + leaf + field(25, 4) + field(26, 3) + leaf + field(26, 4) + \
        field(27, 2, b"view") + field(28, 2, b"a") + field(28, 2, b"b") + \
        field(29, 2, bytes(range(8))) + field(30, 2, b"\xe2\x82") + field(31, 2, b"cord") + \
        field(40, 0, varint(4)) + field(42, 2, leaf) + \
        field(43, 2, field(1, 2, b"k") + field(2, 0, varint(1))) + \
        field(44, 2, field(3, 0, varint(1)) + field(8, 2, packed(small[:5])))
    return {
        "editions_features": b"\xf0" + basic,
        # Checked UTF-8 (verified, 4) invalid: upstream rejects the message.
        "editions_invalid_utf8": b"\xf1" + field(3, 0, varint(1)) + field(4, 2, b"\xc3\x28"),
        # The delimited submessage given a length, the length-prefixed one as a group.
        "editions_wire_types_swapped": b"\xf2" + field(3, 0, varint(1)) + field(25, 2, leaf) +
        field(23, 3) + leaf + field(23, 4),
        # required_int missing, at the top and in `recursive`.
        "editions_missing_required": b"\xf3" + field(44, 2, field(1, 0, varint(2))),
    }


def edition_2024_seeds():
    """Edition 2024's Strings (selector 0xF8 and up, in builds that compiled
    proto/editions_2024.proto; elsewhere they read as edition 2023's Features or, before protobuf
    27, selector 0): every field, VIEW strings (the edition's default) beside STRING and CORD ones,
    unverified and invalid UTF-8, a closed enum's unknown value, both oneof members, a map key
    given twice, and required_int missing."""
    leaf = field(1, 0, varint(4)) + field(2, 2, b"leaf") + field(3, 2, b"t1") + field(3, 2, b"")
    strings = field(1, 0, varint(1)) + field(2, 2, b"view") + field(3, 2, b"a") + \
        field(3, 2, "\u00e9t\u00e9".encode()) + field(4, 2, bytes(range(250, 256))) + \
        field(5, 2, b"\xc3\x28") + field(6, 2, b"std") + field(7, 2, b"x") + field(7, 2, b"") + \
        field(8, 2, b"\xffcord") + field(9, 2, b"c1") + field(9, 2, b"c2") + \
        field(10, 2, packed([zigzag(-9), zigzag(1 << 40), 0])) + field(11, 2, packed([1, 3, 2])) + \
        field(11, 0, varint(7)) + field(12, 2, leaf) + field(13, 2, leaf) + field(13, 2, b"") + \
        field(20, 2, b"choice") + field(21, 2, leaf) + \
        field(22, 2, field(1, 2, b"k") + field(2, 2, b"v1")) + \
        field(22, 2, field(1, 2, b"k") + field(2, 2, b"v2"))
    return {
        "editions_2024_strings": b"\xf8" + strings,
        # A VIEW string's UTF-8 checked (the edition's default): upstream rejects the message.
        "editions_2024_invalid_utf8": b"\xf9" + field(1, 0, varint(1)) + field(3, 2, b"\xe2\x82"),
        # The same bytes where nothing checks them: the unverified string and the bytes fields.
        "editions_2024_unverified": b"\xfa" + field(1, 0, varint(1)) + field(5, 2, b"\xe2\x82") +
        field(4, 2, b"\xe2\x82") + field(8, 2, b"\xe2\x82") + field(9, 2, b"\xe2\x82"),
        # required_int missing, at the top; a child's strings set.
        "editions_2024_missing_required": b"\xfb" + field(12, 2, leaf) + field(21, 2, leaf),
    }


# The type of each first byte mod 8 (tests/message_fuzzer.cc's InputType; 4: a raw payload).
PLAIN_TYPES = ["pbaccel.test2.Everything", "pbaccel.test3.All3", "pbaccel.bench.Batch",
               "pbaccel.test2.Recursive", "payload", "OSMPBF.PrimitiveBlock", "vector_tile.Tile",
               "perftools.profiles.Profile"]


def input_types(first):
    """The "feature=type" choices for an input starting with `first`, in the order the fuzzer
    takes them: the first feature the build compiled ("-": every build) names the type."""
    choices = []
    if first >= 0xF8:
        choices.append("edition_2024=pbaccel.editions2024.Strings")
    if first >= 0xF0:
        choices.append("editions=pbaccel.editions.Features")
    return choices + ["-=" + PLAIN_TYPES[first % 8]]


def write_manifest(path, corpus_dir):
    """Every file of the corpus, the generated seeds and those added by hand (the fuzzer's findings,
    kept as regressions), by its first byte (an empty file, which the fuzzer skips, as 0)."""
    with open(path, "w") as out:
        out.write("# Written by tools/make_fuzz_seeds.py: each seed of fuzz_corpus/ and the type\n"
                  "# the fuzzer parses it as, the first choice whose feature the build compiled\n"
                  "# (fuzz_corpus_test --with=FEATURE; '-': every build).\n")
        for name in sorted(os.listdir(corpus_dir)):
            with open(os.path.join(corpus_dir, name), "rb") as seed:
                first = seed.read(1) or b"\0"
            out.write("%s %s\n" % (name, " ".join(input_types(first[0]))))


def main(out_dir, data_dir):
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(42)
    seeds = {}
    small = [rng.randrange(0, 300) for _ in range(40)]
    wide = [rng.randrange(0, 1 << 64) for _ in range(40)]
    neg = [(-rng.randrange(1, 1 << 31)) & ((1 << 64) - 1) for _ in range(10)] + small[:10]
    # test2.Everything (selector 0): required field, packed fields of several types, a nested
    # Middle with a packed field, a group, an extension, a closed enum with an unknown value.
    seeds["everything_basic"] = b"\x00" + field(1, 0, varint(7)) + field(10, 2, packed(neg)) + \
        field(13, 2, packed(wide)) + field(16, 2, packed([0, 1, 1, 0] * 10)) + \
        field(17, 2, packed([0, 1, 5, 1000, 1])) + field(40, 2, field(3, 2, packed(small))) + \
        field(80, 3) + field(81, 0, varint(3)) + field(80, 4) + field(1000, 2, packed(small))
    seeds["everything_unpacked"] = b"\x00" + field(1, 0, varint(1)) + b"".join(
        field(30, 0, varint(v)) for v in small[:20]) + field(10, 2, packed(small))
    # Everything's known extensions, whose values upstream parses: ext_packed, ext_leaf (a Leaf
    # with a packed field) and ext_unpacked.
    seeds["everything_extensions"] = b"\x00" + field(1, 0, varint(1)) + \
        field(1000, 2, packed([1, 300, 1 << 40])) + \
        field(1001, 2, field(1, 0, varint(3)) + field(2, 2, packed([5, 1 << 63]))) + \
        field(1002, 0, varint(9))
    # A regression: ext_packed holding a truncated varint, which upstream rejects and the columnar
    # decoder once skipped as an unknown field (the fuzzer's finding at 2f44a19).
    seeds["regression_extension_value"] = b"\x00" + field(1, 0, varint(1)) + field(1000, 2, b"\x80")
    # test3.All3 (selector 1).
    seeds["all3_basic"] = b"\x01" + field(12, 2, packed(small)) + field(14, 2, packed(small)) + \
        field(17, 2, packed([0, 1, 2, 77])) + field(18, 2, bytes(range(64))) + \
        field(30, 2, field(1, 2, field(1, 2, field(1, 2, packed(wide[:20])))))
    # bench.Batch (selector 2).
    seeds["batch_basic"] = b"\x02" + field(1, 2, b"batch") + field(3, 2, field(2, 2, packed(small)) + \
        field(3, 2, packed([1] * 40))) + field(4, 2, packed(small)) + field(6, 2, packed(wide))
    # test2.Recursive (selector 3): nesting.
    inner = field(2, 2, packed(small))
    for _ in range(20):
        inner = field(1, 2, inner) + field(2, 2, packed(small[:5]))
    seeds["recursive_nested"] = b"\x03" + inner
    # Raw payloads (selector 4).
    seeds["payload_small"] = b"\x04" + packed(small)
    seeds["payload_wide"] = b"\x04" + packed(wide)
    seeds["payload_neg"] = b"\x04" + packed(neg)
    seeds["payload_overlong"] = b"\x04" + packed(small[:5]) + b"\x80" * 11 + b"\x01"
    seeds["payload_truncated"] = b"\x04" + packed(small[:30]) + b"\x80\x80"
    # OSM ways' refs (sint64, delta coded): a five-byte node id, then deltas of one or two bytes,
    # way after way, so that the payload's windows (the fuzzer's span-form check) start at a
    # five-byte value with the rest of the input behind them, as a zero-copy read of ways does.
    refs = []
    for way in range(6):
        refs += [zigzag(4_000_000_000 + 977 * way)] + \
            [zigzag(rng.randrange(-300, 300)) for _ in range(3 + 4 * way)]
    seeds["payload_way_refs"] = b"\x04" + packed(refs)
    seeds.update(editions_seeds(small, wide))
    seeds.update(edition_2024_seeds())
    seeds.update(real_data_seeds(data_dir))
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    corpus_dir = os.path.normpath(os.path.abspath(out_dir))
    write_manifest(corpus_dir + "_types.txt", corpus_dir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz_corpus",
         sys.argv[2] if len(sys.argv) > 2 else "testing/data")
