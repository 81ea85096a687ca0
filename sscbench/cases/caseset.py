"""Frozen, versioned case sets on disk: a manifest, one contract and one witness per case.

Files are written deterministically (no timestamps, stable key order), so rebuilding from
the same inputs is byte-identical. Loading checks every file against the manifest's hash.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import parse_contract
from sscbench.file_names import bounded
from sscbench.user_files import read_user_bytes, resolve_user_path, validation_problem
from sscbench.witnesses.record import Witness

MANIFEST = "manifest.json"
CASE_SET_SCHEMA_VERSION = 2


class CaseEntry(BaseModel):
    """One case in the manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    operator: str
    domain: str
    task_id: str
    cluster: str
    control: bool
    """A target-value control: kept for arrival, not in the primary analysis of adoption."""
    twin: str | None = None
    """(Schema 1 only: the case a ``v′ = v`` control twin was made from.)"""
    relevance: str | None = None
    """How directly the task concerns the target (``direct`` / ``indirect``), where the
    operator draws that line; the strict ItemOption sensitivity keeps ``direct`` cases."""
    contract: str
    contract_sha256: str
    witness: str
    witness_sha256: str


class Manifest(BaseModel):
    """What a case set is and how it was built."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = CASE_SET_SCHEMA_VERSION
    name: str
    version: str
    sscbench_version: str
    tau2_version: str
    data_sha256: dict[str, dict[str, str]]
    operators: dict[str, str]
    sampling: dict[str, Any]
    counts: dict[str, dict[str, int]]
    cases: tuple[CaseEntry, ...]
    semantic_review: dict[str, Any] | None = None
    """The final semantic review the set was built with (absent: none)."""


@dataclass(frozen=True)
class Case:
    """A loaded case: its manifest entry, contract and witness."""

    entry: CaseEntry
    contract: FaultContract
    witness: Witness


@dataclass(frozen=True)
class CaseSet:
    """A loaded case set."""

    root: Path
    manifest: Manifest
    cases: tuple[Case, ...]

    def by_operator(self, operator: str) -> list[Case]:
        """The cases of one operator, in manifest order."""
        return [c for c in self.cases if c.entry.operator == operator]


def slug(case_id: str) -> str:
    """A file-name-safe form of a case id, bounded in length (:mod:`sscbench.file_names`)."""
    return bounded(re.sub(r"[^A-Za-z0-9_.+-]", "_", case_id), case_id)


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256."""
    return hashlib.sha256(data).hexdigest()


def dump_json(obj: Any) -> str:
    """Deterministic, readable JSON text."""
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def default_case_set_path() -> Path:
    """The case set shipped inside the package."""
    return Path(str(files("sscbench.data").joinpath("cases")))


def load_case_set(root: Path | str | None = None) -> CaseSet:
    """Load a case set, checking every file against the manifest (default: the shipped one)."""
    root = Path(root) if root is not None else default_case_set_path()
    return _load(resolve_user_path(root, "case set"))


def _case_file(root: Path, name: str, what: str) -> bytes:
    """A file the manifest lists, read as a user file: missing, a link loop, a directory
    or a device is one line naming it and the way out."""
    path = root / name
    if not path.is_file() and not path.is_symlink() and not path.exists():
        raise ConfigError(
            f"case set {root}: {name} is missing ({MANIFEST} lists it as a {what}); restore "
            "it, or rebuild the case set with `sscbench build`"
        )
    return read_user_bytes(path, f"case set {what}")


@cache
def _load(root: Path) -> CaseSet:
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise ConfigError(
            f"{root} is not a case set: {MANIFEST} is missing (build one with `sscbench build`)"
        )
    try:
        data = read_user_bytes(manifest_path, "case set manifest")
        manifest = Manifest.model_validate_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{manifest_path}: not valid UTF-8 (byte {exc.start})") from None
    except ValidationError as exc:
        raise ConfigError(
            f"{manifest_path}: not a valid manifest ({validation_problem(exc)}); rebuild the "
            "case set with `sscbench build`"
        ) from None
    cases = []
    for entry in manifest.cases:
        contract_bytes = _case_file(root, entry.contract, "contract")
        witness_bytes = _case_file(root, entry.witness, "witness")
        if sha256_bytes(contract_bytes) != entry.contract_sha256:
            raise ConfigError(
                f"{root / entry.contract}: does not match the manifest's hash (edited?)"
            )
        if sha256_bytes(witness_bytes) != entry.witness_sha256:
            raise ConfigError(
                f"{root / entry.witness}: does not match the manifest's hash (edited?)"
            )
        contract = parse_contract(contract_bytes.decode("utf-8"), str(root / entry.contract))
        witness = Witness.model_validate_json(witness_bytes)
        cases.append(Case(entry=entry, contract=contract, witness=witness))
    return CaseSet(root=root, manifest=manifest, cases=tuple(cases))
