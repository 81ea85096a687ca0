"""The native suite's server: tools on a virtual clock, a transport channel, an event log.

Every tool call advances the clock by its declared cost before the server answers (never
by wall time). ``issue_link`` stores a signed link server-side and delivers it through the
channel — which, in Q3/Q4 tasks, damages the ``link`` field one way (the five kinds) —
together with a short ``handle``; ``resolve_link`` returns the stored link byte for byte
(the server-side store with a short handle that *ContractBench* proposes as the fix).
``download`` is the consuming call. The log keeps what the hidden verifier needs: the
time of each call, each artifact as issued with its SHA-256, and every argument received.

The further families add their tools: ``wait`` lets virtual time pass (the only way to
honour a refusal's window without spending calls), ``service_status`` states a maintenance
window, and ``get_report`` / ``update_report`` are a read and an optimistic-concurrency
write on a versioned record, which another writer changes before the agent's first write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sscbench.envs.clock import in_window, iso
from sscbench.fault_contracts.perturbations import digest, perturb
from sscbench.native.tasks import MAINTENANCE_UNTIL, MAX_WAIT, RETRY_AFTER, NativeTask

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
    limits: list[tuple[float, float]] = field(default_factory=list)
    """Each rate-limit refusal: when it was answered and when a retry is allowed."""
    version: int = 0
    notes: list[str] = field(default_factory=list)
    concurrent_done: bool = False

    def __post_init__(self) -> None:
        self.version = 1 + self.task.seed % 7
        self.notes = ["created"]

    @property
    def maintenance_until(self) -> float | None:
        """The end of the maintenance window, on a maintenance task."""
        return MAINTENANCE_UNTIL if self.task.family == "maintenance" else None

    def _in_maintenance(self, tool: str, arguments: dict[str, Any]) -> str | None:
        until = self.maintenance_until
        if until is None or self.now >= until:
            return None
        answer = {
            "error": f"service in maintenance until {iso(self.task.clock, until)}",
            "server_time": iso(self.task.clock, self.now),
        }
        return self._record(tool, arguments, answer)

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
        if (refused := self._in_maintenance("prepare_export", {})) is not None:
            return refused
        self.prepared = True
        return self._record("prepare_export", {}, {"status": "prepared"})

    def issue_link(self) -> str:
        """Issue a signed link, delivered through the (possibly damaging) channel."""
        self._advance("read")
        if (refused := self._in_maintenance("issue_link", {})) is not None:
            return refused
        if (limited := self._rate_limited()) is not None:
            return limited
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
        if (refused := self._in_maintenance("download", {"link": link})) is not None:
            return refused
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

    def _rate_limited(self) -> str | None:
        """The refusal of a rate-limited ``issue_link``: the first call, and every call
        before the announced ``retry_at``."""
        if self.task.family != "rate_limit":
            return None
        if not self.limits:
            self.limits.append((self.now, self.now + RETRY_AFTER))
        retry_at = self.limits[-1][1]
        if self.now >= retry_at:
            return None
        answer = {
            "error": "rate limited",
            "retry_after_seconds": round(retry_at - self.now, 6),
            "retry_at": iso(self.task.clock, retry_at),
            "server_time": iso(self.task.clock, self.now),
        }
        return self._record("issue_link", {}, answer)

    def wait(self, seconds: float) -> str:
        """Let ``seconds`` of virtual time pass (0 < seconds ≤ an hour)."""
        if not 0 < seconds <= MAX_WAIT:
            answer = {"error": f"seconds must be in (0, {MAX_WAIT:g}], got {seconds:g}"}
            return self._record("wait", {"seconds": seconds}, answer)
        self.now += seconds
        answer = {"server_time": iso(self.task.clock, self.now)}
        return self._record("wait", {"seconds": seconds}, answer)

    def service_status(self) -> str:
        """Whether the export service is in maintenance, and until when."""
        self._advance("read")
        until = self.maintenance_until
        answer: dict[str, Any] = {"server_time": iso(self.task.clock, self.now)}
        if until is not None and self.now < until:
            answer |= {"status": "maintenance", "until": iso(self.task.clock, until)}
        else:
            answer["status"] = "ok"
        return self._record("service_status", {}, answer)

    def get_report(self) -> str:
        """The versioned report: its current version and notes."""
        self._advance("read")
        answer = {
            "version": self.version,
            "notes": list(self.notes),
            "server_time": iso(self.task.clock, self.now),
        }
        return self._record("get_report", {}, answer)

    def update_report(self, version: int, notes: list[str]) -> str:
        """An optimistic-concurrency write: saved only if ``version`` is still current.

        Before the first write another writer commits (a note of its own, a new version),
        so the first write of a version read before it is refused as a conflict.
        """
        self._advance("write")
        arguments = {"version": version, "notes": list(notes)}
        if not self.concurrent_done:
            self.concurrent_done = True
            self.version += 1
            self.notes = [*self.notes, self.task.other_note]
        answer: dict[str, Any]
        if version != self.version:
            answer = {
                "error": "version conflict: the report changed since the version you sent; "
                "read it again before writing",
                "server_time": iso(self.task.clock, self.now),
            }
        else:
            self.version += 1
            self.notes = list(notes)
            answer = {"status": "saved", "version": self.version}
        return self._record("update_report", arguments, answer)
