"""Random messages of any type, filled through upstream's Python reflection: every field kind,
edge values of every integer type, unicode strings, nested and repeated messages, maps, oneofs.
Deterministic for a given random.Random."""

from __future__ import annotations

import random
import struct

from google.protobuf.descriptor import FieldDescriptor as F

_INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1),
    F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1),
    F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1),
    F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1),
    F.TYPE_FIXED64: (0, 2**64 - 1),
}


def _integer(rng: random.Random, lo: int, hi: int) -> int:
    shape = rng.random()
    if shape < 0.15:
        return rng.choice([lo, hi, 0, 1, -1 if lo < 0 else 2])
    if shape < 0.6:  # Small: one- and two-byte varints, as real data mostly has.
        return max(lo, min(hi, rng.randint(-200 if lo < 0 else 0, 300)))
    bits = rng.randint(1, (hi - lo).bit_length())
    return max(lo, min(hi, rng.getrandbits(bits) + (lo if rng.random() < 0.3 else 0)))


def _scalar(rng: random.Random, field):
    t = field.type
    if t in _INT_RANGES:
        return _integer(rng, *_INT_RANGES[t])
    if t == F.TYPE_BOOL:
        return rng.random() < 0.5
    if t == F.TYPE_FLOAT:
        return struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0]
    if t == F.TYPE_DOUBLE:
        return rng.choice([0.0, -0.0, float("inf"), rng.uniform(-1e300, 1e300), rng.random()])
    if t == F.TYPE_STRING:
        return "".join(rng.choice("aZ09 é€😀\u0000") for _ in range(rng.randint(0, 12)))
    if t == F.TYPE_BYTES:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 12)))
    if t == F.TYPE_ENUM:
        return rng.choice(field.enum_type.values).number
    raise AssertionError(f"unhandled field type {t}")


def fill(message, rng: random.Random, depth: int = 0) -> None:
    descriptor = message.DESCRIPTOR
    for field in descriptor.fields:
        if rng.random() < 0.3:
            continue
        is_message = field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP)
        # Three levels deep at most; a recursive type (a field of its own type) two.
        if is_message and (depth >= 3 or (depth >= 1 and field.message_type is descriptor)):
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            target = getattr(message, field.name)
            for _ in range(rng.randint(0, 4 if depth == 0 else 2)):
                key = _scalar(rng, key_field)
                if value_field.type == F.TYPE_MESSAGE:
                    fill(target[key], rng, depth + 1)
                else:
                    target[key] = _scalar(rng, value_field)
        elif field.is_repeated:
            target = getattr(message, field.name)
            # Repeated messages few and fewer deeper down (recursive trees stay small).
            counts = [0, 1, 2, 3] if is_message and depth > 0 else [0, 1, 2, 5, 20]
            for _ in range(rng.choice(counts)):
                if is_message:
                    fill(target.add(), rng, depth + 1)
                else:
                    target.append(_scalar(rng, field))
        elif is_message:
            fill(getattr(message, field.name), rng, depth + 1)
            getattr(message, field.name).SetInParent()
        else:
            setattr(message, field.name, _scalar(rng, field))
    # Required fields set, so that upstream's parse (which checks them) accepts the record.
    for field in descriptor.fields:
        if field.is_required and not message.HasField(field.name):
            if field.type == F.TYPE_MESSAGE:
                fill(getattr(message, field.name), rng, depth + 1)
                getattr(message, field.name).SetInParent()
            else:
                setattr(message, field.name, _scalar(rng, field))


def varint(n: int) -> bytes:
    """n as a protobuf varint."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def mutate(record: bytes, rng: random.Random) -> bytes:
    """One random corruption: a byte changed, a cut, bytes inserted, a slice repeated."""
    data = bytearray(record)
    kind = rng.randrange(4)
    if kind == 0 and data:
        data[rng.randrange(len(data))] = rng.getrandbits(8)
    elif kind == 1 and data:
        del data[rng.randrange(len(data)) :]
    elif kind == 2:
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4)))
    elif data:
        a = rng.randrange(len(data))
        b = min(len(data), a + rng.randint(1, 16))
        data[b:b] = data[a:b]
    return bytes(data)
