"""Build the hand-made run directories that the reconstruction tests label.

Each fixture is one small run directory under ``tests/fixtures/reconstruct/<name>/``:
``ledger.jsonl`` (header with the real contract of a shipped case, then the model-visible
events, then ``run_end``) and ``hidden.jsonl`` (intervention log, ``fault_delivery``
records, ``state_check``). Observation text is what a clean τ² episode
(:class:`sscbench.envs.EpisodeEnvironment`) returns, edited where the case's fault applies:

* an ``observation_rewrite`` spec of the contract is applied to the JSON content the same
  way the runtime does (``json.dumps`` of the edited object);
* a suppressed write answers with the payload the write produces on a separate clean
  episode (same prior writes), while the authoritative episode never applies it.

The agent and user text is written by hand; every ``ts`` is ``null``. Rebuild with::

    python tests/reconstruct/build_fixtures.py [OUT_DIR]

(default ``OUT_DIR``: ``tests/fixtures/reconstruct``). Only the directories named in
:data:`FIXTURES` are replaced; the build is deterministic.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sscbench import __version__
from sscbench.agents.base import GREETING
from sscbench.cases.caseset import load_case_set
from sscbench.envs import EpisodeEnvironment, InterventionRecord, ToolCall, load_domain
from sscbench.envs.environment import tool_kinds
from sscbench.envs.grading import grade
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.fault_contracts.contract import FaultContract, ObservationRewrite, ReadingRewrite
from sscbench.fault_contracts.device_state import reversed_reading
from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.injection import FaultDelivery
from sscbench.json_paths import get_path, set_path
from sscbench.operators.base import ProposalContext
from sscbench.operators.registry import get_operator
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    Header,
    ParticipantSpec,
    RunEnd,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import dump_line
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE

FIXTURE_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "reconstruct"

RETURN_DATE = "return_date/airline/11/GV1N64"
PAY_SOURCE = "pay_source/airline/11/james_patel_9828/gift_card_1642017"
ITEM_OPTION = "item_option/retail/0/#W2378156/2"
WRITE_EFFECT = "write_effect/airline/12/4"

HAND = ParticipantSpec(name="fixture:hand", params={})
STOP = "Thanks, that's all. ###STOP###"

# Shared arguments of the cases above.
GV1N64 = {"reservation_id": "GV1N64"}
YAX4DR = {"reservation_id": "YAX4DR"}
ADD_BAGS = {
    "reservation_id": "YAX4DR",
    "total_baggages": 2,
    "nonfree_baggages": 0,
    "payment_id": "credit_card_4938634",
}
ORDER = {"order_id": "#W2378156"}
KEYBOARD = {"product_id": "1656367028"}
TACTILE_RGB_60 = "4402162122"  # tactile / RGB / 60%: keeps the injected size
CLICKY_NONE_FULL = "7706410293"  # clicky / none / full size: keeps the true size


def contract_of(case_id: str) -> FaultContract:
    """The contract of a shipped case, or of any candidate the operators propose (seed 0):
    fixtures written against one version of the shipped set keep their contracts when a
    later version samples other cases."""
    for case in load_case_set().cases:
        if case.entry.case_id == case_id:
            return case.contract
    found = _proposed(case_id.split("/", 1)[0]).get(case_id)
    if found is None:
        raise KeyError(case_id)
    return found


@functools.cache
def _proposed(operator: str) -> dict[str, FaultContract]:
    op = get_operator(operator)
    out: dict[str, FaultContract] = {}
    for domain in op.domains:
        for outcome in op.propose(ProposalContext(domain=domain, seed=0)):
            if isinstance(outcome, FaultContract):
                out[outcome.contract_id] = outcome
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class RunBuilder:
    """One hand-made run: model-visible events plus the hidden records a real run leaves."""

    def __init__(
        self,
        name: str,
        domain: str,
        task_id: str,
        case_id: str | None,
        contract: FaultContract | None = None,
    ) -> None:
        self.name = name
        self.domain = domain
        self.task = load_domain(domain).task(task_id)
        if contract is None and case_id is not None:
            contract = contract_of(case_id)
        self.contract = contract  # given: a candidate of an operator not yet registered
        self.env = EpisodeEnvironment.open(domain, self.task)  # the authoritative state
        self.events: list[VisibleEvent] = []
        self.turn = 0
        self.calls = 0
        self.writes: list[ToolCall] = []  # writes applied to the authoritative state
        self.log: list[InterventionRecord] = []
        self.deliveries: list[FaultDelivery] = []
        self.events.append(AgentMessage(step=0, turn=0, content=GREETING))
        self.turn = 1

    @property
    def step(self) -> int:
        return len(self.events)

    def user(self, text: str) -> int:
        """A user message; returns its step."""
        self.events.append(UserMessage(step=self.step, turn=self.turn, content=text))
        self.turn += 1
        return self.step - 1

    def say(self, text: str) -> int:
        """An agent message (its own turn); returns its step."""
        self.events.append(AgentMessage(step=self.step, turn=self.turn, content=text))
        self.turn += 1
        return self.step - 1

    def act(
        self, name: str, arguments: dict[str, Any], *, fault: str | None = None
    ) -> tuple[int, int]:
        """One agent tool call and its observation; returns (call step, observation step).

        ``fault="rewrite"`` applies the contract's matching observation rewrites;
        ``fault="suppress"`` answers a write with its payload but leaves the state as it was.
        """
        call_id = f"call_{self.calls}"
        call_index = self.calls
        self.calls += 1
        call = ToolCall(id=call_id, name=name, arguments=dict(arguments))
        call_step = self.step
        self.events.append(
            AgentToolCall(
                step=call_step, turn=self.turn, call_id=call_id, name=name, arguments=arguments
            )
        )
        self.turn += 1
        obs_step = self.step
        if fault == "suppress":
            content, error = self._suppressed(call, obs_step, call_index)
        else:
            obs = self.env.execute(call, step=obs_step)
            content, error = obs.content, obs.error
            if not error and tool_kinds(self.domain).get(name) == "write":
                self.writes.append(call)
            if fault == "rewrite":
                content = self._rewritten(call, content, obs_step, call_index)
            elif fault is not None:
                raise ValueError(f"unknown fault action {fault!r}")
        self.events.append(
            ToolObservation(
                step=obs_step, turn=self.turn, call_id=call_id, content=content, error=error
            )
        )
        self.turn += 1
        return call_step, obs_step

    def device(self, tool: str, *, fault: bool = False) -> int:
        """The customer runs a device tool and relays its answer, as the scripted customer
        does; ``fault=True`` delivers the contract's reading rewrite (coherent, as at the
        choke point). Returns the relaying message's step."""
        call = ToolCall(id=f"device_{self.calls}", name=tool, arguments={})
        self.calls += 1
        content = self.env.execute(call, step=self.step, requestor="user").content
        if fault:
            assert self.contract is not None
            spec = next(s for s in self.contract.interventions if isinstance(s, ReadingRewrite))
            lines = content.split("\n")
            assert spec.shows in lines, f"{tool} does not show {spec.shows!r}"
            content = "\n".join(spec.reads if ln == spec.shows else ln for ln in lines)
            if spec.setting is not None:
                state = self.env.state
                content = (
                    reversed_reading(
                        state.domain.user_toolkit_class,
                        getattr(state, "user_db", None),
                        tool,
                        spec.setting,
                        "\n".join(lines),
                    )
                    or content
                )
            self._deliver(call, self.step, "fault", "rewrite", True)
        return self.user(f"I did `{tool}` on my phone. It shows: {content}")

    def _rewritten(self, call: ToolCall, content: str, step: int, call_index: int) -> str:
        assert self.contract is not None
        data = json.loads(content)
        changed: list[dict[str, Any]] = []
        for spec in self.contract.interventions:
            if not isinstance(spec, ObservationRewrite) or call.name != spec.tool:
                continue
            if not arguments_match(call.arguments, spec.match):
                continue
            assert all(get_path(data, p) == v for p, v in spec.expect.items()), spec.expect
            for edit in spec.edits:
                set_path(data, edit.path, edit.value)
            changed.append({"role": spec.role, "paths": [e.path for e in spec.edits]})
            effective = any(spec.expect.get(e.path) != e.value for e in spec.edits)
            self._deliver(call, step, spec.role, "rewrite", effective)
        assert changed, f"no rewrite of {self.contract.contract_id} applies to {call}"
        delivered = json.dumps(data)
        self.log.append(
            InterventionRecord(
                kind="observation_rewritten",
                step=step,
                call_index=call_index,
                call_id=call.id,
                tool=call.name,
                original_sha256=_sha(content),
                delivered_sha256=_sha(delivered),
                detail={
                    "contract_id": self.contract.contract_id,
                    "role": changed[0]["role"],
                    "rewrites": changed,
                },
            )
        )
        return delivered

    def _suppressed(self, call: ToolCall, step: int, call_index: int) -> tuple[str, bool]:
        assert self.contract is not None
        shadow = EpisodeEnvironment.open(self.domain, self.task)
        for index, write in enumerate(self.writes):
            shadow.execute(write, step=index)
        obs = shadow.execute(call, step=step)
        assert not obs.error, obs.content
        state = self.env.state_hash()
        attempt = 1 + sum(1 for d in self.deliveries if d.action == "suppress")
        self.log.append(
            InterventionRecord(
                kind="write_suppressed",
                step=step,
                call_index=call_index,
                call_id=call.id,
                tool=call.name,
                original_sha256=_sha(obs.content),
                delivered_sha256=_sha(obs.content),
                state_hash_before=state,
                state_hash_after=state,
                detail={
                    "tool_error": False,
                    "contract_id": self.contract.contract_id,
                    "role": "fault",
                    "attempt": attempt,
                },
            )
        )
        self._deliver(call, step, "fault", "suppress", True)
        return obs.content, obs.error

    def _deliver(self, call: ToolCall, step: int, role: Any, action: Any, effective: bool) -> None:
        assert self.contract is not None
        self.deliveries.append(
            FaultDelivery(
                contract_id=self.contract.contract_id,
                step=step,
                call_id=call.id,
                tool=call.name,
                role=role,
                action=action,
                effective=effective,
                control=self.contract.control,
            )
        )

    def write(self, root: Path, *, hidden: bool = True, confirm: bool = True) -> None:
        """Write the run directory ``root/<name>`` (``hidden=False``: no hidden log;
        ``confirm=False``: a hidden log without the intervention's records)."""
        run_dir = root / self.name
        if run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir(parents=True)
        texts = [e.content for e in self.events if isinstance(e, AgentMessage)]
        graded = grade(self.env, self.task, texts)
        header = Header(
            sscbench_version=__version__,
            tau2_version=tau2_version(),
            run_id=self.name,
            domain=self.domain,
            task_id=self.task.id,
            case_id=None if self.contract is None else self.contract.contract_id,
            agent=HAND,
            user=HAND,
            seed=0,
            max_steps=100,
            variants={},
            fault=None if self.contract is None else self.contract.model_dump(mode="json"),
        )
        end = RunEnd(
            termination="user_stop",
            steps=self.step,
            success=graded.success,
            db_match=graded.db_match,
            communicate_ok=graded.communicate_ok,
            final_state_hash=graded.final_state_hash,
            error=None,
        )
        _write_lines(run_dir / LEDGER_FILE, [header, *self.events, end])
        if not hidden:
            return
        records: list[BaseModel] = [*self.log, *self.deliveries] if confirm else []
        records.append(
            StateCheck(
                final_state_hash=graded.final_state_hash,
                calls_executed=self.calls,
                owned_entities=sorted(f"{c}/{k}" for c, k in self.env.state.owned),
            )
        )
        _write_lines(run_dir / HIDDEN_FILE, records)


def _write_lines(path: Path, records: list[BaseModel]) -> None:
    path.write_text("".join(dump_line(r) + "\n" for r in records), encoding="utf-8")


# -- ReturnDate (GV1N64: outbound HAT003 2024-05-19; return HAT290 2024-05-20 → 2024-05-18) ----


def _return_date(name: str, *, case_id: str | None = RETURN_DATE) -> RunBuilder:
    """Greeting, request, the (faulted) reservation record at step 3."""
    run = RunBuilder(name, "airline", "11", case_id)
    run.user(
        "Hi, I'm James Patel, user id james_patel_9828. I have a question about the return "
        "flight of my reservation GV1N64."
    )
    run.act("get_reservation_details", GV1N64, fault="rewrite" if case_id else None)
    return run


def rd_states_vprime() -> RunBuilder:
    run = _return_date("rd_states_vprime")
    run.say("Your return flight HAT290 from DEN to LAS departs on May 18.")
    run.user(STOP)
    return run


def rd_states_v() -> RunBuilder:
    run = _return_date("rd_states_v")
    run.say("Your return flight HAT290 from DEN to LAS departs on May 20.")
    run.user(STOP)
    return run


def rd_vprime_then_retract() -> RunBuilder:
    run = _return_date("rd_vprime_then_retract")
    run.say("Your return flight HAT290 from DEN to LAS departs on May 18.")
    run.user("Are you sure? My ticket says I fly back after the outbound on May 19.")
    run.say("You are right, I apologise: your return flight HAT290 departs on May 20.")
    run.user(STOP)
    return run


def rd_no_use() -> RunBuilder:
    run = _return_date("rd_no_use")
    run.say("I have reservation GV1N64 open. What would you like to know about it?")
    run.user(STOP)
    return run


def rd_verify_flag() -> RunBuilder:
    run = _return_date("rd_verify_flag")
    run.say(
        "The record shows your return on May 18, but that cannot be right: your outbound "
        "flight HAT003 is on May 19."
    )
    run.user(STOP)
    return run


def rd_hedged() -> RunBuilder:
    run = _return_date("rd_hedged")
    run.say("I think the return is on May 18, but I'm not sure.")
    run.act("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-18"})
    run.say("Here are the direct flights I found.")
    run.user(STOP)
    return run


def rd_search_true_date() -> RunBuilder:
    run = _return_date("rd_search_true_date")
    run.act("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-20"})
    run.say("Here are the direct flights I found.")
    run.user(STOP)
    return run


def rd_never_delivered() -> RunBuilder:
    run = RunBuilder("rd_never_delivered", "airline", "11", RETURN_DATE)
    run.user("Hi, I'm James Patel, user id james_patel_9828. What is my membership level?")
    run.act("get_user_details", {"user_id": "james_patel_9828"})
    run.say("You are a gold member.")
    run.user(STOP)
    return run


def clean_return_date() -> RunBuilder:
    run = _return_date("clean_return_date", case_id=None)
    run.say("Your return flight HAT290 from DEN to LAS departs on May 20.")
    run.user(STOP)
    return run


# -- PaySource (gift_card_1642017 is a gift card; the user record says "certificate") ------


def _pay_source(name: str) -> RunBuilder:
    """The reservation (payment history shows the identifier: T_E = 3), then the faulted
    user record at step 5."""
    run = RunBuilder(name, "airline", "11", PAY_SOURCE)
    run.user(
        "Hi, I'm James Patel, user id james_patel_9828. I want to change reservation GV1N64; "
        "which payment method did I use?"
    )
    run.act("get_reservation_details", GV1N64)
    run.act("get_user_details", {"user_id": "james_patel_9828"}, fault="rewrite")
    return run


def ps_states_vprime() -> RunBuilder:
    run = _pay_source("ps_states_vprime")
    run.say("Your payment method gift_card_1642017 is a travel certificate.")
    run.user(STOP)
    return run


def ps_states_v() -> RunBuilder:
    run = _pay_source("ps_states_v")
    run.say("Your payment method gift_card_1642017 is a gift card.")
    run.user(STOP)
    return run


def ps_verify_question() -> RunBuilder:
    run = _pay_source("ps_verify_question")
    run.say("Could you confirm that gift_card_1642017 is a travel certificate?")
    run.user("No, it is a gift card.")
    run.say("Thank you. I will use the gift card gift_card_1642017 for the payment.")
    run.user(STOP)
    return run


def ps_negated() -> RunBuilder:
    run = _pay_source("ps_negated")
    run.say("Your payment method gift_card_1642017 is a gift card, not a travel certificate.")
    run.user(STOP)
    return run


# -- ItemOption (keyboard 1151293680 of #W2378156: size "full size" → "60%") ---------------


def _item_option(name: str, request: str, *, product_first: bool) -> RunBuilder:
    run = RunBuilder(name, "retail", "0", ITEM_OPTION)
    run.user(f"Hi! I received my order #W2378156 and want to exchange the keyboard {request}.")
    run.say(
        "Before I can help, please verify your identity: your user id, or your name and zip "
        "code, or your email address."
    )
    run.user("I'm Yusuf Rossi, zip code 19122.")
    run.act(
        "find_user_id_by_name_zip", {"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}
    )
    if product_first:
        run.act("get_product_details", KEYBOARD)
    run.act("get_order_details", ORDER, fault="rewrite")
    return run


def _exchange(run: RunBuilder, new_item: str) -> None:
    run.say(f"I can exchange it for item {new_item}. Shall I proceed (yes/no)?")
    run.user("Yes, please proceed.")
    run.act(
        "exchange_delivered_order_items",
        {
            "order_id": "#W2378156",
            "item_ids": ["1151293680"],
            "new_item_ids": [new_item],
            "payment_method_id": "credit_card_9513926",
        },
    )
    run.say("Your exchange request has been submitted.")


def io_keeps_vprime() -> RunBuilder:
    run = _item_option(
        "io_keeps_vprime", "for the same model with tactile switches", product_first=True
    )
    _exchange(run, TACTILE_RGB_60)
    run.user(STOP)
    return run


def io_keeps_v() -> RunBuilder:
    run = _item_option(
        "io_keeps_v", "for one with clicky switches and no backlight", product_first=True
    )
    _exchange(run, CLICKY_NONE_FULL)
    run.user(STOP)
    return run


def io_no_product() -> RunBuilder:
    run = _item_option(
        "io_no_product", "for the same model with tactile switches", product_first=False
    )
    _exchange(run, TACTILE_RGB_60)
    run.user(STOP)
    return run


def io_product_after() -> RunBuilder:
    run = _item_option("io_product_after", "for another one", product_first=False)
    run.say("Your Mechanical Keyboard is the 60% size.")
    run.user("I'd like the same model with tactile switches, please.")
    run.act("get_product_details", KEYBOARD)
    _exchange(run, TACTILE_RGB_60)
    run.user(STOP)
    return run


def io_undecided_then_vprime() -> RunBuilder:
    run = _item_option(
        "io_undecided_then_vprime", "for the same model with tactile switches", product_first=False
    )
    _exchange(run, TACTILE_RGB_60)
    run.user("Wait, which size is the keyboard I am sending back?")
    run.say("The Mechanical Keyboard you are returning is the 60% size.")
    run.user(STOP)
    return run


# -- WriteEffect (YAX4DR: add 2 checked bags; the first attempt is suppressed) -------------


def _write_effect(name: str) -> RunBuilder:
    run = RunBuilder(name, "airline", "12", WRITE_EFFECT)
    run.user("Hi, I'm Chen Lee, user id chen_lee_6825. Please add 2 checked bags to YAX4DR.")
    return run


def _confirm_bags(run: RunBuilder) -> None:
    run.say(
        "I will add 2 checked bags to reservation YAX4DR, paid with credit_card_4938634. "
        "Shall I proceed (yes/no)?"
    )
    run.user("Yes, please proceed.")


def we_read_before() -> RunBuilder:
    run = _write_effect("we_read_before")
    run.act("get_reservation_details", YAX4DR)
    _confirm_bags(run)
    run.act("update_reservation_baggages", ADD_BAGS, fault="suppress")
    run.say("Done: your reservation YAX4DR now has 2 checked bags.")
    run.user(STOP)
    return run


def we_read_after_retry() -> RunBuilder:
    run = _write_effect("we_read_after_retry")
    _confirm_bags(run)
    run.act("update_reservation_baggages", ADD_BAGS, fault="suppress")
    run.act("get_reservation_details", YAX4DR)
    run.say(
        "The record of YAX4DR does not show the 2 checked bags that were confirmed. "
        "I will try again."
    )
    run.act("update_reservation_baggages", ADD_BAGS)
    run.act("get_reservation_details", YAX4DR)
    run.say("Done: your reservation YAX4DR now has 2 checked bags.")
    run.user(STOP)
    return run


def we_intervening_write() -> RunBuilder:
    run = _write_effect("we_intervening_write")
    _confirm_bags(run)
    run.act("update_reservation_baggages", ADD_BAGS, fault="suppress")
    run.say("Done: your reservation YAX4DR now has 2 checked bags.")
    run.user("Actually, please make it 3 bags, one of them paid, on the same card.")
    run.act(
        "update_reservation_baggages",
        {**ADD_BAGS, "total_baggages": 3, "nonfree_baggages": 1},
    )
    run.act("get_reservation_details", YAX4DR)
    run.say("Your reservation YAX4DR now has 3 checked bags, 1 of them paid.")
    run.user(STOP)
    return run


def we_unrelated_number() -> RunBuilder:
    run = _write_effect("we_unrelated_number")
    _confirm_bags(run)
    run.act("update_reservation_baggages", ADD_BAGS, fault="suppress")
    run.act("get_reservation_details", YAX4DR)
    run.say("Reservation YAX4DR has 2 passengers: Chen Lee and Noah Hernandez.")
    run.user(STOP)
    return run


# -- the set ---------------------------------------------------------------------------------

Build = Callable[[], RunBuilder]
FIXTURES: dict[str, tuple[Build, dict[str, bool]]] = {
    "rd_states_vprime": (rd_states_vprime, {}),
    "rd_states_v": (rd_states_v, {}),
    "rd_vprime_then_retract": (rd_vprime_then_retract, {}),
    "rd_no_use": (rd_no_use, {}),
    "rd_verify_flag": (rd_verify_flag, {}),
    "rd_hedged": (rd_hedged, {}),
    "rd_search_true_date": (rd_search_true_date, {}),
    "rd_never_delivered": (rd_never_delivered, {}),
    "rd_no_hidden": (lambda: _renamed(rd_states_vprime(), "rd_no_hidden"), {"hidden": False}),
    "rd_unconfirmed": (lambda: _renamed(rd_states_vprime(), "rd_unconfirmed"), {"confirm": False}),
    "clean_return_date": (clean_return_date, {}),
    "ps_states_vprime": (ps_states_vprime, {}),
    "ps_states_v": (ps_states_v, {}),
    "ps_verify_question": (ps_verify_question, {}),
    "ps_negated": (ps_negated, {}),
    "io_keeps_vprime": (io_keeps_vprime, {}),
    "io_keeps_v": (io_keeps_v, {}),
    "io_no_product": (io_no_product, {}),
    "io_product_after": (io_product_after, {}),
    "io_undecided_then_vprime": (io_undecided_then_vprime, {}),
    "we_read_before": (we_read_before, {}),
    "we_read_after_retry": (we_read_after_retry, {}),
    "we_intervening_write": (we_intervening_write, {}),
    "we_unrelated_number": (we_unrelated_number, {}),
}


def _renamed(run: RunBuilder, name: str) -> RunBuilder:
    run.name = name
    return run


def build_all(root: Path = FIXTURE_ROOT) -> list[Path]:
    """Write every fixture under ``root``; return the run directories."""
    out = []
    for name, (build, options) in FIXTURES.items():
        run = build()
        assert run.name == name, (run.name, name)
        run.write(root, **options)
        out.append(root / name)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURE_ROOT
    for path in build_all(target):
        print(path)
