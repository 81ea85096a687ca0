"""What a scripted agent learns about the customer's phone from the customer's words.

In telecom the agent never sees a device tool's answer: the customer runs the tool and
relays what it showed ("I did `check_network_status` on my phone. It shows: ..."). Before
asking for a fix that turns a setting around (τ²'s ``toggle_airplane_mode``,
``toggle_data``), the diagnosing agents ask for the phone's network status and read the
setting from the relayed answer; a careful one also asks for the status bar, a second,
independent device check, and believes the status bar when the two disagree — it is what
the phone shows on every screen, where the network status is a summary page.

A reading is a fact of the entity ``("device", <the customer's phone number>)``: the number
the customer gave when identifying themselves (the phone is theirs; the agent has no other
id for it), at the path of the setting (``airplane_mode``, ``mobile_data``) with the word the
phone uses (``ON``/``OFF``, ``Yes``/``No``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sscbench.records.events import UserMessage, VisibleEvent

NETWORK_STATUS = "check_network_status"
STATUS_BAR = "check_status_bar"
RELAY = re.compile(r"I did `(?P<tool>[a-z_]+)` on my phone\. It shows: ")
PHONE = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")
NETWORK_TYPE = re.compile(r"\b[2-5]G\b")


@dataclass(frozen=True)
class Setting:
    """A setting the fix turns around: its path, its network-status label, and the word
    that shows the problem the fix solves."""

    path: str
    label: str
    problem: str
    fine: str


FIXES: dict[str, Setting] = {
    "toggle_airplane_mode": Setting("airplane_mode", "Airplane Mode", "ON", "OFF"),
    "toggle_data": Setting("mobile_data", "Mobile Data Enabled", "No", "Yes"),
}
"""The device fixes the diagnosing agents check a reading before asking for."""


@dataclass(frozen=True)
class Reading:
    """One relayed reading of a setting: the word, the customer message's step, the tool."""

    value: str
    step: int
    tool: str


def phone_of(history: Sequence[VisibleEvent]) -> str:
    """The phone number the customer gave (``phone`` when they gave none)."""
    for event in history:
        if isinstance(event, UserMessage):
            found = PHONE.search(event.content)
            if found:
                return found.group(0)
    return "phone"


def _relayed(event: UserMessage, tool: str) -> str | None:
    marks = list(RELAY.finditer(event.content))
    for i, mark in enumerate(marks):
        if mark.group("tool") == tool:
            end = marks[i + 1].start() if i + 1 < len(marks) else len(event.content)
            return event.content[mark.end() : end]
    return None


def bar_value(setting: Setting, bar: str) -> str | None:
    """The setting as a status bar shows it (``None``: the bar does not show it)."""
    airplane = "Airplane Mode" in bar
    if setting.path == "airplane_mode":
        return "ON" if airplane else "OFF"
    if "Data Enabled" in bar:
        return "Yes"
    if "Data Disabled" in bar and not airplane and NETWORK_TYPE.search(bar):
        return "No"
    return None


def latest_reading(
    history: Sequence[VisibleEvent], setting: Setting, tool: str, since: int
) -> Reading | None:
    """The setting in the latest answer of ``tool`` the customer relayed after ``since``."""
    for event in reversed(history):
        if not isinstance(event, UserMessage) or event.step <= since:
            continue
        text = _relayed(event, tool)
        if text is None:
            continue
        if tool == STATUS_BAR:
            bar = re.search(r"Status Bar: ?(?P<bar>[^\n]*)", text)
            value = bar_value(setting, bar.group("bar")) if bar else None
        else:
            line = re.search(rf"^{re.escape(setting.label)}: (?P<v>\S+)", text, re.MULTILINE)
            value = line.group("v") if line else None
        return None if value is None else Reading(value, event.step, tool)
    return None
