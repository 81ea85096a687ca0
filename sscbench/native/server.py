"""The native suite's server: tools on a virtual clock, a transport channel, an event log.

Every tool call advances the clock by its declared cost before the server answers (never
by wall time). ``issue_link`` stores a signed link server-side and delivers it through the
channel — which, in Q3/Q4 tasks, damages the ``link`` field one way (the five kinds) —
together with a short ``handle``; ``resolve_link`` returns the stored link byte for byte
(the server-side store with a short handle that *ContractBench* proposes as the fix).
``download`` is the consuming call. The log keeps what the hidden verifier needs: the
time of each call, each artifact as issued with its SHA-256, and every argument received.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sscbench.envs.clock import in_window, iso
from sscbench.fault_contracts.perturbations import digest, perturb
from sscbench.native.tasks import NativeTask

DISPLAY = "Download the quarterly report"


@dataclass(frozen=True)
class Issued:
    """One artifact as issued: its bytes, digest and window."""

    handle: str
    link: str
    sha256: str
    issued: float
    ttl: float


@dataclass
class LogEntry:
    """One call the server received (hidden from the agent)."""

    tool: str
    time: float
    arguments: dict[str, Any]
    answer: dict[str, Any]


@dataclass
class NativeServer:
    """One episode of a native task."""

    task: NativeTask
    now: float = 0.0
    issued: list[Issued] = field(default_factory=list)
    log: list[LogEntry] = field(default_factory=list)
    prepared: bool = False

    def _advance(self, kind: str) -> float:
        self.now += self.task.clock.cost.tool_call.get(kind, 0.0)
        return self.now

    def _record(self, tool: str, arguments: dict[str, Any], answer: dict[str, Any]) -> str:
        self.log.append(LogEntry(tool, self.now, dict(arguments), answer))
        return json.dumps(answer)

    # -- tools ----------------------------------------------------------------------------
    def prepare_export(self) -> str:
        """The slow preparation step Q2/Q4 require before a download."""
        self._advance("prepare")
        self.prepared = True
        return self._record("prepare_export", {}, {"status": "prepared"})

    def issue_link(self) -> str:
        """Issue a signed link, delivered through the (possibly damaging) channel."""
        self._advance("read")
        n = len(self.issued)
        link = self.task.artifact(n)
        item = Issued(f"h{n}", link, digest(link), self.now, self.task.ttl_seconds)
        self.issued.append(item)
        shown, text = link, DISPLAY
        kind = self.task.perturbation
        if kind == "display_text":
            text = link.split("?")[0]  # the label looks like a link but is not this one
        elif kind is not None:
            shown = perturb(kind, link, self.task.rng(n)) or link
        answer = {
            "handle": item.handle,
            "link": shown,
            "text": text,
            "issued_at": iso(self.task.clock, item.issued),
            "ttl_seconds": item.ttl,
            "expires_at": iso(self.task.clock, item.issued + item.ttl),
            "server_time": iso(self.task.clock, self.now),
            "clock": self.task.clock.describe(),
        }
        if kind == "display_text":
            answer["link"] = link
            answer["href"] = link
        return self._record("issue_link", {}, answer)

    def resolve_link(self, handle: str) -> str:
        """The link stored under ``handle``, byte for byte, with its digest."""
        self._advance("read")
        item = next((i for i in self.issued if i.handle == handle), None)
        if item is None:
            return self._record("resolve_link", {"handle": handle}, {"error": "unknown handle"})
        answer = {
            "link": item.link,
            "sha256": item.sha256,
            "server_time": iso(self.task.clock, self.now),
        }
        return self._record("resolve_link", {"handle": handle}, answer)

    def download(self, link: str) -> str:
        """Use a link: valid only inside its window and byte for byte as issued."""
        self._advance("write")
        answer: dict[str, Any]
        match = next((i for i in self.issued if i.sha256 == digest(link)), None)
        if self.task.needs_prepare and not self.prepared:
            answer = {"error": "export not prepared"}
        elif match is None:
            answer = {"error": "signature mismatch: link not issued by this server"}
        elif not in_window(match.issued, match.ttl, self.now):
            answer = {
                "error": f"link expired at {iso(self.task.clock, match.issued + match.ttl)}",
                "server_time": iso(self.task.clock, self.now),
            }
        else:
            answer = {"status": "downloaded", "bytes": 4096}
        return self._record("download", {"link": link}, answer)
