"""``oracles evaluate``: the stratified table for the built-ins, both reference sources,
the judges through a loopback server, and third-party oracles as plugins."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli import oracles as oracles_cmd
from sscbench.oracles.base import ORACLES, Trajectory, Verdict
from sscbench.oracles.dataset import build_items
from sscbench.reconstruct.label import label_dir
from sscbench.review.export import export_review
from sscbench.review.labels import Mark, ReviewLabel, append_label

PROVIDERS = Path(__file__).parents[1] / "agents" / "providers" / "conftest.py"
_spec = importlib.util.spec_from_file_location("evaluate_provider_fakes", PROVIDERS)
assert _spec is not None and _spec.loader is not None
fakes = importlib.util.module_from_spec(_spec)
sys.modules["evaluate_provider_fakes"] = fakes
_spec.loader.exec_module(fakes)
fake = fakes.fake
key = fakes.key


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="sscbench")
    oracles_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_truth_reference_table_with_clean_controls(
    oracle_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    out = tmp_path / "eval"
    code = cli(
        "oracles",
        "evaluate",
        str(oracle_runs / "faulted"),
        "--clean",
        str(oracle_runs / "clean"),
        "--out",
        str(out),
    )
    assert code == 0
    printed = capsys.readouterr().out
    for row in ("operator=pay_source", "arrival=after", "arrival=clean", "T_U ±1"):
        assert row in printed
    llm = ("llm_judge_l0", "llm_judge_l1", "diagnosis_native", "diagnosis_saa")
    for name in (*llm, "attribution_all_at_once"):
        assert f"skipped {name}: no API key" in printed
    words = {word for line in printed.splitlines() for word in line.split()}
    for baseline in ("B1", "B2-L0", "B2-L1", "B3-native", "B3-SAA", "B4", "B5"):
        assert baseline in words, "the settings table (Table II) is printed"
    scores = json.loads((out / "scores.json").read_text())["oracles"]
    recon, inv = scores["reconstructor"]["strata"], scores["db_invariants"]["strata"]
    assert recon["all"]["f1"] == 1.0 and recon["all"]["fpr_clean"] == 0.0
    assert recon["all"]["clean"] > 0 and recon["all"]["positives"] > 0
    assert recon["arrival=after"]["scored"] == 0, "empty strata are kept"
    assert inv["all"]["fpr_clean"] == 0.0 and inv["all"]["fpr_non_adopted"] > 0.5
    assert scores["llm_judge_l0"]["strata"] == {} and scores["llm_judge_l0"]["skipped"]
    assert scores["attribution_all_at_once"]["setting"]["output"] == "step"
    anomaly = scores["anomaly_detector"]["strata"]
    assert anomaly["all"]["scored"] == recon["all"]["scored"]
    verdicts = (out / "verdicts.jsonl").read_text().splitlines()
    assert len(verdicts) == 3 * (recon["all"]["scored"] + recon["all"]["excluded"])


def test_review_reference(oracle_runs: Path, tmp_path: Path) -> None:
    faulted = oracle_runs / "faulted"
    auto = {x.run_id: x for x in label_dir(faulted)}
    review = tmp_path / "review"
    result = export_review(faulted, review, 6, seed=4)
    for entry in result.entries:
        label = auto[entry.run_id]
        for reviewer in "ABC":
            append_label(
                review,
                ReviewLabel(
                    packet_id=entry.packet_id,
                    reviewer=reviewer,
                    t_e=Mark(status=label.t_e.status, step=label.t_e.step),
                    t_s=Mark(status=label.t_s.status, step=label.t_s.step),
                    t_u=Mark(
                        status=label.t_u.status,
                        step=label.t_u.step if label.t_u.status == "found" else None,
                    ),
                    adopted={True: "yes", False: "no", None: "undecidable"}[label.adopted],  # type: ignore[arg-type]
                ),
            )
    items, kind = build_items(faulted, str(review), [oracle_runs / "clean"])
    assert kind == "review"
    reviewed = [i for i in items if not i.reference.clean]
    assert sorted(i.trajectory.item_id for i in reviewed) == sorted(
        e.run_id for e in result.entries
    )
    for i in reviewed:
        assert i.reference.adopted == auto[i.trajectory.item_id].adopted


def test_judges_through_the_provider_layer(
    oracle_runs: Path, tmp_path: Path, fake: Any, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.responder = lambda path, body: fakes.openai_reply('{"adopted": false, "t_u": null}')
    out = tmp_path / "eval"
    code = cli(
        "oracles",
        "evaluate",
        str(oracle_runs / "faulted"),
        "--oracle",
        "llm_judge_l0",
        "--oracle",
        "llm_judge_l1",
        "--judge-param",
        "model=judge",
        "--judge-param",
        f"base_url={fake.openai_url}",
        "--judge-param",
        f"api_key_env={key}",
        "--out",
        str(out),
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "llm_judge_l0" in printed and "skipped" not in printed
    scores = json.loads((out / "scores.json").read_text())["oracles"]
    l1 = scores["llm_judge_l1"]["strata"]
    assert l1["all"]["tp"] == 0
    assert l1["all"]["coverage"] == 1.0
    calls = [json.loads(x) for x in (out / "provider_calls.jsonl").read_text().splitlines()]
    assert len(calls) == 2 * l1["all"]["scored"] + 2 * l1["all"]["excluded"], (
        "one recorded call per judged run"
    )
    # Identical trajectories (same seed, same behaviour) are answered from the cache.
    assert sum(not c["cache_hit"] for c in calls) == len(fake.requests) > 0
    for path in out.rglob("*"):
        if path.is_file():
            assert fakes.SECRET not in path.read_text(errors="replace"), path


class AlwaysYes:
    """A third-party oracle: flags every run at its last step."""

    name = "test_always_yes"

    def judge(self, trajectory: Trajectory) -> Verdict:
        return Verdict(adopted=True, t_u=trajectory.ledger.events[-1].step)


@pytest.fixture
def plugin() -> Iterator[str]:
    ORACLES.add("test_always_yes", AlwaysYes)
    yield "test_always_yes"
    ORACLES._entries.pop("test_always_yes")


def test_a_registered_oracle_is_scored_like_the_built_ins(
    oracle_runs: Path, tmp_path: Path, plugin: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("oracles", "list") == 0
    assert plugin in capsys.readouterr().out.split()
    out = tmp_path / "eval"
    assert (
        cli(
            "oracles",
            "evaluate",
            str(oracle_runs / "faulted"),
            "--oracle",
            plugin,
            "--out",
            str(out),
        )
        == 0
    )
    s = json.loads((out / "scores.json").read_text())["oracles"][plugin]["strata"]["all"]
    assert s["recall"] == 1.0 and s["fpr_non_adopted"] == 1.0 and s["coverage"] == 1.0


@pytest.mark.parametrize(
    "reconstructed",
    ["no", "rules", "llm"],
    ids=["labels-computed", "labels-file", "labels-file-from-an-llm"],
)
def test_evaluate_parses_each_ledger_once_and_labels_no_run_twice(
    oracle_runs: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_keys: None,
    reconstructed: str,
) -> None:
    """The scored set, the comparison with the reference and the reconstructor oracle share
    one parse of each ledger and one labelling of each run (``labels.jsonl`` when present)."""
    import shutil
    from collections import Counter

    from sscbench.cli.main import main
    from sscbench.reconstruct import label as label_module
    from sscbench.records import ledger as ledger_module

    faulted = tmp_path / "faulted"
    shutil.copytree(oracle_runs / "faulted", faulted)
    if reconstructed != "no":
        assert main(["reconstruct", str(faulted)]) == 0
        record_path = faulted / "labels.runs.json"
        record = json.loads(record_path.read_text())
        assert record["classifier"] == "rules"
        if reconstructed == "llm":  # as `reconstruct --classifier llm` records it
            record_path.write_text(json.dumps({**record, "classifier": "llm"}))
    parsed: Counter[str] = Counter()
    labelled: Counter[str] = Counter()
    real_iter, real_label = ledger_module.iter_jsonl, label_module.label_ledger

    def counting_iter(path: Path, data: bytes | None = None) -> Any:
        if path.name == "ledger.jsonl":  # the defining reader (or the fast one's fallback)
            parsed[str(path.parent)] += 1
        return real_iter(path, data)

    real_fast = ledger_module._read_fast

    def counting_fast(path: Path, data: bytes) -> Any:
        ledger = real_fast(path, data)
        if ledger is not None:  # else read_ledger goes on to iter_jsonl, counted there
            parsed[str(path.parent)] += 1
        return ledger

    def counting_label(run_dir: Path, ledger: Any, *args: Any, **kwargs: Any) -> Any:
        labelled[str(run_dir)] += 1
        return real_label(run_dir, ledger, *args, **kwargs)

    monkeypatch.setattr(ledger_module, "iter_jsonl", counting_iter)
    monkeypatch.setattr(ledger_module, "_read_fast", counting_fast)
    monkeypatch.setattr(label_module, "label_ledger", counting_label)
    for module in (
        "sscbench.oracles.dataset",
        "sscbench.oracles.stream",
        "sscbench.oracles.reconstructor",
    ):
        __import__(module)
        if hasattr(sys.modules[module], "label_ledger"):
            monkeypatch.setattr(sys.modules[module], "label_ledger", counting_label)
    code = cli("oracles", "evaluate", str(faulted), "--out", str(tmp_path / "eval"))
    assert code == 0
    runs = sorted(str(p.parent) for p in faulted.rglob("ledger.jsonl"))
    assert len(runs) > 20
    assert dict(parsed) == dict.fromkeys(runs, 1)
    # The reconstructor oracle is the rules: it takes the rules' labels from the file, and
    # labels each run itself (once) when an LLM classifier wrote them.
    if reconstructed == "llm":  # every run the reconstructor judged, once
        verdicts = (tmp_path / "eval" / "verdicts.jsonl").read_text().splitlines()
        judged = {
            str(faulted / v["item"])
            for v in map(json.loads, verdicts)
            if v["oracle"] == "reconstructor" and v["reference"]["z_s"] != "clean"
        }
        assert judged and dict(labelled) == dict.fromkeys(judged, 1)
    else:
        assert dict(labelled) == ({} if reconstructed == "rules" else dict.fromkeys(runs, 1))
