"""The two records that cross the choke point: a tool call and the observation it yields."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


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
