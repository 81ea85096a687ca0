"""The four events every run writes most, spelled out directly as their ledger line.

A run's ledger is mostly user and agent messages, tool calls and observations. Their line
is defined as the standard library's compact JSON of the record's JSON-mode dump, in field
order (:func:`sscbench.records.ledger.dump_line_reference`). For these four types, with
plain field values, that line is a fixed template around a few encoded strings, so it is
written as one: no pydantic serializer, no dump dict, no regular-expression check after.
A virtual-clock time (``vt``) and a harness ``origin`` are spelled too: every event of a
clocked run carries ``vt``. Anything else — another record type, a value of another type,
an argument that is not plain JSON — returns ``None`` and takes the general path. Byte
equality with the reference is tested on every frozen ledger and on generated payloads.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from math import isfinite
from typing import Any

from pydantic import BaseModel

from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage

_ARGUMENTS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Exactly what ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))`` uses."""


def _plain(value: Any) -> bool:
    """Whether ``value`` is JSON already (so its JSON-mode dump is itself): str-keyed
    dicts, lists, strings, ints, bools, ``None`` and finite floats. Loops rather than
    ``all()`` over a generator, and leaves tested in place: every tool call's arguments
    pass through here (1.5% of a retail episode)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return isfinite(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            leaf = type(item)
            if not (leaf is str or leaf is int or leaf is bool or item is None or _plain(item)):
                return False
        return True
    if kind is list:
        for item in value:
            leaf = type(item)
            if not (leaf is str or leaf is int or leaf is bool or item is None or _plain(item)):
                return False
        return True
    return False


def _stamp(value: Any) -> str | None:
    """A time's JSON (``None``: not a plain finite float, so the general path writes it)."""
    if type(value) is float and isfinite(value):
        return float.__repr__(value)
    return None


def _head(record: Any) -> str | None:
    """``{"ts":…,"step":…,"turn":…`` (``,"vt":…`` in a clocked run) or ``None`` when a
    field is not the plain type (a non-float time)."""
    ts, step, turn, vt = record.ts, record.step, record.turn, record.vt
    if type(step) is not int or type(turn) is not int:
        return None
    stamp = "null" if ts is None else _stamp(ts)
    if stamp is None:
        return None
    if vt is None:
        return f'{{"ts":{stamp},"step":{step},"turn":{turn}'
    at = _stamp(vt)
    if at is None:
        return None
    return f'{{"ts":{stamp},"step":{step},"turn":{turn},"vt":{at}'


def _origin(record: Any) -> str | None:
    """The line's tail for ``origin`` (left out when absent); ``None``: not a plain value."""
    origin = record.origin
    if origin is None:
        return "}"
    return ',"origin":"harness"}' if origin == "harness" and type(origin) is str else None


def fast_line(record: BaseModel) -> str | None:
    """The ledger line of a plain message, tool call or observation; ``None`` otherwise."""
    kind = type(record)
    if kind is ToolObservation:
        obs: ToolObservation = record  # type: ignore[assignment]
        head = _head(obs)
        tail = _origin(obs)
        if head is None or tail is None or type(obs.content) is not str:
            return None
        if type(obs.call_id) is not str or type(obs.error) is not bool:
            return None
        error = "true" if obs.error else "false"
        return (
            f'{head},"kind":"tool_observation","call_id":{encode_basestring(obs.call_id)},'
            f'"content":{encode_basestring(obs.content)},"error":{error}{tail}'
        )
    if kind is UserMessage or kind is AgentMessage:
        msg: UserMessage | AgentMessage = record  # type: ignore[assignment]
        head = _head(msg)
        if head is None or type(msg.content) is not str:
            return None
        name = "user_message" if kind is UserMessage else "agent_message"
        return f'{head},"kind":"{name}","content":{encode_basestring(msg.content)}}}'
    if kind is AgentToolCall:
        call: AgentToolCall = record  # type: ignore[assignment]
        head = _head(call)
        tail = _origin(call)
        if head is None or tail is None or not _plain(call.arguments):
            return None
        if type(call.call_id) is not str or type(call.name) is not str:
            return None
        return (
            f'{head},"kind":"tool_call","call_id":{encode_basestring(call.call_id)},'
            f'"name":{encode_basestring(call.name)},"arguments":{_ARGUMENTS.encode(call.arguments)}'
            f"{tail}"
        )
    return None
