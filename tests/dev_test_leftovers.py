"""Run only by tests/test_dev_run.py, through `python3 dev.py test tests/dev_test_leftovers.py` (its name
does not match test_*.py, so the suite never collects it): a test that leaves a server in its tree and a
daemon outside it, writes their process ids (and pytest's, and the embedded Redis's) to LEFTOVERS_REPORT,
then waits to be killed with them all running."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import _instance


def test_waits_to_be_killed_with_a_server_and_a_daemon_running():
    server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # A session of its own: it leaves pytest's process group, as a daemon does.
    daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    pid_file = Path(_instance) / "embedded-redis.pid"
    report = {"pytest": os.getpid(), "server": server.pid, "daemon": daemon.pid,
              "redis": int(pid_file.read_text()) if pid_file.exists() else None}
    Path(os.environ["LEFTOVERS_REPORT"]).write_text(json.dumps(report))
    time.sleep(600)
