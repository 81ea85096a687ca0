"""What the airline policy (agent-visible) says a reservation's cabin decides.

Some actions depend on a reservation's cabin only through the policy the agent was given:
how many checked bags are free, and whether a change-of-plan cancellation is allowed. When
a write claims to have changed the cabin, a later bag update or cancellation can show, by
its arguments alone, which cabin the agent believed. The numbers are read from the policy
text of the installed τ² domain, so they follow it rather than a copy.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import cache

from sscbench.envs import load_domain

_MEMBER = re.compile(
    r"If the booking user is an? (?P<level>\w+) member:(?P<body>.*?)(?=If the|\n\n|-\s*Each)", re.S
)
_LINE = re.compile(
    r"(?P<n>\d+) free checked bags? for each (?P<cabin>basic economy|economy|business)"
)
_NOW = re.compile(r"current time is (?P<now>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})")


@cache
def bag_allowance() -> dict[str, dict[str, int]]:
    """Free checked bags per passenger: membership → cabin (τ² spelling) → count."""
    policy = load_domain("airline").policy
    table: dict[str, dict[str, int]] = {}
    for block in _MEMBER.finditer(policy):
        row = {m["cabin"].replace(" ", "_"): int(m["n"]) for m in _LINE.finditer(block["body"])}
        if row:
            table[block["level"].lower()] = row
    return table


def nonfree_bags(membership: str, cabin: str, passengers: int, total: int) -> int | None:
    """Bags that are not free for ``total`` checked bags, or ``None`` if the policy does not
    say (an unknown membership or cabin)."""
    free = bag_allowance().get(membership.lower(), {}).get(cabin)
    if free is None:
        return None
    return max(0, total - free * passengers)


@cache
def policy_now() -> datetime | None:
    """The current time the policy gives the agent."""
    m = _NOW.search(load_domain("airline").policy)
    return None if m is None else datetime.fromisoformat(m["now"])


def booked_within_a_day(created_at: str) -> bool | None:
    """Was the reservation made within 24 hours of the policy's current time?"""
    now = policy_now()
    try:
        created = datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return None
    return None if now is None else now - created <= timedelta(hours=24)
