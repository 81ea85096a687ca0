"""Scripted reference behaviours for observation contracts (expiry and transport).

Each wraps the gold scripted agent (the task's gold plan, confirmations included) and
changes only how it handles artifacts, so the pipeline's labels can be checked offline:

* ``scripted:prompt`` — uses the artifact at once: holds each write on a record, reads the
  record, and sends the write straight after (the quote is seconds old when used);
* ``scripted:refetch`` — keeps the plan's reads, and before a write re-reads the record
  only when the latest quote will have expired when the server receives the write (it
  estimates server time from the envelope's ``server_time`` and its stated clock rule);
* ``scripted:verbatim`` — reads the user record first and copies identifiers byte for
  byte: when the delivered record shows a needed id in a form that is not the id (damaged
  in transit), it reads the record again and uses the intact rendering;
* ``scripted:display`` — reads the user record first and trusts what it displays: each
  id the plan needs is taken in the form the record shows (a payment method by the
  display text in its ``id`` field, a listed id as delivered), damaged or not.

Everything they know comes from the model-visible history (and the task's gold plan,
like every scripted agent).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted import HABITS, ScriptedAgent, ScriptedParams
from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import tool_kinds
from sscbench.json_paths import flatten
from sscbench.records.events import AgentToolCall, ParticipantSpec, ToolObservation, VisibleEvent

READS = {"reservation_id": "get_reservation_details", "order_id": "get_order_details"}
BEHAVIOURS = ("prompt", "refetch", "verbatim", "display")


def _cost(rule: str, what: str) -> float:
    """Seconds the clock rule in a quote envelope charges for ``what``."""
    m = re.search(rf"(\d+(?:\.\d+)?) s per {what}", rule) or re.search(
        rf"{what} (\d+(?:\.\d+)?) s", rule
    )
    return float(m.group(1)) if m else 0.0


class ContractAgent:
    """The gold scripted agent with one of the artifact behaviours above."""

    def __init__(self, behaviour: str, phrasing: str = "plain") -> None:
        self.behaviour = behaviour
        self.inner = ScriptedAgent("gold", HABITS["gold"], phrasing=phrasing)
        params = {} if phrasing == "plain" else {"phrasing": phrasing}
        self.spec = ParticipantSpec(name=f"scripted:{behaviour}", params=params)
        self._held: AgentTurn | None = None
        self._user = ""
        self._kinds: dict[str, str] = {}
        self._n = 0

    def start(self, ctx: EpisodeContext) -> None:
        """Reset per-episode state and start the gold plan."""
        self.inner.start(ctx)
        self._held = None
        self._n = 0
        self._kinds = tool_kinds(ctx.domain)
        users = {
            str(v)
            for a in ctx.task.evaluation_criteria.actions or []
            for p, v in flatten(a.arguments)
            if p == "user_id"
        }
        self._user = min(users) if users else ""

    def _call(self, name: str, arguments: dict[str, Any]) -> AgentTurn:
        self._n += 1
        return AgentTurn(
            tool_calls=(ToolCall(id=f"obs_{self._n}", name=name, arguments=arguments),)
        )

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """The gold plan's next turn, with this behaviour's handling of artifacts."""
        if self._held is not None:
            turn, self._held = self._held, None
            return self._rewrite(turn, history)
        user = self._user or _found_user(history)
        if self.behaviour in ("verbatim", "display") and user and not self._read_user(history):
            return self._call("get_user_details", {"user_id": user})
        turn = self.inner.next_turn(history)
        write = next((c for c in turn.tool_calls if self._kinds.get(c.name) == "write"), None)
        key = next((k for k in READS if write is not None and k in write.arguments), None)
        if write is None or key is None or self.behaviour not in ("prompt", "refetch"):
            return self._rewrite(turn, history)
        if self.behaviour == "prompt" or self._expires_first(history, write.arguments[key]):
            self._held = turn
            return self._call(READS[key], {key: write.arguments[key]})
        return turn

    # -- expiry -------------------------------------------------------------------------
    def _expires_first(self, history: Sequence[VisibleEvent], entity: str) -> bool:
        """Will the latest quote on ``entity`` have expired when the write arrives?"""
        quote, at = None, -1
        for i, e in enumerate(history):
            if isinstance(e, ToolObservation) and not e.error and entity in e.content:
                try:
                    data = json.loads(e.content)
                except json.JSONDecodeError:
                    continue
                if isinstance(data, dict) and isinstance(data.get("quote"), dict):
                    quote, at = data["quote"], i
        if quote is None:
            return False
        rule = str(quote.get("valid", ""))
        now = datetime.fromisoformat(quote["server_time"]).timestamp()
        for e in history[at + 1 :]:
            if isinstance(e, AgentToolCall):
                now += _cost(rule, self._kinds.get(e.name, "read"))
            elif not isinstance(e, ToolObservation):
                kind = "agent message" if e.kind == "agent_message" else "user message"
                now += _cost(rule, kind)
        now += _cost(rule, "write")
        return now >= datetime.fromisoformat(quote["expires_at"]).timestamp()

    # -- transport ----------------------------------------------------------------------
    def _user_records(self, history: Sequence[VisibleEvent]) -> list[dict[str, Any]]:
        calls = {e.call_id: e for e in history if isinstance(e, AgentToolCall)}
        out = []
        for e in history:
            if isinstance(e, ToolObservation) and not e.error:
                call = calls.get(e.call_id)
                if call is not None and call.name == "get_user_details":
                    data = json.loads(e.content)
                    if isinstance(data, dict):
                        out.append(data)
        return out

    def _read_user(self, history: Sequence[VisibleEvent]) -> bool:
        records = self._user_records(history)
        if not records:
            return False
        if self.behaviour == "verbatim" and len(records) == 1:
            return not _damaged(records[0])  # damaged in transit: read it again
        return True

    def _rewrite(self, turn: AgentTurn, history: Sequence[VisibleEvent]) -> AgentTurn:
        if self.behaviour != "display" or not turn.tool_calls:
            return turn
        records = self._user_records(history)
        if not records:
            return turn
        shown = _shown_forms(records[0])
        listed = [str(v) for k in ("orders", "reservations") for v in records[0].get(k) or []]
        for _, value in (p for c in turn.tool_calls for p in flatten(c.arguments)):
            cut = [
                e for e in listed if isinstance(value, str) and value.startswith(e) and e != value
            ]
            if cut and value not in listed:
                shown[str(value)] = cut[0]  # shown truncated: trusted as shown
        calls = tuple(
            c.model_copy(update={"arguments": _replace(c.arguments, shown)})
            for c in turn.tool_calls
        )
        return AgentTurn(text=turn.text, tool_calls=calls)


def _found_user(history: Sequence[VisibleEvent]) -> str:
    """The user id a ``find_user_id_by_*`` lookup returned (retail identifies users so)."""
    calls = {e.call_id: e.name for e in history if isinstance(e, AgentToolCall)}
    for e in history:
        if (
            isinstance(e, ToolObservation)
            and not e.error
            and calls.get(e.call_id, "").startswith("find_user_id")
        ):
            return e.content.strip().strip('"')
    return ""


def _canonical(text: str) -> str:
    return unquote(text).replace("\n", "")


def _shown_forms(record: dict[str, Any]) -> dict[str, str]:
    """True id → the form the record displays for it (display text, a damaged entry)."""
    out = {}
    for pid, method in (record.get("payment_methods") or {}).items():
        if isinstance(method, dict) and method.get("id") != pid:
            out[pid] = str(method.get("id"))
    return out | {
        _canonical(v): v
        for k in ("orders", "reservations")
        for v in record.get(k) or []
        if _canonical(v) != v
    }


def _damaged(record: dict[str, Any]) -> bool:
    """Does the record show an id in a form that is not an id (display text, a newline,
    percent-encoding, or a listed id shorter than its siblings)?"""
    if _shown_forms(record):
        return True
    for k in ("orders", "reservations"):
        ids = [str(v) for v in record.get(k) or []]
        if len({len(i) for i in ids}) > 1:
            return True
    return False


def _replace(arguments: dict[str, Any], shown: dict[str, str]) -> dict[str, Any]:
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and value in shown:
            return shown[value]
        return value

    result: dict[str, Any] = walk(arguments)
    return result


def _register() -> None:
    for behaviour in BEHAVIOURS:

        def make(phrasing: str = "plain", _b: str = behaviour) -> ContractAgent:
            return ContractAgent(_b, phrasing)

        AGENTS.add(f"scripted:{behaviour}", make, params=ScriptedParams, brief=True)


_register()
