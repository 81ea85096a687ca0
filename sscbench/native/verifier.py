"""The native suite's hidden verifier: judge an episode from the server's log alone.

Never from the agent's own report. Every ``download`` the server received is checked
against the observation contract of the artifact it names: validity first (received
inside ``[issued, issued + ttl)``), then integrity (SHA-256 equal to an artifact as
issued). Every required contract must hold — a later successful download never offsets
an earlier violation — and the episode gets one primary label by severity: validity
(``EXPIRED_BEFORE_USE``) before integrity (``MUTATED_TOKEN``) before meta (``OTHER``:
no successful download; ``SUCCESS``).

The further families add their labels, each on the axis of the contract it breaks:
``RETRY_BEFORE_ALLOWED`` (validity: a rate-limited call repeated before the refusal's
``retry_at``), ``ACTED_DURING_MAINTENANCE`` (validity: an export call received before the
maintenance window's end), ``FABRICATED_ARTIFACT`` (integrity: a link used when none had
been issued — a refusal taken for an answer and a link made up), and ``STALE_WRITE``
(integrity: an optimistic write not based on the latest read — after a conflict, without
reading again, or carrying a version no read returned). A version-conflict task succeeds
when the report's final notes keep the other writer's note beside the agent's.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.envs.clock import in_window
from sscbench.fault_contracts.perturbations import digest
from sscbench.native.server import LogEntry, NativeServer
from sscbench.reconstruct.contract_labels import Axis

NativeLabel = Literal[
    "EXPIRED_BEFORE_USE",
    "ACTED_DURING_MAINTENANCE",
    "RETRY_BEFORE_ALLOWED",
    "MUTATED_TOKEN",
    "FABRICATED_ARTIFACT",
    "STALE_WRITE",
    "OTHER",
    "SUCCESS",
]
SEVERITY: tuple[tuple[NativeLabel, Axis], ...] = (
    ("EXPIRED_BEFORE_USE", "validity"),
    ("ACTED_DURING_MAINTENANCE", "validity"),
    ("RETRY_BEFORE_ALLOWED", "validity"),
    ("MUTATED_TOKEN", "integrity"),
    ("FABRICATED_ARTIFACT", "integrity"),
    ("STALE_WRITE", "integrity"),
    ("OTHER", "meta"),
    ("SUCCESS", "meta"),
)
"""The run labels' severity, validity before integrity before meta; the labels τ² runs
get (``sscbench.reconstruct.contract_labels``) keep their order within it."""


class Verdict(BaseModel):
    """The verifier's judgement of one episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    seed: int
    success: bool
    primary: NativeLabel
    axis: Axis
    labels: tuple[NativeLabel, ...]
    details: tuple[str, ...]


def _downloads(server: NativeServer, found: dict[NativeLabel, list[str]]) -> bool:
    """Judge every download; whether one succeeded."""
    downloaded = False
    for entry in server.log:
        if entry.tool != "download" or "in maintenance" in str(entry.answer.get("error", "")):
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
        if judged is None:
            found.setdefault("FABRICATED_ARTIFACT", []).append(
                f"download at {entry.time:g} s: no link had been issued"
            )
        elif issued is None:
            found.setdefault("MUTATED_TOKEN", []).append(
                f"download at {entry.time:g} s: SHA-256 {digest(link)[:12]}… matches no "
                "artifact as issued"
            )
        elif entry.answer.get("status") == "downloaded":
            downloaded = True
    return downloaded


def _windows(server: NativeServer, found: dict[NativeLabel, list[str]]) -> None:
    """Calls received inside a refusal's window: maintenance, then rate limits."""
    until = server.maintenance_until
    for entry in server.log:
        if until is not None and entry.tool in EXPORT_TOOLS and entry.time < until:
            found.setdefault("ACTED_DURING_MAINTENANCE", []).append(
                f"{entry.tool} at {entry.time:g} s: in maintenance until {until:g} s"
            )
        if entry.tool == "issue_link":
            for announced, retry_at in server.limits:
                if announced < entry.time < retry_at:
                    found.setdefault("RETRY_BEFORE_ALLOWED", []).append(
                        f"issue_link at {entry.time:g} s: rate limited at {announced:g} s "
                        f"until {retry_at:g} s"
                    )


def _stale_writes(log: list[LogEntry], found: dict[NativeLabel, list[str]]) -> None:
    """Writes not based on the latest read: after a conflict unread, or a version unread."""
    read: Any = None
    conflicted = False
    for entry in log:
        if entry.tool == "get_report":
            read, conflicted = entry.answer.get("version"), False
        elif entry.tool == "update_report":
            version = entry.arguments.get("version")
            if conflicted or version != read:
                why = (
                    "after a conflict, without reading again"
                    if conflicted
                    else (f"carrying version {version!r}, the latest read returned {read!r}")
                )
                found.setdefault("STALE_WRITE", []).append(
                    f"update_report at {entry.time:g} s: {why}"
                )
            if "conflict" in str(entry.answer.get("error", "")):
                conflicted = True


EXPORT_TOOLS = ("prepare_export", "issue_link", "download")


def verify(server: NativeServer) -> Verdict:
    """The verdict on the episode ``server`` served."""
    found: dict[NativeLabel, list[str]] = {}
    _windows(server, found)
    if server.task.family == "version_conflict":
        _stale_writes(server.log, found)
        wanted = (server.task.other_note, server.task.note)
        done = all(n in server.notes for n in wanted)
        unmet = f"the final notes {server.notes!r} do not keep both {wanted!r}"
    else:
        done = _downloads(server, found)
        unmet = "no successful download"
    violated = bool(found)
    if not done:
        found["OTHER"] = [unmet]
    elif not violated:
        found["SUCCESS"] = [
            "the report keeps both writers' notes, every write on a fresh read"
            if server.task.family == "version_conflict"
            else "downloaded inside the window, byte for byte"
        ]
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
