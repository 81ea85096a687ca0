"""Contract files: round trip, stable hashes, and errors pinned to file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sscbench.cases.caseset import default_case_set_path
from sscbench.errors import ConfigError
from sscbench.fault_contracts import (
    FaultContract,
    dump_contract,
    io,
    load_contract,
    parse_contract,
    write_contract,
)
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.variants import vary


def _first_valid(name: str, n: int = 3) -> list[FaultContract]:
    op = get_operator(name)
    out = []
    for outcome in op.propose(ProposalContext(domain=op.domains[0])):
        if not isinstance(outcome, Rejection):
            out.append(outcome)
            if len(out) == n:
                break
    return out


@pytest.fixture(scope="module")
def contracts() -> list[FaultContract]:
    found = [
        c
        for name in ("return_date", "pay_source", "item_option", "write_effect")
        for c in _first_valid(name)
    ]
    found.append(vary(found[6], "aligned"))
    found.append(vary(found[-2], "read_back_hint"))
    return found


@pytest.fixture(scope="module")
def rd_text() -> str:
    """YAML of return_date/airline/37/IFOYYZ (its literals are used below)."""
    op = get_operator("return_date")
    contract = next(
        c
        for c in op.propose(ProposalContext(domain="airline"))
        if c.task_id == "37" and c.cluster == "IFOYYZ"
    )
    assert isinstance(contract, FaultContract)
    return dump_contract(contract)


def _line(text: str, needle: str) -> int:
    """1-based line of the first line containing ``needle``."""
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_contract(path)
    return str(info.value)


def test_round_trip_and_stable_hash(tmp_path: Path, contracts: list[FaultContract]) -> None:
    for i, c in enumerate(contracts):
        path = tmp_path / "deep" / f"c{i}.yaml"
        write_contract(c, path)
        loaded = load_contract(path)
        assert loaded == c
        assert loaded.content_hash() == c.content_hash()
        assert len(c.content_hash()) == 64
        # dumping again is byte-identical: stable key order
        assert dump_contract(loaded) == path.read_text(encoding="utf-8")
        assert load_contract(str(path)) == c
    hashes = {c.content_hash() for c in contracts}
    assert len(hashes) == len(contracts)


def test_content_hash_changes_with_content(contracts: list[FaultContract]) -> None:
    c = contracts[0]
    assert c.model_copy(update={"persistence": "first_delivery"}).content_hash() != (
        c.content_hash()
    )
    assert FaultContract.model_validate(c.model_dump()).content_hash() == c.content_hash()


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read contract"):
        load_contract(tmp_path / "nope.yaml")


def test_unknown_top_level_field(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("domain: airline\n", "domain: airline\ncolour: red\n")
    msg = _error(tmp_path, text)
    assert f"case.yaml:{_line(text, 'colour: red')}:" in msg
    assert "colour" in msg


def test_unknown_nested_field(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("  entity_type: reservation\n", "  entity_type: reservation\n  x: 1\n")
    msg = _error(tmp_path, text)
    assert f"case.yaml:{_line(text, '  x: 1')}:" in msg
    assert "target.x" in msg


def test_wrong_type_nested(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("acquisition: co_delivered", "acquisition: 42")
    msg = _error(tmp_path, text)
    assert f"case.yaml:{_line(text, 'acquisition: 42')}:" in msg
    assert "refutation.acquisition" in msg


def test_missing_required_field(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("task_id: '37'\n", "")
    assert "task_id" not in text
    msg = _error(tmp_path, text)
    # no key to point at: the error names the enclosing mapping's first line
    assert "case.yaml:1:" in msg
    assert "task_id" in msg and "required" in msg.lower()


def test_empty_interventions(tmp_path: Path, rd_text: str) -> None:
    start = _line(rd_text, "interventions:")
    end = _line(rd_text, "refutation:")
    lines = rd_text.splitlines(keepends=True)
    text = "".join(lines[: start - 1]) + "interventions: []\n" + "".join(lines[end - 1 :])
    msg = _error(tmp_path, text)
    assert f"case.yaml:{start}:" in msg
    assert "interventions" in msg


def test_wrong_discriminator_inside_interventions(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("- kind: observation_rewrite", "- kind: rewrite_everything")
    msg = _error(tmp_path, text)
    assert f"case.yaml:{_line(text, '- kind: rewrite_everything')}:" in msg
    assert "interventions.0" in msg


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("  - path: flights.1.date\n", "  - path: 12.5\n"),
        ("  role: fault\n", "  role: 7\n"),
        ("  tool: get_reservation_details\n", "  tool: 3\n"),
    ],
)
def test_wrong_type_deep_inside_interventions(
    tmp_path: Path, rd_text: str, old: str, new: str
) -> None:
    assert old in rd_text
    text = rd_text.replace(old, new, 1)
    msg = _error(tmp_path, text)
    assert "interventions.0" in msg
    assert f"case.yaml:{_line(text, new.rstrip())}:" in msg


@pytest.mark.parametrize(
    ("old", "new", "key", "loc"),
    [
        # a wrong type given as a block sequence
        ("task_id: '37'\n", "task_id:\n- '37'\n", "task_id:", "task_id"),
        # a missing field inside a block mapping: the mapping's key is the place to look
        ("  scope: the current itinerary of reservation IFOYYZ\n", "", "target:", "target.scope"),
    ],
)
def test_block_value_errors_point_at_the_key(
    tmp_path: Path, rd_text: str, old: str, new: str, key: str, loc: str
) -> None:
    assert old in rd_text
    text = rd_text.replace(old, new, 1)
    msg = _error(tmp_path, text)
    assert loc in msg
    assert f"case.yaml:{_line(text, key)}:" in msg


def test_invalid_yaml_syntax(tmp_path: Path, rd_text: str) -> None:
    text = rd_text.replace("domain: airline", "domain: airline: retail")
    msg = _error(tmp_path, text)
    assert f"case.yaml:{_line(text, 'domain: airline: retail')}:" in msg
    assert "YAML" in msg
    unclosed = rd_text.replace("cluster: IFOYYZ", "cluster: [IFOYYZ")
    msg = _error(tmp_path, unclosed)
    assert "case.yaml:" in msg and "YAML" in msg


@pytest.mark.parametrize(
    ("text", "kind"),
    [("- a\n- b\n", "list"), ("just text\n", "str"), ("", "NoneType"), ("42\n", "int")],
)
def test_non_mapping_document(tmp_path: Path, text: str, kind: str) -> None:
    msg = _error(tmp_path, text)
    assert "case.yaml:1:" in msg
    assert kind in msg


@pytest.mark.parametrize(
    "payload",
    [
        "!!python/object/apply:os.system ['touch {marker}']\n",
        "!!python/object/new:os.system ['touch {marker}']\n",
        "!!python/object:builtins.object {{}}\n",
        "!!python/name:os.system\n",
    ],
)
def test_loading_never_executes_anything(tmp_path: Path, rd_text: str, payload: str) -> None:
    marker = tmp_path / "executed"
    tagged = payload.format(marker=marker)
    # as the whole document and as a value deep inside a valid contract
    for text in (tagged, rd_text.replace("variant: {}\n", f"variant: {tagged}")):
        msg = _error(tmp_path, text)
        assert "case.yaml:" in msg
        assert not marker.exists()
    with pytest.raises(ConfigError):
        parse_contract(tagged)
    assert not marker.exists()


def _typed(value: object) -> object:
    """A YAML document's data with every value's type beside it (1 and 1.0 and True differ)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}, dict
    if isinstance(value, list):
        return [_typed(v) for v in value], list
    return value, type(value)


def test_libyaml_reads_every_shipped_contract_as_the_pure_python_loader_does() -> None:
    if io.FAST_LOADER is None:
        pytest.skip("this PyYAML was built without libyaml")
    texts = [p.read_text("utf-8") for p in sorted(default_case_set_path().rglob("*.yaml"))]
    assert len(texts) > 300
    for text in texts:
        assert _typed(io.safe_load(text)) == _typed(yaml.safe_load(text))


@pytest.mark.parametrize(
    "broken",
    ["domain: airline: retail", "cluster: [IFOYYZ", "variant: {a: 1", "\tdomain: airline"],
)
def test_a_text_libyaml_refuses_fails_as_it_did_without_it(
    tmp_path: Path, rd_text: str, broken: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = rd_text.replace(broken.split(":")[0].strip() + ":", broken, 1)
    with_libyaml = _error(tmp_path, text)
    monkeypatch.setattr(io, "FAST_LOADER", None)
    assert _error(tmp_path, text) == with_libyaml


@pytest.mark.parametrize(
    "text",
    [
        "s\tchema_version: 1\ncontract_id: x\n",  # found by fuzzing: libyaml reads it
        "contract_id: x\noperator: write\teffect\n",
    ],
)
def test_a_text_only_libyaml_reads_fails_as_it_did_without_it(
    tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_libyaml = _error(tmp_path, text)
    assert "not valid YAML" in with_libyaml
    monkeypatch.setattr(io, "FAST_LOADER", None)
    assert _error(tmp_path, text) == with_libyaml


def test_a_valid_contract_only_libyaml_reads_is_refused_as_without_it(
    tmp_path: Path, rd_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``domain:<TAB>airline`` is the same contract to libyaml and no YAML to PyYAML's own
    scanner: it must be refused, as it was before libyaml."""
    text = rd_text.replace("domain: airline\n", "domain:\tairline\n", 1)
    assert text != rd_text
    with_libyaml = _error(tmp_path, text)
    assert "not valid YAML" in with_libyaml
    monkeypatch.setattr(io, "FAST_LOADER", None)
    assert _error(tmp_path, text) == with_libyaml
