"""Phrasing of scripted agents: ``plain`` keeps the original text byte for byte; ``varied``
words messages the way LLM agents do while the ground truth, the dialogue and the stated
values stay the same.

The recognisability check below is deliberately this test's own crude normalisation (it
does not use the event-reconstruction code the varied phrasing exists to evaluate).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents import make_agent
from sscbench.agents.scripted.phrasing import (
    Closing,
    Confirmation,
    Conflict,
    Fact,
    Phraser,
    ReadBackFailure,
    WriteDone,
    cue,
)
from sscbench.agents.scripted.phrasing import values as v
from sscbench.cases.caseset import Case, load_case_set
from sscbench.errors import ConfigError
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user

OPERATORS = ("return_date", "pay_source", "item_option", "write_effect")
MONTHS = [date(2024, m, 1).strftime("%B").lower() for m in range(1, 13)]
WEEKDAYS = [date(2024, 5, d).strftime("%A").lower() for d in range(13, 20)]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


# -- running shipped cases ----------------------------------------------------------------
@cache
def _cases() -> tuple[Case, ...]:
    return load_case_set(None).cases


def _some_cases(per_operator: int) -> list[Case]:
    out: list[Case] = []
    for op in OPERATORS:
        out += [c for c in _cases() if c.entry.operator == op and not c.entry.control][
            :per_operator
        ]
    return out


Run = tuple[list[dict[str, Any]], list[dict[str, Any]]]


def _run(root: Path, case: Case, agent: str, seed: int = 0, **params: Any) -> Run:
    """(ledger events without timestamps, truth records) of one case run."""
    c = case.contract
    tag = re.sub(r"\W", "_", case.entry.case_id)
    out = root / f"{tag}-{agent.replace(':', '.')}-s{seed}"
    spec = EpisodeSpec(
        domain=c.domain,
        task_id=c.task_id,
        seed=seed,
        case_id=c.contract_id,
        variants=dict(c.variant),
        fault=c.model_dump(mode="json"),
    )
    run_episode(
        spec,
        make_agent(agent, **params),
        make_user("scripted"),
        out,
        run_id=out.name,
        intervention=ContractIntervention(c),
    )
    events = [json.loads(line) for line in (out / "ledger.jsonl").read_text().splitlines()]
    for event in events:
        event.pop("ts", None)
    truth = [json.loads(line) for line in (out / "truth.jsonl").read_text().splitlines()]
    return events, truth


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Run, Run]]:
    """(label, plain run, varied run) for careful and hasty on every fault case of every
    operator, and gold and mixed on a few of each."""
    root = tmp_path_factory.mktemp("phrasing")
    jobs = [(c, a) for c in _some_cases(100) for a in ("scripted:careful", "scripted:hasty")]
    jobs += [(c, a) for c in _some_cases(3) for a in ("scripted:gold", "scripted:mixed")]
    return [
        (
            f"{case.entry.case_id} {agent}",
            _run(root / "plain", case, agent),
            _run(root / "varied", case, agent, phrasing="varied"),
        )
        for case, agent in jobs
    ]


def _agent_texts(events: list[dict[str, Any]]) -> dict[int, str]:
    return {e["step"]: e["content"] for e in events if e.get("kind") == "agent_message"}


# -- a crude, independent normalisation ---------------------------------------------------
def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[-_]", " ", text.lower()))


def _number_in(token: str, text: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(token)}(?!\d)", text) is not None


UNITS = {"liter": "l", "liters": "l", "ml": "m", "ft": "f", "mm": "m", "inch": "in", "hours": "h"}
CATEGORIES = {
    "gift_card": ("gift card",),
    "certificate": ("certificate", "voucher"),
    "credit_card": ("credit card",),
    "paypal": ("paypal",),
}
LETTERS = {"XS": "extra small", "S": "small", "M": "medium", "L": "large", "XL": "extra large"}


def recognisable(value: Any, path: str, text: str) -> bool:
    """Whether ``text`` states ``value`` (of a fact at ``path``) in some recognisable form."""
    low, nt = text.lower(), _norm(text)
    if value is None:
        return "none" in nt or "not set" in nt
    if isinstance(value, int):
        words = NUMBER_WORDS[value] if 0 <= value < len(NUMBER_WORDS) else str(value)
        zero = value == 0 and re.search(r"\b(no|none|zero)\b", nt) is not None
        return _number_in(str(value), nt) or re.search(rf"\b{words}\b", nt) is not None or zero
    s = str(value)
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", s)
    if m:
        d = date(int(m[1]), int(m[2]), int(m[3]))
        month = MONTHS[d.month - 1]
        forms = (s, f"{month} {d.day}", f"{d.day} {month}", f"{month[:3]} {d.day}")
        numeric = re.search(rf"\b0?{d.month}/0?{d.day}\b", low) is not None
        ordinal = re.search(rf"\bthe {d.day}(st|nd|rd|th)\b", low) is not None
        return any(f in low for f in forms) or numeric or ordinal or WEEKDAYS[d.weekday()] in low
    if path.endswith(".source") and s in CATEGORIES:
        return any(c in nt for c in CATEGORIES[s])
    if s in ("basic_economy", "cancelled"):
        return {"basic_economy": "basic economy", "cancelled": "cancel"}[s] in nt
    option = path.rsplit(".", 1)[-1]
    if ".options." in path and s in ("none", "yes", "no"):
        return option in nt
    if s in LETTERS and (re.search(rf"\b{s.lower()}\b", nt) or LETTERS[s] in nt):
        return True
    for token in re.findall(r"\d+(?:\.\d+)?|[a-z]+", _norm(s)):
        if token[0].isdigit():
            if not _number_in(token, nt):
                return False
        elif not (
            re.search(rf"\b{re.escape(token)}", nt)
            or re.search(rf"\d\s?{re.escape(UNITS.get(token, token))}", nt)
            or (token == "inch" and '"' in nt)
        ):
            return False
    return True


# -- plain --------------------------------------------------------------------------------
def test_plain_is_the_default_and_unchanged(tmp_path: Path) -> None:
    for case in _some_cases(2):
        for agent in ("scripted:careful", "scripted:hasty", "scripted:mixed"):
            default = _run(tmp_path / "default", case, agent)
            plain = _run(tmp_path / "plain", case, agent, phrasing="plain")
            assert default == plain, (case.entry.case_id, agent)
            assert default[0][0]["agent"]["params"].get("phrasing") is None


def test_plain_text_is_the_original_wording(tmp_path: Path) -> None:
    case = next(c for c in _cases() if c.entry.case_id == "return_date/airline/11/GV1N64")
    texts = list(_agent_texts(_run(tmp_path, case, "scripted:careful")[0]).values())
    assert texts[1] == (
        "Before I can help, please verify your identity: your user id, or your name and zip "
        "code, or your email address."
    )
    assert texts[2] == (
        'I will call update_reservation_flights with {"cabin": "basic_economy", "flights": '
        '[{"date": "2024-05-19", "flight_number": "HAT003"}, {"date": "2024-05-20", '
        '"flight_number": "HAT290"}], "payment_id": "gift_card_1642017", "reservation_id": '
        '"GV1N64"}. This relies on: flights.0.flight_number of reservation GV1N64 is HAT003; '
        "flights.0.date of reservation GV1N64 is 2024-05-19; flights.1.flight_number of "
        "reservation GV1N64 is HAT290; flights.1.date of reservation GV1N64 is 2024-05-20; "
        "payment_history.0.payment_id of reservation GV1N64 is gift_card_1642017. Note: "
        "flights.1.date of reservation GV1N64 is 2024-05-18 cannot be right (the return flight "
        "on 2024-05-18 would leave before the outbound flight on 2024-05-19); I do not rely on "
        "it. Shall I proceed (yes/no)?"
    )
    assert texts[-1].startswith("Done: status of reservation GV1N64 is None; cabin of ")
    assert texts[-1].endswith(". Is there anything else I can help you with?")


# -- parameters ---------------------------------------------------------------------------
@pytest.mark.parametrize("agent", ["scripted:gold", "scripted:careful", "scripted:hasty"])
def test_spec_records_a_non_default_phrasing(agent: str) -> None:
    assert make_agent(agent, phrasing="varied").spec.params == {"phrasing": "varied"}
    assert make_agent(agent, phrasing="plain").spec.params == {}
    mixed = make_agent("scripted:mixed", p=0.3, phrasing="varied")
    assert mixed.spec.params == {"p": 0.3, "phrasing": "varied"}


def test_unknown_phrasing_is_a_config_error(tmp_path: Path) -> None:
    for agent in ("scripted:gold", "scripted:mixed"):
        with pytest.raises(ConfigError, match=r"unknown phrasing 'fancy'.*plain, varied"):
            make_agent(agent, phrasing="fancy")
    from sscbench.experiments import load_experiment

    path = tmp_path / "exp.toml"
    path.write_text(
        '[[configurations]]\nid = "c"\nagent = "scripted:careful"\n'
        'params = { phrasing = "fancy" }\n'
    )
    with pytest.raises(ConfigError, match=r"unknown phrasing 'fancy'"):
        load_experiment(path)
    path.write_text(
        '[[configurations]]\nid = "c"\nagent = "scripted:careful"\n'
        'params = { phrasing = "varied" }\n'
    )
    assert load_experiment(path).configurations[0].params == {"phrasing": "varied"}


def _cli_run(argv: list[str]) -> int:
    """``sscbench run`` through its own subcommand module (the full CLI would also load
    the reconstruction commands, which this test must stay independent of)."""
    import argparse

    from sscbench.cli import run

    parser = argparse.ArgumentParser()
    run.register(parser.add_subparsers())
    try:
        return int(run.handle(parser.parse_args(["run", *argv])))
    except ConfigError:
        return 2


def test_cli_agent_param_selects_the_phrasing(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    args = ["--domain", "airline", "--tasks", "7", "--agent", "scripted:hasty", "--out"]
    assert _cli_run([*args, str(out), "--agent-param", "phrasing=varied"]) == 0
    header = json.loads((out / "airline-7-scripted.hasty-s0" / "ledger.jsonl").open().readline())
    assert header["agent"]["params"] == {"phrasing": "varied"}
    assert _cli_run([*args, str(tmp_path / "bad"), "--agent-param", "phrasing=fancy"]) == 2


# -- varied: same run, other words ----------------------------------------------------------
def test_varied_is_deterministic(tmp_path: Path) -> None:
    for case in _some_cases(2):
        for agent in ("scripted:careful", "scripted:mixed"):
            first = _run(tmp_path / "a", case, agent, seed=3, phrasing="varied")
            again = _run(tmp_path / "b", case, agent, seed=3, phrasing="varied")
            assert first == again, (case.entry.case_id, agent)


def test_varied_keeps_truth_calls_and_dialogue(pairs: list[tuple[str, Run, Run]]) -> None:
    changed = 0
    for label, (plain_events, plain_truth), (varied_events, varied_truth) in pairs:
        assert plain_truth == varied_truth, label
        strip = ("agent_message", "header")
        assert [e for e in plain_events if e.get("kind") not in strip] == [
            e for e in varied_events if e.get("kind") not in strip
        ], label
        plain, varied = _agent_texts(plain_events), _agent_texts(varied_events)
        assert plain.keys() == varied.keys(), label
        changed += sum(plain[s] != varied[s] for s in plain)
        assert all(cue(plain[s]) == cue(varied[s]) for s in plain), label
    assert changed > 2 * len(pairs)


def test_varied_states_every_value_recognisably(pairs: list[tuple[str, Run, Run]]) -> None:
    checked = 0
    for label, _, (events, truth) in pairs:
        texts = _agent_texts(events)
        for record in truth:
            if record["step"] not in texts:
                continue  # a tool call's argument
            value = record["value"] if record["kind"] == "fact_use" else record["rejected"]
            assert recognisable(value, record["path"], texts[record["step"]]), (
                label,
                record,
                texts[record["step"]],
            )
            checked += 1
    assert checked > 1000


def test_varied_names_the_entity_of_every_stated_value(pairs: list[tuple[str, Run, Run]]) -> None:
    """A value's entity is named in the message or, for an id-less reference, in the agent's
    previous message."""
    for label, _, (events, truth) in pairs:
        texts = _agent_texts(events)
        steps = sorted(texts)
        for record in truth:
            step = record["step"]
            if step not in texts or record["entity_type"] == "result":
                continue
            text = texts[step]
            if record["entity_type"] == "user":
                assert re.search(r"profile|account", text, re.I), (label, text)
                continue
            previous = texts[steps[steps.index(step) - 1]]
            assert record["entity_id"] in text or record["entity_id"] in previous, (label, text)


SHAPES = {
    "table": re.compile(r"^\| .* \|$\n^\| --- \| --- \|$", re.M),
    "bullets": re.compile(r"^(?:- |\* |• )\S", re.M),
    "json": re.compile(r'^(?:```json\n)?\{\s*"message":', re.M),
    "heading": re.compile(r"^(?:\*\*|### )(?:Reservation|Booking|Order|Your)", re.M),
    "hedge": re.compile(
        r"\b(I think|it looks like|as far as I can tell|from what I can see)\b", re.I
    ),
    "flag": re.compile(r"can't be right|doesn't look right|seems off|doesn't add up|discrepancy"),
    "trip_length": re.compile(r"\ban? \d+-(night|day) trip\b"),
    "route": re.compile(r"HAT\d{3} \(?[A-Z]{3}(?: → | to |-)[A-Z]{3}"),
    "product_name": re.compile(
        r"your (Mechanical Keyboard|Office Chair|Running Shoes|[A-Z]\w+ \w+)"
    ),
}
STANCES = {
    "verify": re.compile(r"can you confirm that's right\?"),
    "retract": re.compile(r"sorry, correction:"),
    "flag": re.compile(r"can't be right|doesn't look right|seems off|doesn't add up|discrepancy"),
    "flag_and_correct": re.compile(r", so I'll treat it as "),
    "not_through": re.compile(r"did not go through|may not have gone through|may have failed"),
}
DATE_FORMS = {
    "Month D": re.compile(r"\b(May|June) \d{1,2}\b(?!(st|nd|rd|th|,? 20))"),
    "Month Dth": re.compile(r"\b(May|June) \d{1,2}(st|nd|rd|th)\b"),
    "D Month": re.compile(r"\b\d{1,2} (May|June)\b"),
    "M/D": re.compile(r"(?<![\d/])[56]/\d{1,2}\b(?!/)"),
    "MM/DD": re.compile(r"\b0[56]/\d\d\b"),
    "ISO": re.compile(r"\b2024-0[56]-\d\d\b"),
    "Weekday, Month D": re.compile(r"\b[A-Z][a-z]+day, (May|June) \d"),
    "the Dth": re.compile(r"\bthe \d{1,2}(st|nd|rd|th)\b"),
    "weekday with role": re.compile(r"\b(fly back|fly out|depart|return) (on )?[A-Z][a-z]+day\b"),
}


def test_varied_produces_many_surface_forms(pairs: list[tuple[str, Run, Run]]) -> None:
    texts = [t for _, _, (events, _) in pairs for t in _agent_texts(events).values()]
    plain = {t for _, (events, _), _ in pairs for t in _agent_texts(events).values()}
    assert len(set(texts)) > len(plain)
    confirmations = [t for t in texts if cue(t) == "confirm"]
    openings = {re.sub(r"\w*\d\w*", "#", t[:30]) for t in confirmations}
    assert len(openings) >= 20, openings
    seen = Counter(
        name for t in texts for name, rx in {**SHAPES, **DATE_FORMS}.items() if rx.search(t)
    )
    missing = [name for name in {**SHAPES, **DATE_FORMS} if not seen[name]]
    assert not missing, (missing, seen)
    claims = {t.split("\n")[0] for t in texts if cue(t) == "close" and not t.startswith("{")}
    assert len(claims) >= 10, claims


# -- the library on its own ----------------------------------------------------------------
def _draws(make: Any, n: int = 300) -> set[str]:
    return {make(random.Random(i)) for i in range(n)}


def test_date_forms_place_short_forms_only_after_their_month() -> None:
    seen: set[str] = set()
    for i in range(400):
        speller = v.DateSpeller(random.Random(i))
        first = speller.spell("2024-05-17")
        assert "17" in first and not first.startswith("the")
        seen.add(speller.spell("2024-05-20", role=True))
        speller2 = v.DateSpeller(random.Random(i))
        alone = speller2.spell("2024-05-20", role=True)
        assert alone != "Monday" and not alone.startswith("the ")
    assert {"the 20th", "Monday", "May 20", "May 20th", "20 May", "5/20", "05/20"} <= seen
    assert {"2024-05-20", "Monday, May 20", "Mon May 20", "May 20, 2024"} <= seen


def test_value_forms() -> None:
    assert _draws(lambda r: v.category("certificate", r)) >= {"travel certificate", "voucher"}
    assert "gift cards" in _draws(lambda r: v.category("gift_card", r, plural=True))
    assert _draws(lambda r: v.cabin("basic_economy", r)) >= {"basic economy", "Basic Economy"}
    assert "business class" in _draws(lambda r: v.cabin("business", r))
    assert _draws(lambda r: v.bags(2, r)) >= {"2 checked bags", "two bags"}
    assert "no paid bags" in _draws(lambda r: v.bags(0, r, paid=True))
    options = _draws(lambda r: v.option("backlight", "none", r, prose=False)[0])
    assert options >= {"no backlight", "without backlight"}
    assert v.option("waterproof", "no", random.Random(0))[0] == "not waterproof"
    assert "large" in _draws(lambda r: v.option("size", "L", r)[0])
    assert "capacity 1.5 liters" in _draws(lambda r: v.option("capacity", "1.5L", r)[0])
    assert {"full-size", "full size"} <= _draws(lambda r: v.option_value("size", "full size", r))
    assert "Full Size" in _draws(lambda r: v.option("size", "full size", r, prose=False)[0])
    assert "full-size" in _draws(lambda r: v.option("size", "full size", r)[0])


def _pay_conflict() -> Confirmation:
    user = ("user", "james_patel_9828")
    source = "payment_methods.gift_card_1642017.source"
    return Confirmation(
        tool="update_reservation_baggages",
        arguments={"reservation_id": "GV1N64", "total_baggages": 2, "payment_id": "gift_card_1"},
        facts=(Fact("reservation", "GV1N64", "total_baggages", 2),),
        conflicts=(
            Conflict(
                Fact(*user, source, "certificate", operative=False),
                "payment method gift_card_1642017 is listed as certificate, but its id says "
                "gift_card",
            ),
        ),
    )


def _item_conflict() -> Confirmation:
    order = ("order", "#W2378156")
    path = "items.2.options.size"
    return Confirmation(
        tool="exchange_delivered_order_items",
        arguments={"order_id": "#W2378156", "item_ids": ["1151293680"], "new_item_ids": ["7"]},
        facts=(Fact(*order, "items.2.item_id", "1151293680"), Fact(*order, path, "full size")),
        conflicts=(
            Conflict(
                Fact(*order, path, "60%", operative=False),
                "the product record lists 'full size' for this item's variant",
                Fact(*order, path, "full size"),
            ),
        ),
    )


def test_messages_built_directly_keep_values_and_cues() -> None:
    reservation = ("reservation", "GV1N64")
    record = {
        "reservation_id": "GV1N64",
        "origin": "LAS",
        "destination": "DEN",
        "flight_type": "round_trip",
        "flights": [
            {"origin": "LAS", "destination": "DEN", "flight_number": "HAT003"},
            {"origin": "DEN", "destination": "LAS", "flight_number": "HAT290"},
        ],
    }
    items = {"items": [{}, {}, {"name": "Mechanical Keyboard", "item_id": "1151293680"}]}
    closing = Closing(
        facts=(
            Fact(*reservation, "cabin", "economy"),
            Fact(*reservation, "flights.0.flight_number", "HAT003"),
            Fact(*reservation, "flights.0.date", "2024-05-19"),
            Fact(*reservation, "flights.1.flight_number", "HAT290"),
            Fact(*reservation, "flights.1.date", "2024-05-22"),
            Fact(*reservation, "passengers.0.first_name", "Omar"),
            Fact(*reservation, "passengers.0.last_name", "Rossi"),
        ),
        writes=(WriteDone("update_reservation_passengers", (reservation,)),),
    )
    failed = ReadBackFailure((Fact(*reservation, "cabin", "economy", operative=False),), final=True)
    seen: set[str] = set()
    for seed in range(200):
        phraser = Phraser("varied")
        phraser.start("scripted:test", seed)
        for msg in (_pay_conflict(), _item_conflict(), closing, failed):
            text = phraser.render(msg, {reservation: record, ("order", "#W2378156"): items})
            seen.add(text)
            facts = msg.facts + tuple(c.rejected for c in getattr(msg, "conflicts", ()))
            for f in facts:
                assert recognisable(f.value, f.path, text), (f, text)
            assert cue(text) == {Confirmation: "confirm", Closing: "close"}.get(type(msg), "other")
    joined = "\n".join(seen)
    missing = [name for name, rx in STANCES.items() if not rx.search(joined)]
    assert not missing, missing
    assert re.search(r"your (Mechanical Keyboard|keyboard)|the keyboard", joined)
    assert "The passenger is now Omar Rossi" in joined
    assert "economy for everyone" in joined
    assert re.search(r"\ba 3-night trip\b|\ba 4-day trip\b", joined)
    assert "LAS" in joined  # a route next to a flight
    assert "did not go through" in joined
    assert re.search(r"shows it's a gift card|says gift card", joined)
    assert len(seen) > 400
