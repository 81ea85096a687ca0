"""Fault contracts: typed case records, their files, executable refutation relations and
runtime injection."""

from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.io import dump_contract, load_contract, parse_contract, write_contract
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, refutation_arrival

__all__ = [
    "RELATIONS",
    "Arrival",
    "ContractIntervention",
    "Edit",
    "FaultContract",
    "History",
    "ObservationRewrite",
    "Quote",
    "Refutation",
    "Target",
    "ToolEdit",
    "WriteSuppression",
    "dump_contract",
    "load_contract",
    "parse_contract",
    "refutation_arrival",
    "write_contract",
]
