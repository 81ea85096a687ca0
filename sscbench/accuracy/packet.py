"""Annotation packets: one numbered trajectory and the facts to label in it, as plain text.

A packet shows what the model saw, step by step, with the ledger's step numbers, and
names each fact the way the labelling guideline needs it (entity, ``v′`` with the step
that delivered it, ``v``). It never shows an automatic label.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.accuracy.counterfactual import Counterfactual
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.records.ledger import Ledger


def render_events(ledger: Ledger) -> str:
    """Every model-visible event as ``[step] ROLE: text`` lines."""
    lines = []
    for e in ledger.events:
        if isinstance(e, UserMessage):
            lines.append(f"[{e.step}] USER: {e.content}")
        elif isinstance(e, AgentMessage):
            lines.append(f"[{e.step}] AGENT: {e.content}")
        elif isinstance(e, AgentToolCall):
            args = json.dumps(e.arguments, ensure_ascii=False)
            lines.append(f"[{e.step}] AGENT CALLS {e.name}({args})")
        elif isinstance(e, ToolObservation):
            tag = "TOOL ERROR" if e.error else "TOOL RESULT"
            lines.append(f"[{e.step}] {tag}: {e.content}")
    return "\n".join(lines)


def render_packet(ledger: Ledger, items: Sequence[Counterfactual]) -> str:
    """The packet for one run: the facts to label, then the trajectory."""
    head = [f"RUN {ledger.header.run_id} ({ledger.header.domain})", "", "FACTS TO LABEL:"]
    for item in items:
        head.append(f"- item {item.item_id}")
        head.append(f"  operator: {item.operator}; fault-bearing step T_F = {item.t_f}")
        head.append(f"  fact: {item.fact}")
    return "\n".join([*head, "", "TRAJECTORY:", render_events(ledger), ""])
