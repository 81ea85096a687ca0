"""Solutions of the native tasks: the reference (the oracle check) and scripted mistakes.

A solution sees only what the server answers and the task's instruction. The reference
follows the instruction as a careful agent would: it prepares first when asked, then
fetches the link, takes it byte for byte from the server-side store by its handle, and
uses it at once — re-fetching once if the server still answers that it expired. The other
behaviours each break one contract, so the verifier's truth table can be checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from sscbench.native.server import NativeServer
from sscbench.native.tasks import NativeTask, catalogue
from sscbench.native.verifier import Verdict, verify

Solution = Callable[[NativeServer], None]


def _issue(server: NativeServer) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(server.issue_link())
    return data


def reference(server: NativeServer) -> None:
    """Prepare first, fetch, copy the link from the store by handle, use it at once."""
    if "prepare_export" in server.task.instruction:
        server.prepare_export()
    for _ in range(2):
        data = _issue(server)
        link = json.loads(server.resolve_link(data["handle"]))["link"]
        answer = json.loads(server.download(link))
        if "expired" not in str(answer.get("error", "")):
            return


def fetch_then_prepare(server: NativeServer) -> None:
    """Fetches the link too early: the preparation step outlasts a short TTL."""
    data = _issue(server)
    link = json.loads(server.resolve_link(data["handle"]))["link"]
    server.prepare_export()
    server.download(link)


def copies_delivered(server: NativeServer) -> None:
    """Uses the ``link`` field as delivered, damaged or not."""
    if "prepare_export" in server.task.instruction:
        server.prepare_export()
    server.download(_issue(server)["link"])


def trusts_display(server: NativeServer) -> None:
    """Uses the display text shown with the link as if it were the link."""
    if "prepare_export" in server.task.instruction:
        server.prepare_export()
    server.download(_issue(server)["text"])


def expired_and_damaged(server: NativeServer) -> None:
    """Breaks both contracts at once: validity must take precedence in the label."""
    data = _issue(server)
    server.prepare_export()
    server.download(data["link"] + "#")


SOLUTIONS: dict[str, Solution] = {
    "reference": reference,
    "fetch_then_prepare": fetch_then_prepare,
    "copies_delivered": copies_delivered,
    "trusts_display": trusts_display,
    "expired_and_damaged": expired_and_damaged,
}


def run(task: NativeTask, solution: Solution) -> Verdict:
    """One episode of ``task`` under ``solution``, judged by the hidden verifier."""
    server = NativeServer(task)
    solution(server)
    return verify(server)


def run_suite(solution: Solution, seeds: Iterable[int] = range(10)) -> list[Verdict]:
    """Every task of the catalogue under every seed."""
    return [run(task, solution) for seed in seeds for task in catalogue(seed)]
