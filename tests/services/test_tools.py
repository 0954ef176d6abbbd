"""Tool schemas are derived from OpenAPI: one per operation, $refs inlined."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, FastAPI, Header
from pydantic import BaseModel, ConfigDict, Field

from workgym.tools import ToolCatalogue
from workgym_core.errors import InvalidRequest


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="Item name.")
    qty: int = Field(1, ge=1, description="How many.")


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/items/{item_id}", operation_id="get_item", summary="One item.")
    async def get_item(item_id: int, verbose: bool = False) -> dict[str, int]:
        return {"id": item_id}

    @app.post("/boxes/{box_id}/items", operation_id="add_item", summary="Add an item.")
    async def add_item(box_id: int, item: Item,
                       key: Annotated[str | None, Header(alias="Idempotency-Key")] = None
                       ) -> Item:
        return item

    return app


def test_one_tool_per_operation_with_merged_parameters() -> None:
    tools = ToolCatalogue.from_openapi("shop", _app().openapi())
    by_name = {t["function"]["name"]: t["function"] for t in tools.schemas()}
    assert set(by_name) == {"shop_get_item", "shop_add_item"}
    add = by_name["shop_add_item"]["parameters"]
    assert set(add["properties"]) == {"box_id", "name", "qty", "idempotency_key"}
    assert set(add["required"]) == {"box_id", "name"}
    assert add["properties"]["name"]["description"] == "Item name."
    assert "$ref" not in str(tools.schemas())


def test_tool_call_maps_back_to_a_request() -> None:
    tools = ToolCatalogue.from_openapi("shop", _app().openapi())
    assert tools.get("shop_add_item").request({"box_id": 3, "name": "x"}) == (
        "POST", "/boxes/3/items", {}, {"name": "x"}, {})
    assert tools.get("shop_add_item").request(
        {"box_id": 3, "name": "x", "idempotency_key": "k1"}) == (
        "POST", "/boxes/3/items", {}, {"name": "x"}, {"Idempotency-Key": "k1"})
    assert tools.get("shop_get_item").request({"item_id": 5, "verbose": True}) == (
        "GET", "/items/5", {"verbose": True}, None, {})


def test_unknown_or_missing_arguments_are_named() -> None:
    tool = ToolCatalogue.from_openapi("shop", _app().openapi()).get("shop_add_item")
    for arguments, field in (({"box_id": 1, "colour": "red"}, "colour"), ({"name": "x"}, "box_id")):
        try:
            tool.request(arguments)
        except InvalidRequest as exc:
            assert exc.field == field
        else:
            raise AssertionError("expected InvalidRequest")


def test_a_free_form_body_is_one_argument() -> None:
    """Jira's bodies are documented free-form (and a watcher is a bare JSON string): the tool
    takes the whole body as ``body`` and sends it as it is."""
    app = FastAPI()

    @app.post("/issue/{key}/transitions", operation_id="do_transition")
    async def transition(key: str, body: Annotated[dict[str, object], Body(
            description="{transition: {id}}")]) -> None:
        return None

    @app.post("/issue/{key}/watchers", operation_id="add_watcher")
    async def watch(key: str, body: Annotated[str | None, Body(max_length=40)] = None) -> None:
        return None

    tools = ToolCatalogue.from_openapi("tracker", app.openapi())
    move = tools.get("tracker_do_transition")
    params = move.schema["function"]["parameters"]
    assert set(params["properties"]) == {"key", "body"} and "body" in params["required"]
    sent = {"transition": {"id": "4"}, "fields": {"resolution": {"name": "Done"}}}
    assert move.request({"key": "SHOP-1", "body": sent})[3] == sent
    assert move.arguments("/issue/SHOP-1/transitions", "", sent) == {"key": "SHOP-1",
                                                                       "body": sent}
    watch_tool = tools.get("tracker_add_watcher")
    assert watch_tool.request({"key": "SHOP-1", "body": "5b10ac"})[3] == "5b10ac"
    assert watch_tool.request({"key": "SHOP-1"})[3] is None


def _refusal(tool_name: str, arguments: dict[str, object]) -> tuple[str | None, str | None, str]:
    tool = ToolCatalogue.from_openapi("shop", _app().openapi()).get(tool_name)
    try:
        tool.request(arguments)
    except InvalidRequest as exc:
        return exc.field, exc.rule, exc.message
    raise AssertionError(f"expected InvalidRequest for {arguments}")


def test_arguments_are_checked_against_the_tools_schema() -> None:
    """What the schema states (types, bounds, required, no unknown keys) is refused before
    any request is made, naming the argument and the rule."""
    assert _refusal("shop_get_item", {"item_id": "../../v1/episodes"})[:2] == ("item_id", "type")
    assert _refusal("shop_get_item", {"item_id": 5, "verbose": "yes"})[:2] == ("verbose", "type")
    assert _refusal("shop_add_item", {"box_id": 1, "name": 7})[:2] == ("name", "type")
    field, rule, message = _refusal("shop_add_item", {"box_id": 1, "name": "x", "qty": 0})
    assert (field, rule) == ("qty", "minimum") and "'qty'" in message
    assert _refusal("shop_add_item", {"box_id": 1})[:2] == ("name", "required")  # a body field
    assert _refusal("shop_add_item", {"box_id": True, "name": "x"})[:2] == ("box_id", "type")


def _keyed() -> ToolCatalogue:
    app = FastAPI()

    @app.get("/issue/{key}/comments", operation_id="get_comments")
    async def comments(key: str) -> None:
        return None

    return ToolCatalogue.from_openapi("tracker", app.openapi())


def test_a_path_argument_is_one_encoded_segment() -> None:
    """'?', '#', '%' and spaces are part of the id (the operation's path, no query added);
    what would change the path ('/', dot segments at any encoding depth, control
    characters) is refused, naming the argument."""
    tool = _keyed().get("tracker_get_comments")
    for key, sent in [("SHOP-1?expand=all", "SHOP-1%3Fexpand%3Dall"), ("a#b", "a%23b"),
                      ("50%", "50%25"), ("a b", "a%20b"), ("..x", "..x")]:
        assert tool.request({"key": key}) == ("GET", f"/issue/{sent}/comments", {}, None, {})
    for key in ["../x", "a/b", "..", ".", "%2e%2e", "%252E%252e", "x\n", "x%0a", "", "..\\x"]:
        try:
            tool.request({"key": key})
        except InvalidRequest as exc:
            assert (exc.field, exc.rule) == ("key", "path_segment"), key
        else:
            raise AssertionError(f"{key!r} was sent")
