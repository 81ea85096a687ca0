"""A third-party operator plugin, installed for real and discovered through entry points.

The fixture project ``tests/fixtures/third_party_operator/sscbench_example_operator`` is
laid out in a temporary site directory the way an installer would (the package plus a
``.dist-info`` whose ``entry_points.txt`` is generated from the project's
``pyproject.toml``), put on ``sys.path``, and found by the registries' entry-point groups
``sscbench.operators`` and ``sscbench.relations``. No network, no build backend.
"""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.envs import EpisodeEnvironment, ToolCall
from sscbench.errors import ConfigError
from sscbench.fault_contracts import (
    RELATIONS,
    FaultContract,
    History,
    ObservationRewrite,
    load_contract,
    refutation_arrival,
    write_contract,
)
from sscbench.operators import (
    OPERATORS,
    ProposalContext,
    get_operator,
    operator_names,
    register_operator,
)
from sscbench.operators.screen import screen
from sscbench.reconstruct import label_run
from sscbench.reconstruct.validate import ground_truth
from sscbench.records.events import AgentToolCall, ToolObservation, VisibleEvent
from sscbench.records.ledger import read_ledger
from sscbench.registry import DuplicateNameError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "third_party_operator"
EXAMPLE = FIXTURES / "sscbench_example_operator"
MISNAMED = FIXTURES / "sscbench_misnamed_operator"
PLUGIN_PACKAGES = ("sscbench_example_operator", "sscbench_misnamed_operator")
CASE = "cabin_class/airline/7/XEHM4B"


def install(
    project: Path, site: Path, entry_points: dict[str, dict[str, str]] | None = None
) -> None:
    """Lay ``project`` out in ``site`` as an installed distribution.

    ``entry_points`` overrides the groups declared in the project's ``pyproject.toml``.
    """
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    project_table = meta["project"]
    for package in meta["tool"]["setuptools"]["packages"]:
        shutil.copytree(project / package, site / package)
    name, version = project_table["name"], project_table["version"]
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    groups = entry_points if entry_points is not None else project_table["entry-points"]
    lines = []
    for group, points in groups.items():
        lines.append(f"[{group}]")
        lines.extend(f"{ep_name} = {value}" for ep_name, value in points.items())
        lines.append("")
    (dist_info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty site directory on ``sys.path``, with both registries ready to rescan.

    Built-ins (and any plugin already installed) are registered first, then each registry
    gets a private copy of its entries and forgets it has loaded plugins; everything is
    restored afterwards, and the plugin modules are unloaded.
    """
    # Register the built-ins (entry points, like any plugin) before copying the entries, or
    # they would land in the copy.
    for registry in (OPERATORS, RELATIONS):
        registry.names()  # load whatever is installed now into the real registry
        monkeypatch.setattr(registry, "_entries", dict(registry._entries))
        monkeypatch.setattr(registry, "_plugins_loaded", False)
    path = tmp_path / "site-packages"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    yield path
    for module in [m for m in sys.modules if m.split(".")[0] in PLUGIN_PACKAGES]:
        del sys.modules[module]


def _contracts(seed: int = 0) -> list[FaultContract]:
    return [
        o for o in screen(get_operator("cabin_class"), seed=seed) if isinstance(o, FaultContract)
    ]


def test_plugin_is_discovered_screened_and_runs_end_to_end(site: Path, tmp_path: Path) -> None:
    install(EXAMPLE, site)
    assert "cabin_class" in operator_names()
    op = get_operator("cabin_class")
    assert type(op).__module__ == "sscbench_example_operator.cabin_class"
    assert (op.display_name, op.domains, op.acquisition) == (
        "CabinClass",
        ("airline",),
        "cross_record",
    )
    assert "cabin_reread" in RELATIONS

    outcomes = list(screen(op))
    contracts = [o for o in outcomes if isinstance(o, FaultContract)]
    assert contracts and len(contracts) < len(outcomes)  # some frames are rejected, with reasons
    assert all(o.check and o.reason for o in outcomes if not isinstance(o, FaultContract))
    clean = EpisodeEnvironment.open("airline")
    for i, c in enumerate(contracts):
        assert c.operator == "cabin_class" and c.refutation.relation == "cabin_reread"
        assert c.injected_value != c.authoritative_value and c.semantics
        # The generic checks do not test `expect`; a wrong one would never fire.
        (spec,) = c.interventions
        assert isinstance(spec, ObservationRewrite)
        seen = clean.execute(ToolCall(id=f"probe{i}", name=spec.tool, arguments=spec.match), i)
        assert json.loads(seen.content)["cabin"] == spec.expect["cabin"] == c.authoritative_value
    ids = [o.candidate_id if not isinstance(o, FaultContract) else o.contract_id for o in outcomes]
    assert len(ids) == len(set(ids))  # stable, unique candidate ids

    contract = next(c for c in contracts if c.contract_id == CASE)
    path = tmp_path / "case.yaml"
    write_contract(contract, path)
    assert load_contract(path) == contract
    out = tmp_path / "runs"
    args = ["run", "--contract", str(path), "--agent", "scripted:careful", "--out", str(out)]
    assert main(args) == 0
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]

    hidden = [json.loads(line) for line in (run_dir / "hidden.jsonl").read_text().splitlines()]
    deliveries = [h for h in hidden if h["kind"] == "fault_delivery"]
    assert deliveries and deliveries[0]["contract_id"] == CASE and deliveries[0]["effective"]
    assert len(deliveries) == 1  # persistence first_delivery: one misread only

    ledger = read_ledger(run_dir / "ledger.jsonl")
    assert ledger.header.case_id == CASE
    assert FaultContract.model_validate(ledger.header.fault) == contract
    faulted = next(e for e in ledger.events if e.step == deliveries[0]["step"])
    assert isinstance(faulted, ToolObservation)
    assert json.loads(faulted.content)["cabin"] == contract.injected_value

    # The relation, resolved through the registry, decides from the delivered history only.
    arrival = refutation_arrival(contract, History(ledger.events))
    assert arrival.status in ("found", "never")
    if arrival.status == "found":
        refuting = next(e for e in ledger.events if e.step == arrival.step)
        assert isinstance(refuting, ToolObservation)
        assert json.loads(refuting.content)["cabin"] == contract.authoritative_value

    # The plugin registers no use rules: the generic value-centric rules label its uses, and
    # agree with the scripted agent's ground truth.
    labels = label_run(run_dir)
    truth = ground_truth(run_dir)
    assert truth is not None and truth.t_s is not None
    assert (labels.t_s.status, labels.t_s.step) == ("found", truth.t_s)
    assert (labels.t_u.status, labels.t_u.step) == ("found", truth.t_u)
    assert labels.adopted == truth.adopted


def test_relation_entry_point_loads_without_the_operator(site: Path) -> None:
    install(EXAMPLE, site)
    assert "cabin_reread" in RELATIONS.names()
    assert "sscbench_example_operator.cabin_class" not in sys.modules


def test_candidates_are_seeded_per_candidate(site: Path, tmp_path: Path) -> None:
    install(EXAMPLE, site)
    first = {c.contract_id: c for c in _contracts(seed=0)}
    assert first == {c.contract_id: c for c in _contracts(seed=0)}
    # A per-candidate generator: one candidate's choice does not depend on the others.
    op = get_operator("cabin_class")
    rng = ProposalContext(domain="airline", seed=0).rng_for(CASE)
    true_cabin = first[CASE].authoritative_value
    choices = [c for c in ("basic_economy", "economy", "business") if c != true_cabin]
    assert first[CASE].injected_value == rng.choice(choices)
    assert op.params.model_dump() == first[CASE].params

    out = tmp_path / "candidates"
    assert main(["operators", "candidates", "cabin_class", "--out", str(out)]) == 0
    written = sorted(p.name for p in out.glob("*.yaml"))
    assert written == sorted(cid.replace("/", "__") + ".yaml" for cid in first)
    rejections = (out / "rejections.jsonl").read_text().splitlines()
    assert rejections and all(json.loads(r)["operator"] == "cabin_class" for r in rejections)


# -- the relation on small hand-made histories -----------------------------------------------


def _history(*items: tuple[str, dict[str, Any], dict[str, Any] | str]) -> History:
    """Each item is one tool call and its observation (a JSON object, or error text)."""
    events: list[VisibleEvent] = []
    for i, (tool, arguments, result) in enumerate(items):
        events.append(
            AgentToolCall(
                step=len(events), turn=2 * i, call_id=f"c{i}", name=tool, arguments=arguments
            )
        )
        error = isinstance(result, str)
        content = result if isinstance(result, str) else json.dumps(result)
        events.append(
            ToolObservation(
                step=len(events), turn=2 * i + 1, call_id=f"c{i}", content=content, error=error
            )
        )
    return History(events)


def _read(cabin: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    return (
        "get_reservation_details",
        {"reservation_id": "XEHM4B"},
        {"reservation_id": "XEHM4B", "cabin": cabin},
    )


def _write(cabin: str, error: bool = False) -> tuple[str, dict[str, Any], dict[str, Any] | str]:
    args = {"reservation_id": "XEHM4B", "cabin": cabin, "flights": []}
    result: dict[str, Any] | str = (
        "Error: no" if error else {"reservation_id": "XEHM4B", "cabin": cabin}
    )
    return ("update_reservation_flights", args, result)


@pytest.fixture
def case(site: Path) -> FaultContract:
    install(EXAMPLE, site)
    return next(c for c in _contracts() if c.contract_id == CASE)


def test_relation_finds_a_reread_in_the_same_state(case: FaultContract) -> None:
    true, fake = case.authoritative_value, case.injected_value
    arrival = refutation_arrival(case, _history(_read(fake), _write(fake, error=True), _read(true)))
    assert (arrival.status, arrival.step, arrival.evidence) == ("found", 5, (5,))


def test_relation_ignores_reads_after_a_cabin_write(case: FaultContract) -> None:
    true, fake = case.authoritative_value, case.injected_value
    arrival = refutation_arrival(case, _history(_read(fake), _write(true), _read(true)))
    assert arrival.status == "never" and "changed the state" in arrival.reason


def test_relation_without_a_misread_or_reread_is_never(case: FaultContract) -> None:
    true, fake = case.authoritative_value, case.injected_value
    assert refutation_arrival(case, _history(_read(true))).status == "never"
    assert refutation_arrival(case, _history(_read(fake))).status == "never"


# -- registry rules ---------------------------------------------------------------------------


def test_plugin_whose_module_is_not_its_name_is_refused(site: Path) -> None:
    install(MISNAMED, site)
    with pytest.raises(ConfigError, match="registry key must equal the module name") as info:
        operator_names()
    assert "'seat_map'" in str(info.value) and "'seats'" in str(info.value)


def test_cli_reports_a_misnamed_plugin_in_one_line(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install(MISNAMED, site)
    assert main(["operators", "candidates", "seat_map", "--out", str(site / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert "registry key must equal the module name" in err and len(err.splitlines()) == 1


def test_entry_point_that_registers_nothing_is_refused(site: Path) -> None:
    install(
        EXAMPLE, site, {"sscbench.operators": {"cabin": "sscbench_example_operator.cabin_class"}}
    )
    with pytest.raises(ConfigError, match="did not register"):
        operator_names()


def test_registering_a_name_twice_raises(site: Path) -> None:
    install(EXAMPLE, site)
    original = OPERATORS.get("cabin_class")
    with pytest.raises(DuplicateNameError, match="'cabin_class' is already registered"):
        register_operator(original)
    # Another class under the same name (a second plugin with a cabin_class module).
    impostor = type("CabinClass", (original,), {"__module__": "other_plugin.cabin_class"})
    with pytest.raises(DuplicateNameError):
        register_operator(impostor)
    assert OPERATORS.get("cabin_class") is original
    with pytest.raises(DuplicateNameError, match="'cabin_reread' is already registered"):
        RELATIONS.register("cabin_reread")(lambda contract, history: None)


def test_plugin_claiming_a_builtin_name_is_an_error(site: Path) -> None:
    install(
        EXAMPLE,
        site,
        {"sscbench.operators": {"return_date": "sscbench_example_operator.cabin_class"}},
    )
    with pytest.raises(ConfigError):
        operator_names()


def test_a_failed_plugin_load_is_not_forgotten(site: Path) -> None:
    install(MISNAMED, site)
    for _ in range(2):
        with pytest.raises(ConfigError):
            operator_names()


def test_plugin_goes_through_build_run_reconstruct_and_report(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The guide's operator as a user would take it all the way: a case set of its own,
    an experiment over it (no core table names it: its step limit is its own), labels,
    and a report with its rows."""
    install(EXAMPLE, site)
    cases = tmp_path / "cases"
    args = ["build", "--out", str(cases), "--operators", "cabin_class"]
    assert main([*args, "--per-operator", "2", "--controls", "0"]) == 0
    exp = tmp_path / "exp.toml"
    exp.write_text(
        f"""
[cases]
path = "{cases}"
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "careful"
agent = "scripted:careful"
""",
        encoding="utf-8",
    )
    runs = tmp_path / "runs"
    assert main(["run", "--config", str(exp), "--out", str(runs)]) == 0
    assert main(["reconstruct", str(runs), "--validate"]) == 0
    labels = [json.loads(line) for line in (runs / "labels.jsonl").read_text().splitlines()]
    faulted = [x for x in labels if x["case_id"]]
    assert {x["operator"] for x in faulted} == {"cabin_class"} and len(faulted) >= 2
    assert all(x["triggered"] is not None for x in faulted)
    assert main(["report", str(runs), "--cases", str(cases)]) == 0
    analysis = json.loads((runs / "report" / "analysis.json").read_text())
    rows = {(r["operator"], r["configuration"]) for r in analysis["funnel"]}
    assert ("cabin_class", "hasty") in rows and ("cabin_class", "careful") in rows
    capsys.readouterr()
