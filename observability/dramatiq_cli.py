"""`python -m observability.dramatiq_cli workers ...`: Dramatiq's CLI with JSON log lines from its
main and fork processes too (its worker processes switch to JSON when they boot, see
observability.message_context)."""
from __future__ import annotations

import logging
import sys
from typing import Any

import dramatiq.cli as cli

from observability import logs


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
