"""τ² airline and retail environments behind one fault choke point."""

from sscbench.envs.calls import Observation, ToolCall
from sscbench.envs.domain import DOMAINS, Domain, load_domain
from sscbench.envs.environment import EpisodeEnvironment, tool_kinds
from sscbench.envs.intervention import (
    CallContext,
    Intervention,
    InterventionRecord,
    WriteDecision,
)
from sscbench.envs.state import EpisodeState, canonical_json, state_hash_of

__all__ = [
    "DOMAINS",
    "CallContext",
    "Domain",
    "EpisodeEnvironment",
    "EpisodeState",
    "Intervention",
    "InterventionRecord",
    "Observation",
    "ToolCall",
    "WriteDecision",
    "canonical_json",
    "load_domain",
    "state_hash_of",
    "tool_kinds",
]
