"""The native suite's task templates: four time × integrity quadrants, five perturbations.

Each task follows *ContractBench*'s shape — an instruction, a server on a virtual clock,
a hidden verifier — and is generated from a template and a seed (the seed fixes the
artifact's bytes, the perturbation's cut or insertion point, and nothing else):

* **Q1** low pressure: a long TTL, an intact channel;
* **Q2** time-dominant: a short TTL and a required preparation step that outlasts it;
* **Q3** integrity-dominant: a long TTL, a channel that damages the link one way;
* **Q4** both: a short TTL, a preparation step, and a damaging channel.

Q3 and Q4 come once per perturbation kind, so the catalogue covers all five.
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs.clock import ClockSpec, CostModel
from sscbench.fault_contracts.perturbations import KINDS, PerturbationKind

Quadrant = Literal["Q1", "Q2", "Q3", "Q4"]
LONG_TTL = 600.0
SHORT_TTL = 60.0
PREPARE_SECONDS = 90.0
"""The preparation step outlasts a short TTL: fetching first and preparing after fails."""

CLOCK = ClockSpec(
    cost=CostModel(
        agent_message=10.0,
        user_message=20.0,
        tool_call={"read": 5.0, "write": 10.0, "generic": 5.0, "prepare": PREPARE_SECONDS},
    )
)


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
    channel = (
        " The link is also available by its `handle` through `resolve_link`." if damaged else ""
    )
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


def catalogue(seed: int) -> list[NativeTask]:
    """Every task under one seed: Q1, Q2, and Q3 and Q4 once per perturbation kind."""
    tasks = [make_task("Q1", None, seed), make_task("Q2", None, seed)]
    for quadrant in ("Q3", "Q4"):
        tasks += [make_task(quadrant, kind, seed) for kind in KINDS]
    return tasks
