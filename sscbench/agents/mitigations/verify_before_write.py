"""``verify_before_write``: a prompt addendum asking the agent to check before it writes.

The policy gains one paragraph: before any write, read the records the write depends on
from their authoritative source and act on what they say. The context also names the
guidance ``verify_before_write``, which the scripted reference agents follow by looking the
records up right before each write and preferring authoritative sightings
(:func:`sscbench.agents.scripted.trust.follow_guidance`) — what the paragraph asks of an
LLM. An agent that trusts its first sighting whatever it reads (``scripted:hasty``) looks
the records up and still acts on what it saw first: the instruction reaches it, and it
does not change its mind.
"""

from __future__ import annotations

from sscbench.agents.base import EpisodeContext
from sscbench.agents.mitigations import MITIGATIONS, BaseMitigation, with_addendum
from sscbench.registry import NoParams

NAME = "verify_before_write"
TEXT = (
    "Before any write (booking, changing or cancelling a reservation or an order, charging "
    "or refunding a payment method), read the records it depends on from their "
    "authoritative source — get_reservation_details, get_order_details, "
    "get_product_details, get_user_details — and act on what those records say, not on "
    "what an earlier or derived tool output said."
)


class VerifyBeforeWrite(BaseMitigation):
    """The prompt addendum and its guidance name."""

    name = NAME

    def prepare(self, ctx: EpisodeContext) -> EpisodeContext:
        """The policy with :data:`TEXT` appended; guidance ``verify_before_write``."""
        return with_addendum(ctx, TEXT, NAME)


MITIGATIONS.add(NAME, VerifyBeforeWrite, params=NoParams, brief=True)
