"""Jira's formats (replicas/tracker/formats.py): ADF validation and its v2 (wiki markup)
rendering, v2 strings read as ADF, durations and timestamps; tables of cases, round trips and
the errors Jira would answer with."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from replicas.tracker.formats import (
    MAX_LIST_DEPTH,
    FormatError,
    adf_text,
    adf_to_text,
    format_duration,
    jira_time,
    parse_duration,
    parse_jira_time,
    text_to_adf,
    validate_adf,
)


def doc(*blocks: Any) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": list(blocks)}


def para(*inline: Any) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(inline)}


def text(value: str, *marks: str, href: str = "") -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": value}
    if marks:
        node["marks"] = [{"type": m, "attrs": {"href": href}} if m == "link" else {"type": m}
                         for m in marks]
    return node


def items(kind: str, *contents: list[Any]) -> dict[str, Any]:
    return {"type": kind, "content": [{"type": "listItem", "content": c} for c in contents]}


BR = {"type": "hardBreak"}
MENTION = {"type": "mention", "attrs": {"id": "5b10ac8d82e05b22cc7d4ef5", "text": "@Ana Silva"}}

# Every node and mark the replica supports, in the form text_to_adf writes them.
RICH = doc(
    {"type": "heading", "attrs": {"level": 2}, "content": [text("Checkout fails")]},
    para(text("Order "), text("ORD-1042", "code"), text(" was charged "), text("twice", "strong"),
         BR, text("see "), text("the runbook", "link", href="https://wiki.example/runbook"),
         text(" and "), text("ask", "em"), text(" "), {"type": "mention",
                                                        "attrs": {"id": "5b10ac8d"}}),
    items("orderedList", [para(text("open the order"))],
          [para(text("refund")), items("bulletList", [para(text("one charge"))])]),
    {"type": "codeBlock", "content": [text("Traceback:\n\n  KeyError")],
     "attrs": {"language": "python"}},
)
RICH_TEXT = """h2. Checkout fails

Order {{ORD-1042}} was charged *twice*
see [the runbook|https://wiki.example/runbook] and _ask_ [~accountid:5b10ac8d]

# open the order
# refund
#* one charge

{code:python}
Traceback:

  KeyError
{code}"""


# ---- validate_adf ------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    doc(),
    doc(para()),
    doc(para(text("hi"))),
    RICH,
    doc({"type": "blockquote", "content": [para(text("quoted"))]}, {"type": "rule"},
        para(MENTION, text("struck", "strike"), text("both", "strong", "em"))),
    doc({"type": "paragraph", "attrs": {"localId": "x"}, "content": [text("editor output")]}),
], ids=range(6))
def test_valid_documents_are_returned(body: dict[str, Any]) -> None:
    assert validate_adf(body) is body


@pytest.mark.parametrize(("body", "message"), [
    ([], "doc: a node must be an object"),
    ("plain text", "doc: a node must be an object"),
    (para(text("x")), "doc: 'paragraph' is not allowed here"),
    ({"type": "doc", "version": 2, "content": []}, "doc: a document has version 1"),
    ({"type": "doc", "version": 1}, "doc: a document has version 1 and a content list"),
    (doc({"type": "foo"}), "content[0]: unknown node type 'foo'"),
    (doc({"content": []}), "content[0]: unknown node type None"),
    (doc({"type": ["paragraph"]}), "content[0]: unknown node type ['paragraph']"),
    (doc(para({"type": "text", "text": "x", "marks": [{"type": {}}]})),
     "content[0].content[0].marks[0]: unknown mark type {}"),
    (doc(para(text("a"), {"type": "foo"})), "content[0].content[1]: unknown node type 'foo'"),
    (doc(text("loose")), "content[0]: 'text' is not allowed here"),
    (doc(para(para())), "content[0].content[0]: 'paragraph' is not allowed here"),
    (doc(para(), "x"), "content[1]: a node must be an object"),
    (doc({"type": "paragraph", "attrs": []}), "content[0]: attrs must be an object"),
    ({"type": "doc", "version": 1, "content": "x"}, "doc: attrs must be an object and content"),
    (doc({"type": "heading", "attrs": {"level": 7}}), "content[0].attrs.level: a heading level"),
    (doc({"type": "heading"}), "content[0].attrs.level: a heading level is 1 to 6"),
    (doc({"type": "heading", "attrs": {"level": True}}), "content[0].attrs.level"),
    (doc(para({"type": "text", "text": ""})), "content[0].content[0]: a text node needs"),
    (doc(para({"type": "text"})), "content[0].content[0]: a text node needs a non-empty text"),
    (doc(para(text("u", "sparkle"))), "content[0].content[0].marks[0]: unknown mark type"),
    (doc(para({"type": "text", "text": "x", "marks": "strong"})),
     "content[0].content[0].marks: must be a list"),
    (doc(para({"type": "text", "text": "x", "marks": [{"type": "link"}]})),
     "content[0].content[0].marks[0].attrs.href: a link needs an href"),
    (doc(para(text("x", "strong", "link"))), "content[0].content[0].marks[1].attrs.href"),
    (doc(para({"type": "mention", "attrs": {}})), "content[0].content[0].attrs: a mention"),
    (doc(para({"type": "mention", "attrs": {"id": "a", "text": 1}})),
     "content[0].content[0].attrs: a mention"),
    (doc({"type": "bulletList", "content": []}), "content[0]: bulletList needs at least one"),
    (doc(items("orderedList", [])), "content[0].content[0]: listItem needs at least one"),
    (doc({"type": "bulletList", "content": [para()]}),
     "content[0].content[0]: 'paragraph' is not allowed here"),
    (doc(items("bulletList", [{"type": "heading", "attrs": {"level": 1}}])),
     "content[0].content[0].content[0]: 'heading' is not allowed here"),
    (doc({"type": "codeBlock", "content": [text("x", "strong")]}),
     "content[0].content[0]: text in a codeBlock takes no marks"),
    (doc({"type": "codeBlock", "attrs": {"language": 3}}), "content[0].attrs.language"),
    (doc({"type": "rule", "content": [para()]}),
     "content[0].content[0]: 'paragraph' is not allowed here"),
    (doc(para({"type": "hardBreak", "content": [text("x")]})),
     "content[0].content[0].content[0]: 'text' is not allowed here"),
], ids=range(34))
def test_invalid_documents_name_the_first_bad_path(body: Any, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        validate_adf(body)
    assert str(caught.value).startswith(message)


def nested(depth: int) -> dict[str, Any]:
    """A document of ``depth`` bullet lists, each in the previous one's item."""
    node = items("bulletList", [para(text("deepest"))])
    for _ in range(depth - 1):
        node = items("bulletList", [para(text("up")), node])
    return doc(node)


def test_lists_nest_at_most_max_list_depth() -> None:
    assert validate_adf(nested(MAX_LIST_DEPTH))
    path = ".".join(["content[0]", *["content[0].content[1]"] * MAX_LIST_DEPTH])
    with pytest.raises(FormatError, match=rf"^{re.escape(path)}: lists nest at most 6 levels"):
        validate_adf(nested(MAX_LIST_DEPTH + 1))


def test_v2_list_markers_past_max_list_depth_are_text() -> None:
    assert MAX_LIST_DEPTH == 6  # Jira's editor nests lists six deep
    deepest = items("bulletList", [para(text("x"))])
    for _ in range(MAX_LIST_DEPTH - 1):
        deepest = items("bulletList", [deepest])
    assert text_to_adf("*" * MAX_LIST_DEPTH + " x") == doc(deepest)
    assert adf_to_text(text_to_adf("#" * MAX_LIST_DEPTH + " x")) == "#" * MAX_LIST_DEPTH + " x"
    deeper = "*" * (MAX_LIST_DEPTH + 1) + " x"
    assert text_to_adf(deeper) == doc(para(text("*" * (MAX_LIST_DEPTH - 1), "strong"),
                                           text(" x")))
    finding = "*" * 50 + " x"  # 52 bytes that made a document ~200 levels deep
    assert text_to_adf(finding)["content"][0]["type"] == "paragraph"
    assert adf_to_text(text_to_adf(finding)) == finding


@pytest.mark.parametrize("source", ["*" * 20_000 + " x", "*_" * 10_000 + "x" + "_*" * 10_000])
def test_a_mark_applies_once(source: str) -> None:
    """Inside bold, '*' is text (and '_' inside italic): no mark twice, no recursion."""
    body = validate_adf(text_to_adf(source))
    for node in body["content"][0]["content"]:
        kinds = [mark["type"] for mark in node.get("marks", [])]
        assert len(kinds) == len(set(kinds))


def test_format_error_is_a_value_error() -> None:
    assert issubclass(FormatError, ValueError)


# ---- adf_to_text -------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "expected"), [
    (doc(), ""),
    (doc(para()), ""),
    (doc(para(text("one")), para(text("two"))), "one\n\ntwo"),
    (doc(para(text("line"), BR, text("next"))), "line\nnext"),
    (doc(para(text("b", "strong"), text(" "), text("i", "em"), text(" "), text("s", "strike"),
              text(" "), text("u", "underline"))), "*b* _i_ -s- +u+"),
    (doc(para(text("x", "code"), text("site", "link", href="https://a.b"))),
     "{{x}}[site|https://a.b]"),
    (doc(para(text("a "), text("b ", "strong"), text("c", "strong", "em"), text(" d", "strong"))),
     "a *b _c_ d*"),
    (doc(para(text("c", "em", "strong"))), "*_c_*"),
    (doc(para(text("go", "link", "strong", href="https://a.b"))), "*[go|https://a.b]*"),
    (doc(para(text("hi "), MENTION)), "hi [~accountid:5b10ac8d82e05b22cc7d4ef5]"),
    (doc({"type": "heading", "attrs": {"level": 4}, "content": [text("Title")]}), "h4. Title"),
    (doc(items("bulletList", [para(text("a"))], [para(text("b"))])), "* a\n* b"),
    (doc(items("orderedList", [para(text("a")), items("orderedList", [para(text("a1"))])])),
     "# a\n## a1"),
    (doc(items("bulletList", [para(text("a")), para(text("more"))])), "* a\nmore"),
    (doc({"type": "codeBlock", "content": [text("x = 1")]}), "{code}\nx = 1\n{code}"),
    (doc({"type": "codeBlock"}), "{code}\n\n{code}"),
    (doc({"type": "blockquote", "content": [para(text("q"))]}), "{quote}\nq\n{quote}"),
    (doc(para(text("a")), {"type": "rule"}, para(text("b"))), "a\n\n----\n\nb"),
    (RICH, RICH_TEXT),
], ids=range(19))
def test_adf_renders_as_v2_wiki_markup(body: dict[str, Any], expected: str) -> None:
    assert adf_to_text(body) == expected


# ---- text_to_adf -------------------------------------------------------------------------

@pytest.mark.parametrize(("source", "expected"), [
    ("", doc()),
    ("   \n\n", doc()),
    ("hello", doc(para(text("hello")))),
    ("a\nb", doc(para(text("a"), BR, text("b")))),
    ("a\n\nb", doc(para(text("a")), para(text("b")))),
    ("a\r\n\r\n\r\nb", doc(para(text("a")), para(text("b")))),
    ("*bold* _it_", doc(para(text("bold", "strong"), text(" "), text("it", "em")))),
    ("{{SHOP-12}}", doc(para(text("SHOP-12", "code")))),
    ("[docs|https://a.b/c]", doc(para(text("docs", "link", href="https://a.b/c")))),
    ("*[go|https://a.b]*", doc(para(text("go", "strong", "link", href="https://a.b")))),
    ("_*x*_", doc(para(text("x", "strong", "em")))),
    ("cc [~accountid:abc]", doc(para(text("cc "), {"type": "mention", "attrs": {"id": "abc"}}))),
    ("h1. Big", doc({"type": "heading", "attrs": {"level": 1}, "content": [text("Big")]})),
    ("* a\n* b", doc(items("bulletList", [para(text("a"))], [para(text("b"))]))),
    ("# a\n## b", doc(items("orderedList",
                            [para(text("a")), items("orderedList", [para(text("b"))])]))),
    ("# a\n* b", doc(items("orderedList", [para(text("a"))]),
                     items("bulletList", [para(text("b"))]))),
    ("** deep", doc(items("bulletList", [items("bulletList", [para(text("deep"))])]))),
    ("Steps:\n# one", doc(para(text("Steps:")), items("orderedList", [para(text("one"))]))),
    ("* a\nafter", doc(items("bulletList", [para(text("a"))]), para(text("after")))),
    ("{code}\nx\n\ny\n{code}", doc({"type": "codeBlock", "content": [text("x\n\ny")]})),
    ("{code:sql}\n{code}", doc({"type": "codeBlock", "content": [], "attrs": {"language": "sql"}})),
], ids=range(21))
def test_v2_strings_become_adf(source: str, expected: dict[str, Any]) -> None:
    assert text_to_adf(source) == expected


@pytest.mark.parametrize("literal", [
    "5 * 3 = 15", "2*3*4", "snake_case_name", "*not closed", "_x", "[no pipe]", "{{}}",
    "h7. no heading", "*no space bullet*x", "#hashtag", "{code}", "[~accountid:]", "a - b - c",
    "url https://example.com/a_b_c", "   indented",
])
def test_everything_else_is_literal(literal: str) -> None:
    assert text_to_adf(literal) == doc(para(text(literal)))


# Texts already in normal form (what adf_to_text writes) survive text -> ADF -> text.
NORMAL_TEXTS = [
    "", "one line", "a\nb\n\nc", "*b* _i_ {{c}} [l|https://x.y] [~accountid:q1]",
    "a *b _c_ d* e", "h3. Title\n\nbody", "# a\n## b\n#* c\n# d", "* x\n\n# y",
    "{code:python}\nprint(1)\n\nprint(2)\n{code}", "5 * 3, snake_case and - dashes", RICH_TEXT,
]


@pytest.mark.parametrize("source", NORMAL_TEXTS)
def test_text_round_trips_through_adf(source: str) -> None:
    body = validate_adf(text_to_adf(source))
    assert adf_to_text(body) == source


@pytest.mark.parametrize(("source", "normalised"), [
    ("a\r\nb", "a\nb"),
    ("a\n\n\n\nb\n", "a\n\nb"),
    ("  \n\na", "a"),
    ("Steps:\n# one", "Steps:\n\n# one"),
    ("_*x*_", "*_x_*"),
    ("* a\nafter", "* a\n\nafter"),
])
def test_text_is_normalised_like_jira(source: str, normalised: str) -> None:
    assert adf_to_text(text_to_adf(source)) == normalised


def test_normalisation_is_a_fixed_point() -> None:
    """Whatever a v2 writer sends, what v2 reads back reads back unchanged (seeded fuzz)."""
    pieces = ["a", " ", "*", "_", "#", "{{", "}}", "[", "]", "|", "~accountid:", "h2. ", "\n",
              "\n\n", "{code}", "{code:py}", "-", "x", "* ", "# ", "** "]
    draw = random.Random(7)
    for _ in range(3000):
        source = "".join(draw.choice(pieces) for _ in range(draw.randint(0, 14)))
        rendered = adf_to_text(validate_adf(text_to_adf(source)))
        assert adf_to_text(text_to_adf(rendered)) == rendered, source


def test_adf_round_trips_through_text() -> None:
    assert text_to_adf(adf_to_text(RICH)) == RICH


# ---- adf_text ----------------------------------------------------------------------------

def test_adf_text_collects_every_word() -> None:
    assert adf_text(RICH) == ("Checkout fails\nOrder ORD-1042 was charged twice\nsee the runbook"
                              " and ask \nopen the order\nrefund\none charge\n"
                              "Traceback:\n\n  KeyError")
    assert adf_text(doc(para(text("ping "), MENTION))) == "ping @Ana Silva"
    assert adf_text(doc()) == ""


# ---- durations ---------------------------------------------------------------------------

@pytest.mark.parametrize(("spec", "seconds"), [
    ("2h 30m", 9000), ("1d", 28800), ("1w 2d", 201600), ("90m", 5400), ("1.5h", 5400),
    ("2h30m", 9000), (" 1W ", 144000), ("0m", 0), ("45", 2700), ("1w 2d 3h 30m", 214_200),
    ("0.5d", 14400), ("3m 1h", 3780),
])
def test_parse_duration(spec: str, seconds: int) -> None:
    assert parse_duration(spec) == seconds


def test_parse_duration_uses_the_configured_day_and_week() -> None:
    assert parse_duration("1d", hours_per_day=24) == 86400
    assert parse_duration("1w", hours_per_day=24, days_per_week=7) == 604800
    assert parse_duration("1w 1d", hours_per_day=6, days_per_week=4) == 5 * 6 * 3600


@pytest.mark.parametrize("spec", [
    "", " ", "2x", "1y", "h", "-1h", "1.h", "2 hours", "abc", "1h 2s", "1,5h", "2 h",
])
def test_parse_duration_refuses_other_units(spec: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_duration(spec)
    message = str(caught.value)
    assert message.startswith("Invalid time duration entered.")
    assert repr(spec) in message and "1w 2d 3h 30m" in message


@pytest.mark.parametrize(("seconds", "spec"), [
    (0, "0m"), (59, "0m"), (60, "1m"), (5400, "1h 30m"), (28800, "1d"), (144000, "1w"),
    (214_200, "1w 2d 3h 30m"), (288000 + 60, "2w 1m"), (3 * 144000 + 28800, "3w 1d"),
])
def test_format_duration(seconds: int, spec: str) -> None:
    assert format_duration(seconds) == spec


def test_format_duration_uses_the_configured_day_and_week() -> None:
    assert format_duration(86400, hours_per_day=24) == "1d"
    assert format_duration(86400) == "3d"
    assert format_duration(604800, hours_per_day=24, days_per_week=7) == "1w"


def test_format_duration_refuses_negative() -> None:
    with pytest.raises(FormatError, match="negative"):
        format_duration(-60)


@pytest.mark.parametrize("spec", ["0m", "1m", "1h 30m", "1d", "1w", "1w 2d 3h 30m", "4w 4d 7h"])
def test_durations_round_trip(spec: str) -> None:
    assert format_duration(parse_duration(spec)) == spec
    assert parse_duration(format_duration(parse_duration(spec))) == parse_duration(spec)


# ---- timestamps --------------------------------------------------------------------------

@pytest.mark.parametrize(("stored", "rendered"), [
    ("2025-06-16T09:00:00Z", "2025-06-16T09:00:00.000+0000"),
    ("2024-12-31T23:59:59Z", "2024-12-31T23:59:59.000+0000"),
    ("2025-06-16T11:00:00+02:00", "2025-06-16T09:00:00.000+0000"),
    ("2025-06-16T09:00:00.250Z", "2025-06-16T09:00:00.250+0000"),
])
def test_jira_time(stored: str, rendered: str) -> None:
    assert jira_time(stored) == rendered


@pytest.mark.parametrize(("given", "stored"), [
    ("2025-06-16T09:00:00.000+0000", "2025-06-16T09:00:00Z"),
    ("2025-06-16T09:00:00.000+0200", "2025-06-16T07:00:00Z"),
    ("2025-06-16T23:30:00.000-0100", "2025-06-17T00:30:00Z"),
    ("2025-06-16T09:00:00Z", "2025-06-16T09:00:00Z"),
    ("2025-06-16T09:00:00+00:00", "2025-06-16T09:00:00Z"),
    ("2025-06-16T09:00:00.123456789-01:30", "2025-06-16T10:30:00Z"),
    (" 2025-06-16T09:00:00.999Z ", "2025-06-16T09:00:00Z"),
])
def test_parse_jira_time(given: str, stored: str) -> None:
    assert parse_jira_time(given) == stored


@pytest.mark.parametrize("given", [
    "", "2025-06-16", "2025-06-16T09:00:00", "2025-06-16T09:00Z", "2025-06-16 09:00:00Z",
    "16/06/2025 09:00", "2025-13-01T00:00:00Z", "2025-02-30T00:00:00.000+0000",
    "2025-06-16T09:00:00.000+25:00", "tomorrow",
])
def test_parse_jira_time_refuses_other_forms(given: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_jira_time(given)
    assert repr(given) in str(caught.value) and "2025-06-16T09:00:00.000+0000" in str(caught.value)


@pytest.mark.parametrize("stored", ["2025-06-16T09:00:00Z", "2000-01-01T00:00:00Z"])
def test_timestamps_round_trip(stored: str) -> None:
    assert parse_jira_time(jira_time(stored)) == stored
