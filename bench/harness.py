"""Shared pieces of the benchmarks: processes started as the Procfile starts them, and wrk."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import redis
import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """A checkout of revision beside this one (git worktree), removed afterwards: to serve the code
    of another commit in the same rounds as this tree's."""
    path = Path(tempfile.mkdtemp(prefix="bench-tree-"))
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(path), revision], cwd=ROOT, check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=False)


@contextlib.contextmanager
def gunicorn(app: str, env: dict[str, str], port: int, ready_path: str) -> Iterator[str]:
    """app served as the Procfile serves it: gunicorn.conf.py, whose worker class follows
    DATABASE_URL in env, with its access log (written to the server's log file in INSTANCE_DIR)."""
    with gunicorn_process(app, env, port, ready_path) as (url, _):
        yield url


def _wait_until_answering(url: str, deadline: float) -> None:
    while True:
        try:
            requests.request("GET", url, timeout=5)
            return
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextlib.contextmanager
def gunicorn_process(app: str, env: dict[str, str], port: int, ready_path: str,
                     tree: Path = ROOT) -> Iterator[tuple[str, int]]:
    """gunicorn() that also yields the master's pid (its workers are its children); tree: the
    checkout whose code and gunicorn.conf.py it serves."""
    log = open(Path(env["INSTANCE_DIR"]) / "gunicorn.log", "w")
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), app, "--bind", f"127.0.0.1:{port}"],
        cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        _wait_until_answering(url + ready_path, deadline)
        # Each worker loads the app itself after the first answers: one still loading would add its
        # start-up CPU to the figures and serve nothing meanwhile.
        workers = int(env.get("WEB_CONCURRENCY", "2"))
        while (Path(env["INSTANCE_DIR"]) / "gunicorn.log").read_text().count("Worker ready") < workers:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{app}: not all {workers} workers started")
            time.sleep(0.2)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@contextlib.contextmanager
def granian_process(app: str, env: dict[str, str], port: int, ready_path: str,
                    threads: int) -> Iterator[tuple[str, int]]:
    """app served by granian (a server whose HTTP side is Rust) with WEB_CONCURRENCY processes of
    `threads` threads each and its access log on, for comparison with gunicorn_process; yields the
    address and the pid of granian's main process (its workers are its children)."""
    executable = Path(sys.executable).parent / "granian"
    if not executable.exists():
        sys.exit("granian is not installed: .venv/bin/pip install granian==2.8.9")
    log_path = Path(env["INSTANCE_DIR"]) / "granian.log"
    workers = int(env.get("WEB_CONCURRENCY", "2"))
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(executable), "--interface", "wsgi", "--workers", str(workers), "--blocking-threads", str(threads),
             "--host", "127.0.0.1", "--port", str(port), "--access-log", app],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while log_path.read_text().count("Started worker") < workers:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{app}: not all {workers} granian workers started")
                time.sleep(0.2)
            _wait_until_answering(url + ready_path, deadline)
            yield url, process.pid
        finally:
            process.terminate()
            process.wait(timeout=30)


_TOKEN_SCRIPT = """
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads - 1)
end
function init(args)
  pool, used = {}, 0
  local line = 0
  for token in io.lines("%(path)s") do
    if line %% %(threads)d == id then
      wrk.headers["Authorization"] = "Bearer " .. token
      pool[#pool + 1] = wrk.format(nil, "%(target)s")
    end
    line = line + 1
  end
  size = #pool
end
function request()
  used = used + 1
  return pool[used] or pool[(used - 1) %% size + 1]
end
function done(summary, latency, requests)
  local repeated = 0
  for _, thread in ipairs(threads) do
    repeated = repeated + math.max(0, thread:get("used") - thread:get("size"))
  end
  io.write(string.format("tokens sent twice: %%d\\n", repeated))
end
"""
WRK_THREADS = 2


def wrk_post(url: str, body: str, headers: dict[str, str], *, seconds: float, connections: int,
             tokens: list[str] | None = None) -> dict:
    """A wrk run posting body to url: requests per second, requests, non-2xx answers, socket errors and
    the 99th percentile latency in ms. With tokens, each request carries the next one as its bearer
    token (split between wrk's threads, each formatted into its request beforehand so wrk spends no
    more per request on it than on a fixed request); a run that needs more requests than there are
    tokens stops the benchmark rather than send one twice."""
    if not shutil.which("wrk"):
        sys.exit("wrk is needed for the benchmarks: apt-get install wrk")
    lines = ['wrk.method = "POST"', f"wrk.body = [[{body}]]"]
    lines += [f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()]
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as scratch:
        if tokens:
            (Path(scratch) / "tokens").write_text("\n".join(tokens) + "\n")
            target = url.split("/", 3)[3] if url.count("/") >= 3 else ""
            lines.append(_TOKEN_SCRIPT % {"path": f"{scratch}/tokens", "threads": WRK_THREADS, "target": f"/{target}"})
        # No response() callback: wrk then parses every response in Lua, which would cap both runs.
        (Path(scratch) / "load.lua").write_text("\n".join(lines))
        out = subprocess.run(
            ["wrk", f"-t{WRK_THREADS}", f"-c{connections}", f"-d{seconds:g}s", "--latency",
             "-s", f"{scratch}/load.lua", url],
            capture_output=True, text=True, check=True,
        ).stdout
    # Anchored: a "+/- Stdev" figure such as 71.99% in the thread stats also ends in "99%".
    p99 = re.search(r"^\s*99%\s+([\d.]+(?:us|ms|s|m))\s*$", out, re.M)
    if p99 is None:
        sys.exit(f"wrk measured no latency (did every request fail?):\n{out}")
    requests_made = int(re.search(r"(\d+) requests in", out).group(1))
    if tokens:
        repeated = int(re.search(r"tokens sent twice: (\d+)", out).group(1))
        if repeated:
            sys.exit(f"{repeated} requests repeated a token of the {len(tokens)} made: raise --max-rate")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {"rps": rate, "requests": requests_made, "p99_ms": _milliseconds(p99.group(1)),
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(map(int, errors.groups())) if errors else 0}


def _milliseconds(text: str) -> float:
    """wrk's latency (e.g. 812.00us, 12.34ms, 1.20s) in milliseconds."""
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60_000}[unit]


def provision(env: dict[str, str], key_type: str) -> dict:
    """A service, key and sms template made by bench/provision.py in env's database: key, service_id,
    template_id and template_body."""
    return json.loads(subprocess.run([sys.executable, "bench/provision.py", key_type], cwd=ROOT, env=env,
                                     capture_output=True, text=True, check=True).stdout)


def drop_queues(redis_url: str, namespace: str) -> None:
    """Remove a run's queues: live sends leave a queue message each that no worker of the run takes."""
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{namespace}*", count=1000):
        client.delete(key)


def database(env: dict[str, str]):  # noqa: ANN201 (a peewee Database and its parameter placeholder)
    """A connection to env's database, as the service would open it."""
    os.environ.update({k: env[k] for k in ("INSTANCE_DIR",) if k in env})
    from models.db import connect_url

    db = connect_url(env.get("DATABASE_URL") or f"sqlite:///{env['INSTANCE_DIR']}/notify.db")
    db.connect()
    return db, db.param


def vacuum(env: dict[str, str]) -> None:
    """A round starts where autovacuum would leave the table between bursts, whatever the rounds
    before left dead, and wherever autovacuum is off (this machine's is). PostgreSQL only."""
    db = database(env)[0]
    try:
        db.execute_sql("VACUUM ANALYZE notification")
    finally:
        db.close()


def remove_sends(env: dict[str, str], service_id: str) -> None:
    """Delete the notifications a run made for its service: left behind, every run would measure a
    bench database larger than the one before (a hundred thousand rows an accept run), and its
    figures would drift with the database's history."""
    db, param = database(env)
    try:
        db.execute_sql(f"DELETE FROM notification WHERE service_id = {param}", (uuid.UUID(service_id).hex,))
    finally:
        db.close()


def service_env(instance: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    env.update({"INSTANCE_DIR": str(instance), "QUEUE_NAMESPACE": f"bench-{os.getpid()}", "PYTHONPATH": str(ROOT),
                **extra})
    return env


def interleaved(rounds: int, runs: list[tuple[str, str | None]], baseline: Callable[[], float],
                measure: Callable[[str, str | None], float]) -> tuple[list[float], dict[str, list[float]]]:
    """Rounds interleave the baseline and each run, so drift on a shared machine hits both alike."""
    base: list[float] = []
    rates: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(rounds):
        base.append(baseline())
        for name, url in runs:
            rates[name].append(measure(name, url))
    return base, rates


def report(baseline_label: str, base: list[float], label: str, rates: dict[str, list[float]], unit: str) -> None:
    """Medians, the ratio to the baseline, and every round's figure."""
    def rounds(values: list[float]) -> str:
        return f"(rounds: {', '.join(f'{v:.0f}' for v in values)})"

    median = statistics.median(base)
    print(f"{baseline_label:32} {median:8.0f}   {rounds(base)}")
    for name, values in rates.items():
        rate = statistics.median(values)
        # Each round's ratio sets a run beside the baseline measured just before it, so a machine
        # whose speed drifts between rounds moves both sides of it alike.
        paired = [value / b for value, b in zip(values, base, strict=True)]
        print(f"{f'{label} on {name}':32} {rate:8.0f} {unit}  ratio {rate / median:5.1%}   {rounds(values)}")
        print(f"{'':32} {'':8}   per-round ratios {', '.join(f'{r:.1%}' for r in paired)}; "
              f"median {statistics.median(paired):.1%}")
