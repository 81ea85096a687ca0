"""The native suite's hidden verifier: judge an episode from the server's log alone.

Never from the agent's own report. Every ``download`` the server received is checked
against the observation contract of the artifact it names: validity first (received
inside ``[issued, issued + ttl)``), then integrity (SHA-256 equal to an artifact as
issued). Every required contract must hold — a later successful download never offsets
an earlier violation — and the episode gets one primary label by severity: validity
(``EXPIRED_BEFORE_USE``) before integrity (``MUTATED_TOKEN``) before meta (``OTHER``:
no successful download; ``SUCCESS``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sscbench.envs.clock import in_window
from sscbench.fault_contracts.perturbations import digest
from sscbench.native.server import NativeServer
from sscbench.reconstruct.contract_labels import SEVERITY, Axis, PrimaryLabel


class Verdict(BaseModel):
    """The verifier's judgement of one episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    seed: int
    success: bool
    primary: PrimaryLabel
    axis: Axis
    labels: tuple[PrimaryLabel, ...]
    details: tuple[str, ...]


def verify(server: NativeServer) -> Verdict:
    """The verdict on the episode ``server`` served."""
    found: dict[PrimaryLabel, list[str]] = {}
    downloaded = False
    for entry in server.log:
        if entry.tool != "download":
            continue
        link = str(entry.arguments.get("link", ""))
        issued = next((i for i in server.issued if i.sha256 == digest(link)), None)
        # a damaged link is judged against the artifact it was damaged from: the latest
        # one issued before the call (its window decides validity, which comes first)
        judged = issued or next(
            (i for i in reversed(server.issued) if i.issued <= entry.time), None
        )
        if judged is not None and not in_window(judged.issued, judged.ttl, entry.time):
            found.setdefault("EXPIRED_BEFORE_USE", []).append(
                f"download at {entry.time:g} s: {judged.handle} valid in "
                f"[{judged.issued:g}, {judged.issued + judged.ttl:g})"
            )
        if issued is None:
            found.setdefault("MUTATED_TOKEN", []).append(
                f"download at {entry.time:g} s: SHA-256 {digest(link)[:12]}… matches no "
                "artifact as issued"
            )
        elif entry.answer.get("status") == "downloaded":
            downloaded = True
    violated = bool(found)
    if not downloaded:
        found["OTHER"] = ["no successful download"]
    elif not violated:
        found["SUCCESS"] = ["downloaded inside the window, byte for byte"]
    ordered = [(label, axis) for label, axis in SEVERITY if label in found]
    primary, axis = ordered[0]
    return Verdict(
        task_id=server.task.task_id,
        seed=server.task.seed,
        success=primary == "SUCCESS",
        primary=primary,
        axis=axis,
        labels=tuple(label for label, _ in ordered),
        details=tuple(d for label, _ in ordered for d in found[label]),
    )
