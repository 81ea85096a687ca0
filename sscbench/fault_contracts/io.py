"""Contract files: human-readable YAML, loaded safely, errors pinned to file and line.

Loading uses PyYAML's safe loader (no object construction, no ``eval``; over libyaml when
PyYAML has it, see :func:`safe_load`) and validates the
result with the pydantic model; a validation error is mapped back to the line of the
offending key through the YAML node tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.refutation import get_relation
from sscbench.records.ledger import Ledger
from sscbench.user_files import read_user_bytes, validation_problem


def dump_contract(contract: FaultContract) -> str:
    """YAML text of a contract with a stable key order (the model's field order)."""
    text: str = yaml.safe_dump(
        contract.model_dump(mode="json"), sort_keys=False, allow_unicode=True, width=100
    )
    return text


def write_contract(contract: FaultContract, path: Path) -> None:
    """Write a contract file (creating parent directories)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_contract(contract), encoding="utf-8")


def _line_of(node: Any, loc: tuple[int | str, ...]) -> int:
    """Line of the key (or list item) that pydantic's error location names.

    Tokens that are not in the document (a union's tag, e.g. ``observation_rewrite``) are
    skipped; a mapping entry is reported at its key, since a block value starts below it.
    """
    line: int = node.start_mark.line + 1
    for token in loc:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if k.value == str(token)), None)
            if match is None:
                continue
            line = match[0].start_mark.line + 1
            node = match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(token, int):
            if token >= len(node.value):
                return line
            node = node.value[token]
            line = node.start_mark.line + 1
    return line


FAST_LOADER: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
"""PyYAML's safe loader over libyaml, where PyYAML was built with it (the same resolver
and constructors, the scanning and parsing in C)."""


def safe_load(text: str) -> Any:
    """``yaml.safe_load``'s data, scanned by libyaml where PyYAML has it: about 20 times
    faster, and loading the shipped case set's 334 contracts took 3 s of CPU the pure-Python
    way. Not for a text holding a tab: libyaml takes one inside a plain scalar
    (``s<TAB>chema_version``) where the pure-Python scanner refuses the file. A text
    libyaml refuses is parsed again the pure-Python way, so a bad file fails with the same
    message and line as before."""
    if FAST_LOADER is not None and "\t" not in text:
        try:
            return yaml.load(text, Loader=FAST_LOADER)  # a safe loader: no object tags
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def _not_yaml(exc: yaml.YAMLError, source: str) -> ConfigError:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return ConfigError(f"{source}:{line}: not valid YAML ({problem})")


def parse_contract(text: str, source: str = "<contract>") -> FaultContract:
    """Parse and validate contract YAML; raise :class:`ConfigError` naming source:line."""
    try:
        data = safe_load(text)
    except RecursionError:
        raise ConfigError(f"{source}:1: nested too deeply to be a contract") from None
    except yaml.YAMLError as exc:
        raise _not_yaml(exc, source) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:1: a contract must be a mapping, found {type(data).__name__}")
    try:
        return FaultContract.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        try:  # the pure-Python scanner's nodes: a text only libyaml reads is no YAML here
            node = yaml.compose(text)
        except yaml.YAMLError as not_yaml:
            raise _not_yaml(not_yaml, source) from None
        line = _line_of(node, loc)
        where = ".".join(str(p) for p in loc) or "(top level)"
        raise ConfigError(f"{source}:{line}: {where}: {first['msg']}") from None


def check_runnable(contract: FaultContract, source: str) -> None:
    """Refuse a contract this installation cannot run or label: an unknown domain or task
    (the run would end in a harness error), a refutation relation no installed package
    registers (it would run, then block ``reconstruct``), or one that contradicts what a
    contract means (:mod:`sscbench.fault_contracts.coherence`: it would run and mean
    nothing)."""
    from sscbench.envs.domain import load_domain  # τ²: only when a contract is loaded

    try:
        load_domain(contract.domain).task(contract.task_id)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    try:
        get_relation(contract.refutation.relation)
    except ConfigError as exc:
        raise ConfigError(f"{source}: refutation.relation: {exc}") from None
    from sscbench.fault_contracts.coherence import contradictions

    found = contradictions(contract)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise ConfigError(f"{source}: contradictory contract: {found[0]}{more}")


def load_contract(path: Path | str) -> FaultContract:
    """Read a contract file and check that it can run here (:func:`check_runnable`)."""
    path = Path(path)
    try:
        text = read_user_bytes(path, "contract").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid UTF-8 (byte {exc.start}); a contract is a YAML text file"
        ) from None
    contract = parse_contract(text, str(path))
    check_runnable(contract, str(path))
    return contract


def ledger_contract(ledger: Ledger) -> FaultContract | None:
    """The fault contract a ledger's header embeds, typed (``None`` for a clean run).

    The one place a header's contract is validated: the records layer stores it as data
    (it sits below the contracts), and every reader takes it from here, so a damaged
    contract, or one naming a refutation relation this installation does not have (a
    plugin not installed here), is one :class:`ConfigError` naming the ledger.
    """
    fault = ledger.header.fault
    if fault is None:
        return None
    try:
        contract = FaultContract.model_validate(fault)
    except ValidationError as exc:
        raise ConfigError(
            f"{ledger.path}: the header's fault is not a valid contract ({validation_problem(exc)})"
        ) from None
    try:
        get_relation(contract.refutation.relation)
    except ConfigError as exc:
        raise ConfigError(
            f"{ledger.path}: {exc} (install the plugin that provides it to label this run)"
        ) from None
    return contract
