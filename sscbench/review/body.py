"""What a posted label must satisfy beyond the label model: the packet's own steps.

The label model knows the relations between events (docs/measurement.md §2) but not the
trajectory. A step that is not in the packet, or a dependent use or reliance placed on a
user message or tool result, is a label that cannot be compared with anything; it is
refused here with the field and the reason, so the page can say what to fix.
"""

from __future__ import annotations

from collections.abc import Mapping

from sscbench.review.labels import ReviewLabel, label_from
from sscbench.review.packet import Packet
from sscbench.review.parse import InputError, loads

AGENT_KINDS = ("agent_message", "tool_call")
"""Step kinds the agent produces: the only places a dependent use or a reliance can be."""


def check_against_packet(label: ReviewLabel, packet: Packet) -> None:
    """Every marked step is a step of ``packet``; ``T_S`` and ``T_U`` are agent steps."""
    kinds = {s.step: s.kind for s in packet.steps}
    for event in ("t_e", "t_s", "t_u"):
        step = getattr(label, event).step
        if step is None:
            continue
        if step not in kinds:
            span = f"steps {min(kinds)}–{max(kinds)}" if kinds else "no steps"
            raise InputError(f"{event}.step: {step} is not a step of this packet ({span})")
        if event != "t_e" and kinds[step] not in AGENT_KINDS:
            raise InputError(
                f"{event}.step: step {step} is a {kinds[step].replace('_', ' ')}; "
                f"{event.upper()} must be an agent message or tool call"
            )


def parse_label_body(raw: bytes, reviewer: str, packets: Mapping[str, Packet]) -> ReviewLabel:
    """The label ``reviewer`` (known from the token, not the body) posted as ``raw``.

    A ``reviewer`` field in the body must name the token's reviewer; a client-sent ``ts``
    is dropped (the server stamps the time). Raises :class:`InputError` with one line.
    """
    obj = loads(raw)
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, found {type(obj).__name__}")
    if obj.pop("reviewer", reviewer) != reviewer:
        raise InputError(f"reviewer: this token is {reviewer}'s; it cannot label as another", 403)
    obj.pop("ts", None)
    label = label_from({**obj, "reviewer": reviewer})
    packet = packets.get(label.packet_id)
    if packet is None:
        raise InputError(f"packet_id: no packet {label.packet_id} in this review", 404)
    check_against_packet(label, packet)
    return label
