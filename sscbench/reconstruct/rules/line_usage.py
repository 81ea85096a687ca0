"""LineUsage uses: a line's data usage stated as a figure, as what is left, or as which side
of the plan's limit the line is on.

The figure itself ("5.4 GB used", "Data used: 5.4") is the generic rules' value mention.
Agents also state the fact in the two forms a customer cares about, which the generic rules
cannot know:

* *what is left*: "9.6 GB left", "9.6 GB remaining" — the limit minus the usage, so a use of
  the usage that gives it (the limit is the line's plan limit plus its refuelled data, which
  no fault touches);
* *the side of the limit*: "you have exceeded your data limit", "you're over your
  allowance", "you've used up your data" versus "you're within your limit", "you still have
  data left". The fault always moves the usage across the limit, so each side names exactly
  one of ``v`` and ``v′``. A negated side ("you haven't exceeded your limit") is the other
  side, stated; it is matched as such and never also as the side it negates.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files

from sscbench.envs import EpisodeEnvironment, load_domain
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.reconstruct.detector import FactModel, ValueMention, Which
from sscbench.reconstruct.rules.base import USE_RULES, GenericRules, RunView
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention

LIMIT = r"(?:data\s+)?(?:limit|allowance|cap|plan(?:'s)?\s+(?:limit|allowance))"
UNDER = re.compile(
    rf"\b(?:(?:within|under|below|inside)\s+(?:your|the)\s+(?:monthly\s+)?{LIMIT}"
    rf"|(?:have|has|did)(?:\s+not|n[o']?t)\s+(?:yet\s+)?(?:exceeded|reached|hit|gone\s+over|used\s+up)\s+"
    rf"(?:your|the)\s+(?:monthly\s+)?{LIMIT}"
    r"|still\s+(?:have|has|got)\s+(?:some\s+|plenty\s+of\s+)?data(?:\s+left|\s+remaining)?"
    r"|not\s+(?:over|above|past)\s+(?:your|the)\s+" + LIMIT + r")",
    re.IGNORECASE,
)
"""The usage is on the near side of the limit (negations of "over" included)."""
OVER = re.compile(
    rf"\b(?:(?:exceeded|reached|hit|gone\s+over|maxed\s+out)\s+(?:your|the)\s+(?:monthly\s+)?"
    rf"{LIMIT}|(?:over|above|past)\s+(?:your|the)\s+(?:monthly\s+)?{LIMIT}"
    r"|used\s+up\s+(?:all\s+(?:of\s+)?)?(?:your|the)\s+(?:monthly\s+)?data"
    r"|(?:out|run\s+out)\s+of\s+data|no\s+data\s+left)",
    re.IGNORECASE,
)
"""The usage is at or past the limit."""
NEGATED = re.compile(r"\b(?:not|n't|never|no\s+longer)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
LEFT = re.compile(
    r"(?P<gb>\d+(?:\.\d+)?)\s*(?:GB|gigabytes?|gigs?)\s+(?:of\s+data\s+)?(?:left|remaining)",
    re.IGNORECASE,
)


LIMITS_FILE = "line_limits.json"
"""The limit of every line a shipped LineUsage case targets, stored with the τ² version it
was read from: labelling then never loads the telecom domain (about a second of CPU, a
tenth of labelling a demo's runs). ``tests/reconstruct/test_line_limits.py`` holds it
equal to :func:`initial_line_limit` and complete for the shipped case set."""


@cache
def stored_line_limits() -> dict[str, float]:
    """``"<task id>|<line id>"`` → limit, for the installed τ² (empty for another one)."""
    data = json.loads(files("sscbench.data").joinpath(LIMITS_FILE).read_text("utf-8"))
    if data.get("tau2_version") != tau2_version():
        return {}
    return {str(k): float(v) for k, v in data["limits"].items()}


@cache
def line_limit(task_id: str, line_id: str) -> float | None:
    """The line's plan limit plus its refuelled data in the task's initial state (stored
    for the shipped cases, computed for any other)."""
    stored = stored_line_limits().get(f"{task_id}|{line_id}")
    return stored if stored is not None else initial_line_limit(task_id, line_id)


def initial_line_limit(task_id: str, line_id: str) -> float | None:
    """:func:`line_limit` read off the task's initial state in τ²'s telecom domain."""
    env = EpisodeEnvironment.open("telecom", load_domain("telecom").task(task_id))
    line = next((ln for ln in env.state.db.lines if ln.line_id == line_id), None)
    if line is None:
        return None
    plan = next(p for p in env.state.db.plans if p.plan_id == line.plan_id)
    return float(plan.data_limit_gb + line.data_refueling_gb)


def side_mentions(text: str, over_is: Which, under_is: Which) -> list[ValueMention]:
    """Statements of which side of the limit the usage is on, as mentions of the value on
    that side (``over_is``: the value past the limit)."""
    found: list[ValueMention] = []
    taken: list[tuple[int, int]] = []
    for m in UNDER.finditer(text):
        taken.append(m.span())
        found.append(_mention(m.group(0), m.start(), m.end(), under_is))
    for m in OVER.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or NEGATED.search(text[: m.start()]):
            continue
        found.append(_mention(m.group(0), m.start(), m.end(), over_is))
    return found


def _mention(text: str, start: int, end: int, which: Which) -> ValueMention:
    return ValueMention(Mention(text, start, end, "derived"), which, "data used gb")


class LineUsageRules(GenericRules):
    """The generic figure, plus what is left and the side of the limit."""

    inputs = GenericRules.inputs
    """The generic model's: what this rule set adds comes from the contract alone."""

    def model(self, view: RunView, step: int) -> FactModel:
        """The generic model, its ``find`` extended with the derived forms."""
        base = super().model(view, step)
        c = view.contract
        limit = line_limit(c.task_id, c.target.entity_id)
        if limit is None:
            return base
        v, vp = float(c.authoritative_value), float(c.injected_value)
        over_is: Which = "v_prime" if vp >= limit else "v"
        under_is: Which = "v" if over_is == "v_prime" else "v_prime"

        def find(unit: Unit) -> list[ValueMention]:
            found = base.find(unit)
            found += side_mentions(unit.text, over_is, under_is)
            for m in LEFT.finditer(unit.text):
                used = round(limit - float(m.group("gb")), 1)
                which: Which | None = (
                    "v_prime" if used == round(vp, 1) else "v" if used == round(v, 1) else None
                )
                if which is not None:
                    found.append(_mention(m.group(0), m.start(), m.end(), which))
            return found

        return FactModel(
            target=base.target,
            index=base.index,
            find=find,
            holders=base.holders,
            label=base.label,
        )


USE_RULES.add("line_usage", LineUsageRules)
