"""gunicorn's settings for a web process whose workers die right after the commit of every
KILL_AFTER_COMMIT_EVERY-th status change they make (tests/kill_after_commit.py), at most
kill_after_commit.KILLS_AT_MOST times in all (counted in the file KILL_AFTER_COMMIT_FILE): the
service's own settings (gunicorn.conf.py), and the hook armed once a worker has loaded the app."""
import os
from pathlib import Path

exec(Path("gunicorn.conf.py").read_text())  # noqa: S102  (the service's settings, as they are)


def post_worker_init(worker):  # noqa: ANN001, ANN201  (gunicorn's hook signature)
    from tests.kill_after_commit import arm

    arm(int(os.environ["KILL_AFTER_COMMIT_EVERY"]), Path(os.environ["KILL_AFTER_COMMIT_FILE"]))
