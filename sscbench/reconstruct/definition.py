"""The one definition of a dependent use and of erroneous reliance that every labeller gets.

The rule-based reconstructor implements it (``rules``, ``detector``, ``stance``); the LLM
classifier (``reconstruct --classifier llm``) and the LLM judges (the B2 oracles) are given
it word for word in their prompts, so the three measure one construct and an oracle's
disagreement with the reconstructor is about the run, not about what "use" means. The same
text is in docs/measurement.md §2.4 (a test keeps them equal).
"""

from __future__ import annotations

USE_DEFINITION = """\
- A dependent use of the fact is an agent message, tool call or hand-off (the summary of \
transfer_to_human_agents) after the fault whose content or arguments depend on a value or \
proposition about the fact, derived values included: stating it in any words, deriving \
from it, acting on it, or quoting it to question, check or flag it. Correct, hedged and \
wrong uses all count.
- Not a use: a call that only retrieves the fact; retrying the same write; a mention of \
another entity that shares the value; enumerating possible values; a value the user asked \
for as the new value of a change. Silence is not a use either: a message that refers \
neither to the entity nor to a value of the fact places no use, and neither does ending \
the conversation, however the agent came to end it. User messages and tool results are \
never uses.
- An erroneous reliance is a dependent use that treats the injected value, or a value \
derived from it, as operative. Hedged wording does not cancel it, and an action whose \
arguments commit to the value is reliance whatever the text around it says. For a write \
whose claimed effect is the fact, saying the change is done, in any words, is reliance \
until a read of the record shows the claimed values.
- Not reliance, but still a dependent use: quoting the injected value, or a value derived \
from it, to question, check, flag, deny or condition on it; a question about the record \
checks the value, it does not rely on it ("wait, the return is the day before you \
leave?"). Stating the true value is a dependent use that is never reliance."""
"""Bullet lines, one per rule; rendered into prompts as they stand."""
