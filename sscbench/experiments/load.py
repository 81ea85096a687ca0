"""Read an experiment file into a resolved, fully checked :class:`Experiment`.

Everything that can be wrong with the file is found before anything runs, and every
problem is reported at once as ``file:line: key: message`` (a :class:`ConfigError`, exit
code 2). Relative paths in the file (the case set, ``cache_dir``, a ``server_model`` .gguf)
are relative to the file, so an experiment directory can be moved or shared as a whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sscbench.agents.registry import AGENTS, make_agent, register_builtin_agents
from sscbench.cases.caseset import Case, CaseSet, load_case_set
from sscbench.errors import ConfigError
from sscbench.experiments.arrival import ArrivalDesign, resolve_design
from sscbench.experiments.identity import (
    EXTERNAL_AGENT,
    PROVIDER_AGENTS,
    SIMULATOR_USER,
    configuration_hash,
    key_env,
)
from sscbench.experiments.source import (
    KeyPath,
    Problems,
    add_validation_errors,
    dotted,
    read_source,
)
from sscbench.experiments.spec import (
    BudgetEntry,
    CaseSelection,
    ExperimentFile,
    Gate,
)
from sscbench.llm.config import ProviderConfig
from sscbench.operators.registry import get_operator, operator_names
from sscbench.operators.variants import takes_variant, vary
from sscbench.user_files import resolve_user_path
from sscbench.users import USERS, make_user


@dataclass(frozen=True)
class Configuration:
    """A configuration under test, resolved: parameters with absolute paths, its hash."""

    id: str
    agent: str
    params: dict[str, Any]
    hash: str
    repetitions: int | None = None
    """How many of the experiment's repetitions it runs (r0 first); None: all."""
    mitigation: str | None = None
    """The mitigation the agent runs behind (docs/writing-a-mitigation.md); None: none."""

    @property
    def dirname(self) -> str:
        """Directory name of its runs: display id plus hash prefix (ids may be reused)."""
        return f"{self.id}-{self.hash[:8]}"


@dataclass(frozen=True)
class UserSetting:
    """The user every configuration talks to."""

    name: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment, ready to be planned."""

    source: Path
    name: str
    case_set: CaseSet
    cases: tuple[Case, ...]
    configurations: tuple[Configuration, ...]
    user: UserSetting
    seeds: tuple[int, ...]
    concurrency: int
    gate: Gate
    step_limits: dict[str, int]
    budget: BudgetEntry
    warnings: tuple[str, ...] = ()
    paired: tuple[str, ...] = ()
    """Interface variants each applicable case is also run under (paired checks)."""
    executor: str = "local"
    """Where episodes run (``local`` threads or ``ray``); operational, like concurrency."""
    executor_address: str | None = None
    arrival: ArrivalDesign | None = None
    """The arrival factor (``arrival_arms``), if the experiment has one."""
    records_configuration: bool = True
    """Whether ledger headers name the configuration (experiment files do; the runs of
    ``sscbench run --case`` and ``demo`` are named by their agent, as they always were)."""

    def step_limit(self, operator: str) -> int:
        """The model-visible step limit of the operator's runs (clean and faulted)."""
        return self.step_limits[operator]


def _resolve_paths(params: dict[str, Any], base: Path) -> dict[str, Any]:
    out = dict(params)
    cache_dir = out.get("cache_dir")
    if isinstance(cache_dir, str) and cache_dir:
        out["cache_dir"] = str((base / Path(cache_dir).expanduser()).resolve())
    model = out.get("server_model")  # a managed server's .gguf file (not a packaged name)
    if isinstance(model, str) and model.endswith(".gguf"):
        out["server_model"] = str((base / Path(model).expanduser()).resolve())
    return out


def _check_provider(problems: Problems, at: KeyPath, params: dict[str, Any]) -> bool:
    try:
        ProviderConfig.model_validate(params)
    except ValidationError as exc:
        add_validation_errors(problems, at, exc)
        return False
    return True


def _check_key(
    problems: Problems, warnings: list[str], at: KeyPath, provider: str, params: dict[str, Any]
) -> None:
    """Fail before the first run when a provider's key is missing (unless a cache may
    replay the runs: a replay needs no key)."""
    name = key_env(provider, params)
    if name is None or os.environ.get(name, "").strip():
        return
    message = f"environment variable {name} is not set; export the API key there"
    if params.get("cache_dir"):
        warnings.append(f"{dotted(at)}: {message} (only cached replies can be replayed)")
    else:
        problems.add(at, message)


def resolve_configuration(
    problems: Problems,
    warnings: list[str],
    at: KeyPath,
    ident: str,
    agent: str,
    params: dict[str, Any],
    user: UserSetting,
    repetitions: int | None = None,
) -> Configuration | None:
    """One configuration, checked as it will run (registry, provider parameters, key, the
    agent's own parameter checks) and hashed; None (with problems added) when it cannot run."""
    register_builtin_agents()
    if agent not in AGENTS:
        problems.add((*at, "agent"), f"unknown agent {agent!r}; known: {', '.join(AGENTS.names())}")
        return None
    if agent in PROVIDER_AGENTS:
        if not _check_provider(problems, (*at, "params"), params):
            return None
        _check_key(problems, warnings, (*at, "params"), agent, params)
    try:
        # Typed by the agent's parameter model, so "0.3" from a command line and 0.3 from
        # a file are one configuration with one hash.
        params = AGENTS.validate(agent, params)
        make_agent(agent, **params)  # the agent's own checks, before any run
    except Exception as exc:  # a TypeError names the unexpected parameter
        problems.add((*at, "params"), f"{agent} rejects these parameters: {exc}")
        return None
    digest = configuration_hash(agent, params, user.name, user.params)
    return Configuration(ident, agent, params, digest, repetitions)


MITIGATION_SEPARATOR = "+"
"""A mitigated configuration's display id: the base configuration's, ``+``, the mitigation."""


def with_mitigation(
    config: Configuration, name: str, user: UserSetting, problems: Problems | None = None
) -> Configuration:
    """``config`` behind the mitigation ``name``: id ``ID+NAME``, hashed with it. An
    unknown name is a problem (or a :class:`ConfigError` without ``problems``)."""
    from sscbench.agents.mitigations import MITIGATIONS

    text = None
    if name not in MITIGATIONS.names():
        text = f"unknown mitigation {name!r}; known: {', '.join(MITIGATIONS.names()) or 'none'}"
    elif config.agent == EXTERNAL_AGENT:
        text = (
            f"mitigation {name!r} cannot wrap {config.id}: an external agent runs its own "
            "loop outside SSCBench, so nothing can stand between it and its tools"
        )
    if text is not None:
        if problems is None:
            raise ConfigError(text)
        problems.add(("mitigations",), text)
    digest = configuration_hash(config.agent, config.params, user.name, user.params, name)
    return replace(
        config, id=f"{config.id}{MITIGATION_SEPARATOR}{name}", hash=digest, mitigation=name
    )


def _configurations(
    problems: Problems, warnings: list[str], spec: ExperimentFile, base: Path, user: UserSetting
) -> list[Configuration]:
    seen: dict[str, int] = {}
    out = []
    for index, entry in enumerate(spec.configurations):
        at: KeyPath = ("configurations", index)
        if entry.id in seen:
            problems.add(
                (*at, "id"), f"duplicate id {entry.id!r} (also configuration {seen[entry.id]})"
            )
        seen.setdefault(entry.id, index)
        if entry.repetitions is not None and entry.repetitions > spec.repetitions:
            problems.add(
                (*at, "repetitions"),
                f"{entry.repetitions} repetitions but the experiment plans {spec.repetitions}",
            )
        params = _resolve_paths(entry.params, base)
        config = resolve_configuration(
            problems, warnings, at, entry.id, entry.agent, params, user, entry.repetitions
        )
        if config is not None:
            out.append(config)
    return out


def resolve_user(
    problems: Problems, warnings: list[str], name: str, params: dict[str, Any]
) -> UserSetting:
    """The user setting, checked as it will run (registry, simulator provider and key)."""
    if name not in USERS:
        problems.add(("user", "name"), f"unknown user {name!r}; known: {', '.join(USERS.names())}")
        return UserSetting(name, params)
    try:
        params = USERS.validate(name, params)
    except ConfigError as exc:
        problems.add(("user", "params"), str(exc))
        return UserSetting(name, params)
    if name == SIMULATOR_USER:
        rest = {k: v for k, v in params.items() if k != "provider"}
        if _check_provider(problems, ("user", "params"), {"model": "gpt-4.1", **rest}):
            provider = str(params.get("provider", "openai"))
            _check_key(problems, warnings, ("user", "params"), provider, rest)
    try:
        make_user(name, **params)
    except Exception as exc:
        problems.add(("user", "params"), f"user {name} rejects these parameters: {exc}")
    return UserSetting(name, params)


def _cases(problems: Problems, sel: CaseSelection, base: Path) -> tuple[CaseSet | None, list[Case]]:
    root = base / Path(sel.path).expanduser() if sel.path else None
    try:
        case_set = load_case_set(root)
    except ConfigError as exc:
        problems.add(("cases", "path"), str(exc))
        return None, []
    cases = list(case_set.cases)
    operators = {c.entry.operator for c in cases}
    if sel.operators is not None:
        for j, name in enumerate(sel.operators):
            if name not in operators:
                problems.add(
                    ("cases", "operators", j),
                    f"no {name!r} cases in {case_set.root}; it has {', '.join(sorted(operators))}",
                )
        cases = [c for c in cases if c.entry.operator in sel.operators]
    if sel.ids is not None:
        known = {c.entry.case_id for c in case_set.cases}
        for j, case_id in enumerate(sel.ids):
            if case_id not in known:
                problems.add(("cases", "ids", j), f"no case {case_id!r} in {case_set.root}")
        cases = [c for c in cases if c.entry.case_id in sel.ids]
    if not sel.controls:
        cases = [c for c in cases if not c.entry.control]
    if sel.per_operator is not None:
        kept: dict[str, int] = {}
        chosen = []
        for case in cases:
            if kept.get(case.entry.operator, 0) < sel.per_operator:
                kept[case.entry.operator] = kept.get(case.entry.operator, 0) + 1
                chosen.append(case)
        cases = chosen
    if not cases:
        problems.add(("cases",), "selects no case")
    return case_set, cases


def _paired(problems: Problems, variants: tuple[str, ...], cases: list[Case]) -> list[Case]:
    """The selected cases under each paired-check variant that applies to them (controls
    are left out: they are not in the primary analysis the checks speak to)."""
    out: list[Case] = []
    for j, variant in enumerate(variants):
        made = 0
        for case in cases:
            if case.entry.control or not takes_variant(case.entry.operator, variant):
                continue
            contract = vary(case.contract, variant)
            entry = case.entry.model_copy(update={"case_id": contract.contract_id})
            out.append(Case(entry=entry, contract=contract, witness=case.witness))
            made += 1
        if not made:
            problems.add(("checks", "paired", j), f"no selected case takes variant {variant!r}")
    return out


def _step_limits(
    problems: Problems, spec: ExperimentFile, case_set: CaseSet | None, cases: list[Case]
) -> dict[str, int]:
    registered = set(operator_names())
    used = {c.entry.operator for c in cases} & registered
    limits = {**{name: get_operator(name).step_limit for name in used}, **spec.step_limits}
    known = registered | (set(case_set.manifest.operators) if case_set else set())
    for name in spec.step_limits:
        if case_set is not None and name not in known:
            problems.add(
                ("step_limits", name),
                f"unknown operator {name!r}; known: {', '.join(sorted(known))}",
            )
    for name in sorted({c.entry.operator for c in cases} - set(limits)):
        problems.add(
            ("step_limits",), f"no step limit for operator {name!r}; set step_limits.{name}"
        )
    return limits


def _check_external(problems: Problems, spec: ExperimentFile) -> None:
    """What an external agent (one in its own loop, served over MCP) cannot be run with."""
    for index, entry in enumerate(spec.configurations):
        if entry.agent != "external":
            continue
        at: KeyPath = ("configurations", index, "params")
        if spec.arrival_arms:
            problems.add(
                at,
                "arrival interventions put notices into an in-process agent's context; an "
                "external agent's client would never see them (drop arrival_arms for it)",
            )
        if entry.params.get("transport") == "stdio":
            problems.add(
                at, "stdio serves one run per process (sscbench serve --transport stdio)"
            )
        if spec.executor == "ray" and not entry.params.get("command"):
            problems.add(
                at,
                "waiting for clients needs the local executor (clients connect to this "
                "machine); give a command to launch per run on Ray",
            )


def load_experiment(path: Path) -> Experiment:
    """Parse, validate and resolve an experiment file (nothing is written)."""
    source = resolve_user_path(path, "experiment file")
    data, lines = read_source(path)
    problems = Problems(path, lines)
    if not isinstance(data, dict):
        problems.add((), "the file must hold a table of settings")
        problems.raise_if_any()
    try:
        spec = ExperimentFile.model_validate(data)
    except ValidationError as exc:
        add_validation_errors(problems, (), exc)
        problems.raise_if_any()
        raise AssertionError("unreachable") from exc
    seeds = spec.seeds if spec.seeds is not None else tuple(range(spec.repetitions))
    if len(seeds) != spec.repetitions:
        problems.add(("seeds",), f"{len(seeds)} seeds for {spec.repetitions} repetitions")
    elif len(set(seeds)) != len(seeds):
        problems.add(("seeds",), "seeds must be distinct (a repeated seed is a replay)")
    base = source.parent
    warnings: list[str] = []
    user = resolve_user(problems, warnings, spec.user.name, _resolve_paths(spec.user.params, base))
    configurations = _configurations(problems, warnings, spec, base, user)
    configurations += [
        with_mitigation(config, name, user, problems)
        for name in dict.fromkeys(spec.mitigations)
        for config in list(configurations)
    ]
    case_set, cases = _cases(problems, spec.cases, base)
    cases += _paired(problems, spec.checks.paired, cases)
    limits = _step_limits(problems, spec, case_set, cases)
    a = spec.arrival
    design = resolve_design(problems, spec.arrival_arms, a.interface, a.k, a.seed, cases)
    _check_external(problems, spec)
    problems.raise_if_any()
    assert case_set is not None
    return Experiment(
        source=source,
        name=spec.name or source.stem,
        case_set=case_set,
        cases=tuple(cases),
        configurations=tuple(configurations),
        user=user,
        seeds=tuple(seeds),
        concurrency=spec.concurrency,
        executor=spec.executor,
        executor_address=spec.ray_address,
        gate=spec.gate,
        step_limits=limits,
        budget=spec.budget,
        warnings=tuple(warnings),
        paired=tuple(spec.checks.paired),
        arrival=design,
    )
