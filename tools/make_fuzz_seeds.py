#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus (tests/fuzz_corpus/): small valid and near-valid encodings for
each target the fuzzer's first byte selects (0: test2.Everything, 1: test3.All3, 2: bench.Batch,
3: test2.Recursive, 4: a raw packed varint payload). Deterministic; rerun to regenerate:

    python3 tools/make_fuzz_seeds.py tests/fuzz_corpus
"""
import os
import random
import sys


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


def packed(values):
    return b"".join(varint(v) for v in values)


def main(out_dir):
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
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz_corpus")
