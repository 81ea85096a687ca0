"""The scripted offline user: opens with the task's reason for calling, answers identity
questions from the scenario's known information, confirms proposed actions, stops when
the agent has nothing more to do.

It recognises the kind of question by keywords, so it also works (crudely) with other
agents; realistic conversations with LLM agents use τ²'s own user simulator instead.

In telecom the customer also works their own phone (:mod:`sscbench.users.device`): asked
to run a device tool, or what the phone shows, they run it and relay the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sscbench.agents.base import EpisodeContext, UserTurn
from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import user_tool_kinds
from sscbench.records.events import AgentMessage, ParticipantSpec, UserMessage, VisibleEvent
from sscbench.users.device import relay, requested_calls

STOP = "###STOP###"
MAX_UNANSWERED = 3

_PRONOUNS = [
    (r"\bYou are\b", "I am"),
    (r"\byou are\b", "I am"),
    (r"\bYou want\b", "I want"),
    (r"\byou want\b", "I want"),
    (r"\bYou\b", "I"),
    (r"\byour\b", "my"),
    (r"\bYour\b", "My"),
    (r"\byourself\b", "myself"),
    (r"\byou\b", "me"),
]


_PRONOUN_PATTERNS = [(re.compile(pattern), replacement) for pattern, replacement in _PRONOUNS]


@lru_cache(maxsize=4096)
def first_person(text: str) -> str:
    """Turn a second-person scenario sentence into the user's first-person words (kept
    per text: every run of a task says the same scenario sentences)."""
    for pattern, replacement in _PRONOUN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text.strip()


class ScriptedUser:
    """Deterministic user driven by the τ² task's user scenario."""

    def __init__(self) -> None:
        self.spec = ParticipantSpec(name="scripted")
        self._reason = ""
        self._known = ""
        self._unanswered = 0
        self._device_tools: tuple[str, ...] = ()
        self._results: list[tuple[ToolCall, str]] = []
        self._handled = -1
        self._calls = 0

    def start(self, ctx: EpisodeContext) -> None:
        """Read the scenario of the episode's task."""
        instructions: Any = ctx.task.user_scenario.instructions
        if isinstance(instructions, str):
            self._reason, self._known = instructions, ""
        else:
            self._reason = instructions.reason_for_call or ""
            self._known = instructions.known_info or ""
        self._unanswered = 0
        self._device_tools = tuple(sorted(user_tool_kinds(ctx.domain)))
        self._results = []
        self._handled = -1
        self._calls = 0

    def next_user_turn(self, history: Sequence[VisibleEvent]) -> UserTurn:
        """In telecom: run the device calls the agent's latest message asks for, once,
        then relay what the phone answered; otherwise answer as :meth:`next_message`."""
        if self._results:
            text, self._results = relay(self._results), []
            self._unanswered = 0
            return UserTurn(text=text)
        at = next(
            (i for i in range(len(history) - 1, -1, -1) if isinstance(history[i], AgentMessage)), -1
        )
        if at > self._handled and any(isinstance(e, UserMessage) for e in history):
            self._handled = at
            last = history[at]
            assert isinstance(last, AgentMessage)
            calls = requested_calls(last.content, self._device_tools)
            if calls:
                out = []
                for name, args in calls:
                    out.append(ToolCall(id=f"device_{self._calls}", name=name, arguments=args))
                    self._calls += 1
                return UserTurn(tool_calls=tuple(out))
        return UserTurn(text=self.next_message(history))

    def device_result(self, call: ToolCall, content: str, error: bool) -> None:
        """Keep the device's answer to relay it in the next message."""
        self._results.append((call, content))

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        """Answer the agent's latest message."""
        if not any(isinstance(e, UserMessage) for e in history):
            return "Hi. " + first_person(self._reason)
        last = next((e for e in reversed(history) if isinstance(e, AgentMessage)), None)
        text = last.content.lower() if last is not None else ""
        if "anything else" in text or "goodbye" in text:
            return f"No, that's all. Thank you! {STOP}"
        if any(k in text for k in ("identity", "user id", "zip code", "email")):
            self._unanswered = 0
            return first_person(self._known) or "I don't know my details, sorry."
        if any(k in text for k in ("yes/no", "proceed", "confirm")):
            self._unanswered = 0
            return "Yes, please proceed."
        self._unanswered += 1
        if self._unanswered >= MAX_UNANSWERED:
            return f"I think we're done here. {STOP}"
        return "Please go on."
