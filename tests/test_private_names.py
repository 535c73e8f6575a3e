"""The lint check that no private name of a third-party library is used (tools/private_names.py), fed
sample code: each way of reaching a private name fails with its file:line and the name; public names,
Python's own dunders, peewee's documented `_meta`, the standard library's and the project's own
private names pass. The libraries are every module imported that is neither the standard library nor
the project's own, so a library no list names is covered too."""
from __future__ import annotations

import textwrap

import pytest

from tools.private_names import PYTHON_DUNDERS, findings, library, main, own_modules

FAILING = {
    "a private module path": ("from openpyxl.worksheet._reader import WorkSheetParser\n", 1, "_reader"),
    "a private module imported whole": ("import x\nimport werkzeug._internal as internal\n", 2, "_internal"),
    "a private name imported": ("from peewee import _ConnectionState\n", 1, "_ConnectionState"),
    "a private name of playhouse": ("from playhouse.pool import _sentinel\n", 1, "_sentinel"),
    "a module's private attribute": ("import redis\n\nredis._x = 1\n", 3, "_x"),
    "a submodule's private attribute": ("from dramatiq.middleware import prometheus\n"
                                        "handler = prometheus._metrics_handler\n", 2, "_metrics_handler"),
    "a private attribute of an imported class": ("from flask import Flask\nFlask._find_error_handler\n", 2,
                                                 "_find_error_handler"),
    "a private method overridden": ("""\
        from playhouse.pool import PooledPostgresqlDatabase


        class Pool(PooledPostgresqlDatabase):
            def _is_closed(self, conn):
                return False
        """, 5, "_is_closed"),
    "a base's private read through self": ("""\
        import peewee


        class Shared(peewee.PostgresqlDatabase):
            def open(self):
                return self._connect()
        """, 6, "_connect"),
    "a private module of a library (pypdf)": ("from pypdf.generic._font import Font\n", 1, "_font"),
    "a private module of a library no list names": ("import somelib._impl\n", 1, "_impl"),
    "a private attribute of a library no list names": ("import somelib\n\nsomelib.thing._cache\n", 3, "_cache"),
    "a private attribute of a parameter annotated with a library's class": ("""\
        from flask_wtf import FlaskForm


        def check(form: FlaskForm) -> list:
            return [form._fields.get("name")]
        """, 5, "_fields"),
    "a private attribute of a variable annotated with a library's class": ("""\
        import wtforms


        def check(made):
            form: wtforms.Form | None = made()
            return form._fields
        """, 6, "_fields"),
    "a library's private attribute read through getattr": (
        "import dramatiq\n\n\ndef f(message: dramatiq.Message):\n    return getattr(message, '_exception', None)\n",
        5, "_exception"),
    "a dunder-like private name read on any object": ("def f(row):\n    return row.__data__.get('id')\n", 2,
                                                      "__data__"),
    "a dunder-like private name set on any object": ("def f(row, data):\n    row.__data__ = data\n", 2, "__data__"),
    "a dunder-like private name passed as a keyword": ("def f(model):\n    return model(__no_default__=1)\n", 2,
                                                       "__no_default__"),
    "a dunder-like private name imported from a library": ("from peewee import __deferred__\n", 1,
                                                           "__deferred__"),
    "a private method of a library's class overridden": ("""\
        from urllib3.connection import HTTPConnection


        class Checked(HTTPConnection):
            def _new_conn(self):
                return None
        """, 5, "_new_conn"),
    "a base's private through super()": ("""\
        from gunicorn.workers.ggevent import GeventWorker


        class Worker(GeventWorker):
            def run(self):
                super()._own_helper()
        """, 6, "_own_helper"),
}

PASSING = {
    "public names": "import dramatiq\nfrom openpyxl import load_workbook\nfrom redis.exceptions import NoScriptError\n",
    "dunders": "import flask\nprint(flask.__name__)\nfrom werkzeug import __version__\n",
    "Python's dunders on any object, and as a keyword": """\
        class Shape:
            __slots__ = ("a",)

            def __getnewargs__(self):
                return (type(self).__mro__, self.__class__.__qualname__, self.__dict__, self.__post_init__)

            def __enter__(self):
                return super().__init_subclass__()
        print(__file__, __name__, __doc__, Shape().__exit__, Shape().__aenter__)
        dict(__name__=1)
        """,
    "documented uses of a library's class": """\
        from flask_wtf import FlaskForm


        def check(form: FlaskForm) -> list:
            return [form[name].data for name in ("name", "email") if name in form]
        """,
    "typeshed's types for type checkers": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                          "    from _typeshed import ReadableBuffer\n",
    "a public method of a library's class overridden": """\
        from urllib3.connection import HTTPConnection


        class Checked(HTTPConnection):
            def connect(self):
                self.host = "192.0.2.1"
                return super().connect()
        """,
    "peewee's documented _meta": "import peewee\n\nclass M(peewee.Model):\n    pass\n\nM._meta.table_name\n",
    "another library's private": "import gettext\ngettext._translations\nfrom json import _default_encoder\n",
    "the project's own private modules": "from pipeline.stages.jobs._x import y\nfrom . import _z\n"
                                         "import workers\nworkers._wired\n",
    "own private helpers and attributes in a library's subclass": """\
        from dramatiq.middleware import Middleware


        class Registry(Middleware):
            def __init__(self):
                self._beats = 0

            def _beat(self):
                self._beats += 1
                return self._beat
        """,
}


def test_the_libraries_are_what_is_imported_that_is_neither_the_standard_library_nor_the_projects_own():
    assert {"api", "console", "core", "models", "pipeline", "workers", "tools", "tests", "config"} <= own_modules()
    assert {library(module) for module in ("pypdf.generic", "urllib3.connection", "wtforms", "flask_wtf.form",
                                            "peewee", "dramatiq.common", "reportlab.pdfgen.canvas")} == \
        {"pypdf", "urllib3", "wtforms", "flask_wtf", "peewee", "dramatiq", "reportlab"}
    assert {library(module) for module in ("json", "os.path", "_thread", "_typeshed", "workers.actors",
                                            "pipeline.infrastructure.outbound", "config")} == {None}


def test_pythons_own_dunders_are_read_from_the_interpreter_and_a_librarys_are_not_among_them():
    assert {"__init__", "__enter__", "__aexit__", "__fspath__", "__matmul__", "__class_getitem__", "__set_name__",
            "__missing__", "__version__", "__all__", "__file__", "__slots__", "__post_init__"} <= PYTHON_DUNDERS
    assert {"__data__", "__no_default__", "__rel__", "__html__"}.isdisjoint(PYTHON_DUNDERS)


@pytest.mark.parametrize("case", FAILING, ids=list(FAILING))
def test_a_private_library_name_is_found_with_its_line_and_name(case):
    source, line, name = FAILING[case]
    found = findings(textwrap.dedent(source), "sample.py")
    assert len(found) == 1, found
    assert found[0].startswith(f"sample.py:{line}: `{name}` is private: ")


@pytest.mark.parametrize("case", PASSING, ids=list(PASSING))
def test_public_names_and_the_projects_own_private_names_pass(case):
    assert findings(textwrap.dedent(PASSING[case]), "sample.py") == []


def test_the_check_fails_on_a_tree_with_one_and_passes_on_one_without(tmp_path, capsys):
    clean, dirty = tmp_path / "clean", tmp_path / "dirty"
    (clean / "pkg").mkdir(parents=True)
    (dirty / "pkg").mkdir(parents=True)
    (clean / "pkg" / "a.py").write_text("import openpyxl\nopenpyxl.load_workbook\n")
    (dirty / "pkg" / "a.py").write_text("import openpyxl\nopenpyxl.load_workbook\n")
    (dirty / "pkg" / "b.py").write_text("\nfrom openpyxl.worksheet._read_only import ReadOnlyWorksheet\n")
    (dirty / ".venv").mkdir()
    (dirty / ".venv" / "c.py").write_text("from peewee import _x\n")  # installed code is not ours

    assert main([str(clean)]) == 0
    assert capsys.readouterr().out == ""
    assert main([str(dirty)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{dirty / 'pkg' / 'b.py'}:2: `_read_only` is private: "
                      "a private module of openpyxl (openpyxl.worksheet._read_only)")
    assert out[1:] == ["1 private name(s) of third-party libraries: use their public API instead"]
