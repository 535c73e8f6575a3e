"""Imports point down the floors (docs/architecture.md#layers-point-one-way): read from every module's
source, lazy imports inside functions included, so a new arrow up fails here with its file and import."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# docs/architecture.md#the-floors, from the top down: (floor's name, the modules on it).
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("processes", ("app", "scheduler", "gunicorn.conf")),
    ("doors", ("api", "console", "cli")),
    ("rules", ("core",)),
    ("queues", ("workers",)),
    ("stages", ("pipeline.stages",)),
    ("infrastructure", ("pipeline.infrastructure",)),
    ("observability", ("observability",)),
    ("data", ("models",)),
    ("settings", ("config",)),
    ("vocabulary", ("pipeline.domain",)),
]
DOORS = ("api", "console", "cli")
# Modules of the repository on no floor: tools and tests import the floors, nothing on a floor imports
# them. The vocabulary may import none of them either.
OUTSIDE = ("bench", "tools", "tests", "dev", "embedded_redis", "local_mailbox", "version", "pipeline")


def _starts(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def floor_of(module: str) -> int | None:
    """The floor's number counted from the top (0: processes); None for a module on no floor."""
    for number, (_name, prefixes) in enumerate(FLOORS):
        if any(_starts(module, prefix) for prefix in prefixes):
            return number
    return None


def top_of(module: str) -> str:
    """The top-level package of a module, or its door."""
    return next((door for door in DOORS if _starts(module, door)), module.split(".")[0])


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def floor_modules() -> Iterator[tuple[Path, str]]:
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0].startswith(".") or "node_modules" in relative.parts:
            continue
        name = _module_name(path)
        if floor_of(name) is not None:
            yield path, name


def imports_of(module: str, source: str, package: bool) -> Iterator[tuple[int, str]]:
    """(line, module imported) for every import of a module's source, a relative one made absolute."""
    anchor = module if package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = anchor.split(".")[: len(anchor.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            # `from pipeline.domain import statuses` imports pipeline.domain.statuses: the finer name decides.
            yield from ((node.lineno, f"{base}.{alias.name}" if base else alias.name) for alias in node.names)


def _repository_module(imported: str) -> bool:
    return floor_of(imported) is not None or any(_starts(imported, name) for name in OUTSIDE)


def wrong_arrows(module: str, source: str, where: str, package: bool = False) -> Iterator[str]:
    """Each import of the module that points up a floor, or from a door to another, named by file and line."""
    here = floor_of(module)
    assert here is not None
    for line, imported in imports_of(module, source, package):
        there = floor_of(imported)
        if here == len(FLOORS) - 1:
            if _repository_module(imported) and there != here:
                yield f"{where}:{line}: imports {imported}: the vocabulary imports nothing of the repository outside it"
        elif there is not None and there < here:
            yield (f"{where}:{line}: imports {imported}: the {FLOORS[here][0]} floor imports the "
                   f"{FLOORS[there][0]} floor above it")
        elif there == here and FLOORS[here][0] == "doors" and top_of(imported) != top_of(module):
            yield f"{where}:{line}: imports {imported}: a door never imports another door"


def test_the_floors_cover_the_code():
    modules = [name for _path, name in floor_modules()]
    for _name, prefixes in FLOORS:
        for prefix in prefixes:
            assert any(_starts(module, prefix) for module in modules), f"no module on the floor of {prefix}"


def test_imports_point_down_the_floors():
    wrong = [arrow for path, module in floor_modules()
             for arrow in wrong_arrows(module, path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)),
                                       package=path.name == "__init__.py")]
    assert wrong == []


@pytest.mark.parametrize(("source", "expected"), [
    ("from models.service import Service\n", "imports models.service.Service: the vocabulary imports nothing"),
    ("def f():\n    from config import get_settings\n", "imports config.get_settings: the vocabulary"),
    ("from pipeline.stages import send_checks\n", "imports pipeline.stages.send_checks: the vocabulary"),
    ("import version\n", "imports version: the vocabulary imports nothing of the repository outside it"),
])
def test_the_vocabulary_importing_the_repository_is_named(source, expected):
    [arrow] = wrong_arrows("pipeline.domain.probe", source, "pipeline/domain/probe.py")
    assert arrow.startswith("pipeline/domain/probe.py:") and expected in arrow


@pytest.mark.parametrize(("module", "source", "expected"), [
    ("workers.probe", "from core.accounts import link\n", "the queues floor imports the rules floor above it"),
    ("models.probe", "from observability import logs\n", "the data floor imports the observability floor above"),
    ("pipeline.infrastructure.probe", "from ..stages import fallback\n",
     "imports pipeline.stages.fallback: the infrastructure floor imports the stages floor above it"),
    ("api.probe", "import console.wiring\n", "imports console.wiring: a door never imports another door"),
])
def test_an_arrow_up_is_named(module, source, expected):
    [arrow] = wrong_arrows(module, source, "probe.py")
    assert arrow.startswith("probe.py:1: ") and expected in arrow


def test_imports_down_and_inside_a_floor_pass():
    source = "from pipeline.domain import statuses\nfrom models.db import utcnow\nfrom . import sending\n"
    assert list(wrong_arrows("workers.probe", source, "workers/probe.py")) == []
    assert list(wrong_arrows("pipeline.domain", "from .recipients import phone\n", "x", package=True)) == []


def test_the_vocabularys_defaults_are_the_stored_ones():
    # The vocabulary keeps its own copy, since it may not import the models (see above).
    from models.appearance import DEFAULT_LANGUAGE
    from models.service import DEFAULT_TIME_ZONE
    from pipeline.domain import i18n, wall_clock

    assert (i18n.DEFAULT_LANGUAGE, wall_clock.DEFAULT_TIME_ZONE) == (DEFAULT_LANGUAGE, DEFAULT_TIME_ZONE)
