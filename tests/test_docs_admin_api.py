"""docs/admin-api.md is what docs/build_admin_api.py makes of the running app's /openapi.json, so
the committed reference cannot drift from the routes and schemas it describes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BUILDER = Path(__file__).resolve().parent.parent / "docs" / "build_admin_api.py"


def _builder():
    spec = importlib.util.spec_from_file_location("build_admin_api", BUILDER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_admin_api_page_is_what_the_script_generates_now(client):
    builder = _builder()
    document = client.get("/openapi.json").get_json()
    assert builder.PAGE.read_text() == builder.render(document), (
        "docs/admin-api.md is out of date: run .venv/bin/python docs/build_admin_api.py and commit it")


def test_the_page_lists_every_admin_operation(client):
    page = _builder().PAGE.read_text()
    document = client.get("/openapi.json").get_json()
    for path, operations in document["paths"].items():
        if path.startswith("/admin/"):
            for method in operations:
                assert f"### `{method.upper()} {path}`" in page
