"""pbaccel.decode_packed against upstream's Python parse of the same payload, every dtype, under
every kernel this CPU runs: random values of every varint length, payloads long enough for the
kernels' bulk paths, malformed payloads rejected with the byte offset, strict mode."""

from __future__ import annotations

import random

import numpy as np
import pytest

import pbaccel
from random_messages import _INT_RANGES, _integer, varint

# dtype -> (PackedFields field, numpy dtype)
DTYPES = {
    "int32": ("int32s", np.int32),
    "int64": ("int64s", np.int64),
    "uint32": ("uint32s", np.uint32),
    "uint64": ("uint64s", np.uint64),
    "sint32": ("sint32s", np.int32),
    "sint64": ("sint64s", np.int64),
    "bool": ("bools", np.bool_),
    "enum": ("enums", np.int32),
    "fixed32": ("fixed32s", np.uint32),
    "fixed64": ("fixed64s", np.uint64),
    "sfixed32": ("sfixed32s", np.int32),
    "sfixed64": ("sfixed64s", np.int64),
    "float": ("floats", np.float32),
    "double": ("doubles", np.float64),
}



def payload_of(message, field):
    """The packed payload of `field` in `message`'s serialization (its only field)."""
    data = message.SerializeToString()
    at = len(varint(field.number << 3 | 2))
    size = 0
    shift = 0
    while True:
        b = data[at]
        at += 1
        size |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            break
    return data[at : at + size]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("count", [0, 1, 7, 33, 1000])
def test_every_dtype_matches_upstream(upstream, kernel, dtype, count):
    cls = upstream["pbaccel.test.PackedFields"]
    name, np_dtype = DTYPES[dtype]
    field = cls.DESCRIPTOR.fields_by_name[name]
    rng = random.Random(count * 31 + len(dtype))
    message = cls()
    values = getattr(message, name)
    for _ in range(count):
        if field.type in _INT_RANGES:
            values.append(_integer(rng, *_INT_RANGES[field.type]))
        elif dtype == "bool":
            values.append(rng.random() < 0.5)
        elif dtype == "enum":
            values.append(rng.choice([0, 1, 2, 3, -1, 1000]))  # Open: unknown ones kept.
        else:
            values.append(rng.uniform(-1e6, 1e6))
    payload = payload_of(message, field) if count else b""
    decoded = pbaccel.decode_packed(payload, dtype)
    assert decoded.dtype == np_dtype
    expected = np.array(list(cls.FromString(message.SerializeToString()).__getattribute__(name)),
                        dtype=np_dtype)
    np.testing.assert_array_equal(decoded, expected)


def test_upstream_leniency_and_strict_mode():
    # A uint32 keeps the low 32 bits of a 64-bit varint; a 10-byte varint's bits past 63 dropped.
    assert pbaccel.decode_packed(varint(2**32 + 5), "uint32").tolist() == [5]
    assert pbaccel.decode_packed(b"\xff" * 9 + b"\x7f", "uint64").tolist() == [2**64 - 1]
    assert pbaccel.decode_packed(varint(2**64 - 1), "int32").tolist() == [-1]
    assert pbaccel.decode_packed(b"\x02", "bool").tolist() == [True]
    with pytest.raises(pbaccel.DecodeError):
        pbaccel.decode_packed(varint(2**32 + 5), "uint32", strict=True)
    with pytest.raises(pbaccel.DecodeError):
        pbaccel.decode_packed(b"\x02", "bool", strict=True)


def test_malformed_payloads(kernel):
    with pytest.raises(pbaccel.DecodeError, match="byte offset 2"):
        pbaccel.decode_packed(b"\x01\x02" + b"\x80" * 11, "int64")
    with pytest.raises(pbaccel.DecodeError, match="ends inside"):
        pbaccel.decode_packed(b"\x01" * 40 + b"\x80", "uint32")
    with pytest.raises(pbaccel.DecodeError, match="whole number of 8-byte"):
        pbaccel.decode_packed(b"\x00" * 12, "double")
    with pytest.raises(ValueError, match="unknown dtype"):
        pbaccel.decode_packed(b"\x01", "int128")
    rng = random.Random(9)
    for _ in range(300):  # Random bytes: a result or DecodeError, never a crash.
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 70)))
        for dtype in ("int32", "uint64", "sint64", "bool"):
            try:
                out = pbaccel.decode_packed(payload, dtype)
                assert len(out) == sum(b < 0x80 for b in payload)
            except pbaccel.DecodeError:
                pass
