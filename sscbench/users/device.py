"""How the scripted customer works their own phone (telecom's dual control).

The customer acts on the agent's latest message: when it names one of the device tools
(the scripted agents name it in backticks, with its arguments as a JSON object after
it), they run that tool; when it asks what the phone shows (the status bar, the network
status, the SIM, a speed test...), they run the check that reads it. They then tell the
agent what the device answered, word for word — so a device reading reaches the agent
only through the customer's message, at that message's step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from sscbench.envs.calls import ToolCall

# Phrases of a question about the phone, checked in this order, and the check that answers it.
DEVICE_CHECKS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("status bar",), "check_status_bar"),
    (("network status", "signal", "cellular connection"), "check_network_status"),
    (("sim card", "sim status"), "check_sim_status"),
    (("speed test", "internet speed"), "run_speed_test"),
    (("data saver", "data restriction"), "check_data_restriction_status"),
    (("apn",), "check_apn_settings"),
    (("wi-fi calling", "wifi calling"), "check_wifi_calling_status"),
    (("vpn",), "check_vpn_status"),
    (("network mode", "network preference"), "check_network_mode_preference"),
    (("mms", "picture message"), "can_send_mms"),
    (("payment request",), "check_payment_request"),
)

_NAMED = re.compile(r"`([a-z_]+)`(\s*\{[^`]*?\})?")


def requested_calls(text: str, tools: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """The device calls an agent message asks for: tools named in backticks (with a JSON
    object of arguments after one, if given), else the check a question about the phone
    needs; empty when the message asks for nothing on the device."""
    known = set(tools)
    named: list[tuple[str, dict[str, Any]]] = []
    for match in _NAMED.finditer(text):
        if match.group(1) not in known:
            continue
        args: dict[str, Any] = {}
        if match.group(2):
            try:
                parsed = json.loads(match.group(2))
            except json.JSONDecodeError:
                parsed = {}
            args = parsed if isinstance(parsed, dict) else {}
        named.append((match.group(1), args))
    if named:
        return named
    low = text.lower()
    for phrases, tool in DEVICE_CHECKS:
        if tool in known and any(p in low for p in phrases):
            return [(tool, {})]
    return []


def relay(results: Sequence[tuple[ToolCall, str]]) -> str:
    """The customer's words for what their phone answered (verbatim)."""
    parts = [f"I did `{call.name}` on my phone. It shows: {content}" for call, content in results]
    return "\n".join(parts)
