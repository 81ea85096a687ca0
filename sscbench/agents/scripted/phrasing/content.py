"""What a scripted agent's message says, as data, before any wording is chosen.

The agent decides *what* a message asserts (which facts, whether it acts on them or only
quotes them to flag them, which call it proposes); a phrasing decides only *how* to say
it. Keeping the content structured is what lets every phrasing assert exactly the same
thing, so the private ground truth (recorded from the content, not the text) stays the
same whatever the wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Entity = tuple[str, str]
"""``(entity type, id)``, e.g. ``("reservation", "GV1N64")``; ``("result", tool)`` for a
tool's scalar result."""

Records = Mapping[Entity, Mapping[str, Any]]
"""The latest record the agent has seen of each entity: context for reference forms
(product names, routes, which flight is the return), never a source of stated values."""


@dataclass(frozen=True)
class Fact:
    """One value a message states: ``value`` at ``path`` of entity ``(entity_type, entity_id)``.

    ``operative`` is true when the message states it as true (it is acted on), false when
    it is quoted only to flag or question it.
    """

    entity_type: str
    entity_id: str
    path: str
    value: Any
    operative: bool = True

    @property
    def entity(self) -> Entity:
        """The entity the fact belongs to."""
        return (self.entity_type, self.entity_id)


@dataclass(frozen=True)
class Conflict:
    """A sighting the agent refuses: ``rejected`` (not operative), why, and what it uses
    instead (``chosen``; ``None`` when it relies on no value of that fact)."""

    rejected: Fact
    reason: str
    chosen: Fact | None = None


@dataclass(frozen=True)
class MissingVariant:
    """No variant of an order item has the believed options with the change applied.

    ``listed`` is false when the agent's record of the order does not list the item (then
    ``item_id`` and ``item_name`` are unknown)."""

    order_id: str
    item_index: int
    item_id: Any = None
    item_name: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    listed: bool = True


@dataclass(frozen=True)
class IdentityRequest:
    """Ask the user to verify their identity (states nothing)."""


@dataclass(frozen=True)
class Confirmation:
    """Before a write: the call the agent will make, the facts it relies on (operative,
    in order), the sightings it refuses, and items it could not derive; asks to proceed."""

    tool: str
    arguments: dict[str, Any]
    facts: tuple[Fact, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    missing_variants: tuple[MissingVariant, ...] = ()


@dataclass(frozen=True)
class Statement:
    """Facts told to the user as they stand, mid-task: ``ask`` asks the user to confirm them
    (before acting), otherwise it reports them (after a write, before any read-back)."""

    facts: tuple[Fact, ...]
    ask: bool = False


@dataclass(frozen=True)
class ReadBackFailure:
    """After reading a written entity back: the confirmed (payload) values the record does
    not show (not operative). ``final`` after the retry: the change may not have happened."""

    facts: tuple[Fact, ...]
    final: bool = False


@dataclass(frozen=True)
class WriteDone:
    """A write the agent carried out, on which entities, and whether it must not be claimed
    done: its read-back still failed after the retry, or the summary states its entities
    from a later record than its payload (a claim would contradict the stated facts)."""

    tool: str
    entities: tuple[Entity, ...]
    failed: bool = False


@dataclass(frozen=True)
class Closing:
    """The final summary: the written entities' salient facts (operative), information the
    task asks to communicate, and the writes made; asks whether there is anything else."""

    facts: tuple[Fact, ...] = ()
    info: tuple[str, ...] = ()
    writes: tuple[WriteDone, ...] = ()


@dataclass(frozen=True)
class DeviceRequest:
    """Ask the customer to run one tool on their own phone (telecom) and say what it shows;
    states nothing. The tool is named in backticks, its arguments as JSON after it."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceFinding:
    """What the customer's phone shows about one setting, as the agent believes it (the
    fact, operative), a reading it refuses (``conflict``), and the fix it asks for: a
    device tool the customer runs (``None``: the setting is not the cause, nothing to do)."""

    fact: Fact
    fix: str | None = None
    conflict: Conflict | None = None


Message = (
    IdentityRequest
    | Confirmation
    | ReadBackFailure
    | Closing
    | Statement
    | DeviceRequest
    | DeviceFinding
)
