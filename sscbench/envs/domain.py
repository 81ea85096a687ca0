"""τ² domains (airline, retail, telecom) as loaded, immutable base data shared by all episodes.

Loading a τ² database costs 25–190 ms; SSCBench loads each domain once per process and
hands every episode a copy-on-write view of it (:mod:`sscbench.envs.state`). Telecom is
*dual-control*: besides the agent's database it has the customer's device (τ²'s user
database, read and changed by the user's own tools), and τ²'s ``sync_tools`` keeps the two
consistent after every call; its tasks are τ²'s ``base`` set (114 tasks), the one τ²'s
leaderboard reports.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import Any

from sscbench.caching import shared_cache
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.errors import ConfigError

DOMAINS: tuple[str, ...] = ("airline", "retail", "telecom")

DUAL_CONTROL: frozenset[str] = frozenset({"telecom"})
"""Domains whose user holds tools of their own (τ²'s user database and user toolkit)."""


@dataclass(frozen=True)
class Domain:
    """One τ² domain: its base database, toolkit class, policy text and tasks.

    ``base_db`` must never be mutated; episodes read it through copy-on-write views.
    """

    name: str
    base_db: Any
    db_class: type[Any]
    toolkit_class: type[Any]
    policy: str
    tasks: tuple[Any, ...]
    splits: dict[str, list[str]]
    collections: tuple[str, ...]
    user_base_db: Any = None
    """The customer's device at the start of every task (dual-control domains only)."""
    user_toolkit_class: type[Any] | None = None
    environment_class: type[Any] | None = None
    """τ²'s environment class, whose ``sync_tools`` SSCBench runs after every call."""

    @property
    def dual_control(self) -> bool:
        """True when the user has tools (telecom)."""
        return self.user_toolkit_class is not None

    @cached_property
    def _by_id(self) -> dict[str, Any]:
        """Each task under its id (the first, were two to share one), once per domain:
        every episode looks its task up."""
        by_id: dict[str, Any] = {}
        for task in self.tasks:
            by_id.setdefault(task.id, task)
        return by_id

    def task(self, task_id: str) -> Any:
        """Return the τ² ``Task`` with this id or raise :class:`ConfigError`."""
        task = self._by_id.get(task_id)
        if task is not None:
            return task
        raise ConfigError(
            f"unknown {self.name} task {task_id!r}: ids run from "
            f"{self.tasks[0].id} to {self.tasks[-1].id} (see `sscbench run --help`)"
        )


# domain -> (database class, toolkit class, database path constant) in tau2.domains.<domain>
_TAU2_NAMES: dict[str, tuple[str, str, str]] = {
    "airline": ("FlightDB", "AirlineTools", "AIRLINE_DB_PATH"),
    "retail": ("RetailDB", "RetailTools", "RETAIL_DB_PATH"),
    "telecom": ("TelecomDB", "TelecomTools", "TELECOM_DB_PATH"),
}

TELECOM_TASK_SET = "base"
"""τ²'s telecom task set SSCBench runs (``full`` has 2,285 generated combinations)."""


def _load(name: str) -> Domain:
    prepare_tau2()
    db_name, toolkit_name, path_name = _TAU2_NAMES[name]
    package = f"tau2.domains.{name}"
    env_mod = import_module(f"{package}.environment")
    db_class = getattr(import_module(f"{package}.data_model"), db_name)
    toolkit_class = getattr(import_module(f"{package}.tools"), toolkit_name)
    db_path = getattr(import_module(f"{package}.utils"), path_name)
    env = env_mod.get_environment(db=load_database(db_class, db_path))
    if name in DUAL_CONTROL:
        base = set(env_mod.get_tasks_split()[TELECOM_TASK_SET])
        tasks = _telecom_tasks(env_mod, base)
        splits = {
            split: ids for split, ids in env_mod.get_tasks_split().items() if set(ids) <= base
        }
        return Domain(
            name=name,
            base_db=env.tools.db,
            db_class=db_class,
            toolkit_class=toolkit_class,
            policy=env.policy,
            tasks=tasks,
            splits=splits,
            collections=tuple(db_class.model_fields),
            user_base_db=env.user_tools.db,
            user_toolkit_class=type(env.user_tools),
            environment_class=type(env),
        )
    return Domain(
        name=name,
        base_db=env.tools.db,
        db_class=db_class,
        toolkit_class=toolkit_class,
        policy=env.policy,
        tasks=tuple(env_mod.get_tasks(None)),
        splits=env_mod.get_tasks_split(),
        collections=tuple(db_class.model_fields),
    )


def load_database(db_class: Any, path: Any) -> Any:
    """τ²'s ``DB.load`` of ``path``; a JSON file is parsed and validated by pydantic in one
    pass (``model_validate_json``), the same database in about a third of the time for
    retail's 1,551 entities; other formats (telecom's TOML) go through τ²'s loader."""
    if str(path).endswith(".json"):
        with open(path, "rb") as fh:
            return db_class.model_validate_json(fh.read())
    return db_class.load(path)


def _telecom_tasks(env_mod: Any, ids: set[str]) -> tuple[Any, ...]:
    """τ²'s telecom tasks named in ``ids``, in the task file's order, each validated by τ²'s
    ``Task`` model as its ``get_tasks`` does — but only those: ``get_tasks`` validates all
    2,285 generated tasks (twice) to keep 114, half a second of every process that loads
    telecom."""
    from tau2.data_model.tasks import Task
    from tau2.utils import load_file

    raw = load_file(env_mod.TELECOM_TASK_SET_PATH)
    if isinstance(raw, dict) and "tasks" in raw:
        raw = raw["tasks"]
    return tuple(Task.model_validate(task) for task in raw if task["id"] in ids)


def database_fields(name: str) -> tuple[str, ...]:
    """The collections of the domain's τ² database, read from its class: a reader that only
    asks which collections exist (the invariant oracle, before mining) skips loading the
    database, which is most of a process's memory for telecom (about 55 MiB)."""
    if name not in _TAU2_NAMES:
        return load_domain(name).collections  # an unknown name is one clear ConfigError there
    prepare_tau2()
    db_class = getattr(import_module(f"tau2.domains.{name}.data_model"), _TAU2_NAMES[name][0])
    return tuple(db_class.model_fields)


def bare_toolkit(name: str) -> Any:
    """The domain's τ² toolkit on no database: the tools' kinds and schemas are
    class-level, so a reader that only asks those (reconstruction) skips the 25–190 ms
    database and task load."""
    if name not in _TAU2_NAMES:
        domain = load_domain(name)  # an unknown name is one clear ConfigError there
        return domain.toolkit_class(domain.base_db)
    prepare_tau2()
    return getattr(import_module(f"tau2.domains.{name}.tools"), _TAU2_NAMES[name][1])(None)


@shared_cache
def load_domain(name: str) -> Domain:
    """Load (once per process) and return the named τ² domain."""
    if name not in DOMAINS:
        raise ConfigError(f"unknown domain {name!r}: choose one of {', '.join(DOMAINS)}")
    domain = _load(name)
    # The base database is ~10^5 long-lived objects; moving them out of the cyclic GC's
    # generations makes every later allocation-heavy step 2-3x faster (measured, see
    # benchmarks/README.md) and is safe because they live as long as the process.
    gc.collect()
    gc.freeze()
    return domain
