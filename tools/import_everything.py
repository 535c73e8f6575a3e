"""Import every module of the application in the python that runs this, as its processes would.

CI's deployed step (.ci/deployed.py) runs it in a virtual environment made from requirements.txt alone,
so a module that needs a package the runtime lock lacks fails there, named; tests/test_locks.py runs it
in the dev environment to learn which distributions the application loads, its libraries' own imports
included (gunicorn's gevent worker imported `packaging`, which only the test tools brought in).

Usage: python tools/import_everything.py [--loaded]
    a line per module that fails to import, and exit 1 if any did; with --loaded, then the top-level
    names of every module loaded, as one JSON list on the last line.

Every .py under the application's packages and its top-level modules, and gunicorn.conf.py (run as
gunicorn runs it); not tests/, bench/, tools/ or dev.py, and no `__main__` module (importing one runs
its process: the release step is run as itself).
"""
from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("api", "console", "core", "pipeline", "models", "workers", "observability")
TOP_LEVEL = ("app", "cli", "config", "scheduler", "embedded_redis", "local_mailbox", "version")
GUNICORN_CONF = ROOT / "gunicorn.conf.py"


def application_modules() -> list[str]:
    """The dotted names of every module of the application, in a stable order."""
    names = list(TOP_LEVEL)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _failure(error: BaseException) -> str:
    """The error, and the last frame of the application or a library it came from."""
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" ({frame.filename}:{frame.lineno})" if frame else ""
    return f"{type(error).__name__}: {error}{where}"


def import_everything() -> dict[str, str]:
    """module -> why it failed, for every module that did not import."""
    failed = {}
    for name in application_modules():
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001  (every failure is reported, each with its module)
            failed[name] = _failure(error)
    # gunicorn.conf.py keeps its metric samples in PROMETHEUS_MULTIPROC_DIR, or a directory it makes.
    with tempfile.TemporaryDirectory(prefix="import-everything-") as metrics:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics
        try:
            runpy.run_path(str(GUNICORN_CONF))
        except (Exception, SystemExit) as error:  # noqa: BLE001
            failed[GUNICORN_CONF.name] = _failure(error)
    return failed


def main(args: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    failed = import_everything()
    for name, why in failed.items():
        print(f"cannot import {name}: {why}")
    if "--loaded" in args:
        print(json.dumps(sorted({name.split(".")[0] for name in list(sys.modules)})))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
