"""DeviceReading: a second device check, relayed by the customer, contradicts the reading.

The fault-bearing observation is a reading of the customer's phone (``check_network_status``)
whose line about one setting is false — "Airplane Mode: OFF" where airplane mode is on,
"Mobile Data Enabled: Yes" where mobile data is off. The agent never sees a device tool's
answer: it sees the customer's message that relays it. So does the refutation: a later (or
earlier) customer message relaying the phone's *status bar* (``check_status_bar``, or the
status bar a device write prints after it), which the fault does not touch and which shows
the same setting, is the refuting observation at that message's step.

Decided from the customer's words alone (docs/measurement.md §2.5, "Refutations that reach
the agent through the customer"):

* **Authority.** The phone is the authority for its own toggles; no agent tool shows them
  (the line record's roaming flag and status are the back office's, not the phone's), so
  only a device reading can refute.
* **Independence.** Another device tool than the rewritten one; a second network status
  is the same rewritten tool and never refutes.
* **Sufficiency.** The status bar must show the setting itself. For airplane mode it
  always does (airplane mode replaces every other indicator). For mobile data it does only
  when the phone is on a network: "Data Disabled" is also what a phone without a network
  (or in airplane mode) shows, so "Data Disabled" refutes "Mobile Data Enabled: Yes" only
  beside a network type (2G…5G) and without airplane mode; "Data Enabled" always refutes
  "No".
* **Same state.** Only readings between the same two device writes (toggles, reboots,
  resets) count: the customer's relay names each tool they ran, and a write starts a new
  state (its own printed status bar is already after it). A customer message that does
  not name its tool is read in the state of the message before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sscbench.envs.environment import user_tool_kinds
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs
from sscbench.records.events import UserMessage

STATUS_BAR = "check_status_bar"
RELAY = re.compile(r"I did `(?P<tool>[a-z_]+)` on my phone\. It shows: ")
NETWORK_TYPE = re.compile(r"\b[2-5]G\b")


@dataclass(frozen=True)
class RelayedPart:
    """One device answer in a customer message: the tool named (``None``: not named) and
    the words relayed, with the message's step and the device state it is about."""

    step: int
    tool: str | None
    text: str
    state: int


def relayed_parts(history: History, domain: str = "telecom") -> list[RelayedPart]:
    """Every device answer the customer relayed, in order, each with its device state: the
    count of device writes relayed before it (a write's own answer is after it)."""
    writes = {n for n, k in user_tool_kinds(domain).items() if k == "write"}
    parts: list[RelayedPart] = []
    state = 0
    for event in history.events:
        if not isinstance(event, UserMessage):
            continue
        marks = list(RELAY.finditer(event.content))
        if not marks:
            parts.append(RelayedPart(event.step, None, event.content, state))
            continue
        for i, mark in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(event.content)
            tool = mark.group("tool")
            if tool in writes:
                state += 1
            parts.append(RelayedPart(event.step, tool, event.content[mark.end() : end], state))
    return parts


def status_bar(text: str) -> str | None:
    """The status bar line in a relayed answer, without its label (``None``: not there)."""
    match = re.search(r"Status Bar: ?(?P<bar>[^\n]*)", text)
    return match.group("bar") if match else None


def bar_refutes(reading: str, injected: str, bar: str) -> bool:
    """Whether a status bar shows the setting, on the other side from the injected line."""
    airplane = "Airplane Mode" in bar
    if reading == "airplane_mode":
        return airplane if injected == "OFF" else not airplane
    if reading == "mobile_data":
        if injected == "No":
            return "Data Enabled" in bar
        return "Data Disabled" in bar and not airplane and NETWORK_TYPE.search(bar) is not None
    return False


@RELATIONS.register("device_second_check")
def device_second_check(contract: FaultContract, history: History) -> Arrival:
    """First relayed status bar showing the true setting, in the device state of the first
    relayed reading that shows the injected line."""
    p: dict[str, Any] = contract.refutation.params
    reading, injected, reads, tool = p["reading"], p["injected"], p["reads"], p["tool"]
    parts = relayed_parts(history, contract.domain)
    fault = next(
        (x for x in parts if x.tool in (tool, None) and reads in x.text.splitlines()), None
    )
    if fault is None:
        return Arrival.never(f"no customer message relays {reads!r}")
    for part in parts:
        if part is fault or part.state != fault.state or part.tool == tool:
            continue
        bar = status_bar(part.text)
        if bar is not None and bar_refutes(reading, injected, bar):
            return Arrival.found(
                part.step,
                (fault.step, part.step),
                f"the customer's status bar at step {part.step} ({bar.strip()}) contradicts "
                f"{reads!r} relayed at step {fault.step}, with no device write between",
            )
    return Arrival.never(
        f"no status bar relayed in the device state of step {fault.step} shows the setting"
    )


declare_needs(
    "device_second_check",
    RelationNeeds(
        params=("reading", "injected", "reads", "tool"),
        acquisitions=("cross_record",),
        intervention="reading_rewrite",
    ),
)
