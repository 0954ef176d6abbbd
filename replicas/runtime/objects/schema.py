"""What an objects product has: its object types, each a table whose columns are the
product's property names (plus ``id``, ``archived``, ``archived_at``), and the association
types between them. A compiled app declares its :class:`Catalog` (generated from its rules)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..machines import Machine
from .errors import HubSpotError

PropertyType = Literal["string", "number", "datetime", "date", "enumeration", "bool"]
# Every object's property that is its id (read-only, never a column).
OBJECT_ID = "hs_object_id"


@dataclass(frozen=True)
class Property:
    name: str
    type: PropertyType = "string"
    options: tuple[str, ...] = ()
    read_only: bool = False
    required_on_create: bool = False
    unique: bool = False
    # A table whose ids are the allowed values (owners, pipelines, pipeline_stages).
    references: str | None = None


@dataclass(frozen=True)
class ObjectType:
    name: str  # the object type in paths, and its table
    singular: str
    object_type_id: str
    properties: Mapping[str, Property]
    default_properties: tuple[str, ...]
    searchable: tuple[str, ...]
    modified_property: str
    # The state machines of its properties the API enforces (guards, effects).
    machines: tuple[Machine, ...] = ()

    @property
    def created_property(self) -> str:
        """The read-only timestamp a record is created at (createdate, hs_createdate)."""
        return next(p.name for p in self.properties.values()
                    if p.type == "datetime" and p.read_only and p.name != self.modified_property)

    def referring(self, table: str) -> Property | None:
        """The property whose values are ids of ``table`` (a deal's pipeline), if any."""
        return next((p for p in self.properties.values() if p.references == table), None)


@dataclass(frozen=True)
class AssociationType:
    from_type: str
    to_type: str
    type_id: int
    label: str | None = None
    category: Literal["HUBSPOT_DEFINED", "USER_DEFINED"] = "HUBSPOT_DEFINED"


@dataclass(frozen=True)
class Catalog:
    objects: Mapping[str, ObjectType]
    associations: tuple[AssociationType, ...] = field(default=())

    def object(self, ref: str) -> ObjectType:
        """The object type a path names: its name, singular or type id (``contacts``,
        ``contact``, ``0-1``), as HubSpot reads them; 400 otherwise."""
        for kind in self.objects.values():
            if ref.lower() in (kind.name, kind.singular, kind.object_type_id):
                return kind
        raise HubSpotError(f"Unable to infer object type from: {ref}", field="objectType",
                           rule="object_type")

    def between(self, from_type: str, to_type: str) -> list[AssociationType]:
        """The association types from ``from_type`` to ``to_type``."""
        return [a for a in self.associations
                if a.from_type == from_type and a.to_type == to_type]

    def default(self, from_type: str, to_type: str) -> AssociationType | None:
        """The unlabeled HubSpot-defined type from ``from_type`` to ``to_type``."""
        return next((a for a in self.between(from_type, to_type)
                     if a.label is None and a.category == "HUBSPOT_DEFINED"), None)

    def inverse(self, kind: AssociationType) -> AssociationType | None:
        """The type of the other direction: the same label (or none) the other way."""
        return next((a for a in self.between(kind.to_type, kind.from_type)
                     if a.label == kind.label and a.category == kind.category), None)
