"""Parse a task selection such as ``all``, ``train``, ``0-9`` or ``1,3,10-12``."""

from __future__ import annotations

from sscbench.envs.domain import load_domain
from sscbench.errors import ConfigError


def parse_task_spec(domain: str, spec: str) -> list[str]:
    """Task ids selected by ``spec`` in the domain's task order, without duplicates.

    ``all`` selects every task; a τ² split name (``train``, ``test``, ``base``) selects that
    split; otherwise a comma-separated list of ids and inclusive numeric ranges ``a-b``.
    """
    loaded = load_domain(domain)
    ids = [task.id for task in loaded.tasks]
    spec = spec.strip()
    if spec == "all":
        return ids
    if spec in loaded.splits:
        chosen = set(loaded.splits[spec])
        return [i for i in ids if i in chosen]
    wanted: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            raise ConfigError(f"empty item in task selection {spec!r}")
        if "-" in part:
            lo, _, hi = part.partition("-")
            if not (lo.isdigit() and hi.isdigit()) or int(lo) > int(hi):
                raise ConfigError(
                    f"bad task range {part!r} in {spec!r}: write it as LOW-HIGH, e.g. 0-9"
                )
            wanted.extend(str(i) for i in range(int(lo), int(hi) + 1))
        else:
            wanted.append(part)
    known = set(ids)
    for task_id in wanted:
        if task_id not in known:
            raise ConfigError(
                f"unknown {domain} task {task_id!r} in {spec!r}: {domain} has tasks "
                f"{ids[0]}..{ids[-1]} and splits {', '.join(loaded.splits)}"
            )
    return list(dict.fromkeys(wanted))
