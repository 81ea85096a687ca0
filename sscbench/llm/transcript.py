"""The model-visible history (ledger events) as each participant's conversation.

The agent sees what τ²'s ``LLMAgent`` keeps in its state: the greeting, user messages, its
own messages (text and tool calls of one turn together) and tool results; a harness notice
(a delivered refutation) reaches it as a user-role message that says it is a notice. The user
simulator sees what τ²'s ``UserSimulator`` keeps, with roles flipped
(``UserState.flip_roles``): agent messages addressed to the user become ``user`` turns,
its own messages become ``assistant`` turns, and tool traffic never reaches it. Wire
formats (:mod:`~sscbench.llm.openai_chat`,
:mod:`~sscbench.llm.anthropic_messages`) render these neutral messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    SystemNotice,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class Message:
    """One conversation message in provider-neutral form.

    ``calls`` are the tool calls of an assistant turn, ``call_id`` the call a tool result
    answers (``error``: τ² reported it as failed), ``reasoning`` provider blocks to send
    back with an assistant turn.
    """

    role: Role
    text: str | None
    calls: tuple[AgentToolCall, ...] = ()
    call_id: str | None = None
    turn: int | None = None
    reasoning: tuple[dict[str, Any], ...] = ()
    error: bool = False


def agent_transcript(history: Sequence[VisibleEvent]) -> list[Message]:
    """The agent's conversation: one assistant message per agent turn."""
    out: list[Message] = []
    for event in history:
        if isinstance(event, UserMessage):
            out.append(Message("user", event.content))
        elif isinstance(event, AgentMessage):
            out.append(Message("assistant", event.content, turn=event.turn))
        elif isinstance(event, AgentToolCall):
            last = out[-1] if out else None
            if last is not None and last.role == "assistant" and last.turn == event.turn:
                out[-1] = replace(last, calls=(*last.calls, event))
            else:
                out.append(Message("assistant", None, calls=(event,), turn=event.turn))
        elif isinstance(event, ToolObservation):
            out.append(Message("tool", event.content, call_id=event.call_id, error=event.error))
        elif isinstance(event, SystemNotice):  # a harness notice; its text says so
            out.append(Message("user", event.content))
    return out


def user_transcript(
    history: Sequence[VisibleEvent], device: Mapping[int, Sequence[Message]] | None = None
) -> list[Message]:
    """The user simulator's conversation, roles flipped, the agent's tool traffic left out.

    An agent message that shares its turn with tool calls went to the environment, not to
    the user (τ²'s orchestrator routes any message with tool calls to the environment).
    ``device`` holds a dual-control customer's own tool traffic by the step of the message
    it preceded (its calls as ``assistant`` turns, the device's answers as ``tool`` turns,
    as τ²'s ``flip_roles`` keeps them); traffic of a step not yet spoken comes last.
    """
    tool_turns = {e.turn for e in history if isinstance(e, AgentToolCall)}
    pending = dict(device or {})
    out: list[Message] = []
    for event in history:
        if isinstance(event, AgentMessage) and event.turn not in tool_turns:
            out.append(Message("user", event.content))
        elif isinstance(event, UserMessage):
            out.extend(pending.pop(event.step, ()))
            out.append(Message("assistant", event.content))
    for step in sorted(pending):
        out.extend(pending[step])
    return out
