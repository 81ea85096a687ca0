"""Tool-call arguments as models emit them: JSON text that is usually, not always, valid.

τ² parses arguments with ``json.loads`` inside its LLM call, so invalid JSON raises out of
the orchestrator and the whole simulation fails. SSCBench instead keeps the episode going:
the call is recorded with its raw text under :data:`RAW_ARGUMENTS` (the ledger keeps
exactly what the model wrote) and the environment answers it with an ``"Error: …"``
observation, the way τ² answers every other failed tool call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sscbench.envs.calls import RAW_ARGUMENTS

__all__ = ["RAW_ARGUMENTS", "parse_arguments"]


def parse_arguments(raw: str) -> dict[str, Any]:
    """Parse the model's argument text; anything but a JSON object is kept raw.

    An empty string means "no arguments" (several OpenAI-compatible servers send it for
    parameterless tools, where OpenAI sends ``"{}"``).
    """
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {RAW_ARGUMENTS: raw}
    if not isinstance(value, dict) or RAW_ARGUMENTS in value:
        return {RAW_ARGUMENTS: raw}
    return value


def raw_arguments(arguments: Mapping[str, Any]) -> str | None:
    """The preserved raw text if ``arguments`` came from unparseable output, else None."""
    raw = arguments.get(RAW_ARGUMENTS)
    if len(arguments) == 1 and isinstance(raw, str):
        return raw
    return None


def dump_arguments(arguments: Mapping[str, Any]) -> str:
    """Arguments as sent back to the model in later turns.

    Parsed arguments are re-serialised with ``json.dumps`` defaults, exactly as τ²'s
    ``to_litellm_messages`` does; unparseable ones are echoed verbatim.
    """
    raw = raw_arguments(arguments)
    return raw if raw is not None else json.dumps(dict(arguments))
