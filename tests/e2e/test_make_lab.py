"""The README's first command: `make lab` serves JupyterLab on the notebooks folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request

from .conftest import REPO
from .server import free_port


def test_make_lab_serves_jupyterlab(workdir) -> None:
    port = free_port()
    log = (workdir / "make-lab.log").open("wb")
    env = {**os.environ, "JUPYTER_TOKEN": "e2e-make-lab"}
    process = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"PORT={port}"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline, status = time.monotonic() + 120, None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token=e2e-make-lab", timeout=5) as r:
                    status = json.load(r)
                break
            except OSError:
                time.sleep(1)
        assert status is not None, (workdir / "make-lab.log").read_text()[-2000:]
        names = {item["name"] for item in status["content"]}
        assert "00_welcome.ipynb" in names, f"make lab serves {sorted(names)}, not the notebooks folder"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
