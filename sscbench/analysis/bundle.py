"""Results bundles: a run set's results in a directory others can read, compare and cite.

``sscbench export results RUNDIR --out BUNDLE`` writes::

    bundle.json      what the bundle is: its format version, the case set (name, version,
                     SHA-256 of its manifest), one card per configuration (agent and its
                     parameters, model, mitigation, user), and the SHA-256 of every file
    analysis.json    the analysis (the same document ``sscbench report`` writes)
    labels.jsonl     the run labels it was computed from
    ledgers/…        the runs' ledgers, only with ``--ledgers``

``sscbench compare BUNDLE…`` reads bundles and puts their configurations side by side; it
refuses bundles of different case sets (name or version), whose numbers are not about the
same cases, unless told ``--allow-mixed``. A bundle is a derived document: one of another
format version is refused with a line naming both versions.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench import __version__
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult, Rate
from sscbench.analysis.viewer.runfiles import ledger_paths, model_of
from sscbench.cases.caseset import CaseSet
from sscbench.errors import ConfigError
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.records.versioning import DerivedDocument
from sscbench.user_files import validation_problem

BUNDLE_FILE = "bundle.json"
ANALYSIS_FILE = "analysis.json"
LABELS_FILE = "labels.jsonl"
LEDGERS_DIR = "ledgers"
BUNDLE_SCHEMA_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseSetCard(_Frozen):
    """Which cases the numbers are about."""

    name: str
    version: str
    manifest_sha256: str


class ConfigurationCard(_Frozen):
    """One configuration as its ledgers describe it."""

    id: str
    agent: str
    params: dict[str, Any] = {}
    model: str
    mitigation: str | None = None
    user: str
    runs: int


class Bundle(_Frozen, DerivedDocument):
    """``bundle.json``."""

    SCHEMA: ClassVar[int] = BUNDLE_SCHEMA_VERSION
    REGENERATE: ClassVar[str] = "`sscbench export results RUNDIR --out BUNDLE`"

    schema_version: int = BUNDLE_SCHEMA_VERSION
    kind: str = "sscbench_results"
    sscbench_version: str
    case_set: CaseSetCard
    configurations: tuple[ConfigurationCard, ...]
    ledgers: bool
    files: dict[str, str]
    """Relative path → SHA-256 of every other file of the bundle."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def case_set_card(case_set: CaseSet) -> CaseSetCard:
    """The case set's name, version and manifest digest."""
    manifest = case_set.root / "manifest.json"
    digest = _sha256(manifest) if manifest.is_file() else ""
    return CaseSetCard(
        name=case_set.manifest.name, version=case_set.manifest.version, manifest_sha256=digest
    )


def _parsed(run_root: Path) -> Iterator[tuple[Path, Ledger]]:
    for path in ledger_paths(run_root):
        try:
            yield path, read_ledger(path)
        except Exception:  # an unreadable ledger is not one of the labelled runs' own
            continue


def configuration_cards(
    run_root: Path,
    run_ids: set[str],
    parsed: Iterable[tuple[Path, Ledger]] | None = None,
) -> tuple[list[ConfigurationCard], list[Path]]:
    """One card per configuration of the labelled runs (from its first ledger), and the
    ledgers of those runs (``parsed``: (ledger path, ledger) pairs the caller already read,
    in path order, so that no ledger is read twice)."""
    cards: dict[str, ConfigurationCard] = {}
    counts: dict[str, int] = {}
    paths: list[Path] = []
    for path, ledger in _parsed(run_root) if parsed is None else parsed:
        header = ledger.header
        if header.run_id not in run_ids:
            continue
        paths.append(path)
        configuration = header.configuration or header.agent.name
        counts[configuration] = counts.get(configuration, 0) + 1
        if configuration not in cards:
            cards[configuration] = ConfigurationCard(
                id=configuration,
                agent=header.agent.name,
                params=dict(header.agent.params),
                model=model_of(ledger),
                mitigation=None if header.mitigation is None else header.mitigation.name,
                user=header.user.name,
                runs=0,
            )
    return [
        card.model_copy(update={"runs": counts[name]}) for name, card in sorted(cards.items())
    ], paths


def write_bundle(
    out: Path,
    result: AnalysisResult,
    labels_file: Path,
    run_root: Path,
    case_set: CaseSet,
    run_ids: set[str],
    *,
    ledgers: bool = False,
    parsed: Iterable[tuple[Path, Ledger]] | None = None,
) -> Bundle:
    """Write a bundle into ``out`` (which must not exist or be empty); ``parsed``: the run
    set's (ledger path, ledger) pairs when the caller has them."""
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"--out {out} is not empty; a bundle needs a new directory")
    out.mkdir(parents=True, exist_ok=True)
    (out / ANALYSIS_FILE).write_text(result.model_dump_json(indent=1) + "\n", encoding="utf-8")
    shutil.copyfile(labels_file, out / LABELS_FILE)
    cards, paths = configuration_cards(run_root, run_ids, parsed)
    if ledgers:
        for path in paths:
            target = out / LEDGERS_DIR / path.parent.relative_to(run_root) / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    files = {
        p.relative_to(out).as_posix(): _sha256(p)
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != BUNDLE_FILE
    }
    bundle = Bundle(
        sscbench_version=__version__,
        case_set=case_set_card(case_set),
        configurations=tuple(cards),
        ledgers=ledgers,
        files=files,
    )
    (out / BUNDLE_FILE).write_text(bundle.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return bundle


def read_bundle(path: Path) -> tuple[Bundle, AnalysisResult]:
    """A bundle and its analysis; a missing or damaged file is one :class:`ConfigError`."""
    try:
        bundle = Bundle.model_validate_json((path / BUNDLE_FILE).read_bytes())
        analysis = AnalysisResult.model_validate_json((path / ANALYSIS_FILE).read_bytes())
    except OSError as exc:
        raise ConfigError(
            f"{path}: not a results bundle ({exc.strerror or exc}); write one with "
            "`sscbench export results RUNDIR --out BUNDLE`"
        ) from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: not a results bundle ({validation_problem(exc)})") from None
    return bundle, analysis


def check_same_case_set(bundles: Sequence[tuple[Path, Bundle]], allow_mixed: bool) -> None:
    """Refuse bundles of different case sets (name and version) unless allowed."""
    cards = {(b.case_set.name, b.case_set.version) for _, b in bundles}
    if len(cards) > 1 and not allow_mixed:
        listed = "; ".join(f"{p}: {b.case_set.name} {b.case_set.version}" for p, b in bundles)
        raise ConfigError(
            f"the bundles are of different case sets ({listed}); their numbers are not about "
            "the same cases: compare bundles of one case set, or pass --allow-mixed"
        )


def _value(rate: Rate | None) -> float | None:
    return None if rate is None else rate.value


def comparison_rows(bundles: Sequence[tuple[Path, Bundle, AnalysisResult]]) -> list[dict[str, Any]]:
    """One row per (bundle, configuration): pooled adoption per arrival stratum, task
    success under fault and clean, pass^k and adoption^k at the largest k."""
    rows = []
    for path, bundle, result in bundles:
        adoption = {r.configuration: r for r in result.overall_adoption}
        success = {r.configuration: r for r in result.task_success if r.operator == ALL_OPERATORS}
        passk: dict[tuple[str, str, str], Any] = {}
        for r in result.pass_k:
            if r.operator == ALL_OPERATORS:
                key = (r.metric, r.condition, r.configuration)
                if key not in passk or r.k > passk[key].k:
                    passk[key] = r
        for card in bundle.configurations:
            a = adoption.get(card.id)
            s = success.get(card.id)
            fault = passk.get(("success", "fault", card.id))
            avoid = passk.get(("no_adoption", "fault", card.id))
            rows.append(
                {
                    "bundle": path.name,
                    "case_set": f"{bundle.case_set.name} {bundle.case_set.version}",
                    "configuration": card.id,
                    "model": card.model,
                    "mitigation": card.mitigation or "—",
                    "a_p": None if a is None else a.a_p,
                    "before": None if a is None else a.a_before,
                    "after": None if a is None else a.a_after,
                    "absent": None if a is None else a.a_absent,
                    "success_fault": None if s is None else s.fault,
                    "success_clean": None if s is None else s.clean,
                    "pass_k": None if fault is None else (fault.k, fault.value),
                    "adoption_k": None if avoid is None else (avoid.k, avoid.value),
                }
            )
    return rows


def dumps(bundle: Bundle) -> str:
    """The bundle as JSON (for tests and tools)."""
    return json.dumps(bundle.model_dump(mode="json"), indent=1, sort_keys=True)
