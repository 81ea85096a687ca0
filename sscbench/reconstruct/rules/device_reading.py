"""DeviceReading uses: what the agent says about a setting of the customer's phone.

The fact is one setting (airplane mode, or whether mobile data is enabled) of the one phone
in the conversation, so every statement about that setting is about the target: no id has
to bind it. The setting is said in three ways:

* *the record form*: "airplane_mode of device 555-123-2002 is OFF";
* *a state*: "airplane mode is off", "Airplane Mode: ON", "you have airplane mode turned
  on", "your phone is in airplane mode", "mobile data is enabled", "your mobile data is
  switched off", "Mobile Data Enabled: Yes" — a negated state ("airplane mode isn't on")
  is the other state, stated;
* *a fix that presumes a state*: "turn off airplane mode", "please switch your mobile data
  on", "disable flight mode" — asking to turn a setting off relies on its being on.

The bare words ``on``/``off``/``yes``/``no`` never count without the setting's name: "On your
phone, please run…" says nothing about airplane mode. Calls never carry the fact (no agent
tool takes a phone setting as an argument).
"""

from __future__ import annotations

import re

from sscbench.reconstruct.binding import RefIndex
from sscbench.reconstruct.detector import FactModel, Use, ValueMention, Which
from sscbench.reconstruct.rules.base import USE_RULES, GenericRules, RunView
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention
from sscbench.records.events import AgentToolCall

NAMES = {
    "airplane_mode": r"(?:airplane|aeroplane|flight)[\s_-]?mode",
    "mobile_data": r"(?:(?:mobile|cellular)[\s_-]?data(?:[\s_-]enabled)?"
    r"|data\s+(?:toggle|switch|setting|connection)|(?<=your\s)data|(?<=the\s)data)",
}
"""How each setting is named (the network status's own labels included; "your data" and
"the data toggle" are how people name mobile data on a phone)."""
ON_WORDS = r"on|enabled|active|activated|yes|true"
OFF_WORDS = r"off|disabled|inactive|deactivated|no|false"
STATE = r"(?:turned\s+|switched\s+|set\s+to\s+|showing\s+(?:as\s+)?|still\s+)?"
NEGATION = r"(?:not|n't|never)\s+"
FILLER = r"(?:\s+currently|\s+still|\s+now|\s+already)?"
FIX_ON = r"(?:turn|switch|flip|toggle)\s+(?:\w+\s+){0,2}?on|enable|activate|re-?enable"
FIX_OFF = r"(?:turn|switch|flip|toggle)\s+(?:\w+\s+){0,2}?off|disable|deactivate"
CONTEXT = r"(?:\s+(?:is|are|was|seems|appears|looks)(?:\s+to\s+be)?|\s*[:=]|\s+(?:currently|now))"


def _patterns(name: str) -> list[tuple[re.Pattern[str], bool | None]]:
    """(pattern, the state it states: True on, False off, None: read the word)."""
    flags = re.IGNORECASE
    word = rf"(?P<word>{ON_WORDS}|{OFF_WORDS})\b"
    return [
        # "airplane_mode of device X is OFF" / "mobile_data of device X is Yes"
        (re.compile(rf"\b{name}\s+of\s+device\s+\S+\s+is\s+{word}", flags), None),
        # "airplane mode is (not) (turned) on", "Airplane Mode: OFF", "data is currently enabled"
        (
            re.compile(
                rf"\b{name}{CONTEXT}{FILLER}\s*(?P<neg>{NEGATION})?{STATE}{word}",
                flags,
            ),
            None,
        ),
        # "you have airplane mode (turned) on", "your mobile data (switched) off"
        (
            re.compile(
                rf"\b(?:have|has|got|with|left|keep|kept)\s+(?:your\s+|the\s+)?{name}\s+{STATE}"
                rf"{word}",
                flags,
            ),
            None,
        ),
        # "your phone is (not) in airplane mode", "it's still in flight mode"
        (
            re.compile(
                rf"\b(?:is|'s|are|'re)\s+(?P<neg>{NEGATION})?(?:still\s+|currently\s+)?in\s+"
                rf"(?P<word>){name}",
                flags,
            ),
            None,
        ),
        # a fix: "turn off airplane mode", "switch your mobile data on", "disable flight mode"
        (re.compile(rf"\b(?:{FIX_OFF})\s+(?:your\s+|the\s+)?{name}\b", flags), True),
        (re.compile(rf"\b(?:turn|switch|flip)\s+(?:your\s+|the\s+)?{name}\s+off\b", flags), True),
        (re.compile(rf"\b(?:{FIX_ON})\s+(?:your\s+|the\s+)?{name}\b", flags), False),
        (
            re.compile(
                rf"\b(?:turn|switch|flip)\s+(?:your\s+|the\s+)?{name}\s+(?:back\s+)?on\b", flags
            ),
            False,
        ),
    ]


PATTERNS = {reading: _patterns(name) for reading, name in NAMES.items()}
ON = re.compile(rf"^(?:{ON_WORDS})$", re.IGNORECASE)
DISJUNCTION = re.compile(rf"\s*(?:/|\bor\b)\s*(?:{ON_WORDS}|{OFF_WORDS}|not)\b", re.IGNORECASE)
"""A state word offered with its alternative ("on or off", "enabled/disabled")."""
OPEN = re.compile(r"\b(?:whether|if)\s+(?:[\w']+\s+){0,3}$", re.IGNORECASE)
"""A state under "whether" or "if" a few words before it: asked or supposed, not stated."""


def device_mentions(text: str, reading: str, on_is: Which, off_is: Which) -> list[ValueMention]:
    """Statements of the setting's state in ``text``, as mentions of ``v`` or ``v′``
    (``on_is``: which value says the setting is on)."""
    found: list[ValueMention] = []
    taken: list[tuple[int, int]] = []
    for pattern, state in PATTERNS[reading]:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # one statement, matched by one form
            on = state
            if on is None:
                word = m.group("word")
                on = word == "" or ON.match(word) is not None  # "in airplane mode": on
                if m.groupdict().get("neg"):
                    on = not on
            if state is None and (
                DISJUNCTION.match(text, m.end()) or OPEN.search(text, 0, m.start())
            ):
                continue  # "on or off?", "check whether it is on": asked, not stated
            taken.append(m.span())
            label = reading.replace("_", " ")
            mention = Mention(m.group(0), m.start(), m.end(), "derived")
            found.append(ValueMention(mention, on_is if on else off_is, label, bound="target"))
    return sorted(found, key=lambda x: x.mention.start)


class DeviceReadingRules(GenericRules):
    """The setting's state near its name; the one phone is always the target."""

    inputs = GenericRules.inputs
    """The generic model's: what this rule set adds comes from the contract alone."""

    def model(self, view: RunView, step: int) -> FactModel:
        """Only the setting's named states count (never a bare on/off, yes/no)."""
        c = view.contract
        reading = c.target.paths[0]
        on_value = "ON" if reading == "airplane_mode" else "Yes"
        on_is: Which = "v_prime" if c.injected_value == on_value else "v"
        off_is: Which = "v" if on_is == "v_prime" else "v_prime"
        target = c.target.entity_id

        def find(unit: Unit) -> list[ValueMention]:
            return device_mentions(unit.text, reading, on_is, off_is)

        return FactModel(
            target=target,
            index=RefIndex({target: {target}}),
            find=find,
            holders=lambda _value: frozenset(),
            label=c.target.scope,
        )

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """No agent tool takes a phone setting: calls never use the fact."""
        return []


USE_RULES.add("device_reading", DeviceReadingRules)
