"""The lint check that no private name of dramatiq, peewee (playhouse), openpyxl, flask, werkzeug, gunicorn
or redis is used (tools/private_names.py), fed sample code: each way of reaching a private name fails
with its file:line and the name; public names, dunders, peewee's documented `_meta`, and the project's
own private helpers in a library's subclass pass."""
from __future__ import annotations

import textwrap

import pytest

from tools.private_names import findings, main

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
    "peewee's documented _meta": "import peewee\n\nclass M(peewee.Model):\n    pass\n\nM._meta.table_name\n",
    "another library's private": "import gettext\ngettext._translations\nfrom json import _default_encoder\n",
    "the project's own private modules": "from pipeline.stages.jobs._x import y\nfrom . import _z\n",
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
    assert len(out) == 2 and out[1].startswith("1 private name(s) of dramatiq, flask, gunicorn")
