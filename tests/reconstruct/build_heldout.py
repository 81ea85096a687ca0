"""Build the hand-written held-out reconstruction sets: runs with exact labels.

Two sets are built the same way, each by an author who did not see the detector:

* ``heldout`` — 48 runs, twelve per operator (ReturnDate, PaySource, ItemOption,
  WriteEffect), in four voices (terse, warm, formatted, JSON); runs in ``heldout_<op>.py``.
* ``blind`` — 40 runs, ten per operator, in four other voices, written after the detector
  was finished and scored once; runs in ``blind_<op>.py``.
* ``blind2`` — 40 more runs in yet four other voices, written after the detector was
  improved on ``blind``, scored once; runs in ``blind2_<op>.py``.

Every run is on a shipped fault case and labelled by ``docs/reconstruction-labelling.md``.
This script builds the runs with :class:`build_fixtures.RunBuilder`, checks every label
against the run it describes and writes::

    tests/fixtures/reconstruction_<set>/<run>/ledger.jsonl, hidden.jsonl
    tests/fixtures/reconstruction_<set>/labels.jsonl

Rebuild with ``python tests/reconstruct/build_heldout.py [--set heldout|blind|blind2] [OUT_DIR]``.
The output directory is recreated from scratch; the script only deletes a directory that
carries its own marker file. The build is deterministic.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from build_fixtures import RunBuilder  # noqa: E402
from heldout_common import (  # noqa: E402
    AMBIGUOUS,
    BARE_CLAIM,
    BLIND2_VOICES,
    BLIND_VOICES,
    CLAIM_AFTER_READ,
    NO_USE,
    NONE,
    QUESTION_FIRST,
    RETRY,
    SHARED_VALUE,
    TOOL_FIRST,
    UNDECIDABLE,
    VOICES,
    Heldout,
)

from sscbench.fault_contracts.contract import ObservationRewrite  # noqa: E402
from sscbench.fault_contracts.history import arguments_match  # noqa: E402
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation  # noqa: E402

MARKER = ".built_by_build_heldout"
LABELS_FILE = "labels.jsonl"
OPERATOR_NAMES = ("return_date", "pay_source", "item_option", "write_effect")


@dataclass(frozen=True)
class HandSet:
    """One hand-written set: where its runs live, how many per operator, its voices."""

    prefix: str
    per_operator: int
    min_cases: int
    voices: tuple[str, ...]

    @property
    def out_root(self) -> Path:
        return _HERE.parents[0] / "fixtures" / f"reconstruction_{self.prefix}"

    def operators(self) -> dict[str, list[Callable[[], Heldout]]]:
        """The run makers of each operator, from ``<prefix>_<operator>.RUNS``."""
        return {
            op: list(importlib.import_module(f"{self.prefix}_{op}").RUNS) for op in OPERATOR_NAMES
        }


SETS = {
    "heldout": HandSet("heldout", 12, 8, VOICES),
    "blind": HandSet("blind", 10, 7, BLIND_VOICES),
    "blind2": HandSet("blind2", 10, 7, BLIND2_VOICES),
}
# Situations every operator must cover, with the least number of runs.
REQUIRED = {NO_USE: 2, SHARED_VALUE: 1, QUESTION_FIRST: 2, TOOL_FIRST: 1, AMBIGUOUS: 1}
REQUIRED_WRITE_EFFECT = {BARE_CLAIM: 1, CLAIM_AFTER_READ: 1, RETRY: 1}


class LabelError(AssertionError):
    """A label that does not fit its run."""


def fault_step(run: RunBuilder) -> int:
    """``T_F``: the step of the first effective fault-bearing observation."""
    steps = [d.step for d in run.deliveries if d.effective]
    if not steps:
        raise LabelError(f"{run.name}: the fault was never delivered")
    return min(steps)


def check_delivery(item: Heldout) -> None:
    """The fault was delivered the way the contract's intervention says, on a matching call."""
    run = item.run
    contract = run.contract
    assert contract is not None
    calls = {e.call_id: e for e in run.events if isinstance(e, AgentToolCall)}
    rewrites = [s for s in contract.interventions if isinstance(s, ObservationRewrite)]
    for delivery in run.deliveries:
        call = calls[delivery.call_id]
        if contract.operator == "write_effect":
            spec = contract.interventions[0]
            ok = delivery.action == "suppress" and call.name == spec.tool
            ok = ok and arguments_match(call.arguments, spec.match)
        else:
            ok = delivery.action == "rewrite" and any(
                call.name == s.tool and arguments_match(call.arguments, s.match) for s in rewrites
            )
        if not ok:
            raise LabelError(f"{run.name}: delivery at step {delivery.step} does not fit the case")
    if contract.operator == "write_effect" and len(run.deliveries) != 1:
        raise LabelError(f"{run.name}: WriteEffect suppresses the first attempt only")


def check_label(item: Heldout) -> None:
    """Every labelled step is an agent message or agent tool call after ``T_F``; ``adopted``
    agrees with ``t_u``; ``t_s`` never comes after ``t_u``."""
    run, label = item.run, item.label
    t_f = fault_step(run)
    obs = run.events[t_f]
    if not isinstance(obs, ToolObservation):
        raise LabelError(f"{run.name}: T_F={t_f} is not a tool observation")
    for name, value in (("t_s", label.t_s), ("t_u", label.t_u)):
        if value in (NONE, UNDECIDABLE):
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise LabelError(f"{run.name}: {name}={value!r} is not a step")
        if not 0 <= value < len(run.events):
            raise LabelError(f"{run.name}: {name}={value} is outside the run")
        event = run.events[value]
        if not isinstance(event, AgentMessage | AgentToolCall):
            raise LabelError(f"{run.name}: {name}={value} is not an agent step")
        if value <= t_f:
            raise LabelError(f"{run.name}: {name}={value} is not after T_F={t_f}")
    t_s, t_u, adopted = label.t_s, label.t_u, label.adopted
    if isinstance(t_u, int):
        ok = adopted is True and t_s != NONE and (not isinstance(t_s, int) or t_s <= t_u)
    elif t_u == NONE:
        ok = adopted is False
    else:  # undecidable: adopted is true only if a later clear reliance exists
        ok = adopted in (True, UNDECIDABLE) and t_s != NONE
    if t_s == NONE and t_u != NONE:
        ok = False
    if not ok:
        raise LabelError(f"{run.name}: t_s={t_s!r}, t_u={t_u!r}, adopted={adopted!r} disagree")
    if not label.note or "\n" in label.note:
        raise LabelError(f"{run.name}: the note must be one line")


def check_coverage(hand: HandSet, operator: str, items: list[Heldout]) -> None:
    """The set's number of runs, enough cases, voices spread evenly, required situations."""
    if len(items) != hand.per_operator:
        raise LabelError(f"{operator}: {len(items)} runs, expected {hand.per_operator}")
    for item in items:
        assert item.run.contract is not None
        if item.run.contract.operator != operator:
            raise LabelError(f"{item.run.name}: case {item.case_id} is not {operator}")
    cases = {item.case_id for item in items}
    if len(cases) < hand.min_cases:
        raise LabelError(f"{operator}: only {len(cases)} different cases")
    voices = Counter(item.voice for item in items)
    spread = max(voices.values()) - min(voices.values())
    if set(voices) != set(hand.voices) or spread > 1:
        raise LabelError(f"{operator}: voices are not spread evenly: {dict(voices)}")
    required = dict(REQUIRED)
    if operator == "write_effect":
        required.update(REQUIRED_WRITE_EFFECT)
    tags = Counter(tag for item in items for tag in item.tags)
    for tag, least in required.items():
        if tags[tag] < least:
            raise LabelError(f"{operator}: {tags[tag]} runs tagged {tag}, need {least}")
    for item in items:
        label = item.label
        if NO_USE in item.tags and (label.t_s, label.t_u, label.adopted) != (NONE, NONE, False):
            raise LabelError(f"{item.run.name}: tagged no_use but labelled a use")
        if AMBIGUOUS in item.tags and UNDECIDABLE not in (label.t_s, label.t_u):
            raise LabelError(f"{item.run.name}: tagged ambiguous but nothing is undecidable")
        if QUESTION_FIRST in item.tags and (
            not isinstance(label.t_s, int) or label.t_s == label.t_u
        ):
            raise LabelError(f"{item.run.name}: its first use should not be reliance")
        if TOOL_FIRST in item.tags and not (
            isinstance(label.t_s, int) and isinstance(item.run.events[label.t_s], AgentToolCall)
        ):
            raise LabelError(f"{item.run.name}: its first use should be a tool call")


def build_items(hand: HandSet) -> dict[str, list[Heldout]]:
    """Build every run of the set (in memory) and check its labels."""
    built: dict[str, list[Heldout]] = {}
    names: set[str] = set()
    for operator, runs in hand.operators().items():
        items = [make() for make in runs]
        for item in items:
            if item.run.name in names:
                raise LabelError(f"duplicate run name {item.run.name}")
            names.add(item.run.name)
            check_delivery(item)
            check_label(item)
        check_coverage(hand, operator, items)
        built[operator] = items
    return built


def _prepare(out: Path) -> None:
    if out.exists():
        if not (out / MARKER).is_file():
            raise SystemExit(f"refusing to delete {out}: it was not created by this script")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text("written by tests/reconstruct/build_heldout.py\n", encoding="utf-8")


def label_line(item: Heldout) -> dict[str, object]:
    label = item.label
    return {
        "run": item.run.name,
        "case_id": item.case_id,
        "t_s": label.t_s,
        "t_u": label.t_u,
        "adopted": label.adopted,
        "note": label.note,
    }


def build_all(hand: HandSet, out: Path | None = None) -> dict[str, list[Heldout]]:
    """Recreate ``out`` (the set's fixture folder by default) with every run and the labels."""
    out = hand.out_root if out is None else out
    built = build_items(hand)
    _prepare(out)
    lines = []
    for items in built.values():
        for item in items:
            item.run.write(out)
            lines.append(json.dumps(label_line(item), ensure_ascii=False))
    (out / LABELS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return built


def _summary(built: dict[str, list[Heldout]]) -> str:
    rows = []
    for operator, items in built.items():
        adopted = Counter(str(item.label.adopted) for item in items)
        cases = sorted({item.case_id for item in items})
        rows.append(
            f"{operator}: {len(items)} runs, {len(cases)} cases, adopted {dict(adopted)}\n  "
            + "\n  ".join(cases)
        )
    return "\n".join(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="heldout")
    parser.add_argument("out", nargs="?", type=Path)
    args = parser.parse_args()
    hand = SETS[args.set]
    target = hand.out_root if args.out is None else args.out
    print(_summary(build_all(hand, target)))
    print(f"wrote {target}")
