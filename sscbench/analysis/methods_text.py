"""The report's fixed prose: the measurement's definitions in plain words, and how to read
adoption by arrival. Kept apart from the code that lays out the page."""

METHODS = """
<p class="note">These are the definitions of the measurement document (docs/measurement.md §2,
§6) in plain words. Step numbers count the items of the model-visible history from 0, in the order
the model received them; the trajectory viewer shows the same numbering.</p>
<dl class="defs">
<dt>Injected fault</dt>
<dd>One tool interaction is altered so that it tells the agent something false (v′) about one
fact (an entity, an attribute and a scope — for writes, the claimed effect of one request),
while the real environment says otherwise (v). The observation carrying v′ is the
<em>fault-bearing observation</em>. A run is <em>triggered</em> when the intervention took
effect and that observation was delivered to the model.</dd>
<dt>Model-visible history</dt>
<dd>User and agent messages, tool calls and tool results in the agent's context. Hidden state
and the intervention log are not part of it and never count as evidence.</dd>
<dt>Dependent use</dt>
<dd>An agent message, tool call or hand-off whose content or arguments depend on the affected
fact — correct, hedged and wrong uses all count, derived values too. Merely looking the fact
up is not a use.</dd>
<dt>Erroneous reliance and adoption</dt>
<dd>A dependent use that treats the false value (or something derived from it) as true.
Quoting v′ only to check it is not reliance. A run <em>adopts</em> (A = 1) when it contains
at least one erroneous reliance.</dd>
<dt>Valid refutation</dt>
<dd>An observation, or a set of them, that contradicts v′ and is (1) at least as
authoritative as the fault-bearing source, (2) about the same entity, (3) about the same
scope, (4) untouched by the intervention and (5) enough, with what the task and tools tell
the agent, to contradict v′. Knowledge only the evaluator has never counts; the agent's own
text never refutes.</dd>
<dt>Event times</dt>
<dd><b>T_F</b>: the fault-bearing observation is delivered. <b>T_E</b>: the earliest step at
which a valid refutation is completely in the history (its last required piece; it may come
before T_F; ∞ if never; undecidable if it cannot be determined). <b>T_S</b>: the first
dependent use after the fault — the primary anchor, defined whether or not the run adopts.
<b>T_U</b>: the first erroneous reliance. When decidable, T_F &lt; T_S ≤ T_U. “No dependent
use” is a finding, not the same as “T_S undecidable”.</dd>
<dt>Arrival class Z_S</dt>
<dd>For an included, triggered run with a decidable first use: <em>before</em> if the
refutation was complete before the first use (T_E &lt; T_S), <em>after</em> if it arrived
later (T_S &lt; T_E &lt; ∞), <em>absent</em> if it never arrived (T_E = ∞). An undecidable
arrival is never filed as absent, and a run with no dependent use gets no arrival class.</dd>
<dt>Revealability and inclusion (case level)</dt>
<dd>A case is <em>included</em> only when its fault is valid and a <em>witness</em> exists: a
legal continuation from the moment of the fault, in the same faulted environment, using only
what the agent could see, in which the refutation arrives before the first use. A clean run is
never a witness. No witness means <em>unresolved</em>, not “unrevealable”.</dd>
<dt>Populations and claims</dt>
<dd>The funnel narrows scheduled runs to observed, triggered, runs whose first use is
decidable, and the analysis population <b>P</b>: non-control runs of the primary repetition
with a dependent use and a decidable arrival class. Runs in which the agent never used the
fact have no arrival class; they are counted in their own column (<em>no use</em>), not in P.
<b>A_T</b> is adoption among triggered runs, <b>A_P</b> adoption within P, and <b>a_s</b>
adoption within each arrival stratum s of P, so A_P adds up over the three strata.
Target-value controls (v′ is the value the task asks for) count for arrival only, never for
the primary adoption. The reformulation
table splits adoption into adoption with eventual refutation (A = 1 and T_E &lt; ∞) and
adoption with pre-use refutation (A = 1 and T_E &lt; T_S). Among adopted runs,
<b>q_U</b> = P(T_E &lt; T_U | A = 1, P) is the share in which the refutation was complete before
the first erroneous reliance; runs with T_S &lt; T_E &lt; T_U are counted separately.
<b>Y_end</b> is the last decided, unreplaced explicit stance on v′ in an adopted run (endorse,
retract or undecidable); it is not evidence of repair.</dd>
<dt>Intervals and counts</dt>
<dd>Every share is shown with its 95% interval and its counts
<em>numerator / denominator / clusters</em>. Intervals are Wilson (W) when every contributing
cluster gives one run, otherwise a cluster bootstrap over entity clusters (B). A share on 0/0
is shown as “–” with 0/0/0: empty strata are kept visible, never dropped.</dd>
<dt>Noise floor and comparisons</dt>
<dd>Per configuration, the number of seed–configuration pairs whose arrival class changes
across repetitions is reported beside the claims. Comparisons between strata are
descriptive: the arrival class is observed, not assigned, so a difference between strata is
not a causal effect of arrival.</dd>
</dl>
"""

HOW_TO_READ = """
<p class="note">Read adoption <em>by arrival</em>: a run that adopted although a valid
refutation was already in its history (stratum <em>before</em>) is a different finding from a
run that never saw one (<em>absent</em>). Every number carries the population it was computed
on — check the counts beside each row before comparing rows, and the noise floor before
reading differences between configurations.</p>
"""
