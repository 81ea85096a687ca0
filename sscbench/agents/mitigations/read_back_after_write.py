"""``read_back_after_write``: a tool wrapper that reads back every entity a write touched.

After each observation of one of the agent's write calls, and before the agent is asked
for its next turn, the wrapper calls the entity's authoritative read (the reservation,
order or user the write returned, or named in its arguments). The read goes through the
same tools, so through the fault choke point: it shows what the record really says after
the write, and the agent sees that observation next. It never reads back its own reads.

What the agent makes of the read-back is its own business: ``scripted:gold`` trusts the
latest sighting, so a read-back that contradicts a write's claimed effect replaces the
payload it would otherwise believe; ``scripted:hasty`` believes write payloads whatever
follows them.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.mitigations import MITIGATIONS, BaseMitigation
from sscbench.agents.scripted.facts import (
    ENTITY_TYPES,
    Entity,
    entity_of,
    parse_content,
    read_call_for,
)
from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import tool_kinds
from sscbench.records.events import AgentToolCall, ToolObservation, VisibleEvent
from sscbench.registry import NoParams

NAME = "read_back_after_write"
CALL_PREFIX = "read_back_"


def written_entities(call: AgentToolCall, content: str) -> list[Entity]:
    """The entities a write touched: the record its observation shows, else the ids its
    arguments name."""
    shown = entity_of(parse_content(content))
    if shown is not None:
        return [shown]
    return [
        (etype, value)
        for etype, (id_field, _, _) in ENTITY_TYPES.items()
        if isinstance(value := call.arguments.get(id_field), str)
    ][:1]


class ReadBackAfterWrite(BaseMitigation):
    """Reads back what each write touched, before the agent's next turn."""

    name = NAME

    def __init__(self) -> None:
        super().__init__()
        self._kinds: dict[str, str] = {}
        self._handled: set[str] = set()
        self._count = 0

    def prepare(self, ctx: EpisodeContext) -> EpisodeContext:
        """Learn which tools write; nothing the agent is told changes."""
        self._kinds = tool_kinds(ctx.domain)
        self._handled = set()
        self._count = 0
        return ctx

    def intercept(self, history: Sequence[VisibleEvent]) -> AgentTurn | None:
        """Read calls for the writes observed since the agent's last turn, if any."""
        calls: dict[str, AgentToolCall] = {}
        pending: list[tuple[AgentToolCall, ToolObservation]] = []
        for event in history:
            if isinstance(event, AgentToolCall):
                calls[event.call_id] = event
            elif isinstance(event, ToolObservation) and event.call_id not in self._handled:
                call = calls.get(event.call_id)
                if call is not None and self._is_agent_write(call) and not event.error:
                    pending.append((call, event))
        reads: list[ToolCall] = []
        seen: set[tuple[str, str]] = set()
        for call, observation in pending:
            self._handled.add(observation.call_id)
            for entity in written_entities(call, observation.content):
                if entity in seen:
                    continue
                seen.add(entity)
                name, arguments = read_call_for(entity)
                reads.append(ToolCall(id=self._next_id(), name=name, arguments=dict(arguments)))
        return AgentTurn(tool_calls=tuple(reads)) if reads else None

    def _is_agent_write(self, call: AgentToolCall) -> bool:
        return (
            call.origin is None
            and not call.call_id.startswith(CALL_PREFIX)
            and self._kinds.get(call.name) == "write"
        )

    def _next_id(self) -> str:
        self._count += 1
        return f"{CALL_PREFIX}{self._count}"


MITIGATIONS.add(NAME, ReadBackAfterWrite, params=NoParams, brief=True)
