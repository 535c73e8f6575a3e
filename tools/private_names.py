"""The libraries the service leans on hardest are used through their public names only: a private name
(one underscore in front) may change in any release, and an upgrade would break the service with no
test the wiser. `python3 dev.py lint` runs this beside ruff, whose SLF001 finds `anything._name`
outside tests; this finds what ruff cannot tell apart, each as file:line and the name:

- a module path of those libraries with a private part (`from openpyxl.worksheet._reader import X`),
  or a private name imported from one (`from peewee import _x`);
- a private attribute of one of their modules or of a name imported from them (`peewee._x`, even
  where ruff is told to let a name pass);
- in a class deriving from one of their classes, a method that overrides a private one of the
  library's class, `self._x` reading one the class does not define itself, and `super()._x`. The base
  classes are imported to see what they hold, so the check runs where the libraries are installed.

Usage: python tools/private_names.py [FILE_OR_DIRECTORY ...]   (the whole tree when none are given)
"""
from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

LIBRARIES = frozenset({"dramatiq", "peewee", "playhouse", "openpyxl", "flask", "werkzeug", "gunicorn", "redis"})
ROOT = Path(__file__).resolve().parent.parent
# Public despite the underscore: peewee's documentation sends a model's metadata to `Model._meta`.
DOCUMENTED = frozenset({"_meta"})
SKIPPED_DIRECTORIES = frozenset({".venv", "node_modules", ".git", "instance", "__pycache__"})


def is_private(name: str) -> bool:
    """`_x` and `__x`, not the dunders every object has (`__init__`, `__version__`) nor DOCUMENTED."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in DOCUMENTED


def _library(module: str) -> str | None:
    top = module.split(".")[0]
    return top if top in LIBRARIES else None


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.findings: list[tuple[int, str, str]] = []  # line, private name, how it is used
        # A name the file binds to a library's module or object -> the library, and the object's module
        # and name within it (empty for a module) to import it by.
        self.bound: dict[str, tuple[str, str, str]] = {}

    def _find(self, node: ast.AST, name: str, how: str) -> None:
        self.findings.append((getattr(node, "lineno", 0), name, how))

    def _module(self, node: ast.AST, module: str, library: str) -> None:
        for part in module.split("."):
            if is_private(part):
                self._find(node, part, f"a private module of {library} ({module})")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if library := _library(alias.name):
                self._module(node, alias.name, library)
                bound = alias.asname or alias.name.split(".")[0]
                self.bound[bound] = (library, alias.name if alias.asname else bound, "")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module or not (library := _library(node.module)):
            return
        self._module(node, node.module, library)
        for alias in node.names:
            if is_private(alias.name):
                self._find(node, alias.name, f"imported from {node.module}")
            self.bound[alias.asname or alias.name] = (library, node.module, alias.name)

    def _library_of(self, node: ast.expr) -> str | None:
        """The library a name or dotted name (`peewee.Model`) comes from, if it is one of them."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return self.bound[node.id][0] if isinstance(node, ast.Name) and node.id in self.bound else None

    def _class(self, node: ast.expr) -> object | None:
        """The library's class a base names, imported; None when it cannot be."""
        names: list[str] = []
        while isinstance(node, ast.Attribute):
            names.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.bound:
            return None
        _, module, name = self.bound[node.id]
        try:
            found: object = importlib.import_module(module)
            for attribute in ([name] if name else []) + names:
                found = getattr(found, attribute)
        except (ImportError, AttributeError):
            return None
        return found

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if is_private(node.attr) and (library := self._library_of(node.value)):
            self._find(node, node.attr, f"an attribute of {library}'s {ast.unparse(node.value)}")
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = [(base, library) for base in node.bases if (library := self._library_of(base))]
        if bases:
            self._subclass(node, bases)
        self.generic_visit(node)

    def _subclass(self, node: ast.ClassDef, bases: list[tuple[ast.expr, str]]) -> None:
        classes = [self._class(base) for base, _ in bases]
        library = bases[0][1]
        title = f"{node.name}({', '.join(ast.unparse(base) for base in node.bases)}), a class of {library}"
        own = _own_names(node)

        def held(name: str) -> bool:
            # A base that cannot be imported (the library is not installed) is taken to hold every name.
            return any(found is None or hasattr(found, name) for found in classes)

        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and is_private(item.name) and held(item.name):
                self._find(item, item.name, f"overridden in {title}")
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Attribute) or not is_private(inner.attr):
                continue
            value = inner.value
            if isinstance(value, ast.Call) and _named(value.func, "super"):
                self._find(inner, inner.attr, f"super()'s in {title}")
            elif _named(value, "self") and inner.attr not in own and held(inner.attr):
                self._find(inner, inner.attr, f"the library's, read in {title}")


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _own_names(node: ast.ClassDef) -> set[str]:
    """The methods a class defines and the attributes it sets on self: its own, not its bases'."""
    own = {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
    for inner in ast.walk(node):
        targets = inner.targets if isinstance(inner, ast.Assign) else \
            [inner.target] if isinstance(inner, ast.AnnAssign | ast.AugAssign) else []
        own |= {target.attr for target in targets if isinstance(target, ast.Attribute) and _named(target.value, "self")}
    return own


def findings(source: str, file_name: str = "<source>") -> list[str]:
    """Each private library name the source uses, as `file:line: name ...`, in line order."""
    finder = _Finder()
    finder.visit(ast.parse(source, file_name))
    return [f"{file_name}:{line}: `{name}` is private: {how}" for line, name, how in sorted(finder.findings)]


def python_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_file():
            yield path
            continue
        for found in sorted(path.rglob("*.py")):
            if not SKIPPED_DIRECTORIES.intersection(found.relative_to(path).parts):
                yield found


def main(arguments: list[str]) -> int:
    paths = [Path(argument) for argument in arguments] or [ROOT]
    found = [finding for file in python_files(paths)
             for finding in findings(file.read_text(encoding="utf-8"), str(file.relative_to(ROOT)
                                                                            if file.is_relative_to(ROOT) else file))]
    for finding in found:
        print(finding)
    if found:
        print(f"{len(found)} private name(s) of {', '.join(sorted(LIBRARIES))}: use their public API instead")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
