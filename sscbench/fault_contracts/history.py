"""A read-only view of a model-visible history for refutation relations and reconstruction.

Relations must decide from what the model saw: the ledger's events, in delivery order.
This view pairs each tool observation with its call and parses JSON content once. A
harness notice that reports a read (a delivered refutation, ``system_notice``) is delivered
too: the model saw that read's result, so it stands as the read's observation at its step.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sscbench.caching import bounded
from sscbench.records.events import AgentToolCall, SystemNotice, ToolObservation, VisibleEvent
from sscbench.records.json_text import loads


@dataclass(frozen=True)
class Delivered:
    """One delivered tool observation with the call it answers and its parsed content."""

    step: int
    call: AgentToolCall
    observation: ToolObservation
    data: Any
    parsed: bool


Parse = Callable[[str], tuple[Any, bool]]
"""An observation's content → (its JSON value, True), or (the text, False)."""


class History:
    """Model-visible events of one run (a ledger's events, or a witness continuation).

    ``parse`` reads each observation's content (:func:`_parse` by default; a labelling
    pass gives :class:`SharedParses`, whose values several histories share)."""

    def __init__(self, events: Sequence[VisibleEvent], parse: Parse | None = None) -> None:
        self.events = tuple(events)
        self._parse: Parse = _parse if parse is None else parse

    @cached_property
    def delivered(self) -> tuple[Delivered, ...]:
        """Every tool observation with its call, in step order."""
        calls: dict[str, AgentToolCall] = {}
        out: list[Delivered] = []
        parse = self._parse
        for event in self.events:
            if isinstance(event, AgentToolCall):
                calls[event.call_id] = event
            elif isinstance(event, ToolObservation):
                call = calls.get(event.call_id)
                if call is None:
                    continue
                data, parsed = parse(event.content)
                out.append(Delivered(event.step, call, event, data, parsed))
            elif isinstance(event, SystemNotice):
                out.append(_notice(event))
        return tuple(out)

    @cached_property
    def _steps(self) -> list[int]:
        return [d.step for d in self.delivered]

    def delivered_before(self, step: int) -> int:
        """How many observations were delivered before ``step``."""
        return bisect_left(self._steps, step)

    def successes(self, tool: str | None = None) -> Iterator[Delivered]:
        """Non-error observations, optionally of one tool."""
        if tool is None:
            return iter(self._successes)
        return iter(self._successes_of.get(tool, ()))

    @cached_property
    def _successes(self) -> tuple[Delivered, ...]:
        """The non-error observations, once per history (rules ask for them at every
        record arrival of a run)."""
        return tuple(d for d in self.delivered if not d.observation.error)

    @cached_property
    def _successes_of(self) -> dict[str, tuple[Delivered, ...]]:
        """:attr:`_successes` by tool name, in step order."""
        out: dict[str, list[Delivered]] = {}
        for d in self._successes:
            out.setdefault(d.call.name, []).append(d)
        return {name: tuple(ds) for name, ds in out.items()}

    def tool_calls(self) -> Iterator[AgentToolCall]:
        """Every tool call in step order."""
        for event in self.events:
            if isinstance(event, AgentToolCall):
                yield event


_JSON_STARTS = frozenset('"{[ntfNI-0123456789')
"""The characters a text ``json.loads`` reads can start with (after its whitespace)."""


def _parse(content: str) -> tuple[Any, bool]:
    """An observation's JSON content and True, or the text and False: ``json.loads``'s
    value where it takes the text, the text wherever it refuses it (an integer past the
    digit limit and nesting past the recursion limit included: text, not a failed run), by
    pydantic's reader where the two agree (:mod:`sscbench.records.json_text`, several times
    faster). A text that starts with no character a JSON value can start with is text
    without asking either (a tenth of the demo's observations: plain messages)."""
    first = content.lstrip(" \t\n\r")[:1]
    if first not in _JSON_STARTS:  # also the empty text
        return content, False
    try:
        return loads(content), True
    except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
        return content, False


PARSES_LIMIT = 1024
"""Observation texts a :class:`SharedParses` keeps (oldest dropped first)."""


class SharedParses:
    """:func:`_parse` once per observation text for as long as the text is among the
    :data:`PARSES_LIMIT` latest: the runs of a task read the same records (every agent
    and seed that looks the user or the order up gets the same text before its first
    write), and a run set is labelled in path order, its runs of a case side by side.
    A text seen once costs a lookup and an insertion (its hash is kept by the string
    and serves every later lookup of it), against a parse ten times that per kilobyte.

    The values are shared by every history that reads the same text: read-only, as
    every reader of :attr:`Delivered.data` already treats them."""

    def __init__(self, limit: int = PARSES_LIMIT) -> None:
        self.limit = limit
        self._found: dict[str, tuple[Any, bool]] = {}

    def __call__(self, content: str) -> tuple[Any, bool]:
        """``content`` parsed as :func:`_parse` parses it."""
        return bounded(self._found, content, lambda: _parse(content), self.limit)


def _notice(event: SystemNotice) -> Delivered:
    """A notice as the read it reports (harness call and observation at the notice's step)."""
    call_id = f"notice-{event.step}"
    call = AgentToolCall(
        step=event.step,
        turn=event.turn,
        call_id=call_id,
        name=event.tool,
        arguments=event.arguments,
        origin="harness",
    )
    observation = ToolObservation(
        step=event.step,
        turn=event.turn,
        call_id=call_id,
        content=event.observation,
        error=event.error,
        origin="harness",
    )
    data, parsed = _parse(event.observation)
    return Delivered(event.step, call, observation, data, parsed)


_ABSENT = object()


def _matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            _matches(actual.get(k, _ABSENT), v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_matches(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def arguments_match(arguments: dict[str, Any], match: dict[str, Any]) -> bool:
    """True when ``arguments`` contain ``match``: dicts by key subset, lists element-wise.

    So a flight given as ``{"flight_number": …, "date": …, "extra": …}`` still matches a
    request stated with the two keys that identify it.
    """
    return _matches(arguments, match)
