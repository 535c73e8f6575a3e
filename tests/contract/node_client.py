"""Runs the official Node client (tests/contract/node/call.js) for contract tests."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

NODE = shutil.which("node")
SCRIPT = Path(__file__).parent / "node" / "call.js"
requires_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")


def node_call(base_url: str, api_key: str, operation: str, *args: Any) -> tuple[int, Any]:
    """(HTTP status, response body) of one client call, as a Node user sees them."""
    done = subprocess.run(
        [NODE, str(SCRIPT), operation, json.dumps(args)], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "NOTIFY_BASE_URL": base_url, "NOTIFY_API_KEY": api_key},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return result["status"], result["data"]


def node_file(content: bytes) -> dict[str, str]:
    """An argument call.js passes to the client as a Buffer of these bytes (a file as a Node user reads it)."""
    return {"$file": base64.b64encode(content).decode()}
