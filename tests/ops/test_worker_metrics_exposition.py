"""The worker hosts' exposition server answers every worker process's samples, read from Dramatiq's
metrics directory at each request (observability/worker_metrics.py, through prometheus_client's public
handler and multiprocess collector)."""
from __future__ import annotations

import subprocess
import sys
import threading
import urllib.request
from http.server import HTTPServer

from dramatiq.middleware import prometheus

from observability.worker_metrics import metrics_handler

WRITE_SAMPLE = """
from prometheus_client import Counter
Counter("notify_test_exposed_total", "a sample a worker process wrote").inc(3)
"""


def test_the_exposition_server_answers_the_samples_worker_processes_wrote(tmp_path, monkeypatch):
    monkeypatch.setattr(prometheus, "DB_PATH", str(tmp_path))
    subprocess.run([sys.executable, "-c", WRITE_SAMPLE], env={"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)},
                   check=True)
    server = HTTPServer(("127.0.0.1", 0), metrics_handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{server.server_port}/metrics", timeout=10) as answer:
            body = answer.read().decode()
            assert answer.headers["Content-Type"].startswith("text/plain")
    finally:
        server.shutdown()
        server.server_close()
    assert "notify_test_exposed_total 3.0" in body
