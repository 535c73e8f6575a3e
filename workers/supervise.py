"""The Procfile's `worker` process: Dramatiq worker processes, each replaced when it dies.

`dramatiq workers --processes N` (dramatiq 2.2, cli.main) stops every worker process and exits
when one of them exits unexpectedly, and it has no option to restart them; a Procfile runner does
not start it again either. So each worker process here is a `dramatiq --processes 1` of its own,
and one that exits while we are running is started again (after a pause that grows while it keeps
dying young, say while Redis is down at boot), while the others keep working. A message the dead
one held comes back to another after the queue heartbeat timeout; stages are idempotent.

SIGTERM or SIGINT (a Procfile runner stopping us, which signals the whole process group) stops
every worker process and exits 0 once they are gone.
"""
from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from config import email_goes_nowhere, get_settings
from observability import logs

log = logging.getLogger("workers.supervise")
MIN_RESTART_DELAY_SECONDS = 1.0
MAX_RESTART_DELAY_SECONDS = 30.0
HEALTHY_AFTER_SECONDS = 30.0  # a worker process that lived this long starts the next one without delay


@dataclass
class Slot:
    command: list[str]
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    restart_at: float = 0.0
    delay: float = MIN_RESTART_DELAY_SECONDS

    def start(self) -> None:
        self.process = subprocess.Popen(self.command)
        self.started_at = time.monotonic()
        log.info("started worker process %d", self.process.pid)

    def check(self, now: float) -> None:
        """Start again a process that exited, once its pause is over."""
        if self.process is not None:
            code = self.process.poll()
            if code is None:
                return
            lived = now - self.started_at
            self.delay = (MIN_RESTART_DELAY_SECONDS if lived >= HEALTHY_AFTER_SECONDS
                          else min(self.delay * 2, MAX_RESTART_DELAY_SECONDS))
            log.warning("worker process %d exited with %s after %.0f s; starting another in %.0f s",
                        self.process.pid, code, lived, self.delay)
            self.process, self.restart_at = None, now + self.delay
        if now >= self.restart_at:
            self.start()


def worker_command(threads: int, queues: list[str]) -> list[str]:
    # Dramatiq's CLI, its lines in JSON like every other process's; `workers:wire` builds the broker.
    return [sys.executable, "-m", "observability.dramatiq_cli", "workers:wire", "--processes", "1",
            "--threads", str(threads),
            *(["--queues", *queues] if queues else [])]


def every_queue_but(excluded: list[str]) -> list[str]:
    import workers

    return sorted(set(workers.wire().get_declared_queues()) - set(excluded))


def supervise(slots: list[Slot], stop: threading.Event, poll_seconds: float = 0.5) -> None:
    for slot in slots:
        slot.start()
    while not stop.wait(poll_seconds):
        now = time.monotonic()
        for slot in slots:
            slot.check(now)
    running = [slot.process for slot in slots if slot.process is not None and slot.process.poll() is None]
    for process in running:
        process.send_signal(signal.SIGTERM)  # dramatiq passes it on to its worker process
    for process in running:
        process.wait()


def refuse_misconfigured() -> None:
    """Exit before any worker process starts when a provider setting, or an SMS gateway in use that the
    database holds, cannot work: one line each (pipeline/infrastructure/provider_settings.py)."""
    from models.db import database, init_database
    from pipeline.infrastructure import provider_settings

    settings = get_settings()
    if database.obj is None:
        init_database(settings.database_url)
    try:
        provider_settings.refuse_to_start(settings, provider_settings.WORKER)
    finally:
        database.close()  # the worker processes open their own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--threads", type=int, default=8, help="threads per worker process (default 8)")
    parser.add_argument("--queues", nargs="*", default=[], help="queues to consume (default: all)")
    parser.add_argument("--except-queues", nargs="*", default=[],
                        help="consume every queue but these (e.g. jobs, which has processes of its own)")
    args = parser.parse_args(argv)
    logs.configure("worker")
    refuse_misconfigured()
    if warning := email_goes_nowhere(get_settings()):
        log.warning(warning)
    if args.except_queues:
        args.queues = every_queue_but(args.except_queues)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    supervise([Slot(worker_command(args.threads, args.queues)) for _ in range(args.processes)], stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
