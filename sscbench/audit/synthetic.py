"""A small synthetic domain of our own, with known answers, as the audit's third target.

Three accounts, a notes log, four tools and four tasks, small enough that every verdict is
known by construction. It shows that the audit is not shaped around τ²: the same checks and
defects run on a state and a grader that share no code with τ². Its grader follows the
same contract as SSCBench's (live state against the reference state, τ²'s normalised
communicate rule), implemented from scratch.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from sscbench.audit.session import Session, Signature, Verdict
from sscbench.audit.target import AuditGrader, FaultPlan, Target
from sscbench.envs.calls import Observation, ToolCall
from sscbench.envs.state import canonical_json

BASE: dict[str, dict[str, Any]] = {
    "accounts": {
        "A1": {"owner": "ada", "balance": 1500, "status": "open"},
        "B2": {"owner": "bob", "balance": 2300, "status": "open"},
        "C3": {"owner": "cy", "balance": 40, "status": "open"},
    },
    "notes": {},
}
WRITES = {"transfer", "freeze_account", "add_note"}


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"gold-{name}", name=name, arguments=arguments)


TASKS: dict[str, tuple[list[ToolCall], list[str]]] = {
    # task id: (reference solution, required outputs)
    "s0": ([_call("transfer", src="A1", dst="B2", amount=250)], ["1250"]),
    "s1": (
        [
            _call("freeze_account", account_id="C3"),
            _call("add_note", account_id="C3", text="fraud"),
        ],
        [],
    ),
    "s2": ([_call("get_account", account_id="B2")], ["2300"]),
    "s3": (
        [
            _call("transfer", src="B2", dst="C3", amount=1000),
            _call("add_note", account_id="B2", text="paid cy"),
        ],
        ["1300", "Bob"],
    ),
}
FAULTS: dict[str, list[FaultPlan]] = {
    "s0": [
        FaultPlan(kind="write", source="synthetic/s0/suppress-transfer"),
        FaultPlan(
            kind="read",
            source="synthetic/s0/rewrite-balance",
            trigger=_call("get_account", account_id="A1"),
        ),
    ],
    "s3": [FaultPlan(kind="write", source="synthetic/s3/suppress-transfer")],
}


class SyntheticSession(Session):
    """The synthetic state: plain dicts, deep-copied on reset."""

    def __init__(self, task_id: str, fault: FaultPlan | None) -> None:
        super().__init__(task_id)
        self.db = copy.deepcopy(BASE)
        self.fault = fault

    def _run(self, call: ToolCall, *, faults: bool) -> Observation:
        fault = self.fault if faults else None
        before = copy.deepcopy(self.db)
        try:
            result = _tool(self.db, call)
        except (KeyError, ValueError, TypeError) as exc:
            return Observation(call_id=call.id, content=f"Error: {exc}", error=True)
        if fault is not None and fault.kind == "write" and call.name == "transfer":
            self.db = before  # the write "succeeded" (same payload) but left no trace
        if fault is not None and fault.kind == "read" and call.name == "get_account":
            result = {**result, "balance": result["balance"] + 900}
        return Observation(call_id=call.id, content=json.dumps(result, sort_keys=True))

    def _signature(self) -> Signature:
        return Signature.of(
            {k: hashlib.sha256(canonical_json(v).encode()).hexdigest() for k, v in self.db.items()}
        )

    def _swap_fresh(self) -> Any:
        old, self.db = self.db, copy.deepcopy(BASE)
        return old

    def _put_back(self, handle: Any) -> None:
        self.db = handle


def _tool(db: dict[str, dict[str, Any]], call: ToolCall) -> dict[str, Any]:
    args = call.arguments
    accounts = db["accounts"]
    if call.name == "get_account":
        return dict(accounts[args["account_id"]])
    if call.name == "transfer":
        src, dst, amount = accounts[args["src"]], accounts[args["dst"]], int(args["amount"])
        if src["status"] != "open" or src["balance"] < amount:
            raise ValueError("transfer refused")
        src["balance"] -= amount
        dst["balance"] += amount
        return dict(src)
    if call.name == "freeze_account":
        accounts[args["account_id"]]["status"] = "frozen"
        return dict(accounts[args["account_id"]])
    if call.name == "add_note":
        key = f"n{len(db['notes'])}"
        db["notes"][key] = {"account_id": args["account_id"], "text": args["text"]}
        return {"note": key}
    raise KeyError(f"unknown tool {call.name}")


class SyntheticGrader(AuditGrader):
    """Live state against the reference state, plus the normalised communicate rule."""

    name = "sscbench.audit.synthetic.SyntheticGrader"

    def grade(self, session: Session) -> Verdict:
        state_ok = self.graded_state(session) == self.reference(session)
        outputs_ok = self.outputs_ok(session)
        return Verdict(solved=state_ok and outputs_ok, state_ok=state_ok, outputs_ok=outputs_ok)

    def graded_state(self, session: Session) -> Signature:
        return session.signature()


class SyntheticTarget(Target):
    """The synthetic domain and its grader."""

    name = "synthetic"
    domain = "synthetic"

    def tasks(self) -> list[str]:
        return list(TASKS)

    def default_tasks(self) -> list[str]:
        return list(TASKS)

    def fresh(self, task_id: str, fault: FaultPlan | None = None) -> Session:
        if task_id not in TASKS:
            raise KeyError(task_id)
        return SyntheticSession(task_id, fault)

    def grader(self) -> AuditGrader:
        return SyntheticGrader(self)

    def gold_calls(self, task_id: str) -> list[ToolCall]:
        return list(TASKS[task_id][0])

    def required_outputs(self, task_id: str) -> list[str]:
        return list(TASKS[task_id][1])

    def reference(self, task_id: str) -> Signature:
        session = SyntheticSession(task_id, None)
        for call in self.gold_calls(task_id):
            session.execute(call)
        return session.peek()

    def fault_plans(self, task_id: str) -> list[FaultPlan]:
        return list(FAULTS.get(task_id, []))
