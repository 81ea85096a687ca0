"""The shared task scaffold: τ²'s agent system prompt and τ²'s own tool schemas.

Every provider-backed configuration gets the same scaffold, built the way τ²'s
``LLMAgent`` builds it. The prompt text is reproduced here because importing
``tau2.agent.llm_agent`` imports litellm (2.4 s); a test compares it with the installed τ²
source. Tool schemas come from τ² itself (``ToolKitBase.get_tools`` → ``as_tool`` →
``Tool.openai_schema``), a path that does not import litellm.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from sscbench.agents.base import EpisodeContext
from sscbench.envs.domain import load_domain

AGENT_INSTRUCTION = """
You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.
""".strip()
"""τ² 26.3 ``tau2.agent.llm_agent.AGENT_INSTRUCTION``."""

SYSTEM_PROMPT = """
<instructions>
{agent_instruction}
</instructions>
<policy>
{domain_policy}
</policy>
""".strip()
"""τ² 26.3 ``tau2.agent.llm_agent.SYSTEM_PROMPT``."""

READ_BACK_TOOLS = (
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "cancel_reservation",
)
"""Airline reservation writes whose description gets the ``read_back_hint`` variant text
(the WriteEffect operator's target tools)."""


def agent_system_prompt(policy: str) -> str:
    """τ²'s ``LLMAgent.system_prompt`` for a domain policy."""
    return SYSTEM_PROMPT.format(domain_policy=policy, agent_instruction=AGENT_INSTRUCTION)


@cache
def _tau2_tool_schemas(domain_name: str) -> str:
    # Serialised once per domain: building the Tool objects parses every docstring.
    domain = load_domain(domain_name)
    toolkit = domain.toolkit_class(domain.base_db)
    return json.dumps([tool.openai_schema for tool in toolkit.get_tools().values()])


def tool_schemas(domain: str, *, read_back_hint: bool = False) -> list[dict[str, Any]]:
    """τ²'s OpenAI-format tool schemas in τ²'s order (``Environment.get_tools``).

    With ``read_back_hint`` (an interface variant of WriteEffect cases) the airline
    reservation writes' descriptions end with
    :data:`sscbench.fault_contracts.variants.READ_BACK_HINT`.
    """
    schemas: list[dict[str, Any]] = json.loads(_tau2_tool_schemas(domain))
    if read_back_hint and domain == "airline":
        from sscbench.fault_contracts.variants import READ_BACK_HINT

        for schema in schemas:
            function = schema["function"]
            if function["name"] in READ_BACK_TOOLS:
                function["description"] += READ_BACK_HINT
    return schemas


@dataclass(frozen=True)
class Scaffold:
    """What an agent is given at the start of an episode."""

    system: str
    tools: tuple[dict[str, Any], ...]

    def tool_list(self) -> list[dict[str, Any]]:
        """A fresh copy of the schemas (request bodies must not share mutable state),
        parsed from their JSON text: a tenth of ``copy.deepcopy``'s CPU on every call."""
        copied: list[dict[str, Any]] = json.loads(self._tools_json)
        return copied

    @functools.cached_property
    def _tools_json(self) -> str:
        return json.dumps(list(self.tools))


def agent_scaffold(ctx: EpisodeContext) -> Scaffold:
    """System prompt and tool schemas for an episode.

    Interface variants arrive through ``ctx.variants`` when the episode context carries
    them (older contexts have no such field: no variant applies).
    """
    variants: dict[str, Any] = getattr(ctx, "variants", None) or {}
    given = getattr(ctx, "tools", None)
    tools = (
        list(given)
        if given is not None
        else tool_schemas(ctx.domain, read_back_hint=bool(variants.get("read_back_hint")))
    )
    return Scaffold(system=agent_system_prompt(ctx.policy), tools=tuple(tools))
