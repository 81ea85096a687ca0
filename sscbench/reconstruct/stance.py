"""The stance a unit of text takes towards a value it mentions.

A value can be asserted (even hedged: "I think you return on May 18" still relies on it),
questioned to check it ("the record shows May 18 — is that right?"), flagged as wrong
("that date looks off"), denied ("not a certificate"), put in a condition ("if your return
is May 18, …"), or planned as a change still to be made. Only assertion is reliance; the
others are uses that commit to nothing (or reject the value).

The cue lists are lexicons of *kinds* of language — doubt, inconsistency, negated
correctness, verification requests, action requests — matched as patterns with optional
words between, not fixed sentences; each is documented in ``docs/reconstruction.md``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from sscbench.reconstruct.values import fold

Stance = Literal["assert", "verify", "flag", "deny", "condition", "plan"]

_W = r"(?:\s+\w+){0,3}"  # up to three intervening words

DOUBT = re.compile(
    r"\b(?:odd|weird|strange|unusual|suspicious|puzzling|surprising|unexpected|curious|"
    r"questionable|doubtful|anomal\w*|irregular\w*|glitch\w*|typo\w*|bug|mix-?up|"
    r"stale|outdated|out[\s-]of[\s-]date|not\s+up[\s-]to[\s-]date|"
    r"(?:won'?t|will\s+not|do(?:n'?t|\s+not)|not\s+going\s+to|can'?t|cannot|shouldn'?t)\s+"
    r"(?:rely|count|go|act|trust)\s+(?:on|by)|"
    r"(?:may|might|could)\s+(?:well\s+)?(?:be|have\s+been)\s+(?:wrong|incorrect|inaccurate|"
    r"mistaken|an?\s+(?:error|mistake|glitch))|"
    r"(?:seem|look|appear|sound)s?" + _W + r"\s+(?:off|wrong|incorrect|odd|strange|unusual|"
    r"inconsistent|suspicious|problematic)|"
    r"(?:is|was|be|seem|seems|looks?|appears?)\s+(?:a\s+)?(?:an?\s+)?(?:error|mistake)|"
    r"(?:data|record|system|entry|database)\s+(?:error|issue|problem|glitch)|"
    r"not\s+(?:sure|certain|convinced)\s+(?:that|this|it|about)|"
    r"i\s+(?:doubt|question)|(?:can'?t|cannot|couldn'?t)\s+(?:possibly\s+)?be\s+(?:right|"
    r"correct|accurate|true|the\s+case|your|possible|valid|real|that|it)\b|"
    r"must\s+be\s+(?:a|an)\s+(?:error|mistake|typo)|"
    r"(?:can'?t|cannot|couldn'?t)\s+(?:possibly\s+)?be(?=\s*(?:[.!;]|$))|"
    r"(?:can'?t|cannot|couldn'?t)\s+(?:possibly\s+)?(?:come|be|happen|leave|depart|fly|return)"
    r"\s+(?:before|after|earlier|later)|"
    r"something'?s\s+(?:off|wrong|not\s+right)|something\s+is\s+(?:off|wrong|not\s+right))\b"
)
INCONSISTENT = re.compile(
    r"\b(?:inconsisten\w*|mismatch\w*|discrepanc\w*|conflict\w*|contradict\w*|"
    r"incompatible|impossible|not\s+possible|doesn'?t\s+(?:add\s+up|line\s+up|make\s+sense|"
    r"match|agree|fit)|does\s+not\s+(?:add\s+up|line\s+up|make\s+sense|match|agree|fit)|"
    r"don'?t\s+(?:match|agree|line\s+up)|do\s+not\s+(?:match|agree)|"
    r"(?:is|are|was|were|seems?|looks?|appears?)\s+(?:to\s+be\s+)?(?:incorrect|wrong|"
    r"inaccurate|invalid|off|out\s+of\s+order|backwards)|"
    r"(?:isn'?t|is\s+not|aren'?t|are\s+not|wasn'?t|doesn'?t\s+(?:look|seem|appear))\s+"
    r"(?:right|correct|accurate|valid|consistent|possible|plausible)|"
    r"not\s+(?:right|correct|accurate|valid|consistent|plausible)|"
    r"(?:not|never)\s+(?:gone|went)\s+through|did(?:n'?t|\s+not)\s+(?:go\s+through|take\s+"
    r"effect|apply|stick|save|work|succeed|update)|(?:has|have)(?:n'?t|\s+not)\s+(?:been\s+)?"
    r"(?:applied|updated|changed|reflected|saved|processed|gone\s+through|taken\s+effect|"
    r"gone\s+into\s+effect|worked|stuck|happened|come\s+through|registered|been\s+made)|"
    r"(?:not|isn'?t|aren'?t)\s+(?:reflected|showing|shown|applied|there)|still\s+shows?|"
    r"do(?:es)?(?:\s+not|n'?t)\s+(?:show|reflect|include|contain|list|have)|"
    r"not\s+what\s+(?:the|your|our)\s+(?:record|system|reservation|order|profile)\w*\s+"
    r"(?:says|shows|lists|has)|"
    r"still\s+(?:lists?|has|says|reads|contains)|(?:failed|unsuccessful|unable\s+to\s+"
    r"(?:confirm|verify)))\b"
)
VERIFY = re.compile(
    r"\b(?:confirm|verify|double[\s-]?check|check\s+(?:that|whether|if)|"
    r"is\s+(?:that|this|it)\s+(?:right|correct|accurate)|(?:right|correct|accurate)\s*\?|"
    r"(?:is|are|was|were|do|does|did)\s+[^?]{0,40}\b(?:really|actually)\b[^?]*\?|"
    r"can\s+you\s+(?:tell|let)\s+me\s+(?:if|whether)|does\s+(?:that|this)\s+(?:match|sound\s+"
    r"right)|do\s+you\s+(?:know|recall|remember))(?:\b|(?<=\?))"
)
YES_NO = re.compile(
    r"\s*(?:(?:is|are|was|were)\s+(?:your|the|this|that|these|those|it|its)|"
    r"(?:did|do|does|have|has)\s+(?:you|your|it|the|this))\b[^?]*\?"
)
"""A yes/no question about the record or the user's own ("Is your keyboard the 60% size?",
"Did you order the black one?"): the agent asks about the value, it does not assert it."""
_OPENER = (
    r"^\W*(?:(?:so|and|but|then|oh|ok(?:ay)?|well|now|wait|hmm+|um+|uh+|huh|sorry|really|"
    r"hold\s+on|hang\s+on|just\s+to\s+(?:be\s+sure|check|confirm|clarify)[^,:;]*)\W+)*"
)
"""Interjections and hedges a clause may open with before its own words ("wait, …",
"hold on — …", "just to be sure I'm reading this right: …")."""
CLAUSE_OPENING = re.compile(r"(?:^|[,;:]|\s[-–—]\s|[–—]|\.\.\.|…)")
"""Where a clause of a sentence starts."""
WH_OPENING = re.compile(_OPENER + r"(?:what|which|when|where|who|whom|whose|why|how)\b")
"""A wh-question clause: it asks for something else and takes the value as given ("when
on May 18 would you like to leave?")."""
AUX_OPENING = re.compile(
    _OPENER + r"(?:is|are|was|were|do|does|did|can|could|will|would|shall|should|may|might|"
    r"have|has|had)(?:n'?t)?\s+(?:there|you|i|we|it|that|this|they|he|she|your|the)\b"
)
"""An inverted (yes/no) clause; a yes/no question about the record is :data:`YES_NO`."""
PREMISE_BEFORE = re.compile(
    r"\b(?:since|because|as\s+(?:you|your|the|it|this|that|they)|given\s+that|now\s+that|"
    r"seeing\s+that)\b[^,;:?]*$"
)
"""The value stated as a premise of what follows ("since you return May 18, …")."""
CLOSING = re.compile(
    r"\b(?:anything\s+else|anything\s+more|any\s+other\s+(?:questions?|changes?|requests?)|"
    r"(?:can|may|could)\s+i\s+(?:help|assist|do)|help\s+(?:you\s+)?with)\b"
)
"""A closing question ("anything else I can help with?"): it asks about nothing in the
sentence."""
USER_WISH = re.compile(
    r"\b(?:you|u|ya)\s+(?:(?:still|really|actually)\s+)?(?:want|wanted|wanna|like|prefer|"
    r"need|mean|meant|wish|intend|plan)\b"
)
"""A question about what the user wants ("…4 sizes smaller, just checking that's what you
want?"): it checks the request, and the value stated beside it is asserted."""
ACTION_REQUEST = re.compile(
    r"\b(?:proceed|go\s+ahead|would\s+you\s+like|do\s+you\s+want|shall\s+i|should\s+i|"
    r"want\s+(?:me\s+)?to|like\s+(?:me\s+)?to|ok(?:ay)?\s+to|reply\s+(?:yes|with)|"
    r"(?:yes|no)\s*[/)]|which\s+(?:one|option|would))\b"
)
CONDITION = re.compile(
    r"\b(?:if|unless|in\s+case|assuming|suppose|whether)\s+(?:the|your|its|this|that|it)\b"
    r"(?:(?!\byou\b)[^,;.])*?\b(?:is|was|are|were|falls?\s+on|lands?\s+on|really|indeed)\b"
    r"[^,;.]*$"
)
IF_BEFORE = re.compile(r"\b(?:if|unless|assuming|supposing|suppose)\s+(?:\S+\s+){0,2}$")
COPULA_AFTER = re.compile(r"^\S{0,3}\s*(?:is|was|were|are|'s|really|actually|holds?|applies)\b")
"""A condition on the value itself: "if 5/11 were real", "if May 16 is right"."""
NEGATION_BEFORE = re.compile(
    r"(?:\b(?:not|isn'?t|aren'?t|wasn'?t|weren'?t|never|no\s+longer|neither|nor)\s+"
    r"(?:(?:a|an|the|on|for|in|at|your|its|really|actually)\s+){0,2}"
    r"|\b(?:rather\s+than|instead\s+of|other\s+than|except(?:\s+for)?|"
    r"(?:changed|moved|switched|updated|corrected|rebooked|upgraded|downgraded)\s+from)\s+"
    r"(?:\S+\s+){0,3})$"
)
NEGATION_AFTER = re.compile(
    r"^\s*(?:(?:is|was|are|were)(?:\s+not|n't)|isn't|wasn't|aren't|weren't)\s+(?:\w+\s+){0,2}"
    r"(?:correct|right|accurate|valid|true)\b"
    r"|^\s*(?:is|was|are|were)\s+(?:wrong|incorrect|inaccurate|not\s+what)\b"
    r"|^\W{0,3}(?:incorrect|wrong)\b"
)
"""The value itself said to be wrong ("May 18 isn't right"); a negated predicate about it
("certificates aren't applicable") is not a denial of the value."""
PLAN = re.compile(
    r"\b(?:i\s+(?:will|'ll|can|could|am\s+going\s+to)|i'?ll|i'?m\s+going\s+to|going\s+to|"
    r"who\s+can|(?:will|would|should)\s+(?:try|need)|let\s+me|we\s+(?:will|can|could)|"
    r"to\s+(?:change|move|switch|update|modify|exchange|rebook)|would\s+(?:be|change|move)|"
    r"will\s+be\s+(?:changed|moved|updated|switched)|once\s+(?:you|i)|after\s+(?:you|i))\b"
)
HEDGE = re.compile(
    r"\b(?:i\s+think|i\s+believe|probably|likely|seems?|appears?|looks?\s+like|"
    r"should\s+be|might|may\s+be|maybe|perhaps|if\s+i'?m\s+not\s+mistaken|i'?m\s+not\s+certain)\b"
)
RETRACT = re.compile(
    r"\b(?:correction|actually|in\s+fact|apolog\w*|sorry|i\s+(?:was\s+wrong|misspoke|misread|"
    r"made\s+(?:a|an)\s+(?:error|mistake))|to\s+correct|correct(?:ed)?\s+(?:date|value|"
    r"information)|the\s+correct|rather)\b"
)


VERIFY_INTENT = re.compile(
    r"\b(?:verify|double[\s-]?check|make\s+sure|be\s+(?:sure|certain)|ensure|"
    r"before\s+i\s+(?:tell|say|confirm)|confirm\s+(?:that|it|this|which|whether)|"
    r"check\s+(?:that|whether|if|which|your)|before\s+(?:confirming|i\s+confirm)|"
    r"can\s+you\s+(?:check|confirm|tell\s+me)|could\s+you\s+(?:check|confirm|tell\s+me)|"
    r"let\s+me\s+(?:check|look)|which\s+(?:date|one|it)\s+(?:is|you)|if\s+that'?s\s+"
    r"(?:right|accurate|correct|true)|if\s+that\s+(?:were|was|is)\s+(?:right|accurate|correct|"
    r"true|the\s+case))\b"
)
"""Language that checks or questions something just said (with or without a "?")."""


VERIFY_INTENT_BEFORE = re.compile(
    r"\b(?:verify|double[\s-]?check|make\s+sure|be\s+(?:sure|certain)|ensure|"
    r"before\s+i\s+(?:tell|say|confirm)|check\s+(?:that|whether|if))\b"
    r"(?:\s+(?:that|whether|if))?[^:;.!?]{0,40}$"
)
"""A check that governs the value right after it ("make sure the bags were added")."""


def has(pattern: re.Pattern[str], text: str) -> bool:
    """Search ``pattern`` in the folded text."""
    return pattern.search(fold(text)) is not None


def negated_at(text: str, start: int, end: int) -> bool:
    """Is the value at ``text[start:end]`` negated or named as the old value ("not May 18",
    "rather than a certificate", "changed from economy")?"""
    low = fold(text)
    before = low[max(0, start - 48) : start]
    after = low[end : end + 24]
    return NEGATION_BEFORE.search(before) is not None or NEGATION_AFTER.search(after) is not None


SETTING = re.compile(
    r"\b(?:chang|updat|upgrad|downgrad|set|switch|mov|modif|convert|rebook|exchang)\w*\b"
    r"[^.;:!?]{0,50}\b(?:to|into|for)\s+(?:(?:a|an|the|your)\s+)?$"
)
"""A value named as the *new* value of a change ("upgrade the cabin to economy")."""


ACTION_IMPOSSIBLE = re.compile(
    r"\b(?:\w+ing\b[^.;,!?]{0,30}?|(?:an?|the|any|further|this|that)\s+(?:\w+\s+)?"
    r"(?:exchange|return|modification|change|cancellation|refund|update|upgrade|downgrade|"
    r"rebooking|booking|request|action|transfer)s?)\s+(?:isn'?t|is\s+not|won'?t\s+be|"
    r"will\s+not\s+be|wouldn'?t\s+be|would\s+not\s+be|is\s+no\s+longer|are\s+not|"
    r"aren'?t)\s+possible\b|\b(?:not|im)possible\s+(?:for\s+(?:me|us)\s+)?to\b"
)
"""An *action* said to be impossible ("so an exchange isn't possible", "modifying it is not
possible", "it's impossible to change"): a consequence the agent draws from the record, not
doubt about it — it is removed before looking for doubt."""


SETTING_OFF = re.compile(
    r"\b(?:(?:airplane|aeroplane|flight)[\s_-]?mode|(?:mobile|cellular)[\s_-]?data)\b"
    r"[^.;!?]{0,40}?\b(?:is|are|was|seems?|looks?|appears?)\s+(?:to\s+be\s+)?off\b"
)
"""A phone setting said to be off ("airplane mode is off", "airplane mode of device … is
off"): a state of the device, not the idiom "something is off" — removed before looking for
doubt."""


@lru_cache(maxsize=1 << 14)  # pure on the text; asked again for every value it mentions
def doubts(low: str) -> bool:
    """Whether folded text doubts or contradicts what it is about (an action said to be
    impossible, or a phone setting said to be off, is not doubt)."""
    kept = SETTING_OFF.sub(" ", ACTION_IMPOSSIBLE.sub(" ", low))
    return DOUBT.search(kept) is not None or INCONSISTENT.search(kept) is not None


def _clauses(low: str) -> list[str]:
    """The clauses of a sentence, each from where it opens."""
    starts = sorted({m.end() for m in CLAUSE_OPENING.finditer(low)})
    return [low[a:b] for a, b in zip(starts, [*starts[1:], len(low)], strict=True)]


def questions_the_record(low: str, start: int) -> bool:
    """Whether the sentence holding the value at ``start`` is a question *about* it: a
    yes/no question about the record in any clause ("wait, is your return on May 18?"), or
    a declarative question that puts the value, or one derived from it, to the listener
    ("…wait, the return is the day before you leave?", "your keyboard is the 60% one?",
    "HAT290 back to Las Vegas on May 18?"). Not when the question asks for something else
    with the value taken as given: a wh-question, an inverted clause that is not about the
    record, a premise ("since you return May 18, …"), an offer or request to act, a
    question about what the user wants, a closing ("anything else?")."""
    if "?" not in low[start:] or any(p.search(low) for p in (ACTION_REQUEST, CLOSING, USER_WISH)):
        return False
    clauses = _clauses(low)
    if any(YES_NO.match(_strip_opener(c)) for c in clauses):
        return True
    if any(WH_OPENING.match(c) or AUX_OPENING.match(c) for c in clauses):
        return False
    opened = max((m.end() for m in CLAUSE_OPENING.finditer(low[:start])), default=0)
    return PREMISE_BEFORE.search(low[opened:start]) is None


def _strip_opener(clause: str) -> str:
    return re.sub(_OPENER, "", clause, count=1)


def stance_of(text: str, start: int, end: int) -> Stance:
    """How ``text`` treats the value it mentions at ``[start, end)``."""
    low = fold(text)
    if doubts(low):
        return "flag"
    if negated_at(text, start, end):
        return "deny"
    question = "?" in low[start:] or low.rstrip().endswith("?")
    if question and (VERIFY.search(low) or YES_NO.match(low)) and not ACTION_REQUEST.search(low):
        return "verify"
    if questions_the_record(low, start):
        return "verify"  # "…wait, the return is the day before you leave?"
    intent = VERIFY_INTENT_BEFORE.search(low[max(0, start - 60) : start])
    if intent is not None:
        return "verify"  # "I'd like to be sure it has actually gone through"
    if CONDITION.search(low[:start]) or (
        IF_BEFORE.search(low[:start]) and COPULA_AFTER.match(low[end:])
    ):
        return "condition"
    if SETTING.search(low[max(0, start - 80) : start]):
        return "plan"
    return "assert"
