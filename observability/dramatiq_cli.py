"""`python -m observability.dramatiq_cli workers ...`: Dramatiq's CLI with JSON log lines from its
main and fork processes too (its worker processes switch to JSON when they boot, see
observability.message_context).

`--gevent` first (`python -m observability.dramatiq_cli --gevent workers ...`) runs the worker
threads as greenlets, as `dramatiq-gevent` does: the standard library is patched before anything
else is imported, so sockets (Redis, HTTP, and psycopg2 through models.db's wait callback) wait
in gevent's hub and a worker process holds many provider calls in flight at once.
"""
from __future__ import annotations

import sys

if sys.argv[1:2] == ["--gevent"]:
    from gevent import monkey

    monkey.patch_all()
    del sys.argv[1]

import logging  # noqa: E402
from typing import Any  # noqa: E402

import dramatiq.cli as cli  # noqa: E402

from observability import logs  # noqa: E402


def _parent_logging(args: Any, *, stream: Any = sys.stderr) -> logging.Logger:
    if not args.skip_logging:
        logs.configure("worker", level=cli.VERBOSITY.get(args.verbose, logging.DEBUG), stream=stream)
    return cli.get_logger("dramatiq", "MainProcess")


def _child_logging(kind: str):  # noqa: ANN202  (dramatiq's setup function's shape)
    def setup(args: Any, child_id: int, logging_pipe: Any) -> logging.Logger:
        sys.stdout = sys.stderr = logging_pipe  # as dramatiq's own: every line through the main process
        if not args.skip_logging:
            logs.configure("worker", level=cli.VERBOSITY.get(args.verbose, logging.DEBUG), stream=logging_pipe)
        return cli.get_logger("dramatiq", f"{kind}({child_id})")
    return setup


if __name__ == "__main__":
    cli.setup_parent_logging = _parent_logging
    cli.setup_worker_logging = _child_logging("WorkerProcess")
    cli.setup_fork_logging = _child_logging("ForkProcess")
    sys.exit(cli.main())
