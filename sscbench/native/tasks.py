"""The native suite's task templates: four time × integrity quadrants, five perturbations,
and three families beyond the signed link.

Each task follows *ContractBench*'s shape — an instruction, a server on a virtual clock,
a hidden verifier — and is generated from a template and a seed (the seed fixes the
artifact's bytes, the perturbation's cut or insertion point, and nothing else):

* **Q1** low pressure: a long TTL, an intact channel;
* **Q2** time-dominant: a short TTL and a required preparation step that outlasts it;
* **Q3** integrity-dominant: a long TTL, a channel that damages the link one way;
* **Q4** both: a short TTL, a preparation step, and a damaging channel.

Q3 and Q4 come once per perturbation kind, so the catalogue covers all five. Beside the
signed-link family, three families put a different observation under contract:

* **rate_limit** (Q2, time): the first ``issue_link`` answers "rate limited, retry after N
  seconds"; the refusal is valid until ``retry_at``, so calling again before then breaks it;
* **maintenance** (Q2, time): ``service_status`` says the export service is in maintenance
  until ``T``; an export call received before ``T`` breaks the status's window;
* **version_conflict** (Q3, integrity): ``update_report`` is an optimistic-concurrency
  write; another writer commits first, the agent's write is refused as a conflict, and the
  version it read is stale — a write not based on a fresh ``get_report`` breaks it.

The two time families also come in Q4, once per perturbation kind: their window and a
channel that damages the link, as the link family's Q4 pairs a short TTL with one.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs.clock import ClockSpec, CostModel
from sscbench.fault_contracts.perturbations import KINDS, PerturbationKind

Quadrant = Literal["Q1", "Q2", "Q3", "Q4"]
Family = Literal["link", "rate_limit", "maintenance", "version_conflict"]
FAMILIES: tuple[Family, ...] = ("link", "rate_limit", "maintenance", "version_conflict")
FAMILY_QUADRANT: dict[Family, Quadrant] = {
    "rate_limit": "Q2",
    "maintenance": "Q2",
    "version_conflict": "Q3",
}
"""Where each family beyond the link sits: a refusal's window is time, a version is state."""
LONG_TTL = 600.0
SHORT_TTL = 60.0
PREPARE_SECONDS = 90.0
"""The preparation step outlasts a short TTL: fetching first and preparing after fails."""
RETRY_AFTER = 30.0
"""A rate-limited call may be repeated this many virtual seconds after the refusal."""
MAINTENANCE_UNTIL = 120.0
"""The export service is in maintenance over ``[0, MAINTENANCE_UNTIL)`` virtual seconds."""
MAX_WAIT = 3600.0

CLOCK = ClockSpec(
    cost=CostModel(
        agent_message=10.0,
        user_message=20.0,
        tool_call={"read": 5.0, "write": 10.0, "generic": 5.0, "prepare": PREPARE_SECONDS},
    )
)


def _note(task_id: str, seed: int) -> str:
    return f"reviewed-{hashlib.sha256(f'{task_id}:{seed}'.encode()).hexdigest()[:8]}"


class NativeTask(BaseModel):
    """One generated task: what the agent is told and what the server and verifier use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    quadrant: Quadrant
    perturbation: PerturbationKind | None
    ttl_seconds: float = Field(gt=0)
    needs_prepare: bool
    seed: int
    instruction: str
    clock: ClockSpec = CLOCK
    family: Family = "link"

    @property
    def id(self) -> str:
        """The task's id under the name a τ² task gives it (a served run announces it)."""
        return self.task_id

    @property
    def note(self) -> str:
        """The note a version-conflict task asks the agent to add (deterministic per seed)."""
        return _note(self.task_id, self.seed)

    @property
    def other_note(self) -> str:
        """The note the concurrent writer commits before the agent's first write."""
        return f"audit-{self.seed}"

    def artifact(self, issue: int) -> str:
        """The ``issue``-th signed link the server issues (deterministic per seed)."""
        sig = hashlib.sha256(f"{self.task_id}:{self.seed}:{issue}".encode()).hexdigest()[:24]
        key = random.Random(f"{self.task_id}:{self.seed}").randrange(10**6, 10**7)
        # a percent-encoded separator in the signature, so re-encoding has bytes to change
        return (
            f"https://files.example/export/{key}?issue={issue}&sig={sig[:12]}%2F{sig[12:]}"
            f"&user=u{key % 997}"
        )

    def rng(self, issue: int) -> random.Random:
        """The perturbation's generator for the ``issue``-th delivery."""
        return random.Random(f"{self.task_id}:{self.seed}:{issue}:transport")


CHANNEL = " The link is also available by its `handle` through `resolve_link`."
INSTRUCTION = (
    "Export the report. Call `issue_link` to get a signed download link and pass it to "
    "`download` exactly as issued, byte for byte, while it is valid (see its `expires_at`; "
    "server time advances with every call as `clock` states).{prepare}{channel}"
)


def make_task(quadrant: Quadrant, kind: PerturbationKind | None, seed: int) -> NativeTask:
    """The task of a quadrant (and, for Q3/Q4, a perturbation kind) under a seed."""
    short = quadrant in ("Q2", "Q4")
    damaged = quadrant in ("Q3", "Q4")
    if damaged != (kind is not None):
        raise ValueError(f"{quadrant} takes {'a' if damaged else 'no'} perturbation kind")
    prepare = " Before downloading, call `prepare_export` once (it takes a while)." if short else ""
    channel = CHANNEL if damaged else ""
    name = quadrant if kind is None else f"{quadrant}-{kind}"
    return NativeTask(
        task_id=name,
        quadrant=quadrant,
        perturbation=kind,
        ttl_seconds=SHORT_TTL if short else LONG_TTL,
        needs_prepare=short,
        seed=seed,
        instruction=INSTRUCTION.format(prepare=prepare, channel=channel),
    )


FAMILY_INSTRUCTION: dict[Family, str] = {
    "rate_limit": INSTRUCTION.format(prepare="", channel="{channel}")
    + " `issue_link` is rate limited: when it answers that you are rate limited, call "
    "`wait` for the `retry_after_seconds` it states and call it again no earlier than its "
    "`retry_at`; a refusal is not a link.",
    "maintenance": INSTRUCTION.format(prepare="", channel="{channel}")
    + " First call `service_status`: while the service is in maintenance, no export call "
    "(`issue_link`, `download`) may reach it before the `until` time it states; use `wait` "
    "to let server time pass.",
    "version_conflict": (
        "Add the note `{note}` to the report's notes. Read the report with `get_report`, "
        "then call `update_report` with the full notes list and the `version` you read. "
        "Writes are optimistic: a write carrying a version that is no longer current is "
        "refused as a conflict, and the report must be read again before writing again."
    ),
}


TIME_FAMILIES: tuple[Family, ...] = ("rate_limit", "maintenance")
"""The families whose contract is a window: each also comes in Q4, with a damaging channel."""


def make_family_task(family: Family, seed: int, kind: PerturbationKind | None = None) -> NativeTask:
    """The task of a family beyond the signed link under a seed: in its own quadrant, or —
    a time family with a perturbation ``kind`` — in Q4, its window and a damaging channel."""
    if family == "link":
        raise ValueError("the link family's tasks come from make_task(quadrant, kind, seed)")
    if kind is not None and family not in TIME_FAMILIES:
        raise ValueError(f"{family} takes no perturbation kind; only {TIME_FAMILIES} do")
    quadrant: Quadrant = FAMILY_QUADRANT[family] if kind is None else "Q4"
    task_id = f"{quadrant}-{family}" if kind is None else f"Q4-{family}-{kind}"
    channel = "" if kind is None else CHANNEL
    return NativeTask(
        task_id=task_id,
        quadrant=quadrant,
        perturbation=kind,
        ttl_seconds=LONG_TTL,
        needs_prepare=False,
        seed=seed,
        instruction=FAMILY_INSTRUCTION[family].format(note=_note(task_id, seed), channel=channel),
        family=family,
    )


def catalogue(seed: int, families: Iterable[Family] = FAMILIES) -> list[NativeTask]:
    """Every task under one seed: Q1, Q2, and Q3 and Q4 once per perturbation kind (the
    link family), then one task per further family in its quadrant, then each time family
    in Q4 once per kind — keeping the families in ``families``."""
    wanted = set(families)
    tasks: list[NativeTask] = []
    if "link" in wanted:
        tasks += [make_task("Q1", None, seed), make_task("Q2", None, seed)]
        for quadrant in ("Q3", "Q4"):
            tasks += [make_task(quadrant, kind, seed) for kind in KINDS]
    tasks += [make_family_task(f, seed) for f in FAMILIES[1:] if f in wanted]
    for family in TIME_FAMILIES:
        if family in wanted:
            tasks += [make_family_task(family, seed, kind) for kind in KINDS]
    return tasks
