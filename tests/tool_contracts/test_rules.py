"""Defect-class rules on hand-made observations (no τ² calls)."""

from __future__ import annotations

from typing import Any

from sscbench.tool_contracts.loader import parse_contract
from sscbench.tool_contracts.model import Contract
from sscbench.tool_contracts.rules import (
    Observation,
    argument_ignored,
    effect_class,
    effects_on,
    false_preconditions,
)

CONTRACT = """
domain: toy
tool: set_name
source: tau2/domains/airline/tools.py
summary: toy
args: {uid: {effective: false}, name: {effective: true}}
success_signal: {biconditional: true, justification: toy}
preconditions:
  - {id: pre.exists, text: t, predicate: "args['uid'] in pre['u']", inferred: true}
  - {id: pre.named, text: t, predicate: "args['name'] != ''", inferred: true}
effects:
  - id: eff.name
    text: t
    predicate: "post['u'][args['uid']]['name'] == args['name']"
    inferred: true
  - id: eff.touched
    text: t
    predicate: "post['u'][args['uid']]['n'] == pre['u'][args['uid']]['n'] + 1"
    inferred: true
probes: [{id: happy, kind: happy, args: "{}"}]
"""


def _contract(biconditional: bool = True) -> Contract:
    text = (
        CONTRACT
        if biconditional
        else CONTRACT.replace("biconditional: true", "biconditional: false")
    )
    return parse_contract("toy.yaml", text)


def _obs(args: dict[str, Any], post_name: str, post_n: int, error: bool = False) -> Observation:
    pre = {"u": {"a": {"name": "x", "n": 0}}}
    post = {"u": {"a": {"name": post_name, "n": post_n}}}
    return Observation(probe="p", kind="happy", args=args, pre=pre, post=post, result=None,
                       text="", error=error)  # fmt: skip


def test_phantom_needs_every_effect_absent_and_state_untouched() -> None:
    c = _contract()
    obs = _obs({"uid": "a", "name": "y"}, "x", 0)
    clause = c.effects[0]
    assert effect_class(c, clause, obs, effects_on(c, obs), set()) == "Phantom Effect"
    assert effect_class(_contract(False), clause, obs, effects_on(c, obs), set()) is None


def test_partial_when_one_effect_holds() -> None:
    c = _contract()
    obs = _obs({"uid": "a", "name": "y"}, "x", 1)
    assert effect_class(c, c.effects[0], obs, effects_on(c, obs), set()) == "Partial Effect"


def test_ignored_argument_needs_the_variant_evidence() -> None:
    c = _contract()
    obs = _obs({"uid": "a", "name": "y"}, "x", 1)
    assert effect_class(c, c.effects[0], obs, effects_on(c, obs), {"name"}) == "Ignored Argument"
    same = [_obs({"uid": "a", "name": n}, "x", 1) for n in ("y", "z")]
    assert argument_ignored(same) is True
    assert argument_ignored([_obs({"uid": "a", "name": n}, n, 1) for n in ("y", "z")]) is False
    assert argument_ignored([_obs({"uid": "a", "name": n}, "x", 0) for n in ("y", "z")]) == (
        "Phantom Effect"
    )
    assert argument_ignored(same[:1]) is None


def test_a_precondition_counts_only_as_the_sole_false_one() -> None:
    c = _contract()
    assert false_preconditions(c, _obs({"uid": "b", "name": ""}, "x", 0)) == [
        "pre.exists",
        "pre.named",
    ]
    assert false_preconditions(c, _obs({"uid": "a", "name": ""}, "x", 0)) == ["pre.named"]


def test_all_effects_absent_but_state_changed_is_not_phantom() -> None:
    c = _contract()
    obs = _obs({"uid": "a", "name": "y"}, "z", 0)
    assert effect_class(c, c.effects[0], obs, effects_on(c, obs), set()) is None


class _FakeAdapter:
    """A four-operation adapter over a dict: the protocol a new domain would implement."""

    domain = "toy"

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}

    def create(self) -> None:
        self.state = {"u": {"a": {"name": "x", "n": 0}}}

    def snapshot(self) -> dict[str, Any]:
        import copy

        return copy.deepcopy(self.state)

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        from sscbench.tool_contracts.adapter import Outcome

        user = self.state["u"].setdefault(args["uid"], {"name": "", "n": 0})
        user["name"], user["n"] = args["name"], user["n"] + 1
        return Outcome(text='"ok"', error=False)

    def reset(self) -> None:
        self.create()

    def check_base(self) -> None:
        return None


def test_a_call_breaking_two_preconditions_tests_neither() -> None:
    from sscbench.tool_contracts.checker import check_tool

    text = CONTRACT.replace(
        'probes: [{id: happy, kind: happy, args: "{}"}]',
        "probes:\n  - {id: happy, kind: happy, args: \"{'uid': 'a', 'name': 'y'}\"}\n"
        "  - {id: both, kind: violate, clause: pre.exists, args: \"{'uid': 'b', 'name': ''}\"}\n",
    )
    result = check_tool(_FakeAdapter(), parse_contract("toy.yaml", text))
    verdicts = {c.clause: (c.verdict, c.reason) for c in result.clauses}
    assert verdicts["pre.exists"] == ("UNTESTABLE", "no_violating_probe")
    assert verdicts["pre.named"] == ("UNTESTABLE", "no_violating_probe")
    assert verdicts["eff.name"] == ("CONFORMS", None)
