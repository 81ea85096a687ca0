"""Solutions of the native tasks: the reference (the oracle check) and scripted mistakes.

A solution sees only what the server answers and the task's instruction. The reference
follows the instruction as a careful agent would: it prepares first when asked, then
fetches the link, takes it byte for byte from the server-side store by its handle, and
uses it at once — re-fetching once if the server still answers that it expired; it checks
the service's status and waits out a maintenance window or a rate limit's ``retry_after``
when told to; and it re-reads a versioned record after a conflict before writing again.
The other behaviours each break one contract, so the verifier's truth table can be checked;
each plays the families it has a mistake for (:data:`PLAYS`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Protocol

from sscbench.native.server import NativeServer
from sscbench.native.tasks import FAMILIES, Family, NativeTask, catalogue
from sscbench.native.verifier import Verdict, verify


class Service(Protocol):
    """What a solution calls: the native server's tools (a :class:`NativeServer` in this
    process, or a client's proxy of the same tools served over MCP) and the task."""

    @property
    def task(self) -> NativeTask:
        """The task being played (its instruction, and the note a version task adds)."""
        ...

    def prepare_export(self) -> str: ...
    def issue_link(self) -> str: ...
    def resolve_link(self, handle: str) -> str: ...
    def download(self, link: str) -> str: ...
    def wait(self, seconds: float) -> str: ...
    def service_status(self) -> str: ...
    def get_report(self) -> str: ...
    def update_report(self, version: int, notes: list[str]) -> str: ...


Solution = Callable[[Service], None]


def _issue(server: Service) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(server.issue_link())
    return data


def _seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def reference(server: Service) -> None:
    """Prepare first, fetch, copy the link from the store by handle, use it at once; wait
    out what the server says must pass first; re-read after a write conflict."""
    instruction = server.task.instruction
    if "update_report" in instruction:
        _write_on_fresh_read(server)
        return
    if "service_status" in instruction:
        status = json.loads(server.service_status())
        if status["status"] == "maintenance":
            server.wait(_seconds_between(status["server_time"], status["until"]))
    if "prepare_export" in instruction:
        server.prepare_export()
    for _ in range(3):
        data = _issue(server)
        if "retry_after_seconds" in data:
            server.wait(float(data["retry_after_seconds"]))
            continue
        link = json.loads(server.resolve_link(data["handle"]))["link"]
        answer = json.loads(server.download(link))
        if "expired" not in str(answer.get("error", "")):
            return


def _write_on_fresh_read(server: Service) -> None:
    for _ in range(3):
        report = json.loads(server.get_report())
        answer = json.loads(
            server.update_report(report["version"], [*report["notes"], server.task.note])
        )
        if answer.get("status") == "saved":
            return


def fetch_then_prepare(server: Service) -> None:
    """Fetches the link too early: the preparation step outlasts a short TTL."""
    data = _issue(server)
    link = json.loads(server.resolve_link(data["handle"]))["link"]
    server.prepare_export()
    server.download(link)


def copies_delivered(server: Service) -> None:
    """Uses the ``link`` field as delivered, damaged or not."""
    if "prepare_export" in server.task.instruction:
        server.prepare_export()
    server.download(_issue(server)["link"])


def trusts_display(server: Service) -> None:
    """Uses the display text shown with the link as if it were the link."""
    if "prepare_export" in server.task.instruction:
        server.prepare_export()
    server.download(_issue(server)["text"])


def expired_and_damaged(server: Service) -> None:
    """Breaks both contracts at once: validity must take precedence in the label."""
    data = _issue(server)
    server.prepare_export()
    server.download(data["link"] + "#")


def gives_up(server: Service) -> None:
    """Takes a refusal for the final answer: a rate limit or a maintenance notice ends it."""
    instruction = server.task.instruction
    if "service_status" in instruction and (
        json.loads(server.service_status())["status"] == "maintenance"
    ):
        return
    data = _issue(server)
    if "error" in data:
        return
    server.download(json.loads(server.resolve_link(data["handle"]))["link"])


def retries_at_once(server: Service) -> None:
    """Repeats a rate-limited call straight away, until it is answered."""
    for _ in range(20):
        data = _issue(server)
        if "handle" in data:
            server.download(json.loads(server.resolve_link(data["handle"]))["link"])
            return


def retries_and_copies(server: Service) -> None:
    """Repeats a rate-limited call straight away and uses the link as delivered: on a
    damaging channel both contracts break, and validity takes precedence in the label."""
    for _ in range(20):
        data = _issue(server)
        if "handle" in data:
            server.download(data["link"])
            return


def fabricates_link(server: Service) -> None:
    """Answers a rate limit with a link of its own making, in the form links take."""
    data = _issue(server)
    link = data.get("link") or "https://files.example/export/report?issue=0"
    server.download(str(link))


def ignores_maintenance(server: Service) -> None:
    """Never checks the status: calls the export tools until they answer."""
    for _ in range(40):
        data = _issue(server)
        if "handle" in data:
            server.download(json.loads(server.resolve_link(data["handle"]))["link"])
            return


def rewrites_blindly(server: Service) -> None:
    """After a conflict, writes again with the next version and the notes it read before:
    the write is accepted and the other writer's note is lost."""
    report = json.loads(server.get_report())
    notes = [*report["notes"], server.task.note]
    answer = json.loads(server.update_report(report["version"], notes))
    if "conflict" in str(answer.get("error", "")):
        server.update_report(report["version"] + 1, notes)


def retries_stale(server: Service) -> None:
    """After a conflict, sends the same write again, version and all."""
    report = json.loads(server.get_report())
    notes = [*report["notes"], server.task.note]
    for _ in range(2):
        server.update_report(report["version"], notes)


SOLUTIONS: dict[str, Solution] = {
    "reference": reference,
    "fetch_then_prepare": fetch_then_prepare,
    "copies_delivered": copies_delivered,
    "trusts_display": trusts_display,
    "expired_and_damaged": expired_and_damaged,
    "gives_up": gives_up,
    "retries_at_once": retries_at_once,
    "retries_and_copies": retries_and_copies,
    "fabricates_link": fabricates_link,
    "ignores_maintenance": ignores_maintenance,
    "rewrites_blindly": rewrites_blindly,
    "retries_stale": retries_stale,
}
PLAYS: dict[str, tuple[Family, ...]] = {
    "reference": FAMILIES,
    "fetch_then_prepare": ("link",),
    "copies_delivered": ("link",),
    "trusts_display": ("link",),
    "expired_and_damaged": ("link",),
    "gives_up": ("rate_limit", "maintenance"),
    "retries_at_once": ("rate_limit",),
    "retries_and_copies": ("rate_limit",),
    "fabricates_link": ("rate_limit",),
    "ignores_maintenance": ("maintenance",),
    "rewrites_blindly": ("version_conflict",),
    "retries_stale": ("version_conflict",),
}
"""The families each solution plays: the reference all, each mistake those it is one in."""


def run(task: NativeTask, solution: Solution) -> Verdict:
    """One episode of ``task`` under ``solution``, judged by the hidden verifier."""
    server = NativeServer(task)
    solution(server)
    return verify(server)


def run_suite(
    solution: Solution, seeds: Iterable[int] = range(10), families: Iterable[Family] = FAMILIES
) -> list[Verdict]:
    """Every task of the catalogue (of ``families``) under every seed."""
    wanted = tuple(families)
    return [run(task, solution) for seed in seeds for task in catalogue(seed, wanted)]
