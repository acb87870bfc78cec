"""Shared fixtures: the checkout's root and a layoutscope-agent on a free loopback port (CPU backend)."""

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def agent_url():
    """Starts build/bin/layoutscope-agent --backend cpu --port 0 and yields the URL it prints (with the
    token); stops it afterwards. Skips when the agent is not built."""
    binary = Path(os.environ.get("LAYOUTSCOPE_AGENT_BIN", ROOT / "build" / "bin" / "layoutscope-agent"))
    if not os.access(binary, os.X_OK):
        pytest.skip(f"{binary} is not built (cmake --build build --target layoutscope-agent)")
    work = tempfile.TemporaryDirectory(prefix="ls-py-agent-")
    proc = subprocess.Popen(
        [str(binary), "--port", "0", "--backend", "cpu", "--results-dir", f"{work.name}/results",
         "--token-file", f"{work.name}/token"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    url = None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"open (http://\S+)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        pytest.fail(f"the agent did not print its URL: {proc.stderr.read()}")
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        work.cleanup()
