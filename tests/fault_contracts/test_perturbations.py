"""The five transport perturbations: deterministic per seed, each changes the bytes (so the
SHA-256 of the artifact as issued no longer matches), and a kind that cannot change a text
says so instead of injecting a no-op."""

from __future__ import annotations

import random

import pytest

from sscbench.fault_contracts.perturbations import KINDS, digest, perturb

URL = "https://files.example/r/42?expires=1715785200&sig=ab%2Fcd&user=7"


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_damages_a_signed_url_deterministically(kind: str) -> None:
    a = perturb(kind, URL, random.Random("s:1"), display="quarterly report")  # type: ignore[arg-type]
    b = perturb(kind, URL, random.Random("s:1"), display="quarterly report")  # type: ignore[arg-type]
    assert a is not None and a == b
    assert a != URL and digest(a) != digest(URL)


def test_the_kinds_do_what_their_names_say() -> None:
    rng = random.Random(0)
    cut = perturb("truncation", URL, rng, limit=30)
    assert cut == URL[:30]
    newline = perturb("newline", "#W5918442", rng)
    assert newline is not None and newline.replace("\n", "") == "#W5918442"
    assert not newline.startswith("\n") and not newline.endswith("\n")
    assert perturb("url_reencode", "#W5918442", rng) == "%23W5918442"
    assert perturb("url_reencode", URL, rng) == URL.replace("%2F", "/")
    reordered = perturb("query_reorder", URL, rng)
    assert reordered is not None and reordered.split("?")[0] == URL.split("?")[0]
    assert sorted(reordered.split("?")[1].split("&")) == sorted(URL.split("?")[1].split("&"))
    assert perturb("display_text", "credit_card_4421486", rng, display="Visa ending 7447") == (
        "Visa ending 7447"
    )


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("url_reencode", "NO6JO3"),  # nothing reserved to encode
        ("query_reorder", "#W5918442"),  # no query string
        ("query_reorder", "https://x.example/a?only=1"),  # one parameter cannot move
        ("display_text", "NO6JO3"),  # no display form given
        ("truncation", "A"),
    ],
)
def test_a_kind_that_cannot_change_the_text_is_not_applicable(kind: str, text: str) -> None:
    assert perturb(kind, text, random.Random(0)) is None  # type: ignore[arg-type]
