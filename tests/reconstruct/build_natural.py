"""Build hand-made runs whose agent text reads like real LLM agents, with their exact labels.

Each run directory under ``tests/fixtures/reconstruction_natural/<name>/`` is written by
:class:`build_fixtures.RunBuilder` (real τ² observations, with the shipped case's fault
applied where the runtime applies it; see :mod:`natural_common`). The agent turns are written
by hand the way gpt-4-class customer-service agents talk: dates as "May 18", "the 18th",
"5/18", "2024-05-18", weekdays; categories as "voucher" or "travel credit"; options as
"Full-size", "size L"; markdown lists and tables, JSON-looking replies, hand-off summaries;
hedges, questions, doubts, corrections, retractions, conditionals; competitors that share the
value; completion claims without ids.

``labels.jsonl`` holds one line per run::

    {"run": ..., "case_id": ..., "t_s": step|"none"|"undecidable",
     "t_u": step|"none"|"undecidable", "adopted": true|false|"undecidable",
     "note": ..., "phenomena": [...]}

labelled per ``docs/reconstruction-labelling.md``; steps are ledger steps (greeting = 0).
The runs themselves live in one module per operator: ``natural_return_date.py``,
``natural_pay_source.py``, ``natural_item_option.py`` and ``natural_write_effect.py``, on top
of ``natural_common.py``.

Rebuild (deterministic; the output directory is recreated from scratch)::

    python tests/reconstruct/build_natural.py [OUT_DIR]

(default ``OUT_DIR``: ``tests/fixtures/reconstruction_natural``). The build checks every
label against the ledger it wrote: each labelled step is an agent message or agent tool call
after ``T_F``, and ``t_s``/``t_u``/``adopted`` are mutually consistent.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sscbench.accuracy.items import HandLabel
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE

HERE = Path(__file__).resolve().parent
NATURAL_ROOT = HERE.parent / "fixtures" / "reconstruction_natural"
LABELS_FILE = "labels.jsonl"
MIN_RUNS = 60
MIN_PER_OPERATOR = 12
OPERATORS = ("return_date", "pay_source", "item_option", "write_effect")


def natural_runs() -> list[Callable[[], Any]]:
    """Every run builder, in output order (imports the sibling modules)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from natural_item_option import ITEM_OPTION_RUNS
    from natural_pay_source import PAY_SOURCE_RUNS
    from natural_return_date import RETURN_DATE_RUNS
    from natural_write_effect import WRITE_EFFECT_RUNS

    return [*RETURN_DATE_RUNS, *PAY_SOURCE_RUNS, *ITEM_OPTION_RUNS, *WRITE_EFFECT_RUNS]


def _consistent(t_s: Any, t_u: Any, adopted: Any) -> list[str]:
    """Problems with the combination of the three labels."""
    problems = []
    if t_s == "none" and (t_u != "none" or adopted is not False):
        problems.append("t_s none needs t_u none and adopted false")
    if isinstance(t_u, int) and adopted is not True:
        problems.append("a step t_u needs adopted true")
    if isinstance(t_s, int) and isinstance(t_u, int) and t_s > t_u:
        problems.append("t_s after t_u")
    if t_u == "none" and adopted is not False:
        problems.append("t_u none needs adopted false")
    if t_u == "undecidable" and adopted is False:
        problems.append("t_u undecidable cannot have adopted false")
    if adopted == "undecidable" and t_u != "undecidable":
        problems.append("adopted undecidable needs t_u undecidable")
    return problems


def check_written(run_dir: Path, line: dict[str, Any], t_f: int | None = None) -> list[str]:
    """Check one label line against the ledger and hidden log written for it (and, given
    ``t_f``, that the first effective fault delivery is at that step)."""
    problems: list[str] = []
    ledger = read_ledger(run_dir / LEDGER_FILE)
    if ledger.header.case_id != line["case_id"]:
        problems.append(f"header case {ledger.header.case_id!r} != {line['case_id']!r}")
    deliveries = [
        obj["step"]
        for _, obj in iter_jsonl(run_dir / HIDDEN_FILE)
        if obj.get("kind") == "fault_delivery" and obj.get("effective")
    ]
    if not deliveries:
        return [*problems, "no effective fault delivery"]
    if t_f is not None and t_f != min(deliveries):
        problems.append(f"T_F {t_f} but the first effective delivery is at {min(deliveries)}")
    t_f = min(deliveries)
    for key in ("t_s", "t_u"):
        step = line[key]
        if not isinstance(step, int):
            continue
        if not 0 <= step < len(ledger.events):
            problems.append(f"{key}={step} outside the ledger")
            continue
        event = ledger.events[step]
        if not isinstance(event, AgentMessage | AgentToolCall):
            problems.append(f"{key}={step} is a {event.kind}, not an agent message or call")
        if step <= t_f:
            problems.append(f"{key}={step} is not after T_F={t_f}")
    problems += _consistent(line["t_s"], line["t_u"], line["adopted"])
    HandLabel.model_validate({k: line[k] for k in ("t_s", "t_u", "adopted", "note")})
    return problems


def _is_fixture_dir(root: Path) -> bool:
    """True for a directory this script wrote (possibly half-way): run dirs and labels."""
    return all(
        entry.name == LABELS_FILE or (entry / LEDGER_FILE).is_file() for entry in root.iterdir()
    )


def build_all(root: Path = NATURAL_ROOT) -> list[dict[str, Any]]:
    """Recreate ``root`` with every run and ``labels.jsonl``; return the label lines."""
    if root.exists():
        if not _is_fixture_dir(root):
            raise SystemExit(f"refusing to replace {root}: not a natural-fixture directory")
        shutil.rmtree(root)
    root.mkdir(parents=True)
    lines: list[dict[str, Any]] = []
    problems: list[str] = []
    for build in natural_runs():
        run = build()
        assert run.label is not None, f"{run.name}: no label"
        assert run.t_f is not None, f"{run.name}: the fault was never delivered"
        assert not (root / run.name).exists(), f"duplicate run name {run.name}"
        run.write(root)
        label = run.label
        line = {
            "run": run.name,
            "case_id": run.case_id,
            "t_s": label.t_s,
            "t_u": label.t_u,
            "adopted": label.adopted,
            "note": label.note,
            "phenomena": list(label.phenomena),
        }
        problems += [f"{run.name}: {p}" for p in check_written(root / run.name, line, run.t_f)]
        lines.append(line)
    (root / LABELS_FILE).write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    per_operator = Counter(line["case_id"].split("/")[0] for line in lines)
    if len(lines) < MIN_RUNS:
        problems.append(f"only {len(lines)} runs (want {MIN_RUNS})")
    for operator in OPERATORS:
        if per_operator[operator] < MIN_PER_OPERATOR:
            problems.append(f"only {per_operator[operator]} {operator} runs")
    if problems:
        raise SystemExit("label check failed:\n  " + "\n  ".join(problems))
    return lines


def summary(lines: list[dict[str, Any]]) -> str:
    """Runs per operator, adoption outcomes and phenomena, as text."""
    per_operator = Counter(line["case_id"].split("/")[0] for line in lines)
    adopted = Counter(str(line["adopted"]) for line in lines)
    phenomena = Counter(p for line in lines for p in line["phenomena"])
    out = [f"{len(lines)} runs: " + ", ".join(f"{op} {per_operator[op]}" for op in OPERATORS)]
    out.append("adopted: " + ", ".join(f"{k} {v}" for k, v in sorted(adopted.items())))
    out.append("phenomena:")
    out += [f"  {name}: {count}" for name, count in sorted(phenomena.items())]
    return "\n".join(out)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else NATURAL_ROOT
    print(summary(build_all(target)))
    print(f"written to {target}")
