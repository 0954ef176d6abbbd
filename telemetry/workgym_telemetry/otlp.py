"""OTLP/HTTP bodies: media types, compression, protobuf and the JSON encoding's hex ids.

OTLP/JSON is protobuf's JSON mapping with one difference: trace and span ids are hex
strings where protobuf JSON has base64. Ids are rewritten to base64 before
``json_format.ParseDict``, which handles the rest (camelCase keys, int64 as strings,
enums as integers, unknown fields ignored).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, TypeVar

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from workgym_core.errors import PayloadTooLarge

from .errors import MalformedPayload, UnsupportedMediaType

PROTOBUF = "application/x-protobuf"
JSON = "application/json"

_ID_KEYS = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id",
                      "parent_span_id"})
_AUTO_HEADER = zlib.MAX_WBITS | 32  # inflate gzip or zlib, told apart by their headers

M = TypeVar("M", bound=Message)


def media_type(content_type: str | None) -> str:
    """PROTOBUF or JSON, or UnsupportedMediaType."""
    kind = (content_type or "").partition(";")[0].strip().lower()
    if kind not in (PROTOBUF, JSON):
        raise UnsupportedMediaType(
            f"content type {content_type!r} is not OTLP/HTTP: send {PROTOBUF} or {JSON}",
            field="content-type",
        )
    return kind


def decompress(body: bytes, encoding: str | None, limit: int) -> bytes:
    """The body with its Content-Encoding (identity, gzip or deflate) undone."""
    encoding = (encoding or "identity").strip().lower()
    if encoding == "identity":
        return body
    if encoding not in ("gzip", "deflate"):
        raise UnsupportedMediaType(
            f"content encoding {encoding!r} is not supported: send gzip, deflate or identity",
            field="content-encoding",
        )
    inflater = zlib.decompressobj(_AUTO_HEADER)
    try:
        data = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise MalformedPayload(f"body is not valid {encoding}: {exc}", field="body") from exc
    if len(data) > limit:
        raise PayloadTooLarge(f"decompressed body exceeds {limit} bytes", field="body",
                              rule=f"max_bytes:{limit}")
    if not inflater.eof:
        raise MalformedPayload(f"{encoding} body is truncated", field="body")
    return data


def decode(message: M, body: bytes, media: str) -> M:
    """Fill ``message`` from an OTLP body in ``media`` encoding."""
    try:
        if media == PROTOBUF:
            message.ParseFromString(body)
        else:
            document = orjson.loads(body)
            if not isinstance(document, dict):
                raise ValueError("the body is not a JSON object")
            _hex_ids_to_base64(document)
            json_format.ParseDict(document, message, ignore_unknown_fields=True)
    except (DecodeError, json_format.ParseError, ValueError) as exc:
        kind = "protobuf" if media == PROTOBUF else "OTLP/JSON"
        raise MalformedPayload(
            f"body is not a valid {kind} {message.DESCRIPTOR.name}: {exc}", field="body"
        ) from exc
    return message


def encode(message: Message, media: str) -> bytes:
    if media == PROTOBUF:
        return message.SerializeToString()
    return json_format.MessageToJson(message, indent=None).encode()


def _hex_ids_to_base64(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_KEYS and isinstance(value, str):
                try:
                    node[key] = base64.b64encode(bytes.fromhex(value)).decode()
                except ValueError as exc:
                    raise ValueError(f"{key} {value!r} is not hex") from exc
            else:
                _hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids_to_base64(item)
