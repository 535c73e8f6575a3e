"""What the pipeline benchmark runs and takes: the Procfile's worker line (with another count of
processes or threads where asked), and a run's figures, watched from its first message taken to its
last notification done."""
from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.harness import ROOT
from bench.proc import machine_busy_seconds


def procfile_worker_args() -> list[str]:
    """The arguments of the Procfile's worker line: what is measured is what runs."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("worker:"):
            command = shlex.split(line.split(":", 1)[1])
            assert command[:3] == ["python", "-m", "workers.supervise"], command
            return command[3:]
    raise LookupError("the Procfile has no worker line")


WORKER_ARGS = procfile_worker_args()


def _worker_count(flag: str) -> int:
    return int(WORKER_ARGS[WORKER_ARGS.index(flag) + 1])


PROCESSES, THREADS = _worker_count("--processes"), _worker_count("--threads")


def override_workers(processes: int | None, threads: int | None) -> None:
    """The Procfile's worker line, with another count of processes or threads where given."""
    global PROCESSES, THREADS
    for flag, value in (("--processes", processes), ("--threads", threads)):
        if value:
            WORKER_ARGS[WORKER_ARGS.index(flag) + 1] = str(value)
    PROCESSES, THREADS = _worker_count("--processes"), _worker_count("--threads")


@dataclass
class Run:
    rate: float  # per second, over the whole run
    worker_cpu_ms: float = 0.0  # per notification
    web_cpu_ms: float = 0.0
    gateway_cpu_ms: float = 0.0
    machine_cpu_ms: float = 0.0  # every process of the machine, database and Redis included
    most_in_flight: int = 0
    gateway_delay_ms: float = 0.0  # R5: each thread waits this long per send
    messages: int = 0  # the queue messages that carried the notifications
    accepted_rate: float = 0.0  # --together: sends accepted per second while the workers delivered

    def ceiling(self) -> float:
        """The most notifications per second this machine's cores allow at this CPU per notification,
        the benchmark's gateway left out (a real one runs elsewhere)."""
        ours = self.machine_cpu_ms - self.gateway_cpu_ms
        return (os.cpu_count() or 1) * 1000 / ours if ours > 0 else 0.0

    def process_ceiling(self) -> float:
        """The most notifications per second one worker process can handle, however many cores the
        machine has: a core's worth of CPU (the GIL) over the workers' CPU per notification, and no
        more than its threads can have in flight at the gateway's latency."""
        by_cpu = 1000 / self.worker_cpu_ms if self.worker_cpu_ms else 0.0
        return min(by_cpu, THREADS * 1000 / self.gateway_delay_ms) if self.gateway_delay_ms else by_cpu


def watch(first_taken: Callable[[], bool], all_done: Callable[[], bool], count: int,
           cpu: Callable[[], dict[str, float]] = dict, timeout: float = 900) -> Run:
    """From the first message taken to the last notification done, with the CPU seconds cpu() reads
    (keys: Run's *_cpu_ms fields without the suffix) and the machine's. The checks are cheap probes,
    polled often: counting the rows done every time loaded the database being measured."""
    def read() -> dict[str, float]:
        return {**cpu(), "machine": machine_busy_seconds()}

    deadline = time.monotonic() + timeout
    for done, interval in ((first_taken, 0.005), (all_done, 0.02)):
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the run did not finish")
            time.sleep(interval)
        if done is first_taken:
            started, cpu_before = time.monotonic(), read()
    used = {f"{name}_cpu_ms": (after - cpu_before[name]) * 1000 / count for name, after in read().items()}
    return Run(count / (time.monotonic() - started), **used)
