"""How scripted agents word their messages.

The agent fixes a message's content (:mod:`.content`); a phrasing renders it. ``plain``
(:mod:`.plain`) is the original literal form; ``varied`` (:mod:`.varied`) speaks the way
LLM agents do — many date, value and reference forms, prose, lists, tables and JSON,
hedges, questions, flags and retractions — so event reconstruction can be measured on
varied language while the ground truth, recorded from the content, stays the same.

This package deliberately imports nothing from :mod:`sscbench.reconstruct`: the wording
must not be shaped by the detector it is used to evaluate.
"""

from sscbench.agents.scripted.phrasing.content import (
    Closing,
    Confirmation,
    Conflict,
    DeviceFinding,
    DeviceRequest,
    Fact,
    IdentityRequest,
    Message,
    MissingVariant,
    ReadBackFailure,
    Records,
    Statement,
    WriteDone,
)
from sscbench.agents.scripted.phrasing.phraser import (
    DEFAULT_PHRASING,
    PHRASINGS,
    Phraser,
    check_phrasing,
    cue,
)
from sscbench.agents.scripted.phrasing.plain import (
    CLOSING_QUESTION,
    IDENTITY_QUESTION,
    render_plain,
)

__all__ = [
    "CLOSING_QUESTION",
    "DEFAULT_PHRASING",
    "IDENTITY_QUESTION",
    "PHRASINGS",
    "Closing",
    "Confirmation",
    "Conflict",
    "DeviceFinding",
    "DeviceRequest",
    "Fact",
    "IdentityRequest",
    "Message",
    "MissingVariant",
    "Phraser",
    "ReadBackFailure",
    "Records",
    "Statement",
    "WriteDone",
    "check_phrasing",
    "cue",
    "render_plain",
]
