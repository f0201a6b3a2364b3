"""A throw-away JupyterLab server for the browser tests.

`running_lab` starts ``jupyter lab`` headless on a free loopback port with its own token and its own
config, runtime, settings, workspace and IPython folders (all inside a temporary folder), waits until
its REST API answers, and always stops it by its process id: on success, on failure, on Ctrl-C or
SIGTERM. The server runs in its own process group (so no Jupyter kernel can outlive it), and Linux
is asked to send it SIGTERM when the runner dies, so even a runner killed hard leaves no process.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LabServer", "running_lab"]

START_TIMEOUT_S = 90
STOP_TIMEOUT_S = 15

# User settings that keep a scripted session quiet and side-effect free: no "news?" pop-up, no
# autosave writing outputs into the committed notebooks, every cell attached to the DOM (so the n-th
# rendered cell is the n-th cell of the file), and the notebook's kernel started without a dialog.
_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "autoStartDefaultKernel": True,
    },
}


@dataclass
class LabServer:
    """A running JupyterLab: where it listens, how to authenticate, and its log file."""

    base_url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def lab_url(self, path: Path) -> str:
        """The URL that opens `path` (a file under `root`) in a fresh Lab workspace."""
        rel = urllib.parse.quote(path.resolve().relative_to(self.root).as_posix())
        return f"{self.base_url}/lab/tree/{rel}?reset&token={self.token}"

    def api(self, method: str, endpoint: str) -> Any:
        """Call the server's REST API; returns the decoded JSON body (None when empty)."""
        request = urllib.request.Request(
            f"{self.base_url}/api/{endpoint}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def delete_sessions(self) -> None:
        """Delete every session (and so shut down its kernel).

        JupyterLab reuses a live kernel for a notebook path it has seen, so each notebook starts and
        ends with this.
        """
        sessions = self.api("GET", "sessions")
        for session in sessions:
            self.api("DELETE", f"sessions/{session['id']}")

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's (and its kernels') log."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_settings(settings_dir: Path) -> None:
    for relative, values in _SETTINGS.items():
        path = settings_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values, indent=2))


def _isolated_env(home: Path) -> dict[str, str]:
    """The server's environment: every Jupyter/IPython folder and HOME inside `home`."""
    env = dict(os.environ)
    folders = {
        "HOME": "home",
        "JUPYTER_CONFIG_DIR": "config",
        "JUPYTER_DATA_DIR": "data",
        "JUPYTER_RUNTIME_DIR": "runtime",
        "JUPYTERLAB_SETTINGS_DIR": "settings",
        "JUPYTERLAB_WORKSPACES_DIR": "workspaces",
        "IPYTHONDIR": "ipython",
    }
    for var, name in folders.items():
        env[var] = str(home / name)
        (home / name).mkdir(parents=True, exist_ok=True)
    env.setdefault("MPLCONFIGDIR", str(home / "matplotlib"))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the runner dies (Linux; elsewhere a no-op)."""
    with contextlib.suppress(Exception):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _wait_until_ready(server: LabServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"jupyter lab exited with code {server.process.returncode} before it was ready:\n" + server.log_tail()
            )
        with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
            server.api("GET", "status")
            return
        time.sleep(0.25)
    raise TimeoutError(f"jupyter lab did not answer within {START_TIMEOUT_S} s:\n" + server.log_tail())


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server by its PID (SIGTERM lets it shut its kernels down), then sweep its group."""
    pid = process.pid
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT_S)
    # Kernels are started in the server's process group; none may outlive it.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While inside: SIGTERM raises KeyboardInterrupt (if nobody else handles it), so `finally` runs."""
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def running_lab(root: Path, workdir: Path) -> Iterator[LabServer]:
    """Start JupyterLab serving `root`, keeping all its state under `workdir`; stop it on exit.

    The port is one the operating system just handed out as free; with ``port_retries=0`` the server
    fails at once, instead of silently moving to another port, should something take it in between.
    """
    env = _isolated_env(workdir / "jupyter")
    _write_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    port = free_port()
    token = secrets.token_hex(16)
    log_path = workdir / "jupyter-lab.log"
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--FileCheckpoints.root_dir={workdir / 'checkpoints'}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # A last safety net: an orphaned, idle server exits by itself.
        "--ServerApp.shutdown_no_activity_timeout=900",
    ]  # fmt: skip
    with _sigterm_as_interrupt():
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        server = LabServer(f"http://127.0.0.1:{port}", token, root.resolve(), process, log_path)
        try:
            _wait_until_ready(server)
            yield server
        finally:
            try:
                if process.poll() is None:
                    with contextlib.suppress(Exception):
                        server.delete_sessions()
            finally:
                _stop(process)
