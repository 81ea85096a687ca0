"""SSCBench: did a refuting observation reach a tool-using agent before it used an
injected false fact?

The public API is re-exported here lazily so that ``import sscbench`` stays cheap (it
never imports τ² or litellm until something needs them).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "EpisodeEnvironment": "sscbench.envs",
    "ToolCall": "sscbench.envs",
    "Observation": "sscbench.envs",
    "Intervention": "sscbench.envs",
    "WriteDecision": "sscbench.envs",
    "read_ledger": "sscbench.records.ledger",
    "run_episode": "sscbench.runs.episode",
    "EpisodeSpec": "sscbench.runs.episode",
    "make_agent": "sscbench.agents",
    "make_user": "sscbench.users",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sscbench' has no attribute {name!r}")
    return getattr(import_module(module), name)
