"""Choosing a phrasing for a scripted agent, and rendering its messages one by one.

``plain`` is the original fixed wording (the default; byte-identical to earlier ledgers).
``varied`` draws each message's form from a ``random.Random`` seeded by the agent's name,
the episode (its seed, and the task, so that different tasks run with one seed do not all
open with the same layout) and the message's index. A run is thus reproducible, and a
message's form does not depend on how many random draws earlier messages made.
"""

from __future__ import annotations

import random
from typing import Any

from sscbench.agents.scripted.phrasing.content import Entity, Message, Records
from sscbench.agents.scripted.phrasing.plain import render_plain
from sscbench.agents.scripted.phrasing.varied import message_entities, render_varied
from sscbench.errors import ConfigError

PHRASINGS = ("plain", "varied")
DEFAULT_PHRASING = "plain"
ATTEMPTS = 8

# The scripted user (sscbench.users.scripted) answers by keywords, checked in this order.
# A varied message must draw the same answer as its plain form, or the dialogue (and the
# steps the ground truth is recorded at) would change with the wording.
_CUES = (
    ("close", ("anything else", "goodbye")),
    ("identity", ("identity", "user id", "zip code", "email")),
    ("confirm", ("yes/no", "proceed", "confirm")),
)


def cue(text: str) -> str:
    """Which kind of answer the scripted user gives to ``text``."""
    low = text.lower()
    for name, words in _CUES:
        if any(w in low for w in words):
            return name
    return "other"


def check_phrasing(value: Any) -> str:
    """``value`` if it names a phrasing, else a :class:`ConfigError` listing them."""
    if value not in PHRASINGS:
        raise ConfigError(
            f"unknown phrasing {value!r} for a scripted agent; use one of: {', '.join(PHRASINGS)}"
        )
    return str(value)


class Phraser:
    """Renders one agent's messages in one phrasing, episode by episode."""

    def __init__(self, style: str = DEFAULT_PHRASING) -> None:
        self.style = check_phrasing(style)
        self._key = ""
        self._index = 0
        self._clear: frozenset[Entity] = frozenset()

    def start(self, agent: str, seed: int, episode: str = "") -> None:
        """Reset for a new episode of ``agent`` with ``seed`` (``episode`` names its task)."""
        self._key = f"{agent}:{episode}:{seed}"
        self._index = 0
        self._clear = frozenset()

    def render(self, msg: Message, records: Records) -> str:
        """The text of the episode's next message."""
        index = self._index
        self._index += 1
        plain = render_plain(msg)
        if self.style == "plain":
            return plain
        want = cue(plain)
        for attempt in range(ATTEMPTS):
            seed = f"{self._key}:{index}" + (f":{attempt}" if attempt else "")
            text, clear = render_varied(msg, random.Random(seed), records, self._clear)
            if cue(text) == want:
                self._clear = clear
                return text
        self._clear = frozenset(e for e in message_entities(msg) if e[0] != "result")
        return plain
