"""The two records that cross the choke point: a tool call and the observation it yields."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

RAW_ARGUMENTS = "__raw_arguments__"
"""Key under which an agent adapter keeps tool-call argument text that is not a JSON object
(``sscbench.llm.arguments``); the call is answered with an error observation."""


class ToolCall(BaseModel):
    """A tool call as the agent issued it (arguments already parsed from JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    arguments: dict[str, Any]


class Observation(BaseModel):
    """What the model receives for one tool call: τ²'s content string and error flag."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    call_id: str
    content: str
    error: bool = False


def arguments_error(raw: str) -> str:
    """The observation for argument text that is not a JSON object.

    τ² parses arguments with ``json.loads`` before any tool runs and its simulation dies on
    the exception; SSCBench reports that same exception the way τ² reports every failed
    tool call (``"Error: <exception>"``), so the model can recover.
    """
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return f"Error: {exc}"
    return f"Error: tool arguments must be a JSON object, not {type(value).__name__}"
