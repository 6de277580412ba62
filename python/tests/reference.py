"""The columns a record should decode to, from upstream's Python parse, and the pbaccel columns
brought to the same canonical form, so that the two compare with ==.

Canonical form (the mapping of lib/pbaccel/columnar.h): a row is {field name: value}; a field with
presence that is absent is None; repeated fields are lists; maps are dicts; messages are rows; a
recursive message column (binary of the serialized occurrences) is the row of its parse; a
string upstream holds as ill-formed UTF-8 is its text with U+FFFD replacements; floats
compare by value, NaN as the string "nan"; enums are numbers.
"""

from __future__ import annotations

import math

import pyarrow as pa
from google.protobuf.descriptor import FieldDescriptor

_FLOATS = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)


def _is_map(field):
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _scalar(value):
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


class Parsed:
    """A recursive message column's value: equal when upstream's messages are equal."""

    def __init__(self, message):
        self.message = message

    def __eq__(self, other):
        return isinstance(other, Parsed) and self.message == other.message

    def __repr__(self):
        return f"Parsed({self.message.DESCRIPTOR.full_name}: {self.message})"


class Canon:
    """Canonical rows for one message type, given the Arrow schema pbaccel decodes it to (which
    says where a recursive message became binary) and upstream's message classes."""

    def __init__(self, classes, schema: pa.Schema):
        self.classes = classes
        self.schema = schema

    # --- Upstream's parse ----------------------------------------------------------------------

    def expected_row(self, message, arrow_fields=None):
        arrow_fields = arrow_fields if arrow_fields is not None else list(self.schema)
        by_name = message.DESCRIPTOR.fields_by_name
        return {a.name: self._expected(message, by_name[a.name], a.type) for a in arrow_fields}

    def _expected(self, message, field, arrow_type):
        value = getattr(message, field.name)
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            item_type = arrow_type.item_type
            return {k: self._expected_value(value[k], value_field, item_type) for k in value}
        if field.is_repeated:
            return [self._expected_value(v, field, arrow_type.value_type) for v in value]
        if field.has_presence and not message.HasField(field.name):
            return None
        return self._expected_value(value, field, arrow_type)

    def _expected_value(self, value, field, arrow_type):
        if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
            if pa.types.is_binary(arrow_type):  # Recursive: a row of its own type.
                return self.recursive_row(value)
            return self.expected_row(value, list(arrow_type))
        if field.type == FieldDescriptor.TYPE_STRING and isinstance(value, bytes):
            # Ill-formed UTF-8 in a string upstream does not check (upb hands back the bytes):
            # the utf8 column holds it with U+FFFD for each maximal subpart, as Python decodes.
            return value.decode("utf-8", "replace")
        return _scalar(value)

    @staticmethod
    def recursive_row(message):
        return Parsed(message)

    # --- pbaccel's columns ---------------------------------------------------------------------

    def actual_rows(self, batch: pa.RecordBatch, message_type):
        rows = batch.to_pylist()
        return [self._actual_row(r, message_type, list(batch.schema)) if r is not None else None
                for r in rows]

    def _actual_row(self, row, message_type, arrow_fields):
        by_name = message_type.fields_by_name
        return {a.name: self._actual(row[a.name], by_name[a.name], a.type) for a in arrow_fields}

    def _actual(self, value, field, arrow_type):
        if value is None:
            return None
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            return {k: self._actual_value(v, value_field, arrow_type.item_type) for k, v in value}
        if field.is_repeated:
            return [self._actual_value(v, field, arrow_type.value_type) for v in value]
        return self._actual_value(value, field, arrow_type)

    def _actual_value(self, value, field, arrow_type):
        if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
            if pa.types.is_binary(arrow_type):
                # The serialized occurrences, concatenated: upstream's parse of them is the value.
                message = self.classes[field.message_type.full_name].FromString(value)
                return self.recursive_row(message)
            return self._actual_row(value, field.message_type, list(arrow_type))
        return _scalar(value)
