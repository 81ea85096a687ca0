"""The choke point: copy-on-write isolation, rewrites, suppressed writes, harness errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sscbench.envs import (
    CallContext,
    EpisodeEnvironment,
    Observation,
    ToolCall,
    WriteDecision,
    load_domain,
    state_hash_of,
)
from sscbench.errors import HarnessError

UPGRADE = ToolCall(
    id="w1",
    name="update_reservation_flights",
    arguments={
        "reservation_id": "XEHM4B",
        "cabin": "economy",
        "flights": [
            {"flight_number": "HAT005", "date": "2024-05-20"},
            {"flight_number": "HAT178", "date": "2024-05-30"},
        ],
        "payment_id": "credit_card_2408938",
    },
)
READ = ToolCall(id="r1", name="get_reservation_details", arguments={"reservation_id": "XEHM4B"})


class Suppress:
    """Suppress every write; never rewrite."""

    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        return WriteDecision.SUPPRESS

    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        return None


class RewriteCabin:
    """Rewrite the cabin of every delivered reservation to 'business'."""

    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        return WriteDecision.PROCEED

    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        data = json.loads(observation.content)
        if not isinstance(data, dict) or "cabin" not in data:
            return None
        data["cabin"] = "business"
        return observation.model_copy(update={"content": json.dumps(data)})


def test_episodes_are_isolated_from_each_other_and_from_the_base() -> None:
    domain = load_domain("airline")
    base_hash = state_hash_of(domain.base_db, domain.collections)
    first = EpisodeEnvironment.open("airline")
    first.execute(UPGRADE, 0)
    first.execute(
        ToolCall(id="w2", name="cancel_reservation", arguments={"reservation_id": "XEHM4B"}), 1
    )
    first.execute(
        ToolCall(
            id="w3",
            name="send_certificate",
            arguments={"user_id": "daiki_muller_1116", "amount": 50},
        ),
        2,
    )
    assert first.state_hash() != base_hash
    second = EpisodeEnvironment.open("airline")
    assert second.state_hash() == base_hash
    assert json.loads(second.execute(READ, 0).content)["status"] is None
    assert domain.base_db.reservations["XEHM4B"].cabin == "basic_economy"
    assert "certificate_3221322" not in domain.base_db.users["daiki_muller_1116"].payment_methods
    assert state_hash_of(domain.base_db, domain.collections) == base_hash


def test_booking_a_new_reservation_stays_in_its_episode() -> None:
    domain = load_domain("airline")
    task = next(
        t
        for t in domain.tasks
        if any(a.name == "book_reservation" for a in t.evaluation_criteria.actions or [])
    )
    env = EpisodeEnvironment.open("airline", task)
    for i, action in enumerate(task.evaluation_criteria.actions or []):
        env.execute(ToolCall(id=str(i), name=action.name, arguments=action.arguments), i)
    assert "HATHAT" in env.state.db.reservations
    assert "HATHAT" not in domain.base_db.reservations
    assert "HATHAT" not in EpisodeEnvironment.open("airline").state.db.reservations


def test_suppressed_write_returns_the_real_payload_and_leaves_state_unchanged() -> None:
    real = EpisodeEnvironment.open("airline").execute(UPGRADE, 5)
    env = EpisodeEnvironment.open("airline", intervention=Suppress())
    before = env.state_hash()
    faked = env.execute(UPGRADE, 5)
    assert (faked.content, faked.error) == (real.content, real.error)
    assert json.loads(faked.content)["cabin"] == "economy"
    assert env.state_hash() == before
    assert json.loads(env.execute(READ, 7).content)["cabin"] == "basic_economy"
    [record] = env.intervention_log
    assert (record.kind, record.step, record.tool) == ("write_suppressed", 5, UPGRADE.name)
    assert record.state_hash_before == record.state_hash_after == before


def test_suppressing_an_already_written_entity_restores_the_written_version() -> None:
    class SuppressSecond(Suppress):
        def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
            return WriteDecision.SUPPRESS if ctx.call_index == 1 else WriteDecision.PROCEED

    env = EpisodeEnvironment.open("airline", intervention=SuppressSecond())
    env.execute(UPGRADE, 0)
    after_upgrade = env.state_hash()
    env.execute(
        ToolCall(id="w2", name="cancel_reservation", arguments={"reservation_id": "XEHM4B"}), 1
    )
    assert env.state_hash() == after_upgrade
    assert json.loads(env.execute(READ, 2).content)["cabin"] == "economy"


def test_suppressed_booking_removes_the_new_reservation() -> None:
    domain = load_domain("airline")
    task = next(
        t
        for t in domain.tasks
        if any(a.name == "book_reservation" for a in t.evaluation_criteria.actions or [])
    )
    env = EpisodeEnvironment.open("airline", task, intervention=Suppress())
    for i, action in enumerate(task.evaluation_criteria.actions or []):
        env.execute(ToolCall(id=str(i), name=action.name, arguments=action.arguments), i)
    assert "HATHAT" not in env.state.db.reservations
    assert env.state_hash() == state_hash_of(domain.base_db, domain.collections)


def test_rewrite_changes_only_the_delivered_observation() -> None:
    env = EpisodeEnvironment.open("airline", intervention=RewriteCabin())
    obs = env.execute(READ, 3)
    assert json.loads(obs.content)["cabin"] == "business"
    assert env.state.db.reservations["XEHM4B"].cabin == "basic_economy"
    [record] = env.intervention_log
    assert (record.kind, record.step, record.call_id) == ("observation_rewritten", 3, "r1")
    assert record.original_sha256 != record.delivered_sha256


def test_a_bug_in_an_intervention_raises_instead_of_becoming_a_tool_error() -> None:
    class Broken(Suppress):
        def rewrite(
            self, call: ToolCall, observation: Observation, ctx: CallContext
        ) -> Observation | None:
            raise KeyError("bug")

    env = EpisodeEnvironment.open("airline", intervention=Broken())
    with pytest.raises(KeyError):
        env.execute(READ, 0)


def test_a_rewrite_for_the_wrong_call_is_a_harness_error() -> None:
    class WrongId(Suppress):
        def rewrite(
            self, call: ToolCall, observation: Observation, ctx: CallContext
        ) -> Observation | None:
            return Observation(call_id="other", content="{}")

    with pytest.raises(HarnessError):
        EpisodeEnvironment.open("airline", intervention=WrongId()).execute(READ, 0)


def test_exception_in_sscbench_code_inside_a_tool_is_a_harness_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sscbench.envs.state import entity_digest

    env = EpisodeEnvironment.open("airline")
    # SSCBench code (entity_digest on a str) failing inside the tool call.
    monkeypatch.setattr(
        env.toolkit, "get_reservation_details", lambda reservation_id: entity_digest(reservation_id)
    )
    with pytest.raises(HarnessError, match="harness failure"):
        env.execute(READ, 0)


def test_exception_in_tau2_tool_code_stays_a_tool_error(monkeypatch: pytest.MonkeyPatch) -> None:
    env = EpisodeEnvironment.open("airline")

    def failing_tool(reservation_id: str) -> object:
        raise AttributeError("tool bug")

    monkeypatch.setattr(env.toolkit, "get_reservation_details", failing_tool)
    obs = env.execute(READ, 0)
    assert (obs.content, obs.error) == ("Error: tool bug", True)


def test_unknown_write_tool_falls_back_to_copying_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sscbench.envs import footprint

    monkeypatch.setitem(footprint.FOOTPRINTS, "airline", {})
    domain = load_domain("airline")
    base_hash = state_hash_of(domain.base_db, domain.collections)
    env = EpisodeEnvironment.open("airline")
    env.execute(UPGRADE, 0)
    assert len(env.state.owned) > 2000
    assert state_hash_of(domain.base_db, domain.collections) == base_hash


def test_a_write_after_a_suppressed_one_never_touches_the_base() -> None:
    # Regression: the undo put the shared base object back but left it marked as owned,
    # so the next (real) write mutated the base database.
    class SuppressFirst(Suppress):
        def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
            return WriteDecision.SUPPRESS if ctx.call_index == 0 else WriteDecision.PROCEED

    domain = load_domain("airline")
    base_hash = state_hash_of(domain.base_db, domain.collections)
    env = EpisodeEnvironment.open("airline", intervention=SuppressFirst())
    env.execute(UPGRADE, 0)
    env.execute(UPGRADE.model_copy(update={"id": "w2"}), 1)
    assert json.loads(env.execute(READ, 2).content)["cabin"] == "economy"
    assert domain.base_db.reservations["XEHM4B"].cabin == "basic_economy"
    assert state_hash_of(domain.base_db, domain.collections) == base_hash
    assert EpisodeEnvironment.open("airline").state_hash() == base_hash


def _booking_on(domain_name: str, date: str, call_id: str) -> tuple[ToolCall, str]:
    """A one-way booking of the first gold booking's first flight on ``date``, paid in full
    by credit card (so it succeeds), and that flight's number."""
    domain = load_domain(domain_name)
    gold = next(
        a
        for t in domain.tasks
        for a in t.evaluation_criteria.actions or []
        if a.name == "book_reservation"
    )
    args = json.loads(json.dumps(gold.arguments))
    number = args["flights"][0]["flight_number"]
    user = domain.base_db.users[args["user_id"]]
    card = next(p for p, m in user.payment_methods.items() if m.source == "credit_card")
    price = domain.base_db.flights[number].dates[date].prices[args["cabin"]]
    total = price * len(args["passengers"]) + 50 * args["nonfree_baggages"]
    total += 30 * len(args["passengers"]) if args["insurance"] == "yes" else 0
    args.update(
        flight_type="one_way",
        flights=[{"flight_number": number, "date": date}],
        payment_methods=[{"payment_id": card, "amount": total}],
    )
    return ToolCall(id=call_id, name="book_reservation", arguments=args), number


def test_bookings_copy_only_the_dates_they_book(monkeypatch: pytest.MonkeyPatch) -> None:
    # A booking copies the booked dates of a flight, not the flight's 30: a second booking
    # of the same flight on another date must copy that date too, a suppressed one must
    # leave the episode as it was, and the state must hash as with whole copies.
    from sscbench.envs import footprint

    domain = load_domain("airline")
    base_hash = state_hash_of(domain.base_db, domain.collections)
    _, number = _booking_on("airline", "2024-05-20", "x")
    dates = [
        d for d, s in domain.base_db.flights[number].dates.items() if s.status == "available"
    ][:3]
    seats = {d: dict(domain.base_db.flights[number].dates[d].available_seats) for d in dates}

    class SuppressThird(Suppress):
        def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
            return WriteDecision.SUPPRESS if ctx.call_index == 2 else WriteDecision.PROCEED

    def play() -> EpisodeEnvironment:
        env = EpisodeEnvironment.open("airline", intervention=SuppressThird())
        for i, date in enumerate(dates):
            call, _ = _booking_on("airline", date, f"b{i}")
            assert not env.execute(call, i).error
        return env

    env = play()
    flight = env.state.db.flights[number]
    assert flight is not domain.base_db.flights[number]
    for date in dates[:2]:
        assert flight.dates[date] is not domain.base_db.flights[number].dates[date]
        assert flight.dates[date].available_seats != seats[date]
    assert flight.dates[dates[2]] is domain.base_db.flights[number].dates[dates[2]]
    for date in dates:
        assert domain.base_db.flights[number].dates[date].available_seats == seats[date]
    assert state_hash_of(domain.base_db, domain.collections) == base_hash
    monkeypatch.setattr(footprint, "PARTS", {})
    whole = play()
    assert env.state_hash() == whole.state_hash() != base_hash
    assert env.state.db.flights[number] == whole.state.db.flights[number]


@given(
    before=st.lists(st.sampled_from("abcdefgh"), unique=True),
    edits=st.lists(st.tuples(st.booleans(), st.sampled_from("abcdefghij")), max_size=8),
)
def test_the_keys_a_write_added_are_the_set_difference(
    before: list[str], edits: list[tuple[bool, str]]
) -> None:
    """Undo finds the keys a write created from the keys' order at the checkpoint; any
    mix of additions and removals (a key removed and added again moves to the end) gives
    what the two sets of keys give."""
    from sscbench.envs.state import _added

    coll: dict[str, object] = dict.fromkeys(before)
    checkpoint = tuple(coll)
    for add, key in edits:
        if add:
            coll[key] = None
        else:
            coll.pop(key, None)
    assert _added(coll, checkpoint) == [k for k in coll if k not in set(before)]
