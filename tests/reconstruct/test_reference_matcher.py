"""Reference finding without one big pattern: :func:`_matcher` finds exactly the matches
of :func:`_alternation` (the defining pattern), on any forms and text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.reconstruct.binding import RefIndex, _alternation, _matcher

ALPHABET = "ab1 #-$._éx\t"
forms = st.frozensets(st.text(ALPHABET, min_size=1, max_size=5).map(str.strip), max_size=6)


def _defined(forms: frozenset[str], text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _alternation(forms).finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(forms=forms, text=st.text(ALPHABET, max_size=40))
def test_matcher_is_the_alternation(forms: frozenset[str], text: str) -> None:
    assert _matcher(forms)(text) == _defined(forms, text)


def test_longest_form_at_a_word_start_wins() -> None:
    found = _matcher(frozenset({"gift card", "gift", "card 1", "#w1"}))
    assert found("a gift card 1, gift, #w1 x#w1 gifts") == [
        ("gift card", 2, 11),
        ("gift", 15, 19),
        ("#w1", 21, 24),
    ]


def test_find_keeps_weak_forms_for_texts_without_strong_ones() -> None:
    index = RefIndex({"laptop": {"a", "b"}, "1234567890": {"a"}}, weak={"laptop"})
    assert index.find("your laptop") == [(frozenset({"a", "b"}), 5, 11)]
    assert index.find("your laptop", strong_only=True) == []
    assert index.find("laptop 1234567890") == [(frozenset({"a"}), 7, 17)]
