"""Integer path and query parameters: one canonical spelling, bounded.

A path or query value reaches the app as text, and pydantic's lax parsing reads
``+301``, ``301.0``, `` 301`` and ``05`` all as 301: one record would have many
URLs. Every integer parameter of every replica is declared with a type of this
module, which accepts only the canonical decimal spelling (``0|[1-9][0-9]*``);
anything else is a 422 naming the parameter with ``rule: canonical_integer``.
The OpenAPI document states the spelling (``pattern``) and the bounds::

    OrderId = Annotated[Id, Path(description="Id of the order.")]
    customer_id: Annotated[Id | None, Query(description="Only this customer's.")] = None

Bounds belong in the type, before :data:`CANONICAL` (``Annotated[int, Interval(...),
CANONICAL]``), never in ``Query(ge=...)``: constraints applied after the canonical
check would not be documented as ``minimum``/``maximum``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import Interval
from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, Strict
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

# Largest id a replica accepts anywhere (SQLite integers are 64-bit; ids stay far below).
MAX_ID = 2**31 - 1
_DIGITS = r"0|[1-9][0-9]*"
CANONICAL_INTEGER = f"^({_DIGITS})$"  # as documented (JSON Schema `pattern`)
_CANONICAL = re.compile(_DIGITS)  # fullmatch: `$` would also match before a final newline


def _canonical(value: Any) -> Any:
    if isinstance(value, str) and not _CANONICAL.fullmatch(value):
        raise PydanticCustomError(
            "canonical_integer",
            "must be a decimal integer in canonical form: digits only, no sign, spaces, "
            "decimal point or leading zeros",
        )
    return value


@dataclass(frozen=True)
class CanonicalInteger:
    """Pydantic marker: an integer given as text must be spelled canonically."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(_canonical, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        documented = handler(schema)
        documented["pattern"] = CANONICAL_INTEGER
        return documented


CANONICAL = CanonicalInteger()

# The id of a record in a path or a query (text, spelled canonically), and in a request body
# (a JSON integer: strict, so "301", 301.0 and true are refused rather than read as 301).
Id = Annotated[int, Interval(ge=1, le=MAX_ID), CANONICAL]
RecordId = Annotated[int, Strict(), Interval(ge=1, le=MAX_ID)]
