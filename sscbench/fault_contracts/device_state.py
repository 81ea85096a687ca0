"""The reading a customer's phone would give with one setting reversed (telecom).

A device reading is one answer of several lines, some of which follow from others: with
airplane mode on, τ²'s phone shows no cellular connection, no signal and no network type
whatever the SIM and the towers around. Rewriting only the "Airplane Mode" line would
deliver an answer no phone gives ("Airplane Mode: OFF" beside "Cellular Connection:
no_service" on an active SIM). So a reading rewrite that names its ``setting`` delivers the
lines that follow from it as τ²'s own phone would show them with that one setting reversed:
a copy of the device, the setting flipped, τ²'s network search re-run, the tool read again.

Only the lines the flip itself changes are rewritten: the same search on an unflipped copy
is the baseline, and a line the search alone would change (a state the task set up that the
simulator would not derive) keeps its true value. No other setting — SIM, roaming, Wi-Fi,
mode preference, APN — is touched, so the answer asserts nothing beyond the one false
reading and what τ² derives from it.
"""

from __future__ import annotations

from typing import Any

from sscbench.envs.state import copy_entity

SEARCH = "simulate_network_search"


def _lines(text: str) -> dict[str, str]:
    """``label -> line`` of a device answer (``Label: value`` lines)."""
    return {line.split(":", 1)[0]: line for line in text.split("\n")}


def _read(toolkit_class: type[Any], user_db: Any, tool: str, setting: str | None) -> str:
    toolkit = toolkit_class(copy_entity(user_db))
    if setting is not None:
        device = toolkit.device
        setattr(device, setting, not getattr(device, setting))
    getattr(toolkit, SEARCH)()
    return str(getattr(toolkit, tool)())


def reversed_reading(
    toolkit_class: type[Any] | None, user_db: Any, tool: str, setting: str, shown: str
) -> str | None:
    """``shown`` (the tool's true answer) with the lines that the reversed ``setting``
    changes, as τ²'s phone would show them; ``None`` when the device has no such boolean
    setting or no network search (then only the one line can be rewritten)."""
    if toolkit_class is None or user_db is None or not hasattr(toolkit_class, SEARCH):
        return None
    device = getattr(toolkit_class(user_db), "device", None)
    if not isinstance(getattr(device, setting, None), bool):
        return None
    base = _lines(_read(toolkit_class, user_db, tool, None))
    flipped = _lines(_read(toolkit_class, user_db, tool, setting))
    out = []
    for line in shown.split("\n"):
        label = line.split(":", 1)[0]
        before, after = base.get(label), flipped.get(label)
        moved = before == line and after is not None and after != before
        out.append(after if moved and after is not None else line)
    return "\n".join(out)

