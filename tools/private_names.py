"""Third-party libraries are used through their public names only: a private name may change in any
release, and an upgrade would break the service with no test the wiser. `python3 dev.py lint` runs
this beside ruff, whose SLF001 finds `anything._name` outside tests; this finds what ruff cannot tell
apart, each as file:line and the name.

Which libraries: every module a file imports that is neither the standard library nor the project's
own (a top-level module or package of this repository). The list is read from the imports themselves,
so a library is covered the day the code first imports it; a hand list goes stale, and the lock names
distributions (`PyJWT`, `pillow`), not the modules the code imports (`jwt`, `PIL`).

Which names are private: one underscore in front (`_x`, `__x`), and dunder-like names (`__x__`) that
Python itself does not define. The language reserves those: "any use of `__*__` names, in any
context, that does not follow explicitly documented use, is subject to breakage without warning"
(The Python Language Reference, 2.3.2 Reserved classes of identifiers). Python's own are read from the
interpreter (the names its built-in, abstract and operator types and functions carry) plus the few
the reference documents that none of them carries; a library's documented name is in DOCUMENTED.

What is found:
- a module path of a library with a private part (`from pypdf.generic._font import Font`), or a
  private name imported from one (`from peewee import _x`);
- a private attribute of a library's module, of a name imported from it (`peewee._x`), or of a
  parameter or variable annotated with a library's class (`form: FlaskForm` ... `form._fields`);
- a dunder-like private name anywhere, on any object or as a keyword argument (`row.__data__`,
  `Model(__no_default__=1)`): no project code defines one, so it can only be a library's;
- in a class deriving from a library's class, a method that overrides a private one of that class,
  `self._x` reading one the class does not define itself, and `super()._x`. The base classes are
  imported to see what they hold, so the check runs where the libraries are installed.

Usage: python tools/private_names.py [FILE_OR_DIRECTORY ...]   (the whole tree when none are given)
"""
from __future__ import annotations

import ast
import builtins
import collections
import collections.abc
import contextlib
import importlib
import operator
import os
import sys
import types
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_DIRECTORIES = frozenset({".venv", "node_modules", ".git", "instance", "__pycache__"})
# Public despite the underscore: peewee's documentation sends a model's metadata to `Model._meta`.
DOCUMENTED = frozenset({"_meta"})
# Python's own dunders that no built-in type or function carries until code defines them: module
# attributes (reference 5.4 "Module specs", 7.11 `__all__`; PEP 8 "Module level dunder names"), and
# hooks of the data model (3.3), dataclasses, copy, pickle, exception notes and the buffer protocol.
PYTHON_DEFINED = frozenset({
    "__all__", "__file__", "__cached__", "__path__", "__version__", "__author__",
    "__getattr__", "__match_args__", "__post_init__", "__deepcopy__", "__getnewargs_ex__", "__notes__",
    "__buffer__", "__release_buffer__", "__type_params__",
})
GETTERS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
# Python's standard library, with typeshed's stubs of it: `_typeshed` exists for type checkers only, and
# typeshed documents importing from it under `if TYPE_CHECKING:` (stdlib/_typeshed/README.md).
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names) | {"_typeshed"}


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _python_dunders() -> frozenset[str]:
    """The dunders the interpreter itself carries: on its built-in, `types`, collections' and abstract
    context-manager classes, and the names of the builtins and operator modules."""
    modules = (builtins, operator)
    holders = [value for module in (builtins, types, collections, collections.abc) for value in vars(module).values()
               if isinstance(value, type)]
    holders += [contextlib.AbstractContextManager, contextlib.AbstractAsyncContextManager, os.PathLike]
    names = {name for holder in holders for name in dir(holder)} | {name for m in modules for name in vars(m)}
    return frozenset(name for name in names if _dunder(name)) | PYTHON_DEFINED


PYTHON_DUNDERS = _python_dunders()


def is_private(name: str) -> bool:
    """`_x`, `__x` and a dunder Python does not define (`__data__`), unless a library documents it."""
    if name in DOCUMENTED:
        return False
    return name not in PYTHON_DUNDERS if _dunder(name) else name.startswith("_")


def own_modules(root: Path = ROOT) -> frozenset[str]:
    """The top-level modules and packages of the project: what an import that is not a library's names."""
    return frozenset(path.stem if path.is_file() else path.name for path in root.iterdir()
                     if (path.is_file() and path.suffix == ".py") or
                     (path.is_dir() and path.name not in SKIPPED_DIRECTORIES and any(path.glob("*.py"))))


OWN = own_modules()


def library(module: str) -> str | None:
    """The third-party library a module path belongs to: its top-level name, when it is not Python's
    standard library and not one of the project's own modules."""
    top = module.split(".")[0]
    return None if top in STANDARD_LIBRARY or top in OWN else top


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.findings: list[tuple[int, str, str]] = []  # line, private name, how it is used
        # A name the file binds to a library's module or object -> the library, and the object's module
        # and name within it (empty for a module) to import it by.
        self.bound: dict[str, tuple[str, str, str]] = {}
        # Per function being visited: its names annotated with a library's class -> that library.
        self.scopes: list[dict[str, str]] = []

    def _find(self, node: ast.AST, name: str, how: str) -> None:
        self.findings.append((getattr(node, "lineno", 0), name, how))

    def _module(self, node: ast.AST, module: str, owner: str) -> None:
        for part in module.split("."):
            if is_private(part):
                self._find(node, part, f"a private module of {owner} ({module})")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if owner := library(alias.name):
                self._module(node, alias.name, owner)
                bound = alias.asname or alias.name.split(".")[0]
                self.bound[bound] = (owner, alias.name if alias.asname else bound, "")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module or not (owner := library(node.module)):
            return
        self._module(node, node.module, owner)
        for alias in node.names:
            if is_private(alias.name):
                self._find(node, alias.name, f"imported from {node.module}")
            self.bound[alias.asname or alias.name] = (owner, node.module, alias.name)

    def _library_of(self, node: ast.expr) -> str | None:
        """The library a name or dotted name (`peewee.Model`) comes from, or whose class annotates it."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        for scope in reversed(self.scopes):
            if node.id in scope:
                return scope[node.id]
        return self.bound[node.id][0] if node.id in self.bound else None

    def _annotated(self, annotation: ast.expr | None) -> str | None:
        """The library whose class an annotation names (`FlaskForm`, `wtforms.Form | None`)."""
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self._annotated(annotation.left) or self._annotated(annotation.right)
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                return self._annotated(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return None
        return self._library_of(annotation) if isinstance(annotation, ast.Name | ast.Attribute) else None

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        scope = {argument.arg: owner for argument in every
                 if argument and (owner := self._annotated(argument.annotation))}
        self.scopes.append(scope)
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self.scopes and isinstance(node.target, ast.Name) and (owner := self._annotated(node.annotation)):
            self.scopes[-1][node.target.id] = owner
        self.generic_visit(node)

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

    def _attribute(self, node: ast.AST, value: ast.expr, name: str) -> None:
        if not is_private(name):
            return
        if owner := self._library_of(value):
            self._find(node, name, f"an attribute of {owner}'s {ast.unparse(value)}")
        elif _dunder(name):
            self._find(node, name, f"a dunder Python does not define, read on {ast.unparse(value)}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._attribute(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, GETTERS) and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            self._attribute(node, node.args[0], node.args[1].value)
        for keyword in node.keywords:
            if keyword.arg and _dunder(keyword.arg) and is_private(keyword.arg):
                self._find(keyword, keyword.arg, f"a dunder Python does not define, passed to {ast.unparse(node.func)}")
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = [(base, owner) for base in node.bases if (owner := self._library_of(base))]
        if bases:
            self._subclass(node, bases)
        self.generic_visit(node)

    def _subclass(self, node: ast.ClassDef, bases: list[tuple[ast.expr, str]]) -> None:
        classes = [self._class(base) for base, _ in bases]
        owner = bases[0][1]
        title = f"{node.name}({', '.join(ast.unparse(base) for base in node.bases)}), a class of {owner}"
        own = _own_names(node)

        def held(name: str) -> bool:
            # A base that cannot be imported (the library is not installed) is taken to hold every name.
            return any(found is None or hasattr(found, name) for found in classes)

        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and is_private(item.name) and held(item.name):
                self._find(item, item.name, f"overridden in {title}")
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Attribute) or not is_private(inner.attr) or _dunder(inner.attr):
                continue  # a dunder is found wherever it is read
            value = inner.value
            if isinstance(value, ast.Call) and _named(value.func, {"super"}):
                self._find(inner, inner.attr, f"super()'s in {title}")
            elif _named(value, {"self"}) and inner.attr not in own and held(inner.attr):
                self._find(inner, inner.attr, f"the library's, read in {title}")


def _named(node: ast.expr, names: frozenset[str] | set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _own_names(node: ast.ClassDef) -> set[str]:
    """The methods a class defines and the attributes it sets on self: its own, not its bases'."""
    own = {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
    for inner in ast.walk(node):
        targets = inner.targets if isinstance(inner, ast.Assign) else \
            [inner.target] if isinstance(inner, ast.AnnAssign | ast.AugAssign) else []
        own |= {target.attr for target in targets
                if isinstance(target, ast.Attribute) and _named(target.value, {"self"})}
    return own


def findings(source: str, file_name: str = "<source>") -> list[str]:
    """Each private library name the source uses, as `file:line: name ...`, in line order."""
    finder = _Finder()
    finder.visit(ast.parse(source, file_name))
    return [f"{file_name}:{line}: `{name}` is private: {how}" for line, name, how in sorted(set(finder.findings))]


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
        print(f"{len(found)} private name(s) of third-party libraries: use their public API instead")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
