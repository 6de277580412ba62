"""Serialized records out of the files real protobuf data comes in.

    osm_blocks(data)      the OSMData PrimitiveBlocks of an OpenStreetMap PBF file: its frames
                          (4-byte big-endian length, BlobHeader, Blob; fileformat.proto) walked,
                          each Blob's zlib_data inflated (or raw taken); the OSMHeader skipped.
    message_file(data)    a file holding one message (a vector tile, a pprof profile), gzip or not.
    records_from_path(p)  either, chosen by the file name: *.osm.pbf -> its blocks; anything else
                          one message (*.gz inflated).

Each takes the file's bytes and returns a list of bytes. The two small messages of the OSM frame
are read here with a minimal wire reader (fields 1-3 of BlobHeader and Blob), so no generated
code is needed.
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from typing import Dict, List, Tuple

__all__ = ["osm_blocks", "message_file", "records_from_path"]


def _varint(data: bytes, at: int) -> Tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("malformed varint in an OSM frame")
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def _fields(message: bytes) -> Dict[int, object]:
    """The last value of each field of a small message (varints and length-delimited only)."""
    out: Dict[int, object] = {}
    at = 0
    while at < len(message):
        key, at = _varint(message, at)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            out[number], at = _varint(message, at)
        elif wire_type == 2:
            size, at = _varint(message, at)
            if at + size > len(message):
                raise ValueError("truncated field in an OSM frame")
            out[number] = message[at : at + size]
            at += size
        else:
            raise ValueError(f"unexpected wire type {wire_type} in an OSM frame")
    return out


def osm_blocks(data: bytes) -> List[bytes]:
    blocks = []
    at = 0
    while at < len(data):
        if at + 4 > len(data):
            raise ValueError(f"OSM PBF: truncated frame length at byte {at}")
        (header_size,) = struct.unpack_from(">I", data, at)
        at += 4
        header = _fields(data[at : at + header_size])
        at += header_size
        blob_size = header.get(3, 0)
        blob = _fields(data[at : at + blob_size])
        at += blob_size
        if header.get(1) != b"OSMData":
            continue
        if 3 in blob:
            blocks.append(zlib.decompress(blob[3]))
        elif 1 in blob:
            blocks.append(bytes(blob[1]))
        else:
            raise ValueError("OSM PBF: a blob neither raw nor zlib")
    return blocks


def message_file(data: bytes) -> List[bytes]:
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return [data]


def records_from_path(path: str) -> List[bytes]:
    with open(path, "rb") as f:
        data = f.read()
    if os.fspath(path).endswith(".osm.pbf"):
        return osm_blocks(data)
    return message_file(data)
