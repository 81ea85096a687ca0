"""τ² domains (airline, retail) as loaded, immutable base data shared by all episodes.

Loading a τ² database costs 25–190 ms; SSCBench loads each domain once per process and
hands every episode a copy-on-write view of it (:mod:`sscbench.envs.state`).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from sscbench.caching import shared_cache
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.errors import ConfigError

DOMAINS: tuple[str, ...] = ("airline", "retail")


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

    def task(self, task_id: str) -> Any:
        """Return the τ² ``Task`` with this id or raise :class:`ConfigError`."""
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise ConfigError(
            f"unknown {self.name} task {task_id!r}: ids run from "
            f"{self.tasks[0].id} to {self.tasks[-1].id} (see `sscbench run --help`)"
        )


# domain -> (database class, toolkit class, database path constant) in tau2.domains.<domain>
_TAU2_NAMES: dict[str, tuple[str, str, str]] = {
    "airline": ("FlightDB", "AirlineTools", "AIRLINE_DB_PATH"),
    "retail": ("RetailDB", "RetailTools", "RETAIL_DB_PATH"),
}


def _load(name: str) -> Domain:
    prepare_tau2()
    db_name, toolkit_name, path_name = _TAU2_NAMES[name]
    package = f"tau2.domains.{name}"
    env_mod = import_module(f"{package}.environment")
    db_class = getattr(import_module(f"{package}.data_model"), db_name)
    toolkit_class = getattr(import_module(f"{package}.tools"), toolkit_name)
    db_path = getattr(import_module(f"{package}.utils"), path_name)
    env = env_mod.get_environment(db=db_class.load(db_path))
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
