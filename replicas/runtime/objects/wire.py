"""HubSpot's CRM request and answer shapes, named as HubSpot's API description names them
(the served OpenAPI documents these). Request bodies refuse fields HubSpot does not know;
property values are strings (numbers and booleans are read as their text)."""

from __future__ import annotations

from typing import Annotated, Literal

from annotated_types import Interval
from pydantic import BaseModel, ConfigDict, Field

from ..params import MAX_ID

Integer = Annotated[int, Interval(ge=-MAX_ID, le=MAX_ID)]
Value = str | Integer | float | bool | None
Category = Literal["HUBSPOT_DEFINED", "USER_DEFINED", "INTEGRATOR_DEFINED"]
Values = dict[str, Value]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class PublicObjectId(_In):
    id: str = Field(max_length=100, description="A record's id.")


class AssociationSpec(_In):
    associationCategory: Category = Field(description="Who defined the association type.")
    associationTypeId: Annotated[int, Interval(ge=1, le=MAX_ID)] = Field(
        description="The association type's id (see the labels endpoint).")


class PublicAssociationsForObject(_In):
    to: PublicObjectId = Field(description="The record to associate with.")
    types: list[AssociationSpec] = Field(max_length=50, description="The association types.")


class SimplePublicObjectInput(_In):
    properties: Values = Field(description="Property values by name; '' clears one.")
    objectWriteTraceId: str | None = Field(None, max_length=200, description=(
        "The caller's trace id for the write (not kept)."))


class SimplePublicObjectInputForCreate(_In):
    properties: Values = Field(description="Property values by name.")
    associations: list[PublicAssociationsForObject] = Field(
        default_factory=list, max_length=100, description="Records to associate it with.")
    objectWriteTraceId: str | None = Field(None, max_length=200, description=(
        "The caller's trace id for the write (not kept)."))


class SimplePublicObjectId(_In):
    id: str = Field(max_length=100, description="A record's id (or `idProperty`'s value).")


class BatchReadInputSimplePublicObjectId(_In):
    inputs: list[SimplePublicObjectId] = Field(description="The records to read (at most 100).")
    properties: list[str] = Field(default_factory=list, description=(
        "Properties to return; the type's defaults when empty."))
    propertiesWithHistory: list[str] = Field(default_factory=list, description=(
        "Accepted; property history is not kept, so none is answered."))
    idProperty: str | None = Field(None, max_length=100, description=(
        "A unique property the inputs' ids are values of (e.g. `email`)."))


class SimplePublicObjectBatchInputForCreate(SimplePublicObjectInputForCreate):
    pass


class BatchInputSimplePublicObjectInputForCreate(_In):
    inputs: list[SimplePublicObjectBatchInputForCreate] = Field(description=(
        "The records to create (at most 100)."))


class SimplePublicObjectBatchInput(_In):
    id: str = Field(max_length=100, description="The record's id (or `idProperty`'s value).")
    idProperty: str | None = Field(None, max_length=100, description=(
        "A unique property `id` is a value of (e.g. `email`)."))
    properties: Values = Field(description="Property values by name; '' clears one.")
    objectWriteTraceId: str | None = Field(None, max_length=200, description=(
        "The caller's trace id for the write (not kept)."))


class BatchInputSimplePublicObjectBatchInput(_In):
    inputs: list[SimplePublicObjectBatchInput] = Field(description=(
        "The records to update (at most 100), each once."))


class BatchInputSimplePublicObjectId(_In):
    inputs: list[SimplePublicObjectId] = Field(description="The records (at most 100).")


class Filter(_In):
    propertyName: str = Field(max_length=100, description="The property compared.")
    operator: Literal["EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN",
                      "HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN",
                      "NOT_CONTAINS_TOKEN"] = Field(description="How it is compared.")
    value: Value = Field(None, description="The value compared with (BETWEEN: the lower).")
    highValue: Value = Field(None, description="BETWEEN: the upper bound.")
    values: list[Value] = Field(default_factory=list, description="IN and NOT_IN: the values.")


class FilterGroup(_In):
    filters: list[Filter] = Field(description="Filters that must all match (at most 6).")


class PublicObjectSearchRequest(_In):
    query: str | None = Field(None, max_length=3000, description=(
        "Words each found in one of the type's default searchable properties."))
    filterGroups: list[FilterGroup] = Field(default_factory=list, description=(
        "Groups of which any one must match (at most 5, 18 filters in all)."))
    sorts: list[str | dict[str, str]] = Field(default_factory=list, description=(
        "One sort: a property name (`-name` descending) or {propertyName, direction}."))
    properties: list[str] = Field(default_factory=list, description=(
        "Properties to return; the type's defaults when empty."))
    limit: Annotated[int, Interval(ge=1, le=MAX_ID)] = Field(10, description=(
        "Results per page (at most 200)."))
    after: str | None = Field(None, max_length=20, description=(
        "The previous page's `paging.next.after`."))


class PublicMergeInput(_In):
    primaryObjectId: str = Field(max_length=100, description="The record kept.")
    objectIdToMerge: str = Field(max_length=100, description="The record merged into it.")


# Answers (documentation only: the routes answer dicts).
class NextPage(_Out):
    after: str = Field(description="The cursor of the next page.")
    link: str | None = Field(None, description="The next page's URL.")


class ForwardPaging(_Out):
    next: NextPage | None = Field(None, description="The next page, if there is one.")


class SimplePublicObject(_Out):
    id: str = Field(description="The record's id.")
    properties: dict[str, str | None] = Field(description=(
        "Property values as strings (null when unset): those asked for, else the defaults."))
    createdAt: str = Field(description="When it was created (ISO 8601).")
    updatedAt: str = Field(description="When it last changed (ISO 8601).")
    archived: bool = Field(False, description="Whether it is in the recycling bin.")
    archivedAt: str | None = Field(None, description="When it was archived.")


class AssociatedId(_Out):
    id: str = Field(description="The associated record's id.")
    type: str = Field(description="The association type's name, e.g. contact_to_company.")


class CollectionResponseAssociatedId(_Out):
    results: list[AssociatedId] = Field(description="The associated records.")


class SimplePublicObjectWithAssociations(SimplePublicObject):
    associations: dict[str, CollectionResponseAssociatedId] | None = Field(None, description=(
        "The associated records of each object type asked for."))


class CollectionResponseSimplePublicObjectWithAssociationsForwardPaging(_Out):
    results: list[SimplePublicObjectWithAssociations] = Field(description="This page's records.")
    paging: ForwardPaging | None = Field(None, description="Absent on the last page.")


class CollectionResponseWithTotalSimplePublicObjectForwardPaging(_Out):
    total: int = Field(description="How many records match, across all pages.")
    results: list[SimplePublicObject] = Field(description="This page's records.")
    paging: ForwardPaging | None = Field(None, description="Absent on the last page.")


class StandardError(_Out):
    status: str = Field(description="Always 'error'.")
    category: str = Field(description="The kind of error, e.g. OBJECT_NOT_FOUND.")
    message: str = Field(description="What failed.")
    context: dict[str, list[str]] = Field(default_factory=dict, description=(
        "What it is about, e.g. {ids: [...]}."))


class BatchResponseSimplePublicObject(_Out):
    status: str = Field(description="COMPLETE.")
    results: list[SimplePublicObject] = Field(description="The records.")
    startedAt: str = Field(description="When the batch started.")
    completedAt: str = Field(description="When it completed.")


class BatchResponseSimplePublicObjectWithErrors(BatchResponseSimplePublicObject):
    numErrors: int = Field(description="How many errors.")
    errors: list[StandardError] = Field(description="What failed, naming the ids.")


class AssociationSpecWithLabel(_Out):
    category: Category = Field(description="Who defined the association type.")
    typeId: int = Field(description="The association type's id.")
    label: str | None = Field(None, description="Its label (none: the unlabeled default).")


class MultiAssociatedObjectWithLabel(_Out):
    toObjectId: str = Field(description="The associated record's id.")
    associationTypes: list[AssociationSpecWithLabel] = Field(description=(
        "Every association type between the two records."))


class CollectionResponseMultiAssociatedObjectWithLabelForwardPaging(_Out):
    results: list[MultiAssociatedObjectWithLabel] = Field(description="The associated records.")
    paging: ForwardPaging | None = Field(None, description="Absent on the last page.")


class LabelsBetweenObjectPair(_Out):
    fromObjectTypeId: str = Field(description="The first record's object type id (0-1...).")
    fromObjectId: str = Field(description="The first record's id.")
    toObjectTypeId: str = Field(description="The other record's object type id.")
    toObjectId: str = Field(description="The other record's id.")
    labels: list[str] = Field(description="The labels now between them.")


class AssociationSpecOut(_Out):
    associationCategory: Category = Field(description="Who defined the association type.")
    associationTypeId: int = Field(description="The association type's id.")


class PublicObjectIdOut(_Out):
    id: str = Field(description="A record's id.")


class PublicDefaultAssociation(_Out):
    from_: PublicObjectIdOut = Field(alias="from", description="The record it starts from.")
    to: PublicObjectIdOut = Field(description="The record it goes to.")
    associationSpec: AssociationSpecOut = Field(description="The default association type.")


class BatchResponsePublicDefaultAssociation(_Out):
    status: str = Field(description="COMPLETE.")
    results: list[PublicDefaultAssociation] = Field(description="Each direction associated.")
    startedAt: str = Field(description="When it started.")
    completedAt: str = Field(description="When it completed.")


class CollectionResponseAssociationSpecWithLabelNoPaging(_Out):
    results: list[AssociationSpecWithLabel] = Field(description="The association types.")


class PipelineStage(_Out):
    id: str = Field(description="The stage's id (a deal's dealstage, a ticket's "
                    "hs_pipeline_stage).")
    label: str = Field(description="Its name.")
    displayOrder: int = Field(description="Its place in the pipeline.")
    metadata: dict[str, str] = Field(description=(
        "Deals: probability, isClosed; tickets: ticketState."))
    createdAt: str = Field(description="When it was created.")
    updatedAt: str = Field(description="When it last changed.")
    archived: bool = Field(description="Whether it is archived.")


class Pipeline(_Out):
    id: str = Field(description="The pipeline's id (a deal's pipeline, a ticket's hs_pipeline).")
    label: str = Field(description="Its name.")
    displayOrder: int = Field(description="Its place among the type's pipelines.")
    stages: list[PipelineStage] = Field(description="Its stages, in order.")
    createdAt: str = Field(description="When it was created.")
    updatedAt: str = Field(description="When it last changed.")
    archived: bool = Field(description="Whether it is archived.")


class CollectionResponsePipelineNoPaging(_Out):
    results: list[Pipeline] = Field(description="The pipelines.")


class CollectionResponsePipelineStageNoPaging(_Out):
    results: list[PipelineStage] = Field(description="The stages.")


class PublicTeam(_Out):
    id: str = Field(description="The team's id.")
    name: str = Field(description="Its name.")
    primary: bool = Field(description="Whether it is the owner's primary team.")


class PublicOwner(_Out):
    id: str = Field(description="The owner's id (a record's hubspot_owner_id).")
    email: str | None = Field(None, description="Their email.")
    firstName: str | None = Field(None, description="Their first name.")
    lastName: str | None = Field(None, description="Their last name.")
    userId: int | None = Field(None, description="Their user id.")
    type: Literal["PERSON", "QUEUE"] = Field(description="PERSON.")
    teams: list[PublicTeam] = Field(default_factory=list, description="Their teams.")
    createdAt: str = Field(description="When they were added.")
    updatedAt: str = Field(description="When they last changed.")
    archived: bool = Field(description="Whether they are deactivated.")


class CollectionResponsePublicOwnerForwardPaging(_Out):
    results: list[PublicOwner] = Field(description="This page's owners.")
    paging: ForwardPaging | None = Field(None, description="Absent on the last page.")
