"""The release is written once (version.py), in semantic versioning, and CHANGELOG.md's newest release
is that one; every release there starts with its upgrade notes."""
from __future__ import annotations

import re
from pathlib import Path

from version import __version__

ROOT = Path(__file__).resolve().parent.parent


def test_the_release_is_a_semantic_version():
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", __version__)


def test_the_changelog_s_newest_release_is_this_one_and_every_release_has_upgrade_notes():
    text = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
    assert releases[0] == __version__
    assert releases == sorted(releases, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    for section in re.split(r"^## \[\d+\.\d+\.\d+\] .*$", text, flags=re.MULTILINE)[1:]:
        assert re.search(r"\A(?:\n.*)*?\n### Upgrade notes\n", section), section[:200]
    assert "## [Unreleased]" in text
