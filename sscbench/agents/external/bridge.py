"""The rendezvous between an agent that runs its own loop and SSCBench's episode loop.

SSCBench's episode loop *pulls* turns from an agent (``next_turn``); an external agent — an
MCP client, an Inspect solver — *pushes* actions (a tool call, a message to the user, the
end of the conversation) and waits for each one's answer. A :class:`Bridge` joins the two:
the front end (an MCP session handler, an Inspect tool, on an asyncio loop) submits an
:class:`Action` and awaits its :class:`Reply`; the episode thread takes actions one at a
time in the order they arrived, runs each through the ordinary loop (so every call goes
through the one fault choke point and every event lands in the ledger exactly as for an
in-process agent) and answers it.

Nothing here knows MCP or Inspect, so both front ends share one set of semantics: actions
are serialised (concurrent tool calls from a client are executed one after another, each
its own turn), a run ends once (every later action is refused with the reason), and a
client that goes away, or never comes, ends the run as a failure rather than a result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sscbench.agents.base import TimeLimitReached
from sscbench.envs.calls import ToolCall
from sscbench.errors import ClientError
from sscbench.records.events import ExternalClient, VisibleEvent

ActionKind = Literal["call", "say", "turn", "end", "empty", "limit"]


@dataclass(frozen=True)
class Action:
    """What the external agent asked for.

    * ``call`` — one tool call (``name``, ``arguments``); the server numbers its id;
    * ``say`` — a message to the user (``text``);
    * ``turn`` — one model message as a whole: ``text`` (may be empty) and ``calls`` with
      the model's own ids, as an in-process provider agent's turn (the Inspect solver);
    * ``end`` — the agent ended the conversation (``text`` says how);
    * ``empty`` — the agent's model replied with nothing after its re-asks;
    * ``limit`` — a limit of the agent's own harness stopped it (``text``: which).
    """

    kind: ActionKind
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Reply:
    """The answer to one action: what the agent gets back.

    ``content`` is exactly the observation (a tool call) or the user's message (a message
    to the user); ``observations`` the observations of a ``turn``'s calls, in call order
    (content, error); ``ended`` says the conversation is over after this reply, with
    ``reason`` (``user_stop``, ``max_steps``, …)."""

    content: str
    error: bool = False
    ended: bool = False
    reason: str | None = None
    observations: tuple[tuple[str, bool], ...] = ()


class ConversationOver(Exception):
    """An action arrived after the run ended; ``reason`` says how it ended."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the conversation has ended ({reason}); no further calls are accepted")
        self.reason = reason


_GONE = "gone"


@dataclass
class _Pending:
    action: Action
    future: concurrent.futures.Future[Reply]


class Bridge:
    """One run's channel between a front end and the episode thread (see module docstring).

    Thread-safe: the front end calls :meth:`attach`, :meth:`submit`, :meth:`conversation`
    and :meth:`detach` from its event loop; the episode thread calls :meth:`open`,
    :meth:`next_action`, :meth:`answer` and :meth:`close`.
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[_Pending | tuple[str, str, bool]] = queue.Queue()
        self._lock = threading.Lock()
        self._client: ExternalClient | None = None
        self._attached = threading.Event()
        self._opened = threading.Event()
        self._conversation: tuple[VisibleEvent, ...] = ()
        self._pending: _Pending | None = None
        self._ended: str | None = None
        self._ended_event = threading.Event()
        self.last_activity = time.monotonic()

    # -- front end --------------------------------------------------------------------
    def attach(self, client: ExternalClient) -> bool:
        """Bind the run to its one client; False if another client already holds it (or the
        run is over): two clients never share a run's state."""
        with self._lock:
            if self._client is not None or self._ended is not None:
                return False
            self._client = client
        self.last_activity = time.monotonic()
        self._attached.set()
        return True

    @property
    def client(self) -> ExternalClient | None:
        """The attached client, once one is."""
        return self._client

    async def submit(self, action: Action) -> Reply:
        """Hand an action to the episode and wait for its reply; raises
        :class:`ConversationOver` once the run has ended."""
        return await asyncio.wrap_future(self.submit_nowait(action))

    def submit_nowait(self, action: Action) -> concurrent.futures.Future[Reply]:
        """Queue an action; the future resolves with its reply (or ConversationOver)."""
        future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        with self._lock:
            if self._ended is not None:
                future.set_exception(ConversationOver(self._ended))
                return future
            self.last_activity = time.monotonic()
            self._queue.put(_Pending(action, future))
        return future

    async def conversation(self, timeout: float | None = None) -> tuple[VisibleEvent, ...]:
        """The conversation so far (the greeting and the user's opening message at least),
        waiting until the episode has opened it."""
        loop = asyncio.get_running_loop()
        opened = await loop.run_in_executor(None, self._opened.wait, timeout)
        if not opened:
            raise ClientError("the episode did not open the conversation in time")
        return self._conversation

    def detach(self, reason: str, *, clean: bool) -> None:
        """The client went away: cleanly (it closed its session, its program exited 0 — the
        agent stopped) or not (a dropped connection, a failed program)."""
        self._queue.put((_GONE, reason, clean))

    @property
    def ended(self) -> str | None:
        """How the run ended, once it has (``None`` while it is live)."""
        return self._ended

    def wait_ended(self, timeout: float | None = None) -> bool:
        """Block until the run has ended (True) or ``timeout`` passed (False)."""
        return self._ended_event.wait(timeout)

    # -- episode thread ---------------------------------------------------------------
    def wait_attached(self, timeout: float | None) -> bool:
        """Block until a client attached (True) or ``timeout`` passed (False)."""
        return self._attached.wait(timeout)

    def open(self, history: Sequence[VisibleEvent]) -> None:
        """Publish the conversation so far (called at every turn; the first call opens)."""
        self._conversation = tuple(
            e for e in history if e.kind in ("agent_message", "user_message")
        )
        self._opened.set()

    def next_action(self, idle_timeout: float | None, deadline: float | None) -> Action:
        """The next action, in arrival order. Raises :class:`TimeLimitReached` past
        ``deadline`` (monotonic seconds), :class:`ClientError` when the client was silent for
        ``idle_timeout`` seconds or went away uncleanly; a clean departure is an ``end``."""
        while True:
            waits = [
                w
                for w in (
                    None if idle_timeout is None else self.last_activity + idle_timeout,
                    deadline,
                )
                if w is not None
            ]
            timeout = None if not waits else max(0.0, min(waits) - time.monotonic())
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    raise TimeLimitReached from None
                if idle_timeout is not None and now >= self.last_activity + idle_timeout:
                    raise ClientError(
                        f"the client sent nothing for {idle_timeout:g} s (idle timeout)"
                    ) from None
                continue
            if isinstance(item, tuple):
                _, reason, clean = item
                if clean:
                    return Action(kind="end", text=reason)
                raise ClientError(reason)
            if item.future.cancelled():  # the client gave up on it before it ran
                continue
            self._pending = item
            return item.action

    def answer(self, reply: Reply) -> None:
        """Answer the action taken last."""
        pending, self._pending = self._pending, None
        if pending is not None and not pending.future.done():
            pending.future.set_result(reply)
        self.last_activity = time.monotonic()

    def close(self, reason: str, final: Reply | None) -> None:
        """End the run: the pending action gets ``final`` (if any), every queued or later
        action is refused with ``reason``."""
        with self._lock:
            self._ended = reason
        if final is not None:
            self.answer(final)
        refused = ConversationOver(reason)
        pending, self._pending = self._pending, None
        if pending is not None and not pending.future.done():
            pending.future.set_exception(refused)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Pending) and not item.future.done():
                item.future.set_exception(refused)
        self._opened.set()  # a client still waiting for the opening gets what there is
        self._ended_event.set()
