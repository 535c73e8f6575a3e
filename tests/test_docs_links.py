"""The README and the pages under docs/ point at things that exist: every relative link at a file
(and, for a page, at one of its headings), every repository path they name in code spans at a file
or folder of the tree. A page that names a moved module fails here instead of misleading a reader."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "decisions").glob("*.md"))]
_FENCED = re.compile(r"```.*?```", re.DOTALL)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)  # a run of backticks closes a span


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation other than hyphens and underscores dropped, spaces to hyphens.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCED.sub("", page.read_text())
    return {_slug(match) for match in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def _top_level_folders() -> set[str]:
    # Only folders the repository holds: `instance/` and other run-time folders come and go with the
    # machine, and a path under them is named for the reader, not promised to be in the tree.
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {line.split("/")[0] for line in tracked.splitlines() if "/" in line}


def _exists(path: str) -> bool:
    # `pipeline/stages/dispatch.send` names a module's function: the module is what must exist.
    candidates = [path, path.rstrip("/"), path.rsplit(".", 1)[0] + ".py", path.rsplit(".", 1)[0]]
    return any((ROOT / candidate).exists() for candidate in candidates)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_heading(page):
    broken = []
    for target in _LINK.findall(_FENCED.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in _anchors(linked)):
            broken.append(target)
    assert not broken, f"{page.name} links to what does not exist: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_repository_path_named_exists(page):
    folders = _top_level_folders()
    missing = []
    for _ticks, span in _CODE_SPAN.findall(_FENCED.sub("", page.read_text())):
        for token in re.findall(r"[\w./-]+", span):
            if "/" not in token or token.split("/")[0] not in folders:
                continue
            if not _exists(token):
                missing.append(token)
    assert not missing, f"{page.name} names paths that are not in the tree: {missing}"
