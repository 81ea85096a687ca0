"""Each operator's candidate counts (frames, valid contracts), cached with the package.

Screening every candidate of every operator takes 10–40 s on a busy 2-core machine, almost
all of it the validity checks that replay a gold write per candidate. The counts only change
when an operator or τ²'s data change, so ``sscbench/data/candidate_counts.json`` keeps them,
keyed by τ²'s version and data hashes and by each operator's version; ``sscbench operators
list`` reads the entries that still match and screens only the operators that have none (a
plugin, a new version). A test screens everything again and compares with the file, so a
change to an operator that forgot its version bump fails there, not in a user's table.

Regenerate after changing an operator: ``python -m sscbench.cases.candidate_counts``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from sscbench.envs.tau2_runtime import tau2_version

COUNTS_FILE = "candidate_counts.json"


@dataclass(frozen=True)
class CandidateCounts:
    """One operator's frames (every candidate its ``propose`` yields) and how many of them
    pass its own checks and the generic validity checks."""

    candidates: int
    valid: int
    cached: bool = False


def screen_counts(name: str) -> CandidateCounts:
    """Screen every candidate of operator ``name`` now."""
    from sscbench.fault_contracts.contract import FaultContract
    from sscbench.operators.registry import get_operator
    from sscbench.operators.screen import screen

    outcomes = list(screen(get_operator(name)))
    valid = sum(isinstance(o, FaultContract) for o in outcomes)
    return CandidateCounts(candidates=len(outcomes), valid=valid)


def _key() -> dict[str, Any]:
    from sscbench.cases.build import tau2_data_hashes

    return {"tau2_version": tau2_version(), "data_sha256": tau2_data_hashes()}


def _stored() -> dict[str, Any]:
    text = files("sscbench.data").joinpath(COUNTS_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def candidate_counts(names: list[str], *, recount: bool = False) -> dict[str, CandidateCounts]:
    """The counts of each operator in ``names``: from the cache where τ²'s data and the
    operator's version match it (unless ``recount``), otherwise screened now."""
    from sscbench.operators.registry import get_operator

    stored = {} if recount else _stored()
    entries: dict[str, Any] = stored.get("operators", {}) if stored.get("key") == _key() else {}
    out = {}
    for name in names:
        entry = entries.get(name)
        if entry is not None and entry.get("version") == get_operator(name).version:
            out[name] = CandidateCounts(entry["candidates"], entry["valid"], cached=True)
        else:
            out[name] = screen_counts(name)
    return out


def write_counts(path: Path) -> dict[str, Any]:
    """Screen every registered operator and write the cache file at ``path``."""
    from sscbench.operators.registry import get_operator, operator_names

    data = {
        "key": _key(),
        "operators": {
            name: {
                "version": get_operator(name).version,
                "candidates": counts.candidates,
                "valid": counts.valid,
            }
            for name in operator_names()
            for counts in (screen_counts(name),)
        },
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data


if __name__ == "__main__":
    target = Path(str(files("sscbench.data").joinpath(COUNTS_FILE)))
    write_counts(target)
    print(f"wrote {target}")
