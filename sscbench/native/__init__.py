"""A small native suite of observation-contract tasks, after *ContractBench*.

Templated tasks (:mod:`.tasks`) served on a virtual clock (:mod:`.server`) and judged by a
hidden verifier from the server's log (:mod:`.verifier`), covering the four time ×
integrity quadrants and the five transport perturbations; reference solutions pass every
seeded run (:mod:`.solutions`). It tests the contract semantics on tasks made for them,
beside the Expiry and Transport operators grafted onto τ².
"""

from sscbench.native.solutions import PLAYS, SOLUTIONS, run, run_suite
from sscbench.native.tasks import FAMILIES, NativeTask, catalogue, make_family_task, make_task
from sscbench.native.verifier import Verdict, verify

__all__ = [
    "FAMILIES",
    "PLAYS",
    "SOLUTIONS",
    "NativeTask",
    "Verdict",
    "catalogue",
    "make_family_task",
    "make_task",
    "run",
    "run_suite",
    "verify",
]
