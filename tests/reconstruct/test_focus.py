"""The dialogue's focus, looked up only when asked, is the focus of looking up every text
as it is seen (the definition), whichever index each text was seen under."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.reconstruct.binding import Focus, RefIndex

INDEXES = (
    RefIndex({}),
    RefIndex({"w1": {"order_a"}, "keyboard": {"order_a", "order_b"}}),
    RefIndex({"w2": {"order_b"}, "w1": {"order_a"}}, weak=("keyboard",)),
)
TEXTS = ("", "nothing here", "order w1", "the keyboard", "w2 then w1", "w1 and w2", "w2")

steps = st.lists(
    st.tuples(
        st.integers(0, len(INDEXES) - 1), st.sampled_from(TEXTS), st.booleans()
    ),  # (index in force, text seen, ask the focus after it)
    max_size=12,
)


def _eager(index: RefIndex, text: str, current: frozenset[str]) -> frozenset[str]:
    refs = index.find(text)
    return refs[-1][0] if refs else current


@settings(max_examples=500, deadline=None)
@given(steps=steps)
def test_lazy_focus_is_the_eager_focus(steps: list[tuple[int, str, bool]]) -> None:
    focus = Focus(INDEXES[0])
    expected: frozenset[str] = frozenset()
    for which, text, ask in steps:
        focus.index = INDEXES[which]
        focus.see(text)
        expected = _eager(INDEXES[which], text, expected)
        if ask:
            assert focus.current == expected
    assert focus.current == expected


def test_a_text_is_found_with_the_index_it_was_seen_under() -> None:
    focus = Focus(INDEXES[1])
    focus.see("order w1")
    focus.index = INDEXES[0]  # knows no form: a later index must not re-read the text
    focus.see("nothing here")
    assert focus.current == frozenset({"order_a"})


def test_a_text_made_on_demand_is_made_only_when_looked_up() -> None:
    made: list[str] = []

    def arguments() -> str:
        made.append("w2")
        return "w2"

    focus = Focus(INDEXES[2])
    focus.see(arguments)
    focus.see("order w1")
    assert focus.current == frozenset({"order_a"})
    assert made == []  # a later text named something: the earlier one is never made
    focus.see(arguments)
    assert focus.current == frozenset({"order_b"})
    assert made == ["w2"]


def test_an_index_made_on_demand_is_made_only_for_a_text_looked_up() -> None:
    made: list[int] = []

    def index_at(which: int) -> RefIndex:
        made.append(which)
        return INDEXES[which]

    focus = Focus(INDEXES[0])
    focus.see("w2", lambda: index_at(2))
    focus.see("order w1", lambda: index_at(1))
    focus.see("nothing here", lambda: index_at(2))
    assert focus.current == frozenset({"order_a"})
    assert made == [2, 1]  # from the latest text back to the first that names something
