"""HubSpot's CRM request and answer shapes, named as HubSpot's API description names them
(the served OpenAPI documents these). Request bodies refuse fields HubSpot does not know;
property values are strings (numbers and booleans are read as their text)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Value = str | int | float | bool | None
Category = Literal["HUBSPOT_DEFINED", "USER_DEFINED", "INTEGRATOR_DEFINED"]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class PublicObjectId(_In):
    id: str = Field(max_length=100)


class AssociationSpec(_In):
    associationCategory: Category
    associationTypeId: int


class PublicAssociationsForObject(_In):
    to: PublicObjectId
    types: list[AssociationSpec] = Field(max_length=50)


class SimplePublicObjectInput(_In):
    properties: dict[str, Value] = Field(description="Property values by name; '' clears one.")
    objectWriteTraceId: str | None = None


class SimplePublicObjectInputForCreate(_In):
    properties: dict[str, Value]
    associations: list[PublicAssociationsForObject] = Field(default_factory=list, max_length=100)
    objectWriteTraceId: str | None = None


class SimplePublicObjectId(_In):
    id: str = Field(max_length=100)


class BatchReadInputSimplePublicObjectId(_In):
    inputs: list[SimplePublicObjectId]
    properties: list[str] = Field(default_factory=list)
    propertiesWithHistory: list[str] = Field(default_factory=list, description=(
        "Accepted; property history is not kept, so none is answered."))
    idProperty: str | None = None


class SimplePublicObjectBatchInputForCreate(SimplePublicObjectInputForCreate):
    pass


class BatchInputSimplePublicObjectInputForCreate(_In):
    inputs: list[SimplePublicObjectBatchInputForCreate]


class SimplePublicObjectBatchInput(_In):
    id: str = Field(max_length=100)
    idProperty: str | None = None
    properties: dict[str, Value]
    objectWriteTraceId: str | None = None


class BatchInputSimplePublicObjectBatchInput(_In):
    inputs: list[SimplePublicObjectBatchInput]


class BatchInputSimplePublicObjectId(_In):
    inputs: list[SimplePublicObjectId]


class Filter(_In):
    propertyName: str
    operator: Literal["EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN",
                      "HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN",
                      "NOT_CONTAINS_TOKEN"]
    value: Value = None
    highValue: Value = None
    values: list[Value] = Field(default_factory=list)


class FilterGroup(_In):
    filters: list[Filter]


class PublicObjectSearchRequest(_In):
    query: str | None = Field(None, max_length=3000)
    filterGroups: list[FilterGroup] = Field(default_factory=list)
    sorts: list[str | dict[str, str]] = Field(default_factory=list)
    properties: list[str] = Field(default_factory=list)
    limit: int = 10
    after: str | int | None = None


class PublicMergeInput(_In):
    primaryObjectId: str = Field(max_length=100)
    objectIdToMerge: str = Field(max_length=100)


# Answers (documentation only: the routes answer dicts).
class NextPage(_Out):
    after: str
    link: str | None = None


class ForwardPaging(_Out):
    next: NextPage | None = None


class SimplePublicObject(_Out):
    id: str
    properties: dict[str, str | None]
    createdAt: str
    updatedAt: str
    archived: bool = False
    archivedAt: str | None = None


class AssociatedId(_Out):
    id: str
    type: str


class CollectionResponseAssociatedId(_Out):
    results: list[AssociatedId]


class SimplePublicObjectWithAssociations(SimplePublicObject):
    associations: dict[str, CollectionResponseAssociatedId] | None = None


class CollectionResponseSimplePublicObjectWithAssociationsForwardPaging(_Out):
    results: list[SimplePublicObjectWithAssociations]
    paging: ForwardPaging | None = None


class CollectionResponseWithTotalSimplePublicObjectForwardPaging(_Out):
    total: int
    results: list[SimplePublicObject]
    paging: ForwardPaging | None = None


class StandardError(_Out):
    status: str
    category: str
    message: str
    context: dict[str, list[str]] = Field(default_factory=dict)


class BatchResponseSimplePublicObject(_Out):
    status: str
    results: list[SimplePublicObject]
    startedAt: str
    completedAt: str


class BatchResponseSimplePublicObjectWithErrors(BatchResponseSimplePublicObject):
    numErrors: int
    errors: list[StandardError]


class AssociationSpecWithLabel(_Out):
    category: Category
    typeId: int
    label: str | None = None


class MultiAssociatedObjectWithLabel(_Out):
    toObjectId: str
    associationTypes: list[AssociationSpecWithLabel]


class CollectionResponseMultiAssociatedObjectWithLabelForwardPaging(_Out):
    results: list[MultiAssociatedObjectWithLabel]
    paging: ForwardPaging | None = None


class LabelsBetweenObjectPair(_Out):
    fromObjectTypeId: str
    fromObjectId: str
    toObjectTypeId: str
    toObjectId: str
    labels: list[str]


class AssociationSpecOut(_Out):
    associationCategory: Category
    associationTypeId: int


class PublicObjectIdOut(_Out):
    id: str


class PublicDefaultAssociation(_Out):
    from_: PublicObjectIdOut = Field(alias="from")
    to: PublicObjectIdOut
    associationSpec: AssociationSpecOut


class BatchResponsePublicDefaultAssociation(_Out):
    status: str
    results: list[PublicDefaultAssociation]
    startedAt: str
    completedAt: str


class CollectionResponseAssociationSpecWithLabelNoPaging(_Out):
    results: list[AssociationSpecWithLabel]


class PipelineStage(_Out):
    id: str
    label: str
    displayOrder: int
    metadata: dict[str, str]
    createdAt: str
    updatedAt: str
    archived: bool


class Pipeline(_Out):
    id: str
    label: str
    displayOrder: int
    stages: list[PipelineStage]
    createdAt: str
    updatedAt: str
    archived: bool


class CollectionResponsePipelineNoPaging(_Out):
    results: list[Pipeline]


class CollectionResponsePipelineStageNoPaging(_Out):
    results: list[PipelineStage]


class PublicTeam(_Out):
    id: str
    name: str
    primary: bool


class PublicOwner(_Out):
    id: str
    email: str | None = None
    firstName: str | None = None
    lastName: str | None = None
    userId: int | None = None
    type: Literal["PERSON", "QUEUE"]
    teams: list[PublicTeam] = Field(default_factory=list)
    createdAt: str
    updatedAt: str
    archived: bool


class CollectionResponsePublicOwnerForwardPaging(_Out):
    results: list[PublicOwner]
    paging: ForwardPaging | None = None
