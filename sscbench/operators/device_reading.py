"""DeviceReading (telecom): a false reading on the customer's own phone.

The fault rewrites one line of the phone's network status (``check_network_status``, a
*user* tool: the customer runs it, and the agent hears only what the customer then says)
so that it hides the setting the task's fix depends on: "Airplane Mode: OFF" where airplane
mode is on, "Mobile Data Enabled: Yes" where mobile data is off. Every delivery that still
shows the true line is rewritten; once the customer toggles the setting the true reading
changes and the fault stops.

The one answer stays coherent: the lines that follow from the setting are rewritten with
it, as τ²'s own phone would show them with that setting reversed (a copy of the device,
the setting flipped, τ²'s network search re-run). With airplane mode on, "Airplane Mode:
OFF" therefore comes with the cellular connection, signal and network type the phone would
find without it ("connected", "excellent", "5G" where the towers give that) instead of
"no_service", "none", "none", which no phone with airplane mode off and an active SIM
shows. Mobile data changes no other line of the network status (τ² derives nothing from
it there), so that rewrite stays one line. No other setting (SIM, roaming, Wi-Fi, mode
preference, APN) is touched, so the answer asserts nothing beyond the false reading and
what τ² derives from it; the status bar, which shows airplane mode in place of every
other indicator, is the refutation and is never rewritten.

The refutation is a second, independent device check relayed by the customer: the phone's
status bar (``check_status_bar``), which the fault does not touch and which shows both
settings (relation ``device_second_check``, ``cross_record``). The agent may ask the
customer for it; the scripted customer runs it and relays the answer word for word.

Designs rejected: a back-office record as the refutation (no agent tool shows the phone's
toggles — the line's roaming flag and status are the network's record, not the phone's —
so none is authoritative for them); a second network status (the same rewritten tool, not
independent); the data roaming line (no other device tool shows the roaming toggle, so no
valid refutation exists); a speed test or "it still doesn't work" (half a dozen device
states give the same answer, so they are not sufficient).

Candidates: two readings per base telecom task — airplane mode and mobile data — so 228
frames. Relevant: the task's fix includes the customer's toggle of that setting
(``toggle_airplane_mode``, ``toggle_data`` among τ²'s gold user actions), so the reading is
what the diagnosis turns on. Valid only where the true line shows in the task's initial
state and the status bar there shows the setting (mobile data is not visible on the status
bar of a phone in airplane mode or without a network).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import (
    FaultContract,
    Quote,
    ReadingRewrite,
    Refutation,
    Target,
)
from sscbench.fault_contracts.relations import device_check  # noqa: F401  (registers it)
from sscbench.fault_contracts.relations.device_check import bar_refutes, status_bar
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.line_usage import customer_phone
from sscbench.operators.registry import register_operator

NETWORK_STATUS = "check_network_status"
STATUS_BAR = "check_status_bar"

READINGS: dict[str, tuple[str, str, str, str]] = {
    # reading: (line label, true word, injected word, the customer's fix in τ²'s gold)
    "airplane_mode": ("Airplane Mode", "ON", "OFF", "toggle_airplane_mode"),
    "mobile_data": ("Mobile Data Enabled", "No", "Yes", "toggle_data"),
}
"""The readings the fault hides, each shown as the opposite of the truth."""

SETTINGS = {"airplane_mode": "airplane_mode", "mobile_data": "data_enabled"}
"""The field of τ²'s device each reading shows: the rewrite reverses it on a copy of the
phone so that the lines which follow from it agree with the false one."""

CODES = {"airplane_mode": "am", "mobile_data": "md"}
"""The reading's code in a candidate id: telecom's longest task id leaves two characters
before a case file's name passes the file system's 255-byte limit."""

SCOPES = {
    "airplane_mode": "whether airplane mode is on, on the customer's phone",
    "mobile_data": "whether mobile data is enabled, on the customer's phone",
}


class DeviceReadingParams(OperatorParams):
    """Every delivery that still shows the true line carries the false one."""

    persistence: Literal["every_delivery"] = "every_delivery"


def semantics_quotes() -> tuple[Quote, ...]:
    """The two device tools' descriptions, read from τ²: both show the setting."""
    toolkit = load_domain("telecom").user_toolkit_class
    quotes = []
    for tool, claim, needle in (
        (
            NETWORK_STATUS,
            "the network status shows airplane mode and whether mobile data is enabled",
            "airplane mode status",
        ),
        (
            STATUS_BAR,
            "the status bar shows the phone's mobile data status, independently of it",
            "mobile data status",
        ),
    ):
        doc = " ".join((getattr(toolkit, tool).__doc__ or "").split())
        if needle in doc:
            quotes.append(Quote(claim=claim, text=doc, source=f"{tool} tool description"))
    return tuple(quotes)


def fix_actions(task: Any) -> set[str]:
    """The customer's device writes in the task's gold actions."""
    actions = task.evaluation_criteria.actions or []
    return {a.name for a in actions if a.requestor == "user"}


@register_operator
class DeviceReading(Operator[DeviceReadingParams]):
    """Show the opposite of a phone setting in the customer's network status."""

    name: ClassVar[str] = "device_reading"
    display_name: ClassVar[str] = "DeviceReading"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "shows airplane mode or mobile data opposite to the truth in the customer's network "
        "status (a user tool); refuted by the status bar the customer relays"
    )
    domains: ClassVar[tuple[str, ...]] = ("telecom",)
    target_tools: ClassVar[tuple[str, ...]] = (NETWORK_STATUS,)
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "line"
    params_model: ClassVar[type[OperatorParams]] = DeviceReadingParams
    step_limit: ClassVar[int] = 60

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """Two candidates per base telecom task (airplane mode, mobile data), τ² order."""
        semantics = semantics_quotes()
        for task in load_domain("telecom").tasks:
            for reading in READINGS:
                yield self._candidate(task, reading, semantics)

    def _candidate(
        self, task: Any, reading: str, semantics: tuple[Quote, ...]
    ) -> FaultContract | Rejection:
        label, true, injected, fix = READINGS[reading]
        phone = customer_phone(task)
        env = EpisodeEnvironment.open("telecom", task)  # the task's own initial state
        line = next((ln for ln in env.state.db.lines if ln.phone_number == phone), None)
        lid = line.line_id if line is not None else str(phone)
        cid = f"device_reading/telecom/{task.id}/{CODES[reading]}"
        if line is None:
            return self.reject(cid, task.id, lid, "exists", f"no line has number {phone}")
        if len(semantics) < 2:
            return self.reject(
                cid, task.id, lid, "semantics", "τ² no longer documents both device readings"
            )
        if fix not in fix_actions(task):
            return self.reject(
                cid,
                task.id,
                lid,
                "task_relevance",
                f"the task's fix does not include {fix}, so the {label.lower()} reading does "
                "not decide the diagnosis",
            )
        shows, reads = f"{label}: {true}", f"{label}: {injected}"
        status = self._read(env, NETWORK_STATUS)
        if shows not in status.splitlines():
            return self.reject(
                cid, task.id, lid, "state", f"the phone does not show {shows!r} at the start"
            )
        bar = status_bar(self._read(env, STATUS_BAR)) or ""
        if not bar_refutes(reading, injected, bar):
            return self.reject(
                cid,
                task.id,
                lid,
                "sufficiency",
                f"the status bar ({bar}) does not show the setting at the start, so no second "
                "device check can refute the reading",
            )
        return self.contract(
            contract_id=cid,
            domain="telecom",
            task_id=task.id,
            cluster=lid,
            target=Target(
                entity_type="device",
                entity_id=str(phone),  # the customer's phone, by the number they give
                paths=(reading,),
                scope=SCOPES[reading],
            ),
            authoritative_value=true,
            injected_value=injected,
            interventions=(
                ReadingRewrite(
                    tool=NETWORK_STATUS, shows=shows, reads=reads, setting=SETTINGS[reading]
                ),
            ),
            refutation=Refutation(
                relation="device_second_check",
                acquisition="cross_record",
                params={
                    "reading": reading,
                    "injected": injected,
                    "reads": reads,
                    "tool": NETWORK_STATUS,
                },
            ),
            semantics=semantics,
        )

    @staticmethod
    def _read(env: EpisodeEnvironment, tool: str) -> str:
        return env.execute(ToolCall(id="screen", name=tool, arguments={}), 0, "user").content
