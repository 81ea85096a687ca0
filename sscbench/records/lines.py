"""The four events every run writes most, spelled out directly as their ledger line.

A run's ledger is mostly user and agent messages, tool calls and observations. Their line
is defined as the standard library's compact JSON of the record's JSON-mode dump, in field
order (:func:`sscbench.records.ledger.dump_line_reference`). For these four types, with
plain field values, that line is a fixed template around a few encoded strings, so it is
written as one: no pydantic serializer, no dump dict, no regular-expression check after.
Anything else — another record type, a virtual-clock time, a harness origin, an argument
that is not plain JSON — returns ``None`` and takes the general path. Byte equality with
the reference is tested on every frozen ledger and on generated payloads.
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
    dicts, lists, strings, ints, bools, ``None`` and finite floats."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return isfinite(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return False


def _head(record: Any) -> str | None:
    """``{"ts":…,"step":…,"turn":…`` or ``None`` when a field is not the plain type
    (``vt`` or ``origin`` present, a non-float time)."""
    ts, step, turn = record.ts, record.step, record.turn
    if record.vt is not None or type(step) is not int or type(turn) is not int:
        return None
    if ts is None:
        stamp = "null"
    elif type(ts) is float and isfinite(ts):
        stamp = float.__repr__(ts)
    else:
        return None
    return f'{{"ts":{stamp},"step":{step},"turn":{turn}'


def fast_line(record: BaseModel) -> str | None:
    """The ledger line of a plain message, tool call or observation; ``None`` otherwise."""
    kind = type(record)
    if kind is ToolObservation:
        obs: ToolObservation = record  # type: ignore[assignment]
        head = _head(obs)
        if head is None or obs.origin is not None or type(obs.content) is not str:
            return None
        if type(obs.call_id) is not str or type(obs.error) is not bool:
            return None
        error = "true" if obs.error else "false"
        return (
            f'{head},"kind":"tool_observation","call_id":{encode_basestring(obs.call_id)},'
            f'"content":{encode_basestring(obs.content)},"error":{error}}}'
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
        if head is None or call.origin is not None or not _plain(call.arguments):
            return None
        if type(call.call_id) is not str or type(call.name) is not str:
            return None
        return (
            f'{head},"kind":"tool_call","call_id":{encode_basestring(call.call_id)},'
            f'"name":{encode_basestring(call.name)},"arguments":{_ARGUMENTS.encode(call.arguments)}}}'
        )
    return None
