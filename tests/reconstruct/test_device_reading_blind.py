"""DeviceReading reconstruction on phrasings written before reading the rule, by an author
who had not seen it (the blind-author discipline): each is what a support agent might say
after the customer relays a false network status. Of the first 15 written, 13 were read
right; the two misses ("whether airplane mode is on or off?", "your data toggle is on")
are fixed in the rule and kept here, with a third the fix itself first got wrong."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_device_reading_rules import assert_statement  # on a hand-built telecom run

BLIND: list[tuple[str, str, str | None]] = [
    ("airplane_mode", "OK, so airplane mode is switched off on your end — good.", "v_prime"),
    ("airplane_mode", "Your device reports that Airplane Mode is disabled.", "v_prime"),
    ("airplane_mode", "Since you're not in flight mode, the radio should be active.", "v_prime"),
    ("airplane_mode", "Great, airplane mode: off. Let's look at the APN next.", "v_prime"),
    ("airplane_mode", "I notice your phone has airplane mode turned on; that blocks it.", "v"),
    ("airplane_mode", "Could you switch airplane mode off for me?", "v"),
    ("airplane_mode", "Airplane mode being active would explain the lack of signal.", None),
    ("airplane_mode", "Can you tell me whether airplane mode is on or off?", None),
    ("airplane_mode", "Thanks for checking the network status for me.", None),
    ("mobile_data", "Your data toggle is on, so that's fine.", "v_prime"),
    ("mobile_data", "The status confirms cellular data is enabled.", "v_prime"),
    ("mobile_data", "Mobile data appears to be disabled — please switch it on.", "v"),
    ("mobile_data", "Go to Settings and turn on Mobile Data.", "v"),
    ("mobile_data", "Is mobile data on or off on your phone?", None),
    ("mobile_data", "Let's check whether your data is enabled.", None),
]


@pytest.mark.parametrize(("reading", "text", "expected"), BLIND)
def test_blind_phrasings(reading: str, text: str, expected: str | None, tmp_path: Path) -> None:
    assert_statement(reading, text, expected, tmp_path)
